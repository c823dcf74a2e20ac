"""The event feed's long poll, and the OpenAPI document."""

import threading
import time

from tests.service.helpers import auth, create_game, move, tokens, view


def test_long_poll_returns_the_opponents_move(app, client):
    created = create_game(client, seed="long poll")
    game_id, toks = created["id"], tokens(created)
    spectator = view(client, game_id)
    turn, version = spectator["turn"], spectator["version"]
    watcher = 1 - turn
    answer = {}

    def poll():
        started = time.monotonic()
        response = app.test_client().get(
            f"/games/{game_id}/events?after={version}&wait=5", headers=auth(toks[watcher])
        )
        answer["response"], answer["took"] = response, time.monotonic() - started

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.3)
    assert "response" not in answer  # still waiting: nothing has happened yet
    moved = move(client, game_id, toks[turn], {"type": "draw", "source": "stock"})
    assert moved.status_code == 200
    thread.join(10)
    response = answer["response"]
    assert response.status_code == 200
    body = response.get_json()
    assert body["version"] == version + 1
    (event,) = body["events"]
    description = event.pop("description")
    assert event == {
        "type": "card_drawn",
        "v": 1,
        "seat": turn,
        "source": "stock",
        "version": version + 1,
    }  # the watcher does not learn which card came off the stock
    assert description.endswith("drew from the stock.")
    assert answer["took"] < 5  # it returned with the move, not at the timeout


def test_wait_zero_and_known_events_return_at_once(client):
    created = create_game(client, seed="no wait")
    game_id = created["id"]
    version = created["version"]
    started = time.monotonic()
    body = client.get(f"/games/{game_id}/events?after={version}&wait=0").get_json()
    receipt = body.pop("receipt")
    assert body == {"version": version, "events": []}
    assert receipt["game"] == game_id and receipt["version"] == version
    # events already there: no waiting even when asked to
    body = client.get(f"/games/{game_id}/events?after=0&wait=5").get_json()
    assert [e["version"] for e in body["events"]] == list(range(1, version + 1))
    assert time.monotonic() - started < 2


def test_long_poll_times_out_empty(client):
    created = create_game(client, seed="timeout")
    started = time.monotonic()
    body = client.get(f"/games/{created['id']}/events?after={created['version']}&wait=0.3")
    assert body.status_code == 200
    assert body.get_json()["events"] == []
    assert time.monotonic() - started >= 0.3 * 0.8  # a wait is spread: shortened by up to 1/5


def test_openapi_document_lists_the_paths(client):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    doc = response.get_json()
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    for path, methods in {
        "/games": {"get", "post"},
        "/games/{game_id}": {"get"},
        "/games/{game_id}/join": {"post"},
        "/games/{game_id}/moves": {"post"},
        "/games/{game_id}/events": {"get"},
    }.items():
        assert path in paths, sorted(paths)
        assert methods <= set(paths[path]), (path, set(paths[path]))
    assert "bearerAuth" in doc["components"]["securitySchemes"]
    schemas = doc["components"]["schemas"]
    assert {"MoveRequest", "CreateGameRequest", "GameView"} <= set(schemas)
    moves = [schemas[ref["$ref"].rsplit("/", 1)[1]] for ref in schemas["MoveRequest"]["oneOf"]]
    move_fields = {name for move in moves for name in move["properties"]}
    assert {"type", "source", "card", "cards", "meld"} <= move_fields
    parameters = {
        doc["components"]["parameters"][p["$ref"].rsplit("/", 1)[1]]["name"]
        for p in paths["/games/{game_id}/moves"]["post"]["parameters"]
    }
    assert {"If-Match", "Idempotency-Key"} <= parameters


def test_a_long_poll_longer_than_the_clients_default_timeout_answers_empty(client):
    """redis-py's default socket timeout is shorter than a long-poll may wait."""
    created = create_game(client, seed="long poll")
    version = created["version"]
    answer = client.get(f"/games/{created['id']}/events?after={version}&wait=6")
    assert answer.status_code == 200
    assert answer.get_json()["events"] == []


def test_a_long_poll_names_a_player_who_sat_down_while_it_waited(app, client):
    created = client.post(
        "/games",
        json={"options": {"first_dealer": 1}, "seats": [{"name": "ann"}, {"open": True}]},
    ).get_json()
    game_id, version = created["id"], created["version"]
    answer = {}

    def poll():
        response = app.test_client().get(f"/games/{game_id}/events?after={version}&wait=5")
        answer["events"] = response.get_json()["events"]

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.3)
    joined = client.post(f"/games/{game_id}/join", json={"name": "zed"})
    assert joined.status_code == 201, joined.get_json()
    thread.join(10)
    dealt = next(e for e in answer["events"] if e["type"] == "hand_dealt")
    assert dealt["description"] == "Hand 1 was dealt by zed."
