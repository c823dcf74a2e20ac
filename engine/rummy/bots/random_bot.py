"""The random bot: the floor any bot must beat."""

from __future__ import annotations

import random
from typing import Any

from engine.rummy.bots.commands import Command


def choose_random(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """A uniformly random legal move: the baseline the other bots are measured against."""
    return dict(rng.choice(view["you"]["legal_moves"]))
