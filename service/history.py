"""Reading a game's past: hands, replay steps, the export and the audit, over the service's store.

The logic lives in `replays/`; this module only adds access rules (a hand in play
replays from the caller's seat only, a spectator may not replay it, a running game
cannot be exported) and keeps each game's log in memory (it only ever grows).
"""

import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine import table
from replays import audit as auditing
from replays import receipts as receipt_checks
from replays.export import export_lines
from replays.replay import HandSpan, HandStates, hand_spans
from replays.verdict import Entry
from service.auth import Credential, SeatAuth
from service.errors import Conflict, Forbidden, NotFound, Refused
from service.presentation import shown_event
from service.repository import Loaded, Repository
from service.signing import KeyRing
from service.store import Record

CACHED_LOGS = 256


@dataclass(frozen=True)
class _Log:
    """A game's log as far as it was read, with its events and hands worked out once."""

    records: list[Record]
    events: list[dict[str, Any]]
    spans: list[HandSpan]


class History:
    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        self.auth = SeatAuth(repository.tables)
        self.keyring = KeyRing(repository.redis)
        self._logs: OrderedDict[str, _Log] = OrderedDict()
        self._lock = threading.Lock()
        self._hand_states = HandStates()

    def _log(self, game_id: str) -> _Log:
        with self._lock:
            known = self._logs.get(game_id)
        newer = self.repository.events.records(game_id, after=len(known.records) if known else 0)
        if known is not None and not newer:
            return known
        records = (known.records if known else []) + newer
        events = [record.event for record in records]
        log = _Log(records, events, hand_spans(events))
        with self._lock:
            self._logs[game_id] = log
            self._logs.move_to_end(game_id)
            while len(self._logs) > CACHED_LOGS:
                self._logs.popitem(last=False)
        return log

    def records(self, game_id: str) -> list[Record]:
        return self._log(game_id).records

    def hands(self, game_id: str) -> dict[str, Any]:
        self.repository.tables.get(game_id)
        return {"hands": [span.as_dict() for span in self._log(game_id).spans]}

    def replay(
        self, game_id: str, number: int, token: Credential, step: int | None
    ) -> dict[str, Any]:
        """A hand's steps, or the state after step `step`: face up once the hand is over,
        from the caller's own seat while it is in play (spectators must wait)."""
        loaded = self.repository.load(game_id)
        seat = self.auth.seat_of(loaded.table, token)
        log = self._log(game_id)
        span = next((span for span in log.spans if span.number == number), None)
        if span is None:
            raise NotFound("hand_not_found", f"This game has no hand {number}.")
        if not span.finished and seat is None:
            raise Forbidden(
                "hand_in_play",
                "This hand is still in play: only its players may replay it, from their seat.",
            )
        hand = _HandReplay(loaded, log, span, seat, self._hand_states)
        base = {
            "hand": span.as_dict(),
            "steps": span.steps,
            "names": hand.names,
            "face_up": span.finished,
        }
        if step is None:
            return {**base, "events": [hand.event(k) for k in range(span.steps + 1)]}
        if not 0 <= step <= span.steps:
            raise Refused("no_such_step", f"Hand {number} has steps 0 to {span.steps}.", "step")
        return {**base, "step": step, "event": hand.event(step), "state": hand.state(step)}

    def _finished(self, game_id: str, token: Credential) -> Loaded:
        loaded = self.repository.load(game_id)
        self.auth.seat_of(loaded.table, token)
        over = loaded.game.is_finished(loaded.state) or loaded.table.status == "abandoned"
        if not over:
            raise Conflict(
                "game_not_finished",
                "A game can be exported and audited once it is finished.",
            )
        return loaded

    def export(self, game_id: str, token: Credential) -> Iterator[str]:
        loaded = self._finished(game_id, token)
        records = self.records(game_id)[: loaded.version]
        return export_lines(game_id, loaded.table.game, records, self.keyring.all())

    def audit(
        self, game_id: str, token: Credential, receipts: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """The verdict on the finished game; each of `receipts` (a player's) must match."""
        loaded = self._finished(game_id, token)
        entries = [
            Entry(r.version, r.event, r.command, r.hash)
            for r in self.records(game_id)[: loaded.version]
        ]
        keys = receipt_checks.parse_keys(self.keyring.all())
        verdict = auditing.audit(game_id, loaded.table.game, entries, receipts or (), keys)
        return verdict.as_dict()


class _HandReplay:
    """One hand of a game as one caller may step through it."""

    def __init__(
        self, loaded: Loaded, log: _Log, span: HandSpan, seat: int | None, cache: HandStates
    ) -> None:
        self.game = loaded.game
        self.events = log.events
        self.span = span
        self.seat = seat
        self.names = loaded.table.names()
        self.states = cache.states(loaded.id, loaded.game, log.events, span)

    def event(self, k: int) -> dict[str, Any]:
        version = self.span.first_version + k
        event = self.events[version - 1]
        if self.span.finished:
            sentence = table.describe(self.game, event, self.names)
            return {**event, "version": version, "description": sentence}
        return shown_event(self.game, event, self.seat, self.states[k], version, self.names)

    def state(self, k: int) -> dict[str, Any]:
        if self.span.finished:
            return self.game.reveal(self.states[k])
        return self.game.view(self.states[k], self.seat)
