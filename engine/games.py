"""The game registry: the only way code outside `engine/` reaches a game's rules.

Games are found through the entry-point group `cardtrail.games`: each entry names a
`Game` instance (cardtrail's own are declared in pyproject.toml, so a separately
installed distribution adds a game the same way). `register` adds one in-process, for
tools that build a game on the fly. Service, workers and replays look a game up by
name and never branch on which game it is.
"""

import importlib
import threading
from importlib.metadata import entry_points
from typing import Any

from engine.contract import Command, Event, Game
from engine.errors import InvalidOptions

__all__ = [
    "DEFAULT_GAME",
    "ENTRY_POINT_GROUP",
    "Command",
    "Event",
    "Game",
    "State",
    "get",
    "names",
    "refresh",
    "register",
]

ENTRY_POINT_GROUP = "cardtrail.games"
DEFAULT_GAME = "rummy"

State = Any  # a game's own state type; code outside the game only passes it back

AnyGame = Game[Any, Any]

_lock = threading.Lock()
_entries: dict[str, str] | None = None  # name -> "module:attribute", from the entry points
_loaded: dict[str, AnyGame] = {}


def _discovered() -> dict[str, str]:
    global _entries
    with _lock:
        if _entries is None:
            found = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
            _entries = dict(sorted(found.items(), key=lambda item: item[0] != DEFAULT_GAME))
            if not _entries and not _loaded:
                raise RuntimeError(
                    f"no games found in the entry-point group {ENTRY_POINT_GROUP!r}: "
                    "is cardtrail installed (pip install -e .)?"
                )
        return _entries


def names() -> tuple[str, ...]:
    """Every game's name, the default game first."""
    return tuple(dict.fromkeys([*_discovered(), *_loaded]))


def get(name: str) -> AnyGame:
    game = _loaded.get(name)
    if game is not None:
        return game
    target = _discovered().get(name) if isinstance(name, str) else None
    if target is None:
        raise InvalidOptions("game", f"unknown game {name!r}; one of {', '.join(names())}")
    module, _, attribute = target.partition(":")
    loaded = getattr(importlib.import_module(module), attribute)
    if not isinstance(loaded, Game) or loaded.name != name:
        raise RuntimeError(f"entry point {name!r} = {target!r} is not the Game {name!r}")
    with _lock:
        _loaded[name] = loaded
    return loaded


def register(game: AnyGame) -> None:
    """Add a game in this process (tests and tools); an entry point is the lasting way."""
    with _lock:
        _loaded[game.name] = game


def refresh() -> None:
    """Read the entry points again (after a distribution was put on the path)."""
    global _entries
    with _lock:
        _entries = None
