"""What a bot returns and how it reads the legal moves it is offered."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Command = dict[str, Any]
# choose(view, history, rng) -> command, without the seat (the caller adds it)
Bot = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], Command]


def by_type(moves: list[Command]) -> dict[str, list[Command]]:
    """The legal moves grouped by command type ("look", "bid", "play")."""
    grouped: dict[str, list[Command]] = {}
    for move in moves:
        grouped.setdefault(move["type"], []).append(move)
    return grouped
