"""Followers: everyone waiting for a game's next event, served by one read per game.

A long-poll or an SSE stream waits here instead of blocking in Redis itself. For each
followed game the hub runs one reader (a thread; a greenlet under gevent's patching)
that blocks in XREAD on the game's stream and, when an event lands, wakes every follower
of that game at once. So a process holds thousands of followers with one Redis read per
followed game, not one per follower, and a follower costs no thread of its own.

The hub keeps itself bounded: at most `max_followers` waits at a time and at most
`max_games` games read at once; beyond them a follower is told to come back (`Busy`, a
503 with Retry-After) at once rather than left hanging.
"""

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis

from service import keys
from service.errors import Busy

READ_BLOCK_MS = 5_000  # a reader's XREAD blocks this long, then checks it is still wanted


class _Watch:
    """One followed game: the newest version seen, and the followers waiting on it."""

    def __init__(self) -> None:
        self.version = -1  # not read yet
        self.changed = threading.Condition()
        self.followers = 0
        self.until = 0.0  # when the longest wait begun so far ends (the hub's clock)


class FollowerHub:
    def __init__(
        self,
        client: redis.Redis,
        max_followers: int = 10_000,
        max_games: int = 2_000,
        block_ms: int = READ_BLOCK_MS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.redis = client  # its pool must allow one connection per reader
        self.max_followers = max_followers
        self.max_games = max_games
        self.block_ms = block_ms
        self.now = clock
        self._lock = threading.Lock()
        self._watches: dict[str, _Watch] = {}
        self._followers = 0

    @property
    def followers(self) -> int:
        return self._followers

    @property
    def games(self) -> int:
        return len(self._watches)

    @contextmanager
    def following(self, game_id: str) -> Iterator[_Watch]:
        """A follower's place for as long as it follows `game_id`; Busy when full."""
        watch = self._join(game_id)
        try:
            yield watch
        finally:
            with self._lock:
                self._followers -= 1
                watch.followers -= 1

    def wait(self, watch: _Watch, after: int, timeout: float) -> int:
        """Block until the game's log is past version `after` or `timeout` seconds pass;
        the newest version known then (it may still be `after` on a timeout)."""
        deadline = self.now() + max(0.0, timeout)
        watch.until = max(watch.until, deadline)
        with watch.changed:
            while watch.version <= after:
                left = deadline - self.now()
                if left <= 0:
                    break
                watch.changed.wait(left)
            return watch.version

    def known(self, game_id: str) -> int | None:
        """The newest version this process's reader of the game has seen, None when no
        reader follows it yet. It may lag the log by a moment, never lead it: a follower
        who finds nothing newer here and waits is woken by that very reader."""
        watch = self._watches.get(game_id)
        if watch is None or watch.version < 0:
            return None
        return watch.version

    def wait_once(self, game_id: str, after: int, timeout: float) -> int:
        """`wait` for a single long-poll: a place for the wait's length only."""
        with self.following(game_id) as watch:
            return self.wait(watch, after, timeout)

    def _join(self, game_id: str) -> _Watch:
        with self._lock:
            if self._followers >= self.max_followers:
                raise Busy("too_many_followers", "This server is following all it can; retry.")
            watch = self._watches.get(game_id)
            if watch is None:
                if len(self._watches) >= self.max_games:
                    self._drop_idle()
                if len(self._watches) >= self.max_games:
                    raise Busy("too_many_games_followed", "This server follows all it can.")
                watch = self._watches[game_id] = _Watch()
                threading.Thread(
                    target=self._read, args=(game_id, watch), name=f"follow-{game_id}", daemon=True
                ).start()
            watch.followers += 1
            self._followers += 1
            return watch

    def _drop_idle(self) -> None:
        """Forget the games nobody follows any more whose readers have not stopped yet
        (each stops at its next wake-up, seeing it is no longer the game's reader), so
        that they do not keep a followed game out. Called with the lock held, when full."""
        for game_id, watch in list(self._watches.items()):
            if watch.followers == 0:
                del self._watches[game_id]

    def _read(self, game_id: str, watch: _Watch) -> None:
        """The game's one reader: the log's length, then each new event as it lands."""
        key = keys.events(game_id)
        try:
            known = int(self.redis.xlen(key))
            self._seen(watch, known)
            while self._wanted(game_id, watch):
                reply = self.redis.xread({key: f"0-{known}"}, count=1000, block=self._block(watch))
                if reply:
                    known = _version_of(reply[0][1][-1][0])
                    self._seen(watch, known)
        except (redis.RedisError, OSError, ValueError):  # the store is gone or was closed
            self._forget(game_id, watch)
            self._seen(watch, watch.version)  # followers re-check and time out on their own

    def _block(self, watch: _Watch) -> int:
        """How long the reader's next XREAD blocks: no longer than its followers still
        wait (at least 1 ms: 0 is "forever" to Redis), so a reader whose last follower
        asked for a short wait stops soon after it and gives its place back, rather than
        holding one of `max_games` places (and a connection) for a whole block."""
        left_ms = int((watch.until - self.now()) * 1000) + 1
        return max(1, min(self.block_ms, left_ms))

    @staticmethod
    def _seen(watch: _Watch, version: int) -> None:
        with watch.changed:
            watch.version = max(watch.version, version)
            watch.changed.notify_all()

    def _wanted(self, game_id: str, watch: _Watch) -> bool:
        """Whether anyone still follows the game; if not, the reader stops and the game
        is forgotten (the next follower starts a new reader)."""
        with self._lock:
            if watch.followers > 0:
                return True
            if self._watches.get(game_id) is watch:
                del self._watches[game_id]
            return False

    def _forget(self, game_id: str, watch: _Watch) -> None:
        with self._lock:
            if self._watches.get(game_id) is watch:
                del self._watches[game_id]


def _version_of(entry_id: Any) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
    return int(text.split("-", 1)[1])
