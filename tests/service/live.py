"""Live helpers for the clock, webhook and stream tests: real workers, a real HTTP receiver.

Workers are real RQ worker processes (tests/service/test_workers.py's `start_worker`),
each in its own process group so that killing one also ends its forked scheduler.
The receiver is a real HTTP server on localhost that records every POST it gets; the
slow receiver a real TCP (or TLS) server that reads each request and never finishes
answering it. Nothing here is a mock.
"""

import contextlib
import hashlib
import hmac
import http.client
import json
import os
import queue
import random
import select
import signal
import socket
import ssl
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


class SlowReceiver:
    """A webhook receiver that never finishes its answer: a real TCP server on 127.0.0.1.

    For each connection it reads the request, sends `head` at once, then `drip` over and
    over, `chunk` bytes at a time, `every` seconds apart (every=0: as fast as the client
    reads). With `silent` it reads and sends nothing at all (a TLS client's hello is
    never answered); with `tls`, it is a TLS server. Each connection is recorded: when it
    was accepted (time.monotonic), the request, how many bytes were sent, and when the
    client closed it.
    """

    def __init__(
        self,
        head: bytes = b"",
        drip: bytes = b"",
        every: float = 2.0,
        chunk: int = 1,
        silent: bool = False,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.head, self.drip, self.every, self.chunk = head, drip, every, chunk
        self.silent, self.tls = silent, tls
        self.connections: list[dict[str, Any]] = []
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/hook?seat=ann"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:  # closed
                return
            record = {"accepted": time.monotonic(), "request": b"", "sent": 0, "closed": None}
            with self._lock:
                self.connections.append(record)
                self._sockets.append(conn)
            threading.Thread(target=self._serve, args=(conn, record), daemon=True).start()

    def _serve(self, conn: socket.socket, record: dict[str, Any]) -> None:
        with contextlib.suppress(OSError, ValueError):  # ValueError: select on a closed socket
            if not self.silent:
                if self.tls is not None:
                    conn = self.tls.wrap_socket(conn, server_side=True)
                    with self._lock:
                        self._sockets.append(conn)
                record["request"] = _read_request(conn)
                conn.sendall(self.head)
                record["sent"] += len(self.head)
            self._drip(conn, record)
        record["closed"] = record["closed"] or time.monotonic()

    def _drip(self, conn: socket.socket, record: dict[str, Any]) -> None:
        """Send `drip` piece by piece until the client closes the connection."""
        stream = self.drip * (self.chunk // max(len(self.drip), 1) + 2)  # any chunk fits in it
        offset = 0
        while True:
            readable, _, _ = select.select([conn], [], [], self.every)
            if readable and not conn.recv(65536):
                record["closed"] = time.monotonic()  # the client closed the connection
                return
            if self.silent or not self.drip:
                continue
            piece = stream[offset : offset + self.chunk]
            conn.sendall(piece)
            record["sent"] += len(piece)
            offset = (offset + len(piece)) % len(self.drip)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._listener.close()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def _read_request(conn: socket.socket) -> bytes:
    """One HTTP request: its head, then as many body bytes as its Content-Length says."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            return data
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        more = conn.recv(65536)
        if not more:
            break
        body += more
    return head + b"\r\n\r\n" + body


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
            # At the version seen: a time-out landing in between makes it 412, not a
            # move judged against a turn it was not chosen for.
            headers = {**auth(token), "If-Match": f'"{view["version"]}"'}
            answer = client.post(f"/games/{game_id}/moves", json=command, headers=headers)
            assert answer.status_code in (200, 409, 412), answer.get_json()
            moves += answer.status_code == 200
        else:
            client.get(
                f"/games/{game_id}/events?after={view['version']}&wait=2", headers=auth(token)
            )
    raise AssertionError("the game did not finish in time")


class SseClient:
    """Reads a Server-Sent Events stream incrementally over a real socket, block by block."""

    def __init__(self, port: int, path: str, headers: dict[str, str]) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.conn.request("GET", path, headers=headers)
        self.response = self.conn.getresponse()
        self.blocks: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        fields: dict[str, str] = {}
        try:
            for raw in iter(self.response.readline, b""):
                line = raw.decode().rstrip("\n")
                if not line:
                    if fields:
                        self.blocks.put(fields)
                    fields = {}
                elif not line.startswith(":"):  # a comment keeps the connection alive
                    name, _, value = line.partition(":")
                    fields[name] = value.removeprefix(" ")
        except OSError:
            pass
        self.blocks.put(None)  # the stream ended

    def next_event(self, timeout: float = 10.0) -> dict | None:
        """The next event block (id, event, data parsed), skipping `retry:`; None at the end."""
        while True:
            block = self.blocks.get(timeout=timeout)
            if block is None or "id" in block or "event" in block:
                if block is not None:
                    block["data"] = json.loads(block["data"])
                return block

    def close(self) -> None:
        self.conn.close()
