"""A bot at the table: what a seat remembers of the hand, and a bot taking its turn.

Bots are pure functions of one seat's view, that seat's memory of the hand in play and
an explicit random generator (`engine.contract.Bot`); they never see a state. The
worker that plays a bot's turn, the clock that plays for an absent player and the
in-process matches all build that memory and call the bot through here, so a bot
decides the same way wherever it plays.
"""

import random
from collections.abc import Iterable, Sequence
from typing import Any

from engine.contract import Command, Event, Game
from engine.events import GAME_CREATED, GAME_ENDED, HAND_DEALT, TABLE_EVENTS
from engine.table.folding import redact

AnyGame = Game[Any, Any]

# What a bot need not remember: the table's own events and the game's bookends.
_FORGOTTEN = TABLE_EVENTS | {GAME_CREATED, GAME_ENDED}


def remembered(game: AnyGame, event: Event, seat: int, state: Any) -> Event | None:
    """`event` as `seat` remembers it (redacted), or None when it is not worth keeping."""
    if event["type"] in _FORGOTTEN:
        return None
    return redact(game, event, seat, state)


def hand_memory(game: AnyGame, seat: int, state: Any, newest_first: Iterable[Event]) -> list[Event]:
    """The hand in play as `seat` saw it, oldest first, from the log read backwards.

    `newest_first` may run past the deal (it is read only as far as the deal)."""
    memory: list[Event] = []
    for event in newest_first:
        kept = remembered(game, event, seat, state)
        if kept is not None:
            memory.append(kept)
        if event["type"] == HAND_DEALT:
            break
    memory.reverse()
    return memory


class Memories:
    """Every seat's memory of the hand in play, kept up to date as events happen
    (in-process matches, where the whole log is at hand)."""

    def __init__(self, game: AnyGame, players: int) -> None:
        self.game = game
        self.seats: list[list[Event]] = [[] for _ in range(players)]

    def observe(self, events: Sequence[Event], state: Any) -> None:
        for event in events:
            if event["type"] == HAND_DEALT:
                self.seats = [[] for _ in self.seats]
            for seat, memory in enumerate(self.seats):
                kept = remembered(self.game, event, seat, state)
                if kept is not None:
                    memory.append(kept)

    def of(self, seat: int) -> list[Event]:
        return self.seats[seat]


def take_turn(
    game: AnyGame,
    seat: int,
    level: str,
    view: dict[str, Any],
    memory: list[Event],
    rng: random.Random,
) -> Command:
    """The command the `level` bot plays for `seat`, from the seat's view
    (`game.view(state, seat)`) and memory, with the seat filled in."""
    return {**game.bot(level)(view, memory, rng), "seat": seat}
