"""Live helpers for the clock, webhook and stream tests: real workers, a real HTTP receiver.

Workers are real RQ worker processes (tests/service/test_workers.py's `start_worker`),
each in its own process group so that killing one also ends its forked scheduler.
The receiver is a real HTTP server on localhost that records every POST it gets.
Nothing here is a mock.
"""

import contextlib
import hashlib
import hmac
import json
import os
import random
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rq import Queue
from rq.registry import ScheduledJobRegistry, StartedJobRegistry
from rq.scheduler import RQScheduler

from engine import games, table
from service.scheduler import NOTIFY_QUEUE, QUEUE
from tests.service.helpers import auth
from tests.service.test_workers import start_worker

ALLOW_PRIVATE = "CARDTRAIL_WEBHOOK_ALLOW_PRIVATE"
SCHEDULER_LOCK = RQScheduler.get_locking_key(QUEUE)


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, every: float = 0.05):
    """Poll until `predicate()` is truthy (and return it), or fail naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout} s waiting for {what}")
        time.sleep(every)


class Workers:
    """Real worker processes, each in its own process group; all killed at teardown."""

    def __init__(self, redis_url: str, redis_client) -> None:
        self.redis_url = redis_url
        self.redis = redis_client
        self.procs: list[subprocess.Popen] = []

    def start(
        self, scheduler: bool = True, queues: tuple[str, ...] = ("turns", "notify"), **env: str
    ) -> subprocess.Popen:
        """Start a worker on `queues`; with `scheduler`, return once a worker's scheduler
        holds the lock of the turns queue."""
        proc = start_worker(self.redis_url, queues, **env)
        self.procs.append(proc)
        if scheduler:
            wait_until(lambda: self.redis.exists(SCHEDULER_LOCK), 20, "the worker's scheduler")
        return proc

    def kill(self, proc: subprocess.Popen) -> None:
        """SIGKILL the worker's whole process group: the worker and its scheduler."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def close(self) -> None:
        for proc in self.procs:
            self.kill(proc)


def queue_idle(redis_client, scheduled_too: bool = True) -> bool:
    """Nothing queued or running on either queue (and, with `scheduled_too`, nothing
    scheduled: deadlines, reminders, delivery retries)."""
    for name in (QUEUE, NOTIFY_QUEUE):
        queue = Queue(name, connection=redis_client)
        if queue.count or StartedJobRegistry(queue=queue).count:
            return False
        if scheduled_too and ScheduledJobRegistry(queue=queue).count:
            return False
    return True


class Receiver:
    """A webhook receiver: a real HTTP server on 127.0.0.1 recording each POST.

    `statuses` are the answers to the first requests (200 after them); with `hold`,
    each request waits for that event before it is answered.
    """

    def __init__(self, statuses: tuple[int, ...] = (), hold: threading.Event | None = None):
        self.statuses = list(statuses)
        self.hold = hold
        self.requests: list[dict[str, Any]] = []
        self.entered = threading.Event()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver._lock:
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                    record = {
                        "path": self.path,
                        "headers": dict(self.headers.items()),
                        "body": body,
                        "message": json.loads(body),
                        "status": status,
                        "received": time.time(),
                        "answered": False,
                    }
                    receiver.requests.append(record)
                receiver.entered.set()
                if receiver.hold is not None:
                    receiver.hold.wait(30)
                with contextlib.suppress(OSError):
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                record["answered"] = True

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook?seat=ann"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def messages(self, kind: str | None = None, acknowledged: bool = True) -> list[dict]:
        """The messages received (only those answered 2xx, unless told otherwise)."""
        with self._lock:
            records = list(self.requests)
        return [
            r["message"]
            for r in records
            if (not acknowledged or r["status"] == 200)
            and (kind is None or r["message"]["kind"] == kind)
        ]

    def close(self) -> None:
        if self.hold is not None:
            self.hold.set()
        self.server.shutdown()
        self.server.server_close()


def signature_valid(secret: str, record: dict[str, Any]) -> bool:
    """Recompute X-Cardtrail-Signature from the secret, the timestamp header and the body."""
    timestamp = record["headers"]["X-Cardtrail-Timestamp"]
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + record["body"], hashlib.sha256)
    signature = record["headers"]["X-Cardtrail-Signature"]
    return hmac.compare_digest("sha256=" + mac.hexdigest(), signature)


def turns_begun(store, game_id: str, seat: int) -> list[int]:
    """The versions at which `seat`'s turn began, derived from the stored log alone.

    Batch by batch (a batch opens at a record with a command): fold it, and the seat's
    turn began if it is to act after the batch but was not before it (or a hand was dealt).
    """
    game = games.get("rummy")
    records = store.records(game_id)
    began: list[int] = []
    state = None
    start = 0
    while start < len(records):
        end = start + 1
        while end < len(records) and records[end].command is None:
            end += 1
        batch = [record.event for record in records[start:end]]
        before = state
        state = table.fold(game, batch, state)
        fresh = before is None or any(event["type"] == "hand_dealt" for event in batch)
        was = set() if fresh else set(game.to_act(before))
        if seat in game.to_act(state) and seat not in was:
            began.append(records[end - 1].version)
        start = end
    return began


def play_own_turns(
    client,
    game_id: str,
    token: str,
    seat: int,
    rng: random.Random,
    timeout: float = 60.0,
    until: Callable[[dict[str, Any]], bool] | None = None,
) -> int:
    """Play `seat` by hand with random legal moves until the game ends (or `until(view)`).

    Waits for the other seats with the long-poll. A move refused with 409/412 (a
    time-out or the clock's bot got there first) is not an error: look again.
    """
    moves = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
        if view["status"] == "finished" or (until is not None and until(view)):
            return moves
        if view["turn"] == seat and view["you"]["legal_moves"]:
            command = rng.choice(view["you"]["legal_moves"])
            answer = client.post(f"/games/{game_id}/moves", json=command, headers=auth(token))
            assert answer.status_code in (200, 409, 412), answer.get_json()
            moves += answer.status_code == 200
        else:
            client.get(
                f"/games/{game_id}/events?after={view['version']}&wait=2", headers=auth(token)
            )
    raise AssertionError("the game did not finish in time")
