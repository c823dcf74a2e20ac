"""Open seats, joining, and listing games by status with pagination."""

import random
import threading

from tests.service.helpers import (
    assert_problem,
    auth,
    create_game,
    move,
    play_to_the_end,
    tokens,
    view,
)

QUICK_GAME = {"preset": "block", "options": {"game_end": "deals", "deals": 1, "hand_size": 20}}


def test_a_game_with_an_open_seat_waits_then_deals_when_it_fills(client, store):
    created = create_game(client, seed="join", seats=[{"name": "ann"}, {"open": True}])
    game_id = created["id"]
    assert created["status"] == "waiting"
    assert created["seats"][1] == {"seat": 1, "open": True, "label": "Seat 2 (open)"}
    ann = created["seats"][0]["token"]
    waiting = view(client, game_id, ann)
    assert waiting["status"] == "waiting"
    assert waiting["hand_number"] == 0 and waiting["stock_count"] == 0
    assert waiting["you"]["hand"] == [] and waiting["you"]["legal_moves"] == []
    assert waiting["seats"][1].get("open") is True
    assert "hand_dealt" not in [e["type"] for e in store.read(game_id)]
    before = store.version(game_id)
    assert_problem(
        move(client, game_id, ann, {"type": "draw", "source": "stock"}), 409, "game_not_started"
    )
    assert store.version(game_id) == before

    response = client.post(f"/games/{game_id}/join", json={"name": "bob"})
    assert response.status_code == 201, response.get_json()
    joined = response.get_json()
    assert joined["seat"] == 1
    bob = joined["token"]
    assert len(bob) >= 22 and bob != ann
    assert joined["version"] == store.version(game_id) > before
    assert [e["type"] for e in store.read(game_id)].count("hand_dealt") == 1

    playing = view(client, game_id, bob)
    assert playing["status"] == "playing"
    assert playing["you"]["seat"] == 1 and len(playing["you"]["hand"]) == 10
    assert playing["seats"][1]["name"] == "bob"
    # The joiner's token acts for its seat (the first to act after dealer 0 is seat 1).
    assert playing["turn"] == 1
    assert move(client, game_id, bob, {"type": "draw", "source": "stock"}).status_code == 200
    assert_problem(
        move(client, game_id, ann, {"type": "draw", "source": "stock"}), 409, "not_your_turn"
    )

    version = store.version(game_id)
    response = client.post(f"/games/{game_id}/join", json={"name": "cid"})
    assert_problem(response, 409, "no_open_seat")
    assert store.version(game_id) == version


def test_joining_a_chosen_seat(client):
    created = create_game(
        client, seed="join seat", seats=[{"open": True}, {"name": "ann"}, {"open": True}]
    )
    game_id = created["id"]
    response = client.post(f"/games/{game_id}/join", json={"name": "cid", "seat": 2})
    assert response.status_code == 201 and response.get_json()["seat"] == 2
    cid = response.get_json()["token"]
    assert view(client, game_id)["status"] == "waiting"
    taken = assert_problem(
        client.post(f"/games/{game_id}/join", json={"name": "x", "seat": 2}), 409, "seat_taken"
    )
    assert taken["detail"] == "Seat 3 (id 2) is not open."  # people count from 1
    response = client.post(f"/games/{game_id}/join", json={"name": "bob"})
    assert response.status_code == 201 and response.get_json()["seat"] == 0
    mine = view(client, game_id, cid)
    assert mine["status"] == "playing" and mine["you"]["seat"] == 2
    assert [s.get("name") for s in mine["seats"]] == ["bob", "ann", "cid"]
    assert all(
        len(view(client, game_id, t)["you"]["hand"]) == 7
        for t in (cid, response.get_json()["token"], created["seats"][1]["token"])
    )


def test_concurrent_joins_fill_each_seat_once(app, client, store):
    created = create_game(
        client, seed="race to join", seats=[{"name": "ann"}, *({"open": True} for _ in range(3))]
    )
    game_id = created["id"]
    barrier = threading.Barrier(12)
    answers = []

    def join(index):
        own = app.test_client()
        barrier.wait(timeout=30)
        answers.append(own.post(f"/games/{game_id}/join", json={"name": f"p{index}"}))

    threads = [threading.Thread(target=join, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    won = [a.get_json() for a in answers if a.status_code == 201]
    assert sorted(w["seat"] for w in won) == [1, 2, 3]
    for answer in answers:
        if answer.status_code != 201:
            assert_problem(answer, 409, "no_open_seat")
    assert [e["type"] for e in store.read(game_id)].count("hand_dealt") == 1
    for w in won:
        assert view(client, game_id, w["token"])["you"]["seat"] == w["seat"]


def listed(client, **query):
    response = client.get("/games", query_string=query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_listing_by_status_with_pagination(client):
    waiting = [
        create_game(client, seed=f"w{i}", seats=[{"name": "a"}, {"open": True}])["id"]
        for i in range(3)
    ]
    playing = [create_game(client, seed=f"p{i}")["id"] for i in range(5)]
    finished = create_game(client, seed="f", **QUICK_GAME)
    play_to_the_end(client, finished["id"], tokens(finished), random.Random(4))
    # filling a waiting game moves it to playing
    assert client.post(f"/games/{waiting[0]}/join", json={"name": "b"}).status_code == 201
    playing.append(waiting.pop(0))

    expected = {"waiting": set(waiting), "playing": set(playing), "finished": {finished["id"]}}
    for status, ids in expected.items():
        page = listed(client, status=status)
        assert page["total"] == len(ids)
        assert {item["id"] for item in page["items"]} == ids
        assert all(item["status"] == status for item in page["items"])
    everything = listed(client)
    assert everything["total"] == 9 and everything["page"] == 1 and everything["page_size"] == 20

    # Pages of two: newest first, no game twice, none missing, totals on every page.
    seen = []
    for number in range(1, 4):
        page = listed(client, status="playing", page=number, page_size=2)
        assert page["page"] == number and page["page_size"] == 2 and page["total"] == 6
        assert len(page["items"]) == 2
        seen += page["items"]
    assert listed(client, status="playing", page=4, page_size=2)["items"] == []
    assert {item["id"] for item in seen} == set(playing)
    created_times = [item["created"] for item in seen]
    assert created_times == sorted(created_times, reverse=True)
    # each item is a summary: names and open seats, never tokens
    item = listed(client, status="waiting")["items"][0]
    assert item["seats"][1] == {"seat": 1, "open": True, "label": "Seat 2 (open)"}
    assert all("token" not in seat for seat in item["seats"])


def test_the_view_is_read_by_token(client):
    created = create_game(client, seed="tokens")
    game_id, toks = created["id"], tokens(created)
    assert all(len(t) >= 22 for t in toks)  # >= 128 random bits, url-safe
    tags = set()
    for seat, token in enumerate(toks):
        response = client.get(f"/games/{game_id}", headers=auth(token))
        assert response.get_json()["you"]["seat"] == seat
        tags.add(response.headers["ETag"])
    assert len(tags) == len(toks)  # a seat's view is tagged as its own


def test_game_ids_are_letters_and_digits(client):
    """An id never starts with "-" (a command line would take it for an option)."""
    ids = {
        client.post("/games", json={"seats": [{"name": "a"}, {"name": "b"}]}).get_json()["id"]
        for _ in range(40)
    }
    assert len(ids) == 40
    assert all(len(game_id) == 12 and game_id.isalnum() and game_id.isascii() for game_id in ids)
