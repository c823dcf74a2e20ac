"""Rematches: a finished game offered again to the same seats, once however often asked.

Over the HTTP API with the real Redis: the same options, the first dealer rotated (and
the audit replaying it), links both ways, bots accepting at once and people by
joining, every seat told (webhook messages queued for delivery, players' news), and one
game whatever the requests: one Idempotency-Key twice, different requests, at once.
"""

import json
import random
import threading
import time

import pytest
from rq import Queue

from replays.audit import audit_export
from service.scheduler import NOTIFY_QUEUE
from tests.service.accounts import account, bare
from tests.service.helpers import assert_problem, auth, play_to_the_end
from tests.service.live import Workers
from tests.service.test_players import seat_of

OPTIONS = {"game_end": "deals", "deals": 1, "hand_size": 7, "first_dealer": 1}
KEY = {"Idempotency-Key": "rematch-once"}


def created_event(app, game_id):
    return app.extensions["cardtrail"].repository.events.read(game_id, after=0, upto=1)[0]


def test_a_rematch_twice_with_one_key_is_one_game_with_the_same_options_and_the_next_dealer(
    app,
):
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    old, _ = play_invited(http, ann, bob)
    first = http.post(f"/games/{old}/rematch", headers={**ann.headers, **KEY})
    assert first.status_code == 201, first.get_json()
    again = http.post(f"/games/{old}/rematch", headers={**ann.headers, **KEY})
    assert again.status_code == 201 and again.get_json() == first.get_json()
    made = first.get_json()
    new = made["id"]
    assert made["created"] is True and made["rematch_of"] == old
    assert first.headers["Location"] == f"/games/{new}"
    # The asker took their seat; bob's is kept for him.
    assert made["joined"]["seat"] == 0 and made["joined"]["token"]
    assert made["seats"][1] == {
        "seat": 1,
        "invited": "bob",
        "player": bob.id,
        "label": "bob (invited)",
    }
    # Bob, asking too (a different request), gets the same game and his seat.
    bobs = http.post(f"/games/{old}/rematch", headers=bob.headers)
    assert bobs.status_code == 200
    assert bobs.get_json()["id"] == new and bobs.get_json()["created"] is False
    assert bobs.get_json()["joined"]["seat"] == 1
    # Asked once more, by ann without a key: still that game, and no second seat.
    third = http.post(f"/games/{old}/rematch", headers=ann.headers).get_json()
    assert third["id"] == new and "joined" not in third
    # Same options, the next dealer, links both ways.
    before, after = created_event(app, old), created_event(app, new)
    assert after["options"] == {**before["options"], "first_dealer": None}
    assert after["dealer_after"] == before["first_dealer"] == 1
    assert after["first_dealer"] == 0
    assert http.get(f"/games/{old}").get_json()["rematch"] == new
    shown = http.get(f"/games/{new}", headers=ann.headers).get_json()
    assert shown["rematch_of"] == old and shown["status"] == "playing"
    assert shown["dealer"] == 0
    listed = {g["id"]: g for g in http.get("/games").get_json()["items"]}
    assert listed[new]["rematch_of"] == old and listed[old]["rematch"] == new
    assert [g for g in listed if listed[g].get("rematch_of") == old] == [new]
    shelf = app.extensions["cardtrail"].player_games
    assert new in shelf.ids(ann.id) and new in shelf.ids(bob.id)
    told = [(n["kind"], n["game"]) for n in shelf.news(bob.id, count=10_000)]
    assert told.count(("rematch_offered", new)) == 1


def play_invited(http, ann, bob, options=None):
    """Ann and bob, accounts, play a game to its end: (its id, each seat's token)."""
    seats = [{"me": True}, {"player": "bob"}]
    sent = {"seats": seats, "options": options or OPTIONS}
    game = http.post("/games", json=sent, headers=ann.headers).get_json()
    joined = http.post(f"/games/{game['id']}/join", json={}, headers=bob.headers).get_json()
    tokens = [game["seats"][0]["token"], joined["token"]]
    play_to_the_end(http, game["id"], tokens, random.Random(3))
    return game["id"], tokens


def test_the_rematch_plays_and_audits_with_its_rotated_dealer(app):
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    old, _ = play_invited(http, ann, bob)
    new = http.post(f"/games/{old}/rematch", headers=ann.headers).get_json()["id"]
    http.post(f"/games/{new}/join", json={}, headers=bob.headers)
    shown = http.get(f"/games/{new}").get_json()
    players = [ann, bob]
    tokens = [None, None]
    for player in players:
        tokens[seat_of(shown, player)] = player.token
    play_to_the_end(http, new, tokens, random.Random(4))
    export = http.get(f"/games/{new}/export").get_data(as_text=True)
    verdict = audit_export(export.splitlines())
    assert verdict.ok and verdict.finished and verdict.provably_fair, verdict.first_bad
    # A rematch of the rematch passes the deal on again.
    newer = http.post(f"/games/{new}/rematch", headers=bob.headers).get_json()["id"]
    assert created_event(app, newer)["first_dealer"] == 1
    assert http.get(f"/games/{newer}").get_json()["rematch_of"] == new


@pytest.fixture
def workers(redis_url, redis_client):
    started = Workers(redis_url, redis_client)
    yield started
    started.close()


