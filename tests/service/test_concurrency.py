"""Many clients at once: one move wins, the rest get a 4xx; idempotent retries append once."""

import threading

from service.store import Batch, EventStore, VersionConflict
from tests.service.helpers import assert_problem, create_game, move, tokens, view

THREADS = 50
DRAW = {"type": "draw", "source": "stock"}


def run_together(app, count, request):
    """Start `count` threads (each its own test client) at a barrier; return their responses."""
    barrier = threading.Barrier(count)
    results = [None] * count
    failures = []

    def worker(index):
        client = app.test_client()
        try:
            barrier.wait(timeout=30)
            results[index] = request(client, index)
        except Exception as error:  # pragma: no cover - reported below
            failures.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures
    assert all(r is not None for r in results)
    return results


def started_game(client):
    created = create_game(client, seed="concurrency")
    game_id, toks = created["id"], tokens(created)
    turn = view(client, game_id)["turn"]
    return game_id, toks[turn], turn


def check_one_winner(responses, allowed):
    statuses = [r.status_code for r in responses]
    assert not [s for s in statuses if s >= 500], statuses
    assert statuses.count(200) == 1, statuses
    codes = set()
    for response in responses:
        if response.status_code != 200:
            body = assert_problem(response, response.status_code)
            assert (response.status_code, body["code"]) in allowed, body
            codes.add((response.status_code, body["code"]))
    return codes, next(r for r in responses if r.status_code == 200).get_json()


def test_fifty_threads_send_the_same_move_and_exactly_one_wins(app, client, redis_client):
    game_id, token, turn = started_game(client)
    store = EventStore(redis_client)
    before = store.read(game_id)

    responses = run_together(app, THREADS, lambda c, i: move(c, game_id, token, DRAW))

    allowed = {(409, "version_conflict"), (422, "already_drew")}
    _, winner = check_one_winner(responses, allowed)
    after = store.read(game_id)
    assert after[: len(before)] == before
    assert len(after) == len(before) + 1  # the one draw, once
    drawn = after[-1]
    assert drawn["type"] == "card_drawn" and drawn["seat"] == turn and drawn["source"] == "stock"
    assert winner["version"] == len(after)
    (told,) = winner["events"]
    assert told.pop("description").endswith("from the stock.")
    assert told == {**drawn, "version": len(after)}
    assert view(client, game_id, token)["phase"] == "play"


def test_fifty_threads_with_if_match_exactly_one_wins(app, client, redis_client):
    game_id, token, turn = started_game(client)
    store = EventStore(redis_client)
    version = store.version(game_id)

    responses = run_together(
        app, THREADS, lambda c, i: move(c, game_id, token, DRAW, If_Match=f'"{version}"')
    )

    allowed = {(409, "version_conflict"), (412, "version_mismatch")}
    check_one_winner(responses, allowed)
    assert store.version(game_id) == version + 1
    assert store.read(game_id)[-1]["type"] == "card_drawn"


def test_same_idempotency_key_a_hundred_times_in_a_row(client, redis_client):
    game_id, token, turn = started_game(client)
    store = EventStore(redis_client)
    version = store.version(game_id)

    bodies = []
    for _ in range(100):
        response = move(client, game_id, token, DRAW, Idempotency_Key="draw-once")
        assert response.status_code == 200, response.get_json()
        bodies.append(response.get_data())
    assert len(set(bodies)) == 1
    assert store.version(game_id) == version + 1
    first = client.application.json.loads(bodies[0])
    assert first["events"][0]["type"] == "card_drawn" and "card" in first["events"][0]

    # The same key with another body: refused, and nothing appended.
    other = {"type": "draw", "source": "discard"}
    response = move(client, game_id, token, other, Idempotency_Key="draw-once")
    body = assert_problem(response, 422, "idempotency_key_reused")
    assert body["errors"][0]["field"] == "Idempotency-Key"
    assert store.version(game_id) == version + 1

    # A new key for a move that is no longer legal is judged afresh (not a replay).
    response = move(client, game_id, token, DRAW, Idempotency_Key="draw-twice")
    assert_problem(response, 422, "already_drew")


