"""Scale-out on an existing distributed engine: a real 3-master Redis Cluster on localhost.

Games are created across many slots, played by several web processes (gunicorn) and
two RQ workers, and every finished game must audit clean. The RQ queue lives on a
plain Redis (RQ does not speak cluster). Skipped where no Redis 7 is on PATH.
"""

import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import redis
from redis.cluster import RedisCluster

from service import keys
from service.redis_server import EmbeddedRedis

ROOT = Path(__file__).resolve().parents[2]
REDIS_SERVER = shutil.which("redis-server")
REDIS_CLI = shutil.which("redis-cli")


def _redis_7() -> bool:
    if not REDIS_SERVER or not REDIS_CLI:
        return False
    out = subprocess.run([REDIS_SERVER, "--version"], capture_output=True, text=True).stdout
    return "v=7." in out or "v=8." in out


pytestmark = pytest.mark.skipif(not _redis_7(), reason="needs redis-server 7 and redis-cli on PATH")


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_ports(count: int, cluster_bus: bool = False) -> list[int]:
    """Free ports; for cluster nodes, port + 10000 (the cluster bus) must be free too."""
    rng = random.Random()
    ports: list[int] = []
    while len(ports) < count:
        port = rng.randrange(20000, 50000)
        if port in ports or not _bindable(port):
            continue
        if cluster_bus and not _bindable(port + 10000):
            continue
        ports.append(port)
    return ports


@pytest.fixture
def cluster(tmp_path):
    ports = _free_ports(3, cluster_bus=True)
    procs = []
    for port in ports:
        node_dir = tmp_path / str(port)
        node_dir.mkdir()
        procs.append(
            subprocess.Popen(
                [
                    REDIS_SERVER,
                    "--port",
                    str(port),
                    "--bind",
                    "127.0.0.1",
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--dir",
                    str(node_dir),
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ],
                stdout=subprocess.DEVNULL,
            )
        )
    try:
        for port in ports:
            client = redis.Redis(port=port)
            for _ in range(100):
                with contextlib.suppress(redis.ConnectionError):
                    if client.ping():
                        break
                time.sleep(0.05)
        subprocess.run(
            [
                REDIS_CLI,
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        for _ in range(200):
            info = redis.Redis(port=ports[0]).cluster("info")
            if info.get("cluster_state") == "ok":
                break
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{ports[0]}/0"
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(10)


def _call(port, method, path, body=None, token=None, key=None):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode() if body is not None else None,
        method=method,
        headers={"Content-Type": "application/json", **({"Idempotency-Key": key} if key else {})},
    )
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_games_across_cluster_slots_all_audit_clean(cluster, tmp_path):
    queue_redis = EmbeddedRedis(tmp_path / "queue").start()
    env = {
        **os.environ,
        "REDIS_URL": cluster,
        "REDIS_CLUSTER": "1",
        "RQ_REDIS_URL": queue_redis.url,
        "CARDTRAIL_RATE_LIMITS": "off",  # the load comes from one address
        "CARDTRAIL_ARCHIVE": str(tmp_path / "archives"),  # games that end are sealed
    }
    web_ports = _free_ports(2)
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    procs = [
        subprocess.Popen(
            [
                gunicorn,
                "service.api:create_app()",
                "-c",  # cardtrail/web.py: the settings cardtrail serve and compose run
                "python:cardtrail.web",
                "--no-control-socket",
                "--workers",
                "2",
                "--bind",
                f"127.0.0.1:{port}",
                "--log-level",
                "warning",
            ],
            env=env,
            cwd=ROOT,
            start_new_session=True,
        )
        for port in web_ports
    ]
    procs += [
        subprocess.Popen(
            [sys.executable, "-c", "from workers.run import run_worker; run_worker()"],
            env=env,
            cwd=ROOT,
            start_new_session=True,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(2)
    ]
    try:
        for port in web_ports:
            for _ in range(200):
                try:
                    _call(port, "GET", "/health/live")
                    break
                except OSError:
                    time.sleep(0.1)
        rng = random.Random(9)
        games = []
        for index in range(12):
            port = web_ports[index % 2]
            created = _call(
                port,
                "POST",
                "/games",
                {
                    "preset": "block",
                    "options": {"game_end": "deals", "deals": 1},
                    "seats": [{"name": "ann"}, {"bot": "greedy"}],
                },
            )
            games.append((created["id"], created["seats"][0]["token"]))
        slots = {
            RedisCluster.keyslot(RedisCluster.from_url(cluster), keys.events(g)) for g, _ in games
        }
        assert len(slots) > 6  # the games are spread over the cluster
        pending = list(games)
        deadline = time.monotonic() + 240
        while pending and time.monotonic() < deadline:
            game_id, token = pending.pop(0)
            port = rng.choice(web_ports)  # any web process serves any game
            view = _call(port, "GET", f"/games/{game_id}", token=token)
            if view["status"] == "finished":
                continue
            if view["turn"] == 0 and view["you"]["legal_moves"]:
                move = rng.choice(view["you"]["legal_moves"])
                with contextlib.suppress(urllib.error.HTTPError):  # a 409 race is fine
                    key = f"{game_id}-{view['version']}"  # kept with the game's keys
                    _call(port, "POST", f"/games/{game_id}/moves", move, token, key)
            pending.append((game_id, token))
        assert not pending, "some games did not finish"
        # Each game is sealed by a worker: its stream and its move keys leave the cluster
        # (one script per game's slot), and the audit then reads the archive.
        nodes = RedisCluster.from_url(cluster)

        def sealed() -> bool:
            return not any(nodes.exists(keys.events(g)) for g, _ in games)

        deadline = time.monotonic() + 60
        while not sealed() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert sealed(), "some games were not sealed"
        assert len(list((tmp_path / "archives").rglob("*.zst"))) == len(games)
        for game_id, _ in games:
            assert not nodes.exists(keys.idempotency_keys(game_id))
        assert not list(nodes.scan_iter(match="cardtrail:game:*:idem:*"))  # moves' keys gone
        for game_id, _ in games:
            verdict = _call(web_ports[0], "GET", f"/games/{game_id}/audit")
            assert verdict["ok"], verdict
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        queue_redis.stop()
