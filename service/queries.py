"""The queries: a game as one caller may see it, its events since a version (waiting for
the next one when asked), a stream of them, and the list of games.

Nothing here writes. A seat's token shows that seat's cards; no token shows what a
spectator may see; every event is redacted for the caller before it leaves.
"""

import json
import time
from collections.abc import Iterator
from typing import Any

from service.auth import SeatAuth
from service.presentation import game_view, shown_event, shown_events
from service.repository import Loaded, Repository
from service.scheduler import ClockedTurn, TurnScheduler
from service.signing import Signer
from service.tables import Status

KEEP_ALIVE_S = 15.0  # a comment line this often keeps proxies from closing an idle stream


class Queries:
    def __init__(
        self, repository: Repository, scheduler: TurnScheduler, signer: Signer | None = None
    ) -> None:
        self.repository = repository
        self.signer = signer
        self.tables = repository.tables
        self.events = repository.events
        self.scheduler = scheduler
        self.auth = SeatAuth(repository.tables)

    def view(self, game_id: str, token: str | None) -> dict[str, Any]:
        loaded = self.repository.load(game_id)
        seat = self.auth.seat_of(loaded.table, token)
        return {**game_view(loaded, seat, self.clocked(loaded)), **self.receipt(loaded)}

    def receipt(self, loaded: Loaded) -> dict[str, Any]:
        """A signed receipt for the version shown (none without a signer)."""
        if self.signer is None:
            return {}
        return {"receipt": self.signer.receipt(loaded.id, loaded.version, loaded.last_hash)}

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
        seat = self.auth.seat_of(self.tables.get(game_id), token)
        if wait > 0 and self.events.version(game_id) <= after:
            self.events.wait(game_id, after, wait)
        loaded = self.repository.load(game_id)  # after the wait: a seat may have filled
        events = self.events.read(game_id, after=after, upto=loaded.version)
        shown = shown_events(loaded, events, seat, after + 1, loaded.state)
        return {"version": loaded.version, "events": shown, **self.receipt(loaded)}

    def follow(self, game_id: str, token: str | None, after: int, seconds: float) -> Iterator[str]:
        """Server-Sent Events: each new event as the caller may see it, then wait for more.

        Ends after `seconds` (the client reconnects with Last-Event-ID) or once the game
        is over and told; a comment line every 15 s keeps proxies from closing it.
        """
        seat = self.auth.seat_of(self.tables.get(game_id), token)
        return self._stream(game_id, seat, after, time.monotonic() + seconds)

    def _stream(self, game_id: str, seat: int | None, last: int, deadline: float):
        yield "retry: 2000\n\n"
        while time.monotonic() < deadline:
            loaded = self.repository.load(game_id)
            names = loaded.table.names()
            for record in self.events.records(game_id, after=last, upto=loaded.version):
                shown = shown_event(
                    loaded.game, record.event, seat, loaded.state, record.version, names
                )
                kind = record.event["type"]
                yield f"id: {record.version}\nevent: {kind}\ndata: {json.dumps(shown)}\n\n"
                last = record.version
            if loaded.game.is_finished(loaded.state) and last >= loaded.version:
                return
            wait = min(KEEP_ALIVE_S, deadline - time.monotonic())
            if wait <= 0:
                return
            self.events.wait(game_id, last, wait)
            if self.events.version(game_id) == last:
                yield ": keep-alive\n\n"
