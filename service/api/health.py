"""Health: is this process answering (`/health/live`), and can the service play
(`/health/ready`, and `/health` as before, which now answers as ready does).

Readiness asks what a move needs: the game store answers a PING within PING_DEADLINE_S,
and at least one RQ worker with a recent heartbeat serves each of cardtrail's queues
(bot turns and clocks; webhook deliveries). Its probes use clients of their own with
short deadlines and no retries (the app's clients wait up to 45 s and retry, which is
right for a long-poll and wrong for a load balancer), and the answer is kept for
CACHE_S, so a balancer polling every process many times a second costs Redis one probe
per process per second.

`/health/live` touches nothing: it is what a supervisor restarts on and what the
benchmarks take as a no-op request. Only it is in the OpenAPI document: the other two
answer 503 whenever the deployment is short of a worker, which is their meaning, not
a fault of the request.
"""

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import flask
import redis
from flask import Flask, Response, current_app, jsonify
from flask.views import MethodView
from flask_smorest import Blueprint
from redis.backoff import NoBackoff
from redis.retry import Retry
from rq import Queue, Worker
from rq.worker import BaseWorker

from service.api import problems, schemas
from service.redis_server import cluster_mode
from service.scheduler import NOTIFY_QUEUE, QUEUE

health = Blueprint("health", __name__, description="Liveness and readiness")

PING_DEADLINE_S = 0.5
CACHE_S = 1.0
RETRY_AFTER_S = 1
# An idle worker heartbeats every few seconds (workers/run.py: it blocks WORKER_TTL - 15 s
# between maintenance checks) and a busy one after every job; RQ itself keeps a killed
# worker's record for its TTL plus a minute, so the record alone would say "alive" long
# after the process is gone.
HEARTBEAT_WITHIN_S = 20.0
QUEUES = (QUEUE, NOTIFY_QUEUE)
_EXTENSION = "cardtrail.readiness"


@dataclass(frozen=True)
class Readiness:
    """What the probe found: whether Redis answered, and live workers per queue."""

    redis: bool
    workers: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.redis and all(self.workers.get(queue, 0) > 0 for queue in QUEUES)

    def missing(self) -> list[dict[str, str]]:
        """Each thing missing, as a problem's `errors`: a field and its reason."""
        if not self.redis:
            reason = f"Redis did not answer a PING within {PING_DEADLINE_S} s"
            return [{"field": "redis", "reason": reason}]
        return [
            {"field": f"workers.{queue}", "reason": f"no live RQ worker serves {queue}"}
            for queue in QUEUES
            if self.workers.get(queue, 0) == 0
        ]

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "redis": self.redis, "workers": dict(self.workers)}


def _short_client(url: str, cluster: bool = False) -> redis.Redis:
    """A client that gives up after PING_DEADLINE_S, once: no retry, no back-off."""
    options: dict[str, Any] = {
        "socket_timeout": PING_DEADLINE_S,
        "socket_connect_timeout": PING_DEADLINE_S,
        "retry": Retry(NoBackoff(), 0),
    }
    if cluster:
        from redis.cluster import RedisCluster

        return RedisCluster.from_url(url, **options)
    return redis.Redis.from_url(url, **options)


def _beat_recently(worker: BaseWorker, now: datetime) -> bool:
    beat = worker.last_heartbeat
    if beat is None:
        return False
    return (now - beat.replace(tzinfo=beat.tzinfo or UTC)).total_seconds() <= HEARTBEAT_WITHIN_S


def live_workers(connection: redis.Redis) -> dict[str, int]:
    """Workers registered on each queue whose last heartbeat is recent."""
    now = datetime.now(UTC)
    return {
        name: sum(
            _beat_recently(worker, now)
            for worker in Worker.all(queue=Queue(name, connection=connection))
        )
        for name in QUEUES
    }


class Probe:
    """One app's readiness probe: its own short-deadline clients (made on first use, so
    an app that is never asked makes none) and the last answer, kept for CACHE_S."""

    def __init__(self, state_url: str, queue_url: str | None) -> None:
        self.state_url = state_url
        self.queue_url = queue_url
        self._lock = threading.Lock()
        self._clients: tuple[redis.Redis, redis.Redis] | None = None
        self._answer: tuple[float, Readiness] | None = None

    def readiness(self) -> Readiness:
        with self._lock:  # one probe at a time: the others wait for its answer
            if self._answer and time.monotonic() - self._answer[0] < CACHE_S:
                return self._answer[1]
            found = self._probe()
            self._answer = (time.monotonic(), found)
            return found

    def _probe(self) -> Readiness:
        try:
            state, queue = self._connections()
            if not (state.ping() and (queue is state or queue.ping())):
                return Readiness(redis=False)
            return Readiness(redis=True, workers=live_workers(queue))
        except (redis.RedisError, OSError):
            return Readiness(redis=False)

    def _connections(self) -> tuple[redis.Redis, redis.Redis]:
        if self._clients is None:
            cluster = cluster_mode()
            state = _short_client(self.state_url, cluster)
            # (without RQ_REDIS_URL, create_app refused cluster mode: one plain Redis)
            queue = _short_client(self.queue_url) if self.queue_url else state
            self._clients = (state, queue)
        return self._clients


def probe_of(app: Flask) -> Probe:
    """The app's probe, made the first time readiness is asked for."""
    probe = app.extensions.get(_EXTENSION)
    if probe is None:
        probe = app.extensions.setdefault(
            _EXTENSION, Probe(app.config["REDIS_URL"], app.config.get("RQ_REDIS_URL"))
        )
    return probe


def answer(found: Readiness) -> Response:
    """200 with what was found, or 503 problem+json naming what is missing."""
    if found.ok:
        response = jsonify(found.as_dict())
    else:
        missing = found.missing()
        detail = "Not ready: " + "; ".join(item["reason"] for item in missing) + "."
        response = problems.problem(
            503,
            "not_ready",
            detail,
            errors=missing,
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    response.headers["Cache-Control"] = "no-store"
    return response


@health.route("/health/live")
class Live(MethodView):
    @health.response(200, schemas.Health)
    @health.alt_response(500, response="INTERNAL_SERVER_ERROR")  # problem+json (service.api)
    @health.doc(operationId="live", security=[])
    def get(self) -> dict[str, Any]:
        """The process answers: touches nothing (the benchmarks' no-op baseline)."""
        return {"ok": True}


class Ready(MethodView):
    def get(self) -> Response:
        """Redis answers a PING within the deadline and a live worker serves each queue."""
        return answer(probe_of(current_app).readiness())


# Plain Flask rules, left out of the OpenAPI document (see the module's docstring).
flask.Blueprint.add_url_rule(health, "/health/ready", view_func=Ready.as_view("ready"))
flask.Blueprint.add_url_rule(health, "/health", view_func=Ready.as_view("health"))
