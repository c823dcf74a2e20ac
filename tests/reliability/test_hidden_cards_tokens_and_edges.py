"""Hidden cards over many bot-driven games, tokens, byte flips, and bad input at
the edges — in-process app, real Redis."""

import json
import os
import random

import pytest

from engine import games
from replays.audit import audit_export
from service.commands import CreateGame, SeatRequest
from service.store import EventStore
from tests.service.helpers import auth

GAMES = int(os.environ.get("CARDTRAIL_R6_GAMES", "3"))
GAME = games.get("rummy")


def _cards_in(value, found):
    """Every card string anywhere in a JSON value."""
    from engine.cards import VALID_CARDS

    if isinstance(value, str) and value in VALID_CARDS:
        found.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _cards_in(item, found)
    elif isinstance(value, list):
        for item in value:
            _cards_in(item, found)
    return found


def _check_view(view, seat):
    """A view may show the viewer's hand and public cards, nothing else of this hand."""
    public = set(view["discard_pile"]) | {c for m in view["melds"] for c in m["cards"]}
    own = set(view["you"]["hand"]) if seat is not None else set()
    shown = _cards_in(
        {k: v for k, v in view.items() if k not in ("last_hand", "result", "you", "options")}, []
    )
    assert set(shown) <= public, (seat, set(shown) - public)
    if seat is not None:
        assert set(_cards_in(view["you"], [])) <= own | public
    for key in ("hands", "stock", "deck"):
        assert key not in view


def _check_event(event, seat):
    assert "deck" not in event and "shuffle_key" not in event and "stock" not in event
    if event["type"] == "card_drawn" and event["source"] == "stock" and event["seat"] != seat:
        assert "card" not in event
    if event["type"] == "hand_dealt" and seat is None:
        assert "cards" not in event
    if event["type"] == "seed_revealed":
        return
    if event["type"] == "game_created":
        assert "server_seed" not in json.dumps(event)


def _play_one(client, seed):
    """Three seats driven by the engine's bots, each deciding from its own HTTP view."""
    rng = random.Random(seed)
    created = client.post(
        "/games",
        json={
            "preset": rng.choice(["pagat", "block", "wrotham", "classic-online"]),
            "options": {"game_end": "deals", "deals": 1},
            "seats": [{"name": "ann"}, {"name": "bob"}, {"name": "cid"}],
        },
    ).get_json()
    game_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    seen = [0, 0, 0, 0]
    viewers = [*enumerate(tokens), (None, None)]
    levels = ["greedy", "greedy", "random"]
    while True:
        views = {}
        for seat, token in viewers:
            view = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
            _check_view(view, seat)
            views[seat] = view
            index = 3 if seat is None else seat
            feed = client.get(
                f"/games/{game_id}/events?after={seen[index]}", headers=auth(token)
            ).get_json()
            for event in feed["events"]:
                _check_event(event, seat)
            seen[index] = feed["version"]
        if views[None]["status"] == "finished":
            return game_id, tokens
        seat = views[None]["turn"]
        view = views[seat]
        command = GAME.bots[levels[seat]](view, [], rng)
        answer = client.post(f"/games/{game_id}/moves", json=command, headers=auth(tokens[seat]))
        assert answer.status_code == 200, answer.get_json()
        for event in answer.get_json()["events"]:
            _check_event(event, seat)


def test_no_hidden_card_in_any_response_over_many_bot_games(client):
    for seed in range(GAMES):
        _play_one(client, seed)


@pytest.mark.slow
def test_five_hundred_games(client):
    for seed in range(1000, 1500):
        _play_one(client, seed)


def test_wrong_missing_and_other_game_tokens_never_act(client, store):
    first = client.post("/games", json={"seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    second = client.post("/games", json={"seats": [{"name": "c"}, {"name": "d"}]}).get_json()
    before = {g["id"]: store.read_raw(g["id"]) for g in (first, second)}
    moves = [
        {"type": "draw", "source": "stock"},
        {"type": "draw", "source": "discard"},
        {"type": "discard", "card": "KH"},
        {"type": "forfeit"},
    ]
    bad = [(None, 401), ("not-a-token", 401), ("x" * 300, 401), ("", 401)]
    bad += [(s["token"], 403) for s in second["seats"]]
    for token, status in bad:
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        if token == "":
            headers = {"Authorization": "Bearer "}
        for move in moves:
            answer = client.post(f"/games/{first['id']}/moves", json=move, headers=headers)
            assert answer.status_code == status, (token, move, answer.get_json())
            assert answer.content_type == "application/problem+json"
    for scheme in ("Basic abc", "Token x", "bearer"):
        answer = client.post(
            f"/games/{first['id']}/moves", json=moves[0], headers={"Authorization": scheme}
        )
        assert answer.status_code == 401
    assert {g["id"]: store.read_raw(g["id"]) for g in (first, second)} == before


def test_a_thousand_byte_flips_are_all_caught_and_named(client):
    game_id, tokens = _play_one(client, 77)
    lines = client.get(f"/games/{game_id}/export").get_data(as_text=True).splitlines()
    assert audit_export(lines).ok
    rng = random.Random(8)
    for _ in range(1000):
        index = rng.randrange(1, len(lines))
        raw = bytearray(lines[index].encode())
        position = rng.randrange(len(raw))
        raw[position] = (raw[position] + rng.randrange(1, 256)) % 256
        tampered = list(lines)
        tampered[index] = raw.decode("utf-8", errors="replace")
        if tampered[index] == lines[index]:
            continue  # the flip made an invalid byte that decodes as what was there
        verdict = audit_export(tampered)
        assert not verdict.ok
        assert verdict.first_bad["version"] == index, (index, position, verdict.first_bad)


def test_edges_huge_deep_unicode_and_thousands_of_games(client, redis_client):
    huge = client.post(
        "/games", data=b"{" + b" " * (2 * 1024 * 1024) + b"}", content_type="application/json"
    )
    assert huge.status_code == 413
    deep = client.post("/games", data="[" * 30_000 + "]" * 30_000, content_type="application/json")
    assert deep.status_code == 400
    named = client.post("/games", json={"seats": [{"name": "Zoë 🂡 名前"}, {"name": "بوب"}]})
    assert named.status_code == 201
    assert named.get_json()["seats"][0]["name"] == "Zoë 🂡 名前"
    handlers = client.application.extensions["cardtrail"].handlers
    for _ in range(2000):
        handlers.create(CreateGame(seats=[SeatRequest(name="a"), SeatRequest(open=True)]))
    listed = client.get("/games?status=waiting&page=20&page_size=100").get_json()
    assert listed["total"] == 2000 and len(listed["items"]) == 100
    assert client.get("/games?page_size=101").status_code == 422
    assert client.get("/health/live").status_code == 200
    assert EventStore(redis_client).version(named.get_json()["id"]) >= 2
