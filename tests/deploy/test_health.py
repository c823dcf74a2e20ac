"""Liveness and readiness against a real Redis this test starts and kills itself, and real
RQ worker processes: `/health/ready` (and `/health`) says 503 within 2 s of Redis dying
and 200 again once it is back; it names what is missing; `/health/live` touches nothing."""

import contextlib
import importlib
import os
import signal
import subprocess
import time

import pytest
import redis
from rq import Queue, Worker

from service.api import create_app
from service.api.health import CACHE_S
from service.redis_server import EmbeddedRedis
from service.scheduler import NOTIFY_QUEUE, QUEUE
from tests.service.live import wait_until
from tests.service.test_workers import start_worker

# the module (the package's `health` is the blueprint it defines)
health = importlib.import_module("service.api.health")


@pytest.fixture
def own_redis(tmp_path):
    """A Redis of this test's own (with its AOF, so workers' registrations survive a kill)."""
    server = EmbeddedRedis(tmp_path / "redis", appendfsync="always").start()
    yield server
    server.stop()


@pytest.fixture
def client(own_redis):
    app = create_app({"REDIS_URL": own_redis.url})
    yield app.test_client()
    app.extensions["cardtrail"].close()


@pytest.fixture
def workers(own_redis):
    started: list[subprocess.Popen] = []

    def start(queues: tuple[str, ...]) -> None:
        started.append(start_worker(own_redis.url, queues))

    start.started = started  # type: ignore[attr-defined]
    yield start
    for proc in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def _kill(server: EmbeddedRedis) -> None:
    assert server.process is not None
    server.process.kill()
    server.process.wait(10)


def _status(client, path: str) -> int:
    return client.get(path).status_code


def _missing(client) -> list[dict]:
    return client.get("/health/ready").get_json().get("errors", [])


def test_ready_names_each_queue_without_a_live_worker(client, workers):
    answer = client.get("/health/ready")
    assert answer.status_code == 503
    assert answer.mimetype == "application/problem+json"
    assert answer.headers["Retry-After"].isdigit()
    body = answer.get_json()
    assert body["code"] == "not_ready" and body["status"] == 503
    assert {e["field"] for e in body["errors"]} == {f"workers.{QUEUE}", f"workers.{NOTIFY_QUEUE}"}
    assert QUEUE in body["detail"] and NOTIFY_QUEUE in body["detail"]
    assert _status(client, "/health") == 503
    assert client.get("/health/live").get_json() == {"ok": True}

    workers(("turns",))
    wait_until(lambda: len(_missing(client)) == 1, 20, "the bot worker to count")
    assert _missing(client) == [
        {"field": f"workers.{NOTIFY_QUEUE}", "reason": f"no live RQ worker serves {NOTIFY_QUEUE}"}
    ]


def test_ready_fails_within_two_seconds_of_redis_dying_and_recovers(client, workers, own_redis):
    workers(("turns",))
    workers(("notify",))
    wait_until(lambda: _status(client, "/health/ready") == 200, 20, "the workers to register")
    ready = client.get("/health/ready").get_json()
    assert ready == {"ok": True, "redis": True, "workers": {QUEUE: 1, NOTIFY_QUEUE: 1}}
    assert client.get("/health").get_json() == ready

    _kill(own_redis)
    killed = time.monotonic()
    wait_until(lambda: _status(client, "/health/ready") == 503, 2, "ready to fail")
    assert time.monotonic() - killed <= 2
    body = client.get("/health/ready").get_json()
    assert body["code"] == "not_ready"
    assert body["errors"][0]["field"] == "redis"
    assert _status(client, "/health") == 503
    started = time.monotonic()
    assert _status(client, "/health/live") == 200
    assert time.monotonic() - started < 0.1  # nothing waited on the dead Redis

    own_redis.start()  # the same data folder and socket
    wait_until(lambda: _status(client, "/health/ready") == 200, 20, "ready again")
    assert client.get("/health/ready").get_json()["redis"] is True


def test_ready_answers_from_a_one_second_cache(client, workers, own_redis):
    """A load balancer polling many times a second costs Redis one probe a second."""
    workers(("turns", "notify"))
    wait_until(lambda: _status(client, "/health/ready") == 200, 20, "the worker to register")
    redis_client = redis.Redis.from_url(own_redis.url)
    pings = redis_client.info("commandstats").get("cmdstat_ping", {}).get("calls", 0)
    started = time.monotonic()
    answers = [_status(client, "/health/ready") for _ in range(50)]
    elapsed = time.monotonic() - started
    probes = redis_client.info("commandstats")["cmdstat_ping"]["calls"] - pings
    redis_client.close()
    assert answers == [200] * 50
    assert probes <= elapsed / CACHE_S + 1, (probes, elapsed)


def test_a_killed_worker_stops_counting_once_its_heartbeat_is_old(
    client, workers, own_redis, monkeypatch
):
    """RQ keeps a SIGKILLed worker's record for its TTL and a minute more; ready goes by the
    heartbeat, which an idle worker renews every few seconds."""
    monkeypatch.setattr(health, "HEARTBEAT_WITHIN_S", 6.0)
    workers(("turns",))
    workers(("notify",))
    wait_until(lambda: _status(client, "/health/ready") == 200, 20, "the workers to register")
    os.killpg(workers.started[0].pid, signal.SIGKILL)
    killed = time.monotonic()
    wait_until(lambda: _status(client, "/health/ready") == 503, 15, "the dead worker to lapse")
    assert time.monotonic() - killed <= 6.0 + 3 + CACHE_S + 1
    assert _missing(client) == [
        {"field": f"workers.{QUEUE}", "reason": f"no live RQ worker serves {QUEUE}"}
    ]
    connection = redis.Redis.from_url(own_redis.url)
    assert Worker.all(queue=Queue(QUEUE, connection=connection))  # RQ still lists it
    connection.close()


def test_only_liveness_is_in_the_api_contract(client):
    """Readiness answers 503 whenever a worker is missing: a contract fuzzer would read
    that as a server fault, so only /health/live is documented."""
    paths = client.get("/openapi.json").get_json()["paths"]
    assert "/health/live" in paths
    assert not {"/health", "/health/ready"} & set(paths)
