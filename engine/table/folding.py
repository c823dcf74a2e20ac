"""Folding a log and showing its events, table events included.

Table events (seating, the revealed seed, clocks, an abandoned table) are the same for
every game and change no game's state, so every fold passes over them; they are public,
and their sentences are written here once.
"""

from collections.abc import Iterable, Sequence
from typing import Any

from engine.contract import Event, Game
from engine.events import (
    GAME_ABANDONED,
    PLAYERS_SEATED,
    SEED_REVEALED,
    TABLE_EVENTS,
    TURN_STARTED,
)

AnyGame = Game[Any, Any]


def evolve(game: AnyGame, state: Any, event: Event) -> Any:
    return state if event["type"] in TABLE_EVENTS else game.evolve(state, event)


def fold(game: AnyGame, events: Iterable[Event], state: Any = None) -> Any:
    """`reduce(evolve, events, state)`, written as a loop: it is the service's hot path."""
    game_evolve = game.evolve
    for event in events:
        if event["type"] not in TABLE_EVENTS:
            state = game_evolve(state, event)
    return state


def redact(game: AnyGame, event: Event, seat: int | None, state: Any) -> Event:
    """An event as `seat` may see it; table events are public."""
    return event if event["type"] in TABLE_EVENTS else game.redact(event, seat, state)


def describe(game: AnyGame, event: Event, names: Sequence[str]) -> str:
    """One sentence for any event of a game, table events included."""
    kind = event["type"]
    if kind not in TABLE_EVENTS:
        return game.describe(event, names)
    seat = event.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
    if kind == PLAYERS_SEATED:
        return "Every seat is taken."
    if kind == GAME_ABANDONED:
        return "Nobody took the open seats in time: the game was abandoned before any deal."
    if kind == SEED_REVEALED:
        return "The server's seed was revealed: every deal can now be audited."
    if kind == TURN_STARTED:
        return f"{who}'s turn began; the clock is running."
    if event.get("action") == "forfeit":
        return f"{who} ran out of time and forfeits."
    return f"{who} ran out of time; a bot moves for them."
