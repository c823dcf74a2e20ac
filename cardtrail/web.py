"""The web processes: gunicorn's settings for cardtrail, one place for `cardtrail serve`
and docker-compose alike (`gunicorn -c python:cardtrail.web 'service.api:create_app()'`).

Play-by-turn lives on long-polls and Server-Sent Events, so most connections are
followers that wait. They are served cooperatively: gunicorn's gevent worker runs each
connection in a greenlet (the Redis client and the follower hub's threads are patched
to greenlets too), so a waiting follower costs a few kilobytes, not a thread, and one
process holds thousands (service/following.py wakes them). `FollowerWorker` adds what a
handful of hostile clients would otherwise exploit:
  * the request line and headers must arrive within `keepalive` seconds (gunicorn's
    async workers read them under that timeout): a slowloris socket is dropped;
  * every later read or write on a connection must progress within READ_TIMEOUT
    seconds (a body sent a byte at a time, a client that stops reading an SSE stream);
  * at most MAX_CONNECTIONS_PER_CLIENT connections at once from one address; more are
    answered 503 at once and closed.
"""

import gc
import os
from collections import Counter
from typing import Any

from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker

READ_TIMEOUT = float(os.environ.get("CARDTRAIL_READ_TIMEOUT", "10"))
MAX_CONNECTIONS_PER_CLIENT = int(os.environ.get("CARDTRAIL_MAX_CONNECTIONS_PER_CLIENT", "1000"))
CONNECTIONS_PER_PROCESS = 20_000  # greenlets (sockets) one web process serves at once
HEADER_TIMEOUT = 5  # seconds for a request's line and headers (gunicorn's keepalive)
GC_THRESHOLDS = (50_000, 20, 100)  # Python's are (2000, 10, 10) (3.11: 700, 10, 10)
_TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n"
    b"Content-Type: application/problem+json\r\nContent-Length: 144\r\n\r\n"
    b'{"type": "https://cardtrail.dev/problems/too_many_connections", '
    b'"title": "Too many connections", "status": 503, "code": "too_many_connections"}'
)


class FollowerWorker(GeventWorker):
    """gunicorn's gevent worker with a per-operation timeout and a cap per address."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.open_by_client: Counter[str] = Counter()

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        who = addr[0] if isinstance(addr, tuple) and addr else "local"
        if self.open_by_client[who] >= MAX_CONNECTIONS_PER_CLIENT:
            try:
                client.sendall(_TOO_MANY)
            finally:
                client.close()
            return
        self.open_by_client[who] += 1
        try:
            client.settimeout(READ_TIMEOUT)
            AsyncWorker.handle(self, listener, client, addr)
        finally:
            self.open_by_client[who] -= 1
            if not self.open_by_client[who]:
                del self.open_by_client[who]


def gunicorn_options(host: str, port: int, workers: int, threads: int = 1) -> dict[str, Any]:
    """The settings `cardtrail serve` runs gunicorn with (`threads` is unused by the
    cooperative worker and kept for callers that still pass it)."""
    return {
        "bind": f"{host}:{port}",
        "workers": workers,
        "worker_class": "cardtrail.web.FollowerWorker",
        "worker_connections": CONNECTIONS_PER_PROCESS,
        "keepalive": HEADER_TIMEOUT,
        "timeout": 60,
        "graceful_timeout": 5,
        "accesslog": None,
        "post_worker_init": post_worker_init,
    }


def post_worker_init(worker: Any) -> None:
    """Once the app is loaded: its objects (modules, schemas, the registry) are kept out
    of the cyclic garbage collector's sweeps, and sweeps come less often. With thousands
    of followers a full sweep walks every greenlet's frames and stalls every request for
    a few hundred milliseconds; the app's own garbage is mostly acyclic and freed at once."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


# As a gunicorn config module (`-c python:cardtrail.web`): the same settings.
worker_class = "cardtrail.web.FollowerWorker"
worker_connections = CONNECTIONS_PER_PROCESS
keepalive = HEADER_TIMEOUT
timeout = 60
graceful_timeout = 5
