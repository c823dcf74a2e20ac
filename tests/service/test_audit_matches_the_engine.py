"""The service and the audit run the same table protocol: a game played over HTTP and
the same game made by `engine.table` alone give the same log, byte for byte, and the
same verdict — for a game dealt at once and one that waited for a joiner, in each game."""

import random

import pytest

from replays.audit import audit_export
from tests.replays.exports import build_batches, chain, keys_of, text
from tests.service.helpers import auth, move, view

CASES = {
    "rummy dealt at once": ("rummy", "block", {"game_end": "deals", "deals": 1}, False),
    "rummy with a joiner": ("rummy", "pagat", {"game_end": "deals", "deals": 1}, True),
    "spades dealt at once": ("spades", "pairs", {"max_hands": 1}, False),
    "spades with a joiner": ("spades", "solo", {"max_hands": 1}, True),
}


def play_over_http(client, game, preset, options, waiting, rng):
    """Create (and, when `waiting`, fill the last seat by joining), then play random legal
    moves to the end; the seated commands in order."""
    players = 4 if game == "spades" else 2
    names = [f"p{seat}" for seat in range(players)]
    seats = [{"name": name, "client_seed": f"{name}'s seed"} for name in names]
    if waiting:
        seats[-1] = {"open": True}
    body = {
        "game": game,
        "preset": preset,
        "seed": f"parity {game} {preset}",
        "options": {"first_dealer": 0, **options},
        "seats": seats,
    }
    created = client.post("/games", json=body).get_json()
    game_id = created["id"]
    tokens = [seat.get("token") for seat in created["seats"]]
    if waiting:
        joined = client.post(
            f"/games/{game_id}/join", json={"name": names[-1], "client_seed": f"{names[-1]}'s seed"}
        )
        tokens[-1] = joined.get_json()["token"]
    commands = []
    while (shown := view(client, game_id))["status"] != "finished":
        turn = shown["turn"]
        mine = client.get(f"/games/{game_id}", headers=auth(tokens[turn])).get_json()
        command = rng.choice(mine["you"]["legal_moves"])
        assert move(client, game_id, tokens[turn], command).status_code == 200
        commands.append({**command, "seat": turn})
    return game_id, names, commands


@pytest.mark.parametrize("case", CASES)
def test_the_service_and_the_engine_alone_give_one_log_and_one_verdict(client, case):
    game, preset, options, waiting = CASES[case]
    game_id, names, commands = play_over_http(
        client, game, preset, options, waiting, random.Random(case)
    )
    served = client.get(f"/games/{game_id}/export").get_data(as_text=True)
    batches = build_batches(
        server_seed=f"parity {game} {preset}",
        players=len(names),
        moves=commands,
        preset=preset,
        options={"first_dealer": 0, **options},
        client_seeds=[f"{name}'s seed" for name in names],
        game=game,
        waiting=waiting,
        seed_source="client",  # the test chose the server seed (a testing server)
        seats=[{"name": name} for name in names],
    )
    alone = text(game_id, chain(game_id, batches), game, keys_of(served))
    assert served == alone
    verdicts = [audit_export(export.splitlines()) for export in (served, alone)]
    assert verdicts[0].as_dict() == verdicts[1].as_dict()
    assert verdicts[0].ok and verdicts[0].finished, verdicts[0].first_bad
    assert not verdicts[0].provably_fair and verdicts[0].seed_source == "client"
    assert client.get(f"/games/{game_id}/audit").get_json() == verdicts[0].as_dict()
