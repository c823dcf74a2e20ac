"""The commands: what a caller may ask to happen to a game, as plain records.

Creating a game, joining it and making a move are the only ways a log grows; the
handlers (`service.handlers`) carry them out. HTTP, workers and tools build these.
"""

from dataclasses import dataclass, field
from typing import Any

from engine import games
from engine.contract import Command, Event


@dataclass(frozen=True)
class SeatRequest:
    name: str | None = None
    bot: str | None = None
    open: bool = False
    client_seed: str | None = None
    webhook: str | None = None


@dataclass(frozen=True)
class CreateGame:
    seats: list[SeatRequest]
    game: str = games.DEFAULT_GAME
    preset: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    seed: str | None = None  # the server seed, chosen by a test (testing servers only)
    deck: list[str] | None = None  # the first hand's deck, chosen by a test


@dataclass(frozen=True)
class JoinGame:
    game_id: str
    name: str
    seat: int | None = None
    client_seed: str | None = None
    webhook: str | None = None


@dataclass(frozen=True)
class MakeMove:
    game_id: str
    seat: int
    command: Command
    if_match: int | None = None
    idempotency_key: str | None = None
    # table events recorded in the same batch before the move's own (a time-out)
    prefix: tuple[Event, ...] = ()
