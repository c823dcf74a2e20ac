"""The queries: a game as one caller may see it, its events since a version (waiting for
the next one when asked), a stream of them, and the list of games.

Nothing here writes. A seat's token shows that seat's cards; no token shows what a
spectator may see; every event is redacted for the caller before it leaves.
"""

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

from service.auth import SeatAuth
from service.following import FollowerHub
from service.presentation import game_view, shown_event, shown_events
from service.repository import Loaded, Repository
from service.scheduler import ClockedTurn, TurnScheduler
from service.signing import Signer
from service.tables import Status

KEEP_ALIVE_S = 15.0  # a comment line this often keeps proxies from closing an idle stream
RECENT_ANSWERS = 4096  # answers to followers kept: the many followers of a game share them


class Recent:
    """The newest answers, by what determines them: when a move wakes fifty followers
    of a game, the first one's answer (its redaction, sentences and signed receipt)
    serves the rest who see the game alike."""

    def __init__(self, size: int = RECENT_ANSWERS) -> None:
        self.size = size
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            return self._items.get(key)

    def put(self, key: Any, value: Any) -> Any:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value


class Queries:
    def __init__(
        self,
        repository: Repository,
        scheduler: TurnScheduler,
        signer: Signer | None = None,
        hub: FollowerHub | None = None,
    ) -> None:
        self.repository = repository
        self.hub = hub or FollowerHub(repository.redis)
        self.signer = signer
        self.tables = repository.tables
        self.events = repository.events
        self.scheduler = scheduler
        self.auth = SeatAuth(repository.tables)
        self.recent = Recent()

    def view(self, game_id: str, token: str | None) -> dict[str, Any]:
        loaded = self.repository.load(game_id)
        seat = self.auth.seat_of(loaded.table, token)
        return {**game_view(loaded, seat, self.clocked(loaded)), **self.receipt(loaded)}

    def receipt(self, loaded: Loaded) -> dict[str, Any]:
        """A signed receipt for the version shown (none without a signer); signed once
        per version however many followers are shown it."""
        if self.signer is None:
            return {}
        key = ("receipt", loaded.id, loaded.version, loaded.last_hash)
        signed = self.recent.get(key) or self.recent.put(
            key, self.signer.receipt(loaded.id, loaded.version, loaded.last_hash)
        )
        return {"receipt": signed}

    def clocked(self, loaded: Loaded) -> dict[int, ClockedTurn]:
        if loaded.table.clock is None:
            return {}
        return self.scheduler.clocked_turns(loaded.id)

    def list_games(self, status: Status | None, page: int, page_size: int) -> dict[str, Any]:
        total, found = self.tables.page(status, page, page_size)
        items = [
            {
                "id": table.id,
                "game": table.game,
                "preset": table.preset,
                "status": table.status,
                "created": table.created,
                "seats": [seat.public() for seat in table.seats],
            }
            for table in found
        ]
        return {"items": items, "page": page, "page_size": page_size, "total": total}

    def events_since(self, game_id: str, token: str | None, after: int, wait: float) -> dict:
        """The events after version `after`; with `wait`, blocks until one arrives."""
        table = self.tables.get(game_id)
        seat = self.auth.seat_of(table, token)
        known = None
        if wait > 0 and self.events.version(game_id) <= after:
            known = self.hub.wait_once(game_id, after, wait)
        # Every follower of the game woken by one move asks the same; the first computes.
        same = ("events", game_id, seat, after, known, tuple(table.names()))
        if known is not None and (answer := self.recent.get(same)) is not None:
            return dict(answer)
        loaded = self.repository.load(game_id)  # after the wait: a seat may have filled
        events = self.events.read(game_id, after=after, upto=loaded.version)
        shown = shown_events(loaded, events, seat, after + 1, loaded.state)
        answer = {"version": loaded.version, "events": shown, **self.receipt(loaded)}
        if known == loaded.version:
            self.recent.put(same, answer)
        return dict(answer)

    def follow(self, game_id: str, token: str | None, after: int, seconds: float) -> "Stream":
        """Server-Sent Events: each new event as the caller may see it, then wait for more.

        Ends after `seconds` (the client reconnects with Last-Event-ID) or once the game
        is over and told; a comment line every 15 s keeps proxies from closing it. The
        stream holds a follower's place in the hub from now until it is closed (Busy,
        before anything is sent, when the hub is full).
        """
        seat = self.auth.seat_of(self.tables.get(game_id), token)
        place = ExitStack()
        watch = place.enter_context(self.hub.following(game_id))
        frames = self._frames(game_id, seat, after, time.monotonic() + seconds, watch)
        return Stream(frames, place)

    def _frames(self, game_id: str, seat: int | None, last: int, deadline: float, watch: Any):
        yield "retry: 2000\n\n"
        while time.monotonic() < deadline:
            loaded = self.repository.load(game_id)
            shown = self._shown_since(loaded, seat, last)
            if shown:
                yield shown
                last = loaded.version
            if loaded.game.is_finished(loaded.state) and last >= loaded.version:
                return
            wait = min(KEEP_ALIVE_S, deadline - time.monotonic())
            if wait <= 0:
                return
            if self.hub.wait(watch, last, wait) <= last:
                yield ": keep-alive\n\n"

    def _shown_since(self, loaded: Loaded, seat: int | None, last: int) -> str:
        """The SSE frames of the events after `last`, as `seat` sees them; made once for
        every follower of the game at this version who sees it alike."""
        names = loaded.table.names()
        same = ("frames", loaded.id, seat, last, loaded.version, tuple(names))
        frames = self.recent.get(same)
        if frames is None:
            parts = []
            for record in self.events.records(loaded.id, after=last, upto=loaded.version):
                shown = shown_event(
                    loaded.game, record.event, seat, loaded.state, record.version, names
                )
                kind = record.event["type"]
                parts.append(f"id: {record.version}\nevent: {kind}\ndata: {json.dumps(shown)}\n\n")
            frames = self.recent.put(same, "".join(parts))
        return str(frames)


class Stream:
    """An SSE response body that gives its follower's place back when closed — also when
    the client leaves before the first frame (a generator never started runs no
    `finally`; the server calls `close` on every response body it is done with)."""

    def __init__(self, frames: Iterator[str], place: ExitStack) -> None:
        self.frames = frames
        self.place = place

    def __iter__(self) -> Iterator[str]:
        return self.frames

    def close(self) -> None:
        try:
            close = getattr(self.frames, "close", None)
            if close is not None:
                close()
        finally:
            self.place.close()
