"""A third game, known to the service only through its registry entry (tests/games:
minitricks, found in the entry-point group), plays end to end: created over HTTP, a
person against a bot played by a real worker process, then its hands, a replay step,
the export, the audit over HTTP and the `cardtrail audit` command on the exported file.

Nothing is mocked: the Redis is real (embedded, or REDIS_URL) and so is the worker.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import games
from replays.audit import audit_export
from tests.service.helpers import assert_problem, auth, cards_in
from tests.service.test_workers import start_worker

GAME = "minitricks"
HAND_SIZE = 5  # the "standard" preset: five cards each, two hands
HANDS = 2
ANN = 0
CARDTRAIL = Path(sys.executable).with_name("cardtrail")  # the console script beside python


@pytest.fixture
def worker(redis_url, redis_client):
    proc = start_worker(redis_url)
    yield proc
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)


def _play_ann_until_finished(client, game_id: str, token: str, timeout: float = 60.0) -> int:
    """Ann plays her first legal move whenever it is her turn (the worker plays the bot's);
    returns how many moves she made."""
    moves = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        mine = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
        if mine["status"] == "finished":
            return moves
        spectator = client.get(f"/games/{game_id}").get_json()
        assert "you" not in spectator
        assert not cards_in(spectator) & set(mine["you"]["hand"]), "a spectator saw ann's cards"
        legal = mine["you"]["legal_moves"]
        if mine["turn"] == ANN and legal:
            assert all(move["card"] in mine["you"]["hand"] for move in legal)
            answer = client.post(f"/games/{game_id}/moves", json=legal[0], headers=auth(token))
            assert answer.status_code == 200, answer.get_json()
            moves += 1
        else:
            after = mine["version"]
            client.get(f"/games/{game_id}/events?after={after}&wait=2", headers=auth(token))
    raise AssertionError("the minitricks game did not finish in time")


def test_the_third_game_is_registered_in_this_session():
    assert GAME in games.names()
    assert "strong" not in games.get(GAME).bots


def test_a_minitricks_game_refuses_a_bot_level_it_does_not_have(client):
    body = {"game": GAME, "seats": [{"name": "ann"}, {"bot": "strong"}]}
    problem = assert_problem(client.post("/games", json=body), 422)
    assert [error["field"] for error in problem["errors"]] == ["seats.1.bot"], problem
    assert "greedy" in problem["detail"] and "random" in problem["detail"]


def test_minitricks_plays_end_to_end_against_a_worker_bot(client, worker, tmp_path):
    body = {"game": GAME, "seats": [{"name": "ann"}, {"bot": "greedy"}], "seed": "third game"}
    created = client.post("/games", json=body)
    assert created.status_code == 201, created.get_json()
    game_id, token = created.get_json()["id"], created.get_json()["seats"][ANN]["token"]
    first = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
    assert first["game"] == GAME and first["hand_number"] == 1
    assert len(first["you"]["hand"]) == HAND_SIZE and first["hand_counts"] == [HAND_SIZE] * 2

    assert _play_ann_until_finished(client, game_id, token) == HAND_SIZE * HANDS
    final = client.get(f"/games/{game_id}").get_json()
    assert final["status"] == "finished" and final["hands_played"] == HANDS
    assert sum(final["scores"]) == HAND_SIZE * HANDS  # a point a trick
    assert final["result"]["winners"]

    hands = client.get(f"/games/{game_id}/hands").get_json()["hands"]
    assert [hand["number"] for hand in hands] == [1, 2]
    assert all(hand["finished"] and hand["result"]["type"] == "hand_ended" for hand in hands)
    step = client.get(f"/games/{game_id}/hands/1/replay?step=1").get_json()
    assert step["face_up"] and step["event"]["type"] == "card_played"
    assert step["event"]["description"].endswith(".")
    assert sum(len(cards) for cards in step["state"]["hands"]) == 2 * HAND_SIZE - 1

    exported = client.get(f"/games/{game_id}/export", headers=auth(token))
    assert exported.status_code == 200 and exported.mimetype == "application/x-ndjson"
    assert audit_export(exported.get_data(as_text=True).splitlines()).ok
    audited = client.get(f"/games/{game_id}/audit", headers=auth(token))
    assert audited.status_code == 200, audited.get_json()
    verdict = audited.get_json()
    assert verdict["ok"] is True and verdict["game"] == GAME, verdict
    assert verdict["finished"] and verdict["hands"] == HANDS

    path = tmp_path / f"{game_id}.jsonl"
    path.write_bytes(exported.get_data())
    ran = subprocess.run(
        [str(CARDTRAIL), "audit", str(path)], capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.startswith("AUDIT PASSED"), ran.stdout
