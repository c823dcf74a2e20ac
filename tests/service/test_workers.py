"""Bots in real RQ worker processes: games finish, killed workers do not stall them."""

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest
from rq import Worker
from rq.job import Job, JobStatus

from engine import games, table
from service.keys import BOTS_WAITING, TURN_JOBS
from tests.service.helpers import auth

WORKER = "from workers.run import run_worker; run_worker(queues={!r})"


def start_worker(
    redis_url: str, queues: tuple[str, ...] = ("turns", "notify"), **env: str
) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WORKER.format(list(queues))],
        env={**os.environ, "REDIS_URL": redis_url, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, so teardown also ends its scheduler
    )


@pytest.fixture
def workers(redis_url, redis_client):
    started: list[subprocess.Popen] = []

    def start(**env: str) -> subprocess.Popen:
        proc = start_worker(redis_url, **env)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def play_human_until_finished(client, game_id, token, seat, store, timeout=60.0):
    """Play the human seat with its first legal move until the game ends; returns its moves."""
    moves = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
        if view["status"] == "finished":
            return moves
        if view["turn"] == seat and view["you"]["legal_moves"]:
            legal = view["you"]["legal_moves"]
            discards = [m for m in legal if m["type"] == "discard"]
            move = legal[0] if view["phase"] == "draw" else (discards or legal)[0]
            answer = client.post(f"/games/{game_id}/moves", json=move, headers=auth(token))
            assert answer.status_code == 200, answer.get_json()
            moves += 1
        else:
            client.get(
                f"/games/{game_id}/events?after={view['version']}&wait=2", headers=auth(token)
            )
    raise AssertionError("the game did not finish in time")


def assert_turns_alternate(events):
    """Within a hand, each seat draws once per turn, in turn order: no duplicated bot turn."""
    last_drawer = None
    for event in events:
        if event["type"] == "hand_dealt":
            last_drawer = None
        if event["type"] == "card_drawn":
            assert event["seat"] != last_drawer, "a seat drew twice in a row"
            last_drawer = event["seat"]


def test_game_against_bots_finishes_with_a_worker(client, store, workers):
    workers()
    created = client.post(
        "/games",
        json={
            "preset": "block",
            "options": {"game_end": "deals", "deals": 1},
            "seats": [{"name": "ann"}, {"bot": "greedy"}, {"bot": "random"}],
        },
    ).get_json()
    token = created["seats"][0]["token"]
    human_moves = play_human_until_finished(client, created["id"], token, 0, store)
    events = store.read(created["id"])
    assert [e["type"] for e in events[-2:]] == ["game_ended", "seed_revealed"]
    assert human_moves > 0
    bot_drawers = {e["seat"] for e in events if e["type"] == "card_drawn"} - {0}
    assert bot_drawers == {1, 2}  # both bots played their turns, nobody played them by hand
    assert_turns_alternate(events)
    game = games.get("rummy")
    assert game.is_finished(table.fold(game, events))


def test_bot_turn_survives_a_killed_worker(client, store, redis_client, workers):
    slow = workers(CARDTRAIL_TEST_BOT_DELAY="30")
    created = client.post(
        "/games",
        json={
            "preset": "block",
            "options": {"game_end": "deals", "deals": 1, "first_dealer": 1},
            "seats": [{"name": "ann"}, {"bot": "greedy"}],
        },
    ).get_json()
    game_id = created["id"]
    # Dealer 1: ann (seat 0) starts; after her turn the bot's job starts and sleeps.
    token = created["seats"][0]["token"]
    view = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
    client.post(
        f"/games/{game_id}/moves", json={"type": "draw", "source": "stock"}, headers=auth(token)
    )
    view = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
    discard = next(m for m in view["you"]["legal_moves"] if m["type"] == "discard")
    client.post(f"/games/{game_id}/moves", json=discard, headers=auth(token))
    version = store.version(game_id)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # wait until the slow worker holds the job
        entry = redis_client.hget(TURN_JOBS, game_id)
        if (
            entry
            and Job.fetch(entry.decode().split(" ")[1], connection=redis_client).get_status()
            == JobStatus.STARTED
        ):
            break
        time.sleep(0.05)
    else:
        pytest.fail("the bot turn never started")
    slow.send_signal(signal.SIGKILL)
    slow.wait(10)
    assert store.version(game_id) == version  # the killed worker appended nothing
    workers()
    ready = time.monotonic() + 30
    while not Worker.all(connection=redis_client) and time.monotonic() < ready:
        time.sleep(0.05)  # the new worker registers itself once it can take jobs
    recovered_at = None
    deadline = time.monotonic() + 10  # the goal: moving again within 10 s of a live worker
    while time.monotonic() < deadline:
        if store.version(game_id) > version:
            recovered_at = time.monotonic()
            break
        time.sleep(0.05)
    assert recovered_at is not None, "the game stalled after the worker was killed"
    play_human_until_finished(client, game_id, token, 0, store)
    events = store.read(game_id)
    assert_turns_alternate(events)
    assert redis_client.zscore(BOTS_WAITING, game_id) is None
