"""A whole hand over HTTP, by two token holders, checked against the engine in-process."""

import json
import random

from engine import games, ledger, table
from service.store import EventStore
from tests.service.helpers import auth, create_game, move, tokens, view

GAME = games.get("rummy")
SEED = "whole hand over http"


def jsonable(value):
    return json.loads(json.dumps(value))


def test_a_whole_hand_over_http_matches_the_engine(client, redis_client):
    created = create_game(client, seed=SEED)
    game_id, toks = created["id"], tokens(created)
    assert created["status"] == "playing"
    at_start = EventStore(redis_client).read(game_id)
    assert [e["type"] for e in at_start] == ["game_created", "players_seated", "hand_dealt"]
    assert created["version"] == 3

    rng = random.Random(7)
    commands = []
    for _ in range(2000):
        views = [view(client, game_id, token) for token in toks]
        turn = views[0]["turn"]
        mine, other = views[turn], views[1 - turn]
        assert mine["you"]["seat"] == turn and other["turn"] == turn
        assert other["you"]["legal_moves"] == []  # nothing to do out of turn
        command = rng.choice(mine["you"]["legal_moves"])
        response = move(client, game_id, toks[turn], command)
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        commands.append({**command, "seat": turn})
        assert body["version"] == mine["version"] + len(body["events"])
        if any(event["type"] == "hand_ended" for event in body["events"]):
            break
    else:
        raise AssertionError("the hand never ended")
    assert len(commands) > 20

    # The same game in-process: same seed, same commands, same events. The service adds
    # the table's own events: the seed commitment and who sat down (no client seeds here).
    key = ledger.deal_key(SEED, [None, None])
    state, (created_event, *dealt) = table.new_game("rummy", 2, key, options={"first_dealer": 0})
    created_event = {
        **created_event,
        "seed_commitment": ledger.commitment(SEED),
        "seed_source": "client",  # the test chose the server seed
    }
    seated = table.players_seated([None, None], seats=[{"name": "ann"}, {"name": "bob"}])
    expected = [created_event, seated, *dealt]
    for command in commands:
        state, new = table.play(GAME, state, command, key)
        expected += new
    stored = EventStore(redis_client).read(game_id)
    assert stored == jsonable(expected)
    assert [e["type"] for e in stored].count("hand_ended") == 1
    assert stored[-1]["type"] == "hand_dealt" and stored[-1]["hand"] == 2  # the next deal

    # The final views equal the engine's views, field by field, for each seat and a spectator.
    tags = set()
    for seat in (0, 1, None):
        token = None if seat is None else toks[seat]
        response = client.get(f"/games/{game_id}", headers=auth(token))
        tags.add(response.headers["ETag"])  # each view is a representation of its own
        got = response.get_json()
        want = jsonable(GAME.view(state, seat))
        for field, value in want.items():
            assert got[field] == value, field
        assert got["version"] == len(expected)
        assert got["id"] == game_id
        assert [s.get("name") for s in got["seats"]] == ["ann", "bob"]
        assert [s["hand_count"] for s in got["seats"]] == want["hand_counts"]
        assert [s["score"] for s in got["seats"]] == want["scores"]
        assert ("you" in got) is (seat is not None)
    assert len(tags) == 3
    assert got["last_hand"]["type"] == "hand_ended"
    assert got["hand_number"] == 2
