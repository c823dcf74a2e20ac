"""The commands: what a caller may ask to happen to a game, as plain records.

Creating a game, joining it and making a move are the only ways a log grows; the
handlers (`service.handlers`) carry them out. HTTP, workers and tools build these.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import games
from engine.contract import Command, Event, Game
from service.errors import Refused
from service.players import Player


@dataclass(frozen=True)
class SeatRequest:
    """One seat a creator asks for: a person by `name`, a `bot`, an `open` seat, the
    creator's own (`me`: bound to their account), or one reserved for the `player` of
    that name (an invitation)."""

    name: str | None = None
    bot: str | None = None
    open: bool = False
    me: bool = False
    player: str | None = None
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
    creator: Player | None = None  # the account creating it (for `me` seats)


@dataclass(frozen=True)
class JoinGame:
    """An open seat taken by a person (`name`), or by a `player`: the seat reserved for
    them first, else an open one, bound to their account."""

    game_id: str
    name: str | None = None
    seat: int | None = None
    client_seed: str | None = None
    webhook: str | None = None
    player: Player | None = None


@dataclass(frozen=True)
class MakeMove:
    game_id: str
    seat: int
    command: Command
    if_match: int | None = None
    idempotency_key: str | None = None
    # table events recorded in the same batch before the move's own (a time-out)
    prefix: tuple[Event, ...] = ()


def optional(kind: str) -> bool:
    """A field a command may leave out: one that may be null (absent means null) or a
    flag (absent means false). Every other field a game declares is required."""
    return kind.endswith("_or_null") or kind == "bool"


def required_fields(fields: Mapping[str, str]) -> list[str]:
    return [name for name, kind in fields.items() if not optional(kind)]


def check_shape(game: Game[Any, Any], command: Command) -> None:
    """Refuse a command its game does not declare, a field its move does not carry and a
    required field it lacks (422 naming the field): the command is recorded in the
    audited log as it came, so nothing else may come with it. Values are the game's to
    judge (its `decide`)."""
    kind = command.get("type")
    fields = game.commands.get(kind) if isinstance(kind, str) else None
    if fields is None:
        raise Refused(
            "unknown_command", f"There is no move called {kind!r} in {game.display_name}.", "type"
        )
    for name in command:
        if name not in ("type", "seat") and name not in fields:  # the seat is the actor's
            detail = f"A {kind!r} move in {game.display_name} has no field {name!r}."
            raise Refused("validation_error", detail, name)
    for name in required_fields(fields):
        if name not in command:
            raise Refused("validation_error", f"A {kind!r} move needs {name!r}.", name)
