"""Examples of the main bodies, for the OpenAPI document.

Made from the registry (the default game, its first preset and bot), so they name no
game's rules; tests/service/test_contract_http.py holds each to its schema.
"""

from typing import Any

from engine import games

_GAME = games.get(games.DEFAULT_GAME)
_PRESET = _GAME.presets[0] if _GAME.presets else None
_BOT = next(iter(_GAME.bots), None)
_ID = "Hk2QvXj3FFGT"
_HASH = "ba4559dd1d9820663e6874040f64d1b2cb5c9210e648d26bce3f9626a8bc5d5c"
_COMMITMENT = "706e152ff39e6543f490a092777b44432c527d839604d86e66296d586d0a086a"


def _receipt(version: int) -> dict[str, Any]:
    return {
        "game": _ID,
        "version": version,
        "hash": _HASH,
        "key_id": "169c1da080126a5f",
        "signature": "52cc6060e995c51e5cdbebfd6cb67f39404b3559cb9293255e8e920a894ec299"
        "44ff2fae56408581cf3ba03b22f3e8caee5663ec88cb35f73496527df077440e",
    }


_players = [{"name": "ann"}, {"bot": _BOT} if _BOT else {"name": "bob"}]
CREATE = {
    "two_players": {
        "summary": "Two seats, each a player (or a bot)",
        "value": {"game": _GAME.name, "preset": _PRESET, "seats": _players},
    },
    "open_seat": {
        "summary": "A table with an open seat for someone to join",
        "value": {"seats": [{"name": "ann", "client_seed": "my own seed"}, {"open": True}]},
    },
}
CREATED = {
    "id": _ID,
    "version": 1,
    "status": "waiting",
    "seats": [
        {
            "seat": 0,
            "name": "ann",
            "label": "ann",
            "token": "JiZ4rFNEBoDNvHf-LtY7zi78FebtANK5K-bNCgJOeyo",
        },
        {"seat": 1, "open": True, "label": "Seat 2 (open)"},
    ],
    "seed_commitment": _COMMITMENT,
    "seed_source": "server",
    "receipt": _receipt(1),
}
JOIN = {"taking_a_seat": {"summary": "Take the first open seat", "value": {"name": "bob"}}}
JOINED = {
    "seat": 1,
    "token": "pjYAgCrW28YhjgMe1b7YaMfSQdghqw0Z_NB8CPNeyaQ",
    "version": 3,
    "seed_commitment": _COMMITMENT,
    "receipt": _receipt(3),
}
VIEW = {
    "id": _ID,
    "game": _GAME.name,
    "preset": _PRESET,
    "options": {"first_dealer": None},
    "status": "playing",
    "version": 3,
    "players": 2,
    "seats": [
        {"seat": 0, "name": "ann", "label": "ann", "hand_count": 10, "score": 0},
        {"seat": 1, "name": "bob", "label": "bob", "hand_count": 10, "score": 0},
    ],
    "hand_number": 1,
    "hands_played": 0,
    "dealer": 0,
    "turn": 1,
    "scores": [0, 0],
    "seed_commitment": _COMMITMENT,
    "seed_source": "server",
    "receipt": _receipt(3),
}
EVENTS = {
    "version": 3,
    "events": [
        {
            "type": "hand_dealt",
            "v": 1,
            "hand": 1,
            "dealer": 0,
            "version": 3,
            "description": "Hand 1 was dealt by ann.",
        }
    ],
    "receipt": _receipt(3),
}
