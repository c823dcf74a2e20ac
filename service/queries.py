"""The queries: a game as one caller may see it, its events since a version (waiting for
the next one when asked), a stream of them, and the list of games.

Nothing here writes. A seat's token, or the credential of the player bound to a seat,
shows that seat's cards; no credential (or a player's who holds no seat here) shows what
a spectator may see; every event is redacted for the caller before it leaves.
"""

import json
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

from service.auth import Credential, SeatAuth
from service.following import FollowerHub
from service.presentation import game_view, shown_event, shown_events
from service.repository import Loaded, Repository
from service.scheduler import ClockedTurn, TurnScheduler
from service.signing import Signer
from service.tables import Status

KEEP_ALIVE_S = 15.0  # a comment line this often keeps proxies from closing an idle stream
RECENT_ANSWERS = 4096  # answers to followers kept: the many followers of a game share them


def spread(seconds: float) -> float:
    """A wait shortened by up to a fifth, at random: followers that all began at once (a
    server restart, a crowd arriving) would otherwise all time out and come back at once,
    every time; spread out, their returns cost the server a trickle, not a wave."""
    return seconds * (0.8 + 0.2 * random.random())


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

    def view(self, game_id: str, who: Credential) -> dict[str, Any]:
        loaded = self.repository.load(game_id)
        seat = self.auth.seat_of(loaded.table, who, loaded.game.to_act(loaded.state))
        links = {k: v for k, v in (("rematch_of", loaded.table.rematch_of),
                                   ("rematch", loaded.table.rematch)) if v}  # fmt: skip
        return {**game_view(loaded, seat, self.clocked(loaded)), **links, **self.receipt(loaded)}

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
                "seats": table.public_seats(),
                **({"rematch_of": table.rematch_of} if table.rematch_of else {}),
                **({"rematch": table.rematch} if table.rematch else {}),
            }
            for table in found
        ]
        return {"items": items, "page": page, "page_size": page_size, "total": total}

    def events_since(self, game_id: str, token: Credential, after: int, wait: float) -> dict:
        """The events after version `after`; with `wait`, blocks until one arrives."""
        answer: dict = json.loads(self.events_since_json(game_id, token, after, wait))
        return answer

    def events_since_json(self, game_id: str, token: Credential, after: int, wait: float) -> bytes:
        """`events_since` as JSON text. Every follower of a game woken by one move asks the
        same, so the first one's answer, encoded once, serves the others who see it alike."""
        table = self.tables.get(game_id)
        seat = self.auth.seat_of(table, token)
        known = None
        if wait > 0 and self._latest(game_id) <= after:
            known = self.hub.wait_once(game_id, after, spread(wait))
        same = ("events", game_id, seat, after, known, tuple(table.names()))
        if known is not None and (encoded := self.recent.get(same)) is not None:
            return bytes(encoded)
        loaded = self.repository.load(game_id)  # after the wait: a seat may have filled
        events = self.events.read(game_id, after=after, upto=loaded.version)
        shown = shown_events(loaded, events, seat, after + 1, loaded.state)
        answer = {"version": loaded.version, "events": shown, **self.receipt(loaded)}
        encoded = json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode()
        if known == loaded.version:
            self.recent.put(same, encoded)
        return encoded

    def _latest(self, game_id: str) -> int:
        """The game's version as far as a follower needs it: the hub's when it follows
        the game (no round trip: a follower woken by a move re-polls straight away), else
        the log's length (a sealed game's stream is gone: the hub sees none of its log)."""
        known = self.hub.known(game_id)
        return known or self.events.version(game_id)

    def follow(
        self,
        game_id: str,
        token: Credential,
        after: int,
        seconds: float,
        still_valid: Callable[[], bool] = lambda: True,
    ) -> "Stream":
        """Server-Sent Events: each new event as the caller may see it, then wait for more.

        Ends after `seconds` (the client reconnects with Last-Event-ID) or once the game
        is over and told; a comment line every 15 s keeps proxies from closing it. The
        stream holds a follower's place in the hub from now until it is closed (Busy,
        before anything is sent, when the hub is full). Before each frame it asks
        `still_valid`: a player's stream whose session closed or token was revoked ends
        there, with an event `closed`, and shows the seat's cards no more.
        """
        seat = self.auth.seat_of(self.tables.get(game_id), token)
        place = ExitStack()
        watch = place.enter_context(self.hub.following(game_id))
        frames = self._frames(game_id, seat, after, time.monotonic() + seconds, watch)
        return Stream(_while_valid(frames, still_valid), place)

    def _frames(self, game_id: str, seat: int | None, last: int, deadline: float, watch: Any):
        yield "retry: 2000\n\n"
        news = True  # the log may hold events after `last`: read it
        while time.monotonic() < deadline:
            if news:
                shown, last, over = self._news(game_id, seat, last, watch.version)
                if shown:
                    yield shown
                if over:
                    return
            wait = min(spread(KEEP_ALIVE_S), deadline - time.monotonic())
            if wait <= 0:
                return
            news = self.hub.wait(watch, last, wait) > last
            if not news:
                yield ": keep-alive\n\n"  # and nothing to read: the hub saw no event

    def _news(self, game_id: str, seat: int | None, last: int, known: int) -> tuple[str, int, bool]:
        """(the SSE frames of the events after `last` as `seat` sees them, the version they
        reach, whether the game is over and told). Made once for every follower of the
        game at that version who sees it alike: the others do not even load the game."""
        made = self.recent.get(("frames", game_id, seat, last, known))
        if made is not None:
            frames, version, over = made
            return str(frames), int(version), bool(over)
        loaded = self.repository.load(game_id)
        names = loaded.table.names()
        parts = []
        for record in self.events.records(game_id, after=last, upto=loaded.version):
            shown = shown_event(
                loaded.game, record.event, seat, loaded.state, record.version, names
            )
            kind = record.event["type"]
            parts.append(f"id: {record.version}\nevent: {kind}\ndata: {json.dumps(shown)}\n\n")
        ended = loaded.game.is_finished(loaded.state) or loaded.table.status == "abandoned"
        made = ("".join(parts), max(last, loaded.version), ended)
        if loaded.version == known:  # what a follower who knows this version will ask
            self.recent.put(("frames", game_id, seat, last, known), made)
        return made


REVOKED_FRAME = 'event: closed\ndata: {"reason": "credential_revoked"}\n\n'


def _while_valid(frames: Iterator[str], still_valid: Callable[[], bool]) -> Iterator[str]:
    """`frames` as long as the credential holds, asked before each one is sent."""
    try:
        for frame in frames:
            if not still_valid():
                yield REVOKED_FRAME
                return
            yield frame
    finally:
        close = getattr(frames, "close", None)
        if close is not None:
            close()


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
