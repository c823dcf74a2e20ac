"""Concurrent moves, a repeated idempotency key and a killed Redis, against real
processes: gunicorn, a real redis-server (AOF with appendfsync always), concurrent
clients over real sockets."""

import os
import random
import threading
import uuid

import pytest

from replays.audit import audit_export
from tests.reliability.stack import Stack

KILLS = int(os.environ.get("CARDTRAIL_REDIS_KILLS", "3"))


@pytest.fixture
def stack(tmp_path):
    running = Stack(tmp_path)
    yield running
    running.close()


def new_game(http, seats=None, **options):
    status, created = http.call(
        "POST",
        "/games",
        {
            "preset": "block",
            "options": {"game_end": "deals", "deals": 1, **options},
            "seats": seats or [{"name": "ann"}, {"name": "bob"}],
        },
    )
    assert status == 201, created
    return created["id"], [s.get("token") for s in created["seats"]]


def play_to_the_end(http, game_id, tokens, rng):
    while True:
        status, view = http.call("GET", f"/games/{game_id}", token=tokens[0])
        if view["status"] == "finished":
            return
        token = tokens[view["turn"]]
        _, mine = http.call("GET", f"/games/{game_id}", token=token)
        status, answer = http.call(
            "POST", f"/games/{game_id}/moves", rng.choice(mine["you"]["legal_moves"]), token
        )
        assert status == 200, answer


def audits_clean(http, game_id, tokens):
    status, verdict = http.call("GET", f"/games/{game_id}/audit")
    assert status == 200 and verdict["ok"], verdict
    conn = http.conn
    conn.request("GET", f"/games/{game_id}/export")
    lines = conn.getresponse().read().decode().splitlines()
    assert audit_export(lines).ok


def test_fifty_concurrent_identical_moves_one_wins(stack):
    http = stack.http()
    game_id, tokens = new_game(http, first_dealer=1)
    _, view = http.call("GET", f"/games/{game_id}", token=tokens[0])
    version = view["version"]
    barrier = threading.Barrier(50)
    answers = []

    def send():
        client = stack.http()
        barrier.wait()
        answers.append(
            client.call(
                "POST",
                f"/games/{game_id}/moves",
                {"type": "draw", "source": "stock"},
                tokens[0],
                headers={"If-Match": f'"{version}"'},
            )
        )

    threads = [threading.Thread(target=send) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(status for status, _ in answers)
    assert statuses.count(200) == 1
    losers = [body for status, body in answers if status != 200]
    # every loser is told the game moved on: 409 when it lost the append itself, 412 when
    # its If-Match was already stale when it loaded the game (RFC 9110)
    assert all(body["code"] in ("version_conflict", "version_mismatch") for body in losers)
    assert len(losers) == 49
    _, after = http.call("GET", f"/games/{game_id}", token=tokens[0])
    assert after["version"] == version + 1
    play_to_the_end(http, game_id, tokens, random.Random(1))
    audits_clean(http, game_id, tokens)


def test_one_idempotency_key_a_hundred_times(stack):
    http = stack.http()
    game_id, tokens = new_game(http, first_dealer=1)
    _, view = http.call("GET", f"/games/{game_id}", token=tokens[0])
    key = str(uuid.uuid4())
    barrier = threading.Barrier(100)
    answers = []

    def send():
        client = stack.http()
        barrier.wait()
        answers.append(
            client.call(
                "POST",
                f"/games/{game_id}/moves",
                {"type": "draw", "source": "stock"},
                tokens[0],
                headers={"Idempotency-Key": key},
            )
        )

    threads = [threading.Thread(target=send) for _ in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {status for status, _ in answers} == {200}
    assert len({repr(body) for _, body in answers}) == 1
    _, after = http.call("GET", f"/games/{game_id}", token=tokens[0])
    assert after["version"] == view["version"] + 1


def test_redis_sigkilled_mid_load_loses_no_acknowledged_move(stack):
    """Clients retry with their Idempotency-Key until they get an answer; every 200 must
    still be in its stream after Redis was SIGKILLed and restarted from its AOF."""
    games = [new_game(stack.http()) for _ in range(4)]
    acknowledged: list[tuple[str, int, dict]] = []
    done = threading.Event()
    lock = threading.Lock()
    refused: list[int] = []  # answers and broken connections seen during the outages

    def client_loop(game_id, tokens, seed):
        http = stack.http()
        rng = random.Random(seed)
        while not done.is_set():
            try:
                status, view = http.call("GET", f"/games/{game_id}", token=tokens[0])
                if status != 200:
                    continue
                if view["status"] == "finished":
                    return
                token = tokens[view["turn"]]
                status, mine = http.call("GET", f"/games/{game_id}", token=token)
                if status != 200:
                    continue
                move = rng.choice(mine["you"]["legal_moves"])
                key = str(uuid.uuid4())
                while not done.is_set():  # retry this move until it is answered for sure
                    try:
                        status, answer = http.call(
                            "POST",
                            f"/games/{game_id}/moves",
                            move,
                            token,
                            headers={"Idempotency-Key": key},
                        )
                    except OSError:
                        refused.append(0)
                        continue
                    if status == 503:
                        refused.append(503)
                    if status == 200:
                        with lock:
                            acknowledged.extend(
                                (game_id, e["version"], e) for e in answer["events"]
                            )
                    if status != 503:
                        break
            except OSError:
                continue

    threads = [
        threading.Thread(target=client_loop, args=(g, t, i)) for i, (g, t) in enumerate(games)
    ]
    for thread in threads:
        thread.start()
    rng = random.Random(7)
    for _ in range(KILLS):
        threading.Event().wait(rng.uniform(0.3, 0.8))
        stack.restart_redis()
    for thread in threads:
        thread.join(timeout=120)
    done.set()
    assert acknowledged, "no move was acknowledged"
    assert refused, "Redis was never down while moves were being made"
    from service.store import EventStore

    store = EventStore(stack.client())
    for game_id, version, shown in acknowledged:
        stored = store.records(game_id, after=version - 1, upto=version)
        assert stored, f"{game_id} lost event {version}"
        for field in ("type", "seat", "source", "card"):
            if field in shown:
                assert stored[0].event.get(field) == shown[field], (game_id, version)
    http = stack.http()
    for game_id, tokens in games:
        play_to_the_end(http, game_id, tokens, random.Random(3))
        audits_clean(http, game_id, tokens)