def test_same_idempotency_key_a_hundred_times_at_once(app, client, redis_client):
    game_id, token, turn = started_game(client)
    store = EventStore(redis_client)
    version = store.version(game_id)

    responses = run_together(
        app, 100, lambda c, i: move(c, game_id, token, DRAW, Idempotency_Key="together")
    )

    assert [r.status_code for r in responses] == [200] * 100, [
        (r.status_code, r.get_json()) for r in responses if r.status_code != 200
    ]
    assert len({r.get_data() for r in responses}) == 1
    assert store.version(game_id) == version + 1
    # and a later retry still gets the same answer
    again = move(client, game_id, token, DRAW, Idempotency_Key="together")
    assert again.get_data() == responses[0].get_data()


def test_idempotency_key_of_one_seat_is_not_replayed_for_another(client, redis_client):
    created = create_game(client, seed="concurrency")
    game_id, toks = created["id"], tokens(created)
    turn = view(client, game_id)["turn"]
    store = EventStore(redis_client)
    response = move(client, game_id, toks[turn], DRAW, Idempotency_Key="mine")
    assert response.status_code == 200
    version = store.version(game_id)
    # The other seat sending the same key and body must not get the mover's answer (and
    # card): its key is its own, so its move is judged afresh (out of turn here).
    response = move(client, game_id, toks[1 - turn], DRAW, Idempotency_Key="mine")
    body = assert_problem(response, 409, "not_your_turn")
    assert response.get_json()["detail"] and "card" not in body
    assert store.version(game_id) == version


def test_a_twin_that_lands_while_a_request_is_in_flight_is_replayed(
    app, client, redis_client, monkeypatch
):
    """The interleaving the 100-thread test can hit but rarely does: request B finds no
    record for its key, then its twin A (same key, same body) appends. B must still
    answer with A's response, not judge the move afresh against the moved-on game
    (already_drew) nor append it twice."""
    game_id, token, turn = started_game(client)
    store = EventStore(redis_client)
    version = store.version(game_id)
    log = app.extensions["cardtrail"].repository.events
    real_check = log.idempotency_record
    twin = {}

    def check_then_twin_lands(game, key):
        record = real_check(game, key)
        if not twin:
            twin["started"] = True  # the twin itself checks normally
            twin["response"] = move(app.test_client(), game_id, token, DRAW, Idempotency_Key="k")
        return record

    monkeypatch.setattr(log, "idempotency_record", check_then_twin_lands)
    response = move(client, game_id, token, DRAW, Idempotency_Key="k")
    assert twin["response"].status_code == 200
    assert response.status_code == 200, response.get_json()
    assert response.get_data() == twin["response"].get_data()
    assert store.version(game_id) == version + 1


def test_fifty_threads_that_all_loaded_the_same_version(app, client, redis_client, monkeypatch):
    """Every request loads the game before any appends (a barrier after the load), so only
    the store's versioned append can tell them apart: one wins, 49 get version_conflict."""
    game_id, token, turn = started_game(client)
    store = EventStore(redis_client)
    version = store.version(game_id)
    repository = app.extensions["cardtrail"].repository
    real_load = repository.load
    loaded_all = threading.Barrier(THREADS)

    def load_then_wait(game):
        loaded = real_load(game)
        loaded_all.wait(timeout=30)
        return loaded

    monkeypatch.setattr(repository, "load", load_then_wait)
    responses = run_together(app, THREADS, lambda c, i: move(c, game_id, token, DRAW))
    codes, _ = check_one_winner(responses, {(409, "version_conflict")})
    assert codes == {(409, "version_conflict")}
    assert store.version(game_id) == version + 1


def test_the_store_appends_once_per_version(client, redis_client):
    game_id, _, _ = started_game(client)
    store = EventStore(redis_client)
    version = store.version(game_id)
    last_hash = store.hash_at(game_id, version)
    event = {"type": "note", "v": 1}
    outcomes = []

    def append(index):
        try:
            batch = Batch.of(game_id, version, last_hash, [event, event], None)
            outcomes.append(store.append(batch).version)
        except VersionConflict as conflict:
            outcomes.append(("conflict", conflict.actual))

    threads = [threading.Thread(target=append, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcomes.count(version + 2) == 1
    assert outcomes.count(("conflict", version + 2)) == THREADS - 1
    assert store.read(game_id)[version:] == [event, event]
