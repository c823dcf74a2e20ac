"""The ratings on a real 3-master Redis Cluster: games on many slots, rated by a real
worker (each pool's writes one script on the pool's own slot), equal the rebuild's from
the streams (read from every node). Skipped where no Redis 7 is on PATH."""

import contextlib
import os
import signal
import subprocess
import sys
import time

from service import keys
from service.api import create_app
from service.redis_server import EmbeddedRedis, connect
from tests.scale.test_cluster import ROOT, cluster, pytestmark  # noqa: F401  (fixture, skip)

POOLS = ("rummy-2", "rummy-3-6", "spades-pairs", "spades-solo")


def snapshot(client) -> dict:
    kept = {}
    for key in sorted(client.scan_iter(match="cardtrail:ratings:*")):
        kind = client.type(key)
        if kind == b"hash":
            kept[key] = client.hgetall(key)
        elif kind == b"zset":
            kept[key] = client.zrange(key, 0, -1, withscores=True)
    return kept


def test_ratings_on_a_cluster_equal_the_rebuild(cluster, tmp_path, monkeypatch):  # noqa: F811
    queue_redis = EmbeddedRedis(tmp_path / "queue").start()
    env = {"REDIS_URL": cluster, "REDIS_CLUSTER": "1", "RQ_REDIS_URL": queue_redis.url}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    worker = subprocess.Popen(
        [sys.executable, "-c", "from workers.run import run_worker; run_worker()"],
        env={**os.environ, **env},
        cwd=ROOT,
        start_new_session=True,
        stderr=subprocess.DEVNULL,
    )
    try:
        app = create_app({"REDIS_URL": cluster, "RATE_LIMITS_ENABLED": False})
        client = app.test_client()
        seats = {
            ("rummy", "block", 2): ["greedy", "random"],
            ("rummy", "block", 3): ["strong", "greedy", "random"],
            ("spades", "pairs", 4): ["strong", "random", "greedy", "random"],
            ("spades", "solo", 3): ["greedy", "strong", "random"],
        }
        made = []
        for _ in range(2):
            for (game, preset, _players), levels in seats.items():
                options = (
                    {"max_hands": 1} if game == "spades" else {"game_end": "deals", "deals": 1}
                )
                body = {"game": game, "preset": preset, "options": options,
                        "seats": [{"bot": level} for level in levels]}  # fmt: skip
                answer = client.post("/games", json=body)
                assert answer.status_code == 201, answer.get_json()
                made.append(answer.get_json()["id"])
        store = connect(cluster)
        ratings = app.extensions["cardtrail"].ratings
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            rated = sum(pool["rated"] > 0 for pool in ratings.pools() if pool["pool"] in POOLS)
            ledgers = sum(store.zcard(keys.rating_ledger(pool)) for pool in POOLS)
            if rated == len(POOLS) and ledgers == len(made):
                break
            time.sleep(0.3)
        else:
            raise AssertionError("the worker did not rate every game in time")
        incremental = snapshot(store)
        for key in incremental:
            store.delete(key)
        assert ratings.rebuild() == {"minitricks": 0, **dict.fromkeys(POOLS, 2)}
        assert snapshot(store) == incremental
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(10)
        queue_redis.stop()
