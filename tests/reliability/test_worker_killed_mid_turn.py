"""SIGKILL the worker during a bot turn, again and again: every game finishes, no bot
move is ever duplicated, and each game moves on within 10 s of a live worker."""

import os
import random
import time

import pytest
from rq import Worker
from rq.job import Job, JobStatus

from service.keys import TURN_JOBS
from service.store import EventStore
from tests.reliability.stack import Stack
from tests.reliability.test_real_processes_under_load import audits_clean


def assert_no_duplicate_turns(events):
    drawer = None
    for event in events:
        if event["type"] == "hand_dealt":
            drawer = None
        if event["type"] == "card_drawn":
            assert event["seat"] != drawer, "a seat drew twice in a row: a duplicated turn"
            drawer = event["seat"]


def kill_during_bot_turns(tmp_path, kills: int) -> list[float]:
    stack = Stack(tmp_path, web_workers=1)
    recoveries = []
    try:
        http = stack.http()
        client = stack.client()
        store = EventStore(client)
        rng = random.Random(11)
        for _ in range(kills):
            slow = stack.start_worker(CARDTRAIL_TEST_BOT_DELAY="30")
            status, created = http.call(
                "POST",
                "/games",
                {
                    "preset": "block",
                    "options": {"game_end": "deals", "deals": 1, "first_dealer": 1},
                    "seats": [{"name": "ann"}, {"bot": "greedy"}],
                },
            )
            assert status == 201
            game_id, token = created["id"], created["seats"][0]["token"]
            http.call("POST", f"/games/{game_id}/moves", {"type": "draw", "source": "stock"}, token)
            _, view = http.call("GET", f"/games/{game_id}", token=token)
            discard = next(m for m in view["you"]["legal_moves"] if m["type"] == "discard")
            http.call("POST", f"/games/{game_id}/moves", discard, token)
            version = store.version(game_id)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                entry = client.hget(TURN_JOBS, game_id)
                if (
                    entry
                    and Job.fetch(entry.decode().split(" ")[1], connection=client).get_status()
                    == JobStatus.STARTED
                ):
                    break
                time.sleep(0.05)
            else:
                pytest.fail("the bot turn never started")
            stack.kill(slow)  # the worker and its scheduler, mid-turn
            assert store.version(game_id) == version
            fresh = stack.start_worker()
            while (
                not any(
                    w.name for w in Worker.all(connection=client) if w.get_state() != "suspended"
                )
                and fresh.poll() is None
            ):
                time.sleep(0.05)
            live_since = time.monotonic()
            while store.version(game_id) == version and time.monotonic() - live_since < 15:
                time.sleep(0.05)
            recoveries.append(time.monotonic() - live_since)
            assert store.version(game_id) > version, "the game stalled"
            while True:  # ann plays on; the bot answers from the fresh worker
                _, view = http.call("GET", f"/games/{game_id}", token=token)
                if view["status"] == "finished":
                    break
                if view["turn"] == 0:
                    move = rng.choice(view["you"]["legal_moves"])
                    http.call("POST", f"/games/{game_id}/moves", move, token)
                else:
                    http.call(
                        "GET",
                        f"/games/{game_id}/events?after={view['version']}&wait=5",
                        token=token,
                    )
            assert_no_duplicate_turns(store.read(game_id))
            audits_clean(http, game_id, [token])
            stack.kill(fresh)
    finally:
        stack.close()
    return recoveries


def test_worker_killed_during_bot_turns(tmp_path):
    recoveries = kill_during_bot_turns(tmp_path, 3)
    assert max(recoveries) <= 10, recoveries


@pytest.mark.slow
def test_worker_killed_twenty_times(tmp_path):
    recoveries = kill_during_bot_turns(tmp_path, int(os.environ.get("CARDTRAIL_KILLS", "20")))
    assert max(recoveries) <= 10, recoveries
