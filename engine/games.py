"""The game registry: the only way code outside `engine/` reaches a game's rules.

A `Game` bundles a decider's functions. Service, workers and replays look a game
up by name and never branch on which game it is.
"""

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.errors import InvalidOptions

State = Any
Event = dict[str, Any]
Command = dict[str, Any]


@dataclass(frozen=True)
class Game:
    name: str
    rules_version: str
    presets: tuple[str, ...]
    command_types: tuple[str, ...]
    resolve_options: Callable[[str | None, dict[str, Any] | None, int], Any]
    pack: Callable[[Any], tuple[str, ...]]
    created_event: Callable[[Any, int, int, str], Event]
    decide: Callable[[State, Command], list[Event]]
    evolve: Callable[[State, Event], State]
    legal_moves: Callable[[State, int], list[Command]]
    view: Callable[[State, int | None], dict[str, Any]]
    redact: Callable[..., Event]
    to_act: Callable[[State], list[int]]
    next_hand: Callable[[State], int | None]
    is_finished: Callable[[State], bool]
    reveal: Callable[[State], dict[str, Any]]  # every card face up (finished hands only)
    describe: Callable[[Event, list[str]], str]  # one sentence per event, seat names given
    # The fields a command and a view may carry beyond the generic ones, by kind, so the
    # service can describe and validate them without knowing the game. Kinds: "card",
    # "card_or_null", "cards", "card_list", "card_groups", "int", "int_or_null", "bool", "int_list",
    # "cards_list", "dicts", "dict_or_null", "str", "str_or_null", "list", "choice:a|b|…".
    command_fields: dict[str, str] = field(default_factory=dict)
    view_fields: dict[str, str] = field(default_factory=dict)
    # bot level -> choose(view, history, rng) -> command; bots see one seat's view only
    bots: dict[str, Callable[..., Command]] = field(default_factory=dict)
    # who plays together: (resolved options, seat count) -> the seats of each side, as
    # the game's state has them; None when every seat plays for itself
    sides: Callable[[Any, int], tuple[tuple[int, ...], ...]] | None = None


_MODULES = {"rummy": "engine.rummy", "spades": "engine.spades"}


DEFAULT_GAME = next(iter(_MODULES))


def names() -> tuple[str, ...]:
    return tuple(_MODULES)


def get(name: str) -> Game:
    module = _MODULES.get(name)
    if module is None:
        raise InvalidOptions("game", f"unknown game {name!r}; one of {', '.join(_MODULES)}")
    return importlib.import_module(module).GAME
