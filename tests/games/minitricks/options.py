"""Minitricks' options: the cards per hand, the number of hands and the first dealer."""

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from engine.errors import InvalidOptions
from engine.options import OptionRules, merged_options

RANKS = ("10", "J", "Q", "K", "A")  # lowest first
SUITS = ("C", "D", "H", "S")
PACK = tuple(rank + suit for suit in SUITS for rank in RANKS)


@dataclass(frozen=True, slots=True)
class Options:
    hand_size: int = 5
    hands: int = 2
    first_dealer: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


PRESETS: dict[str, dict[str, Any]] = {"standard": {}}
RULES = OptionRules(
    integers={"hand_size": (1, 10, False), "hands": (1, 20, False), "first_dealer": (0, 3, True)}
)
NAMES = tuple(f.name for f in fields(Options))


def resolve(preset: str | None, options: Mapping[str, Any] | None, players: int) -> Options:
    """The preset's options with the explicit ones, checked against the seats."""
    merged = merged_options(PRESETS, "standard", preset, options, NAMES, RULES.check)
    resolved = Options(**merged)
    if not 2 <= players <= 4:
        raise InvalidOptions("seats", "minitricks takes 2 to 4 players")
    if resolved.hand_size * players > len(PACK):
        raise InvalidOptions(
            "options.hand_size", f"{players} hands of that size need too many cards"
        )
    if resolved.first_dealer is not None and resolved.first_dealer >= players:
        raise InvalidOptions("options.first_dealer", f"must be a seat from 0 to {players - 1}")
    return resolved