def play_with_bots(http, game_id, tokens, rng, timeout=90.0):
    """Random legal moves for the seats with tokens; the worker plays the bots."""
    deadline = time.monotonic() + timeout
    while (shown := http.get(f"/games/{game_id}").get_json())["status"] != "finished":
        assert time.monotonic() < deadline, "the game did not finish in time"
        token = tokens[shown["turn"]]
        if token is None:
            http.get(f"/games/{game_id}/events?after={shown['version']}&wait=2")
            continue
        legal = http.get(f"/games/{game_id}", headers=auth(token)).get_json()["you"]
        answer = http.post(
            f"/games/{game_id}/moves", json=rng.choice(legal["legal_moves"]), headers=auth(token)
        )
        assert answer.status_code in (200, 409), answer.get_json()


def test_bots_accept_at_once_and_anonymous_seats_are_open(app, client, workers):
    workers.start()
    created = client.post(
        "/games",
        json={"seats": [{"name": "ann"}, {"bot": "random"}, {"name": "cid"}], "options": OPTIONS},
    ).get_json()
    tokens = [seat.get("token") for seat in created["seats"]]
    play_with_bots(client, created["id"], tokens, random.Random(5))
    made = client.post(f"/games/{created['id']}/rematch", headers=auth(tokens[2])).get_json()
    assert made["seats"] == [
        {"seat": 0, "open": True, "label": "Seat 1 (open)"},
        {"seat": 1, "bot": "random", "label": "Seat 2 (random bot)"},
        {"seat": 2, "name": "cid", "label": "cid"},
    ]
    assert made["status"] == "waiting" and made["joined"]["seat"] == 2
    joined = client.post(f"/games/{made['id']}/join", json={"name": "ann"})
    assert joined.status_code == 201 and joined.get_json()["seat"] == 0
    assert client.get(f"/games/{made['id']}").get_json()["status"] == "playing"


def test_every_seat_with_a_webhook_is_told(app, client, redis_client, monkeypatch):
    monkeypatch.setenv("CARDTRAIL_WEBHOOK_ALLOW_PRIVATE", "1")
    hook = "http://127.0.0.1:9/hook"
    seats = [{"name": "ann", "webhook": hook}, {"name": "bob", "webhook": hook}]
    created = client.post("/games", json={"seats": seats, "options": OPTIONS}).get_json()
    tokens = [seat["token"] for seat in created["seats"]]
    play_to_the_end(client, created["id"], tokens, random.Random(6))
    queue = Queue(NOTIFY_QUEUE, connection=redis_client)
    queue.empty()
    made = client.post(f"/games/{created['id']}/rematch", headers=auth(tokens[0])).get_json()
    told = [json.loads(job.args[2]) for job in queue.get_jobs()]
    offered = [m for m in told if m["kind"] == "rematch_offered"]
    assert sorted(m["seat"] for m in offered) == [0, 1]
    assert all(m["game_id"] == created["id"] and m["rematch"] == made["id"] for m in offered)
    # The asker's new seat keeps its webhook (the same secret: it already knows it).
    assert made["joined"]["webhook_secret"] == created["seats"][0]["webhook_secret"]


def test_requests_at_once_make_one_game(app, client):
    created = client.post(
        "/games", json={"seats": [{"name": "ann"}, {"name": "bob"}], "options": OPTIONS}
    ).get_json()
    tokens = [seat["token"] for seat in created["seats"]]
    play_to_the_end(client, created["id"], tokens, random.Random(7))
    answers: list[dict] = []
    barrier = threading.Barrier(6)

    def ask(token):
        http = app.test_client()
        barrier.wait()
        answers.append(http.post(f"/games/{created['id']}/rematch", headers=auth(token)).get_json())

    threads = [threading.Thread(target=ask, args=(tokens[n % 2],)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len({answer["id"] for answer in answers}) == 1
    assert sum(answer["created"] for answer in answers) == 1
    assert sorted(a["joined"]["seat"] for a in answers if "joined" in a) == [0, 1]
    listed = client.get("/games?page_size=100").get_json()
    assert listed["total"] == 2  # the old game and its one rematch: no other was left behind


def test_only_a_finished_game_and_only_its_seats_may_ask(app, client):
    created = client.post(
        "/games", json={"seats": [{"name": "ann"}, {"name": "bob"}], "options": OPTIONS}
    ).get_json()
    game_id = created["id"]
    token = created["seats"][0]["token"]
    assert_problem(
        client.post(f"/games/{game_id}/rematch", headers=auth(token)), 409, "game_not_finished"
    )
    assert_problem(client.post(f"/games/{game_id}/rematch"), 401, "missing_token")
    other = client.post("/games", json={"seats": [{"name": "x"}, {"name": "y"}]}).get_json()
    stranger = auth(other["seats"][0]["token"])
    assert_problem(client.post(f"/games/{game_id}/rematch", headers=stranger), 403)
    assert_problem(client.post("/games/nope/rematch", headers=auth(token)), 404, "game_not_found")
    key = {"Idempotency-Key": "one key"}
    play_to_the_end(client, game_id, [token, created["seats"][1]["token"]], random.Random(8))
    client.post(f"/games/{game_id}/rematch", headers={**auth(token), **key})
    reused = client.post(
        f"/games/{game_id}/rematch", headers={**auth(created["seats"][1]["token"]), **key}
    )
    assert_problem(reused, 422, "idempotency_key_reused")
