"""Small HTTP helpers shared by the service tests."""

import random
import re
from typing import Any

from engine.cards import SUIT_SYMBOLS, VALID_CARDS

PROBLEM_FIELDS = {"type", "title", "status", "detail", "code"}


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def create_game(
    client,
    seed: str = "service tests",
    names: tuple[str, ...] = ("ann", "bob"),
    options: dict[str, Any] | None = None,
    preset: str | None = None,
    seats: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """POST /games (first dealer 0 unless told otherwise); returns the 201 body."""
    body: dict[str, Any] = {
        "seats": seats if seats is not None else [{"name": name} for name in names],
        "seed": seed,
        "options": {"first_dealer": 0, **(options or {})},
        **extra,
    }
    if preset is not None:
        body["preset"] = preset
    response = client.post("/games", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def tokens(created: dict[str, Any]) -> list[str | None]:
    return [seat.get("token") for seat in created["seats"]]


def move(client, game_id: str, token: str | None, command: dict[str, Any], **headers: str):
    """POST /games/{id}/moves with the seat's bearer token (and any extra headers)."""
    wanted = {**auth(token), **{k.replace("_", "-"): v for k, v in headers.items()}}
    return client.post(f"/games/{game_id}/moves", json=command, headers=wanted)


def view(client, game_id: str, token: str | None = None) -> dict[str, Any]:
    response = client.get(f"/games/{game_id}", headers=auth(token))
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def events(client, game_id: str, token: str | None = None, after: int = 0) -> dict[str, Any]:
    response = client.get(f"/games/{game_id}/events?after={after}", headers=auth(token))
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def play_random_move(client, game_id: str, toks: list[str | None], rng: random.Random):
    """The seat whose turn it is plays a random move from its own legal_moves.

    Returns (seat, command, response body)."""
    turn = view(client, game_id)["turn"]
    mine = view(client, game_id, toks[turn])
    command = rng.choice(mine["you"]["legal_moves"])
    response = move(client, game_id, toks[turn], command)
    assert response.status_code == 200, response.get_json()
    return turn, command, response.get_json()


def play_to_the_end(client, game_id: str, toks: list[str | None], rng: random.Random) -> int:
    """Random legal moves until the game is finished; returns the number of moves."""
    moves = 0
    while view(client, game_id)["status"] != "finished":
        play_random_move(client, game_id, toks, rng)
        moves += 1
        assert moves < 2000, "the game did not finish"
    return moves


def assert_problem(response, status: int, code: str | None = None) -> dict[str, Any]:
    """A problem+json answer with every required member, the given status and code."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert set(body) >= PROBLEM_FIELDS, body
    assert body["status"] == status
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    assert body["type"].endswith(body["code"])
    if code is not None:
        assert body["code"] == code, body
    return body


_SUIT_OF_SYMBOL = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}
_CARD_IN_TEXT = re.compile(r"(?<![0-9A-Z])(10|[A2-9JQK])([♣♦♥♠])")


def cards_in(value: Any) -> set[str]:
    """Every card in a JSON value (at any depth): a card string, or a card written
    with its suit symbol in a sentence ("bob drew 7♥")."""
    if isinstance(value, str):
        if value in VALID_CARDS:
            return {value}
        return {rank + _SUIT_OF_SYMBOL[symbol] for rank, symbol in _CARD_IN_TEXT.findall(value)}
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()
