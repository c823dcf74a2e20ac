"""The shapes bots exchange with the engine: commands, the bot signature, legal moves."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Command = dict[str, Any]
Bot = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], Command]


def by_type(moves: list[Command]) -> dict[str, list[Command]]:
    """The legal moves grouped by command type, in the engine's order: a bot decides
    first which kind of move to make, then which one."""
    grouped: dict[str, list[Command]] = {}
    for move in moves:
        grouped.setdefault(move["type"], []).append(move)
    return grouped
