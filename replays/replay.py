"""Replays: any step of any hand, as the fold of that prefix of the log.

A hand's steps are its events: step 0 is the deal, step k the state after the k-th
event that followed it. States of a hand are folded once and kept (per process),
so stepping to any k costs about one lookup.
"""

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine import table
from engine.games import Game

CACHED_HANDS = 256


@dataclass(frozen=True)
class HandSpan:
    number: int
    dealer: int
    first_version: int  # the hand_dealt event
    last_version: int  # its hand_ended (or game_ended) event, or the newest event while in play
    finished: bool
    result: dict[str, Any] | None

    @property
    def steps(self) -> int:
        return self.last_version - self.first_version

    def as_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "dealer": self.dealer,
            "first_version": self.first_version,
            "last_version": self.last_version,
            "steps": self.steps,
            "finished": self.finished,
            "result": self.result,
        }


def hand_spans(events: Sequence[dict[str, Any]]) -> list[HandSpan]:
    """Every hand in the log; `events[i]` is version i + 1."""
    spans: list[HandSpan] = []
    current: dict[str, Any] | None = None
    for version, event in enumerate(events, start=1):
        if event["type"] == "hand_dealt":
            current = {"number": event["hand"], "dealer": event["dealer"], "first": version}
        elif event["type"] in ("hand_ended", "game_ended") and current is not None:
            # A game can end inside a hand (a forfeit): that hand is over too, with no result.
            result = event if event["type"] == "hand_ended" else None
            spans.append(
                HandSpan(
                    current["number"], current["dealer"], current["first"], version, True, result
                )
            )
            current = None
    if current is not None:
        spans.append(
            HandSpan(
                current["number"], current["dealer"], current["first"], len(events), False, None
            )
        )
    return spans


class HandStates:
    """Folded states of whole hands, kept for stepping back and forth."""

    def __init__(self) -> None:
        self._hands: OrderedDict[tuple[str, int, int], list[Any]] = OrderedDict()
        self._lock = threading.Lock()

    def states(
        self, game_id: str, game: Game, events: Sequence[dict[str, Any]], span: HandSpan
    ) -> list[Any]:
        """states[k] = the state after step k of the hand (k = 0 is just after the deal)."""
        cache_key = (game_id, span.number, span.last_version)
        with self._lock:
            found = self._hands.get(cache_key)
            if found is not None:
                self._hands.move_to_end(cache_key)
                return found
        state = table.fold(game, events[: span.first_version])
        states = [state]
        for event in events[span.first_version : span.last_version]:
            state = table.evolve(game, state, event)
            states.append(state)
        with self._lock:
            self._hands[cache_key] = states
            while len(self._hands) > CACHED_HANDS:
                self._hands.popitem(last=False)
        return states
