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
from replays.export import export_lines
from replays.replay import HandSpan, HandStates, hand_spans
from service.application import GameService, ServiceError
from service.store import Record

CACHED_LOGS = 256


@dataclass(frozen=True)
class _Log:
    """A game's log as far as it was read, with its events and hands worked out once."""

    records: list[Record]
    events: list[dict[str, Any]]
    spans: list[HandSpan]


class History:
    def __init__(self, service: GameService) -> None:
        self.service = service
        self._logs: OrderedDict[str, _Log] = OrderedDict()
        self._lock = threading.Lock()
        self._hand_states = HandStates()

    def _log(self, game_id: str) -> _Log:
        with self._lock:
            known = self._logs.get(game_id)
        newer = self.service.store.records(game_id, after=len(known.records) if known else 0)
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
        self.service._meta(game_id)
        return {"hands": [span.as_dict() for span in self._log(game_id).spans]}

    def replay(self, game_id: str, number: int, token: str | None, step: int | None):
        loaded = self.service.load(game_id)
        seat = self.service.seat_of(game_id, token, loaded.meta)
        game = loaded.game
        log = self._log(game_id)
        events = log.events
        span = next((span for span in log.spans if span.number == number), None)
        if span is None:
            raise ServiceError(404, "hand_not_found", f"This game has no hand {number}.")
        if not span.finished and seat is None:
            raise ServiceError(
                403,
                "hand_in_play",
                "This hand is still in play: only its players may replay it, from their seat.",
            )
        names = self.service.seat_names(loaded.meta)
        states = self._hand_states.states(game_id, game, events, span)

        def shown_state(state: Any) -> dict[str, Any]:
            return game.reveal(state) if span.finished else game.view(state, seat)

        def shown_event(k: int) -> dict[str, Any]:
            version = span.first_version + k
            event = events[version - 1]
            if span.finished:
                return {
                    **event,
                    "version": version,
                    "description": table.describe(game, event, names),
                }
            return self.service.shown_event(game, event, seat, states[k], version, names)

        base = {
            "hand": span.as_dict(),
            "steps": span.steps,
            "names": names,
            "face_up": span.finished,
        }
        if step is None:
            return {**base, "events": [shown_event(k) for k in range(span.steps + 1)]}
        if not 0 <= step <= span.steps:
            raise ServiceError(
                422, "no_such_step", f"Hand {number} has steps 0 to {span.steps}.", "step"
            )
        return {
            **base,
            "step": step,
            "event": shown_event(step),
            "state": shown_state(states[step]),
        }

    def _finished(self, game_id: str, token: str | None) -> Any:
        loaded = self.service.load(game_id)
        self.service.seat_of(game_id, token, loaded.meta)
        if not loaded.game.is_finished(loaded.state):
            raise ServiceError(
                409,
                "game_not_finished",
                "A game can be exported and audited once it is finished.",
            )
        return loaded

    def export(self, game_id: str, token: str | None) -> Iterator[str]:
        loaded = self._finished(game_id, token)
        records = self.records(game_id)[: loaded.version]
        return export_lines(game_id, loaded.meta["game"], records)

    def audit(self, game_id: str, token: str | None) -> dict[str, Any]:
        loaded = self._finished(game_id, token)
        entries = [
            auditing.Entry(r.version, r.event, r.command, r.hash)
            for r in self.records(game_id)[: loaded.version]
        ]
        return auditing.audit(game_id, loaded.meta["game"], entries).as_dict()
