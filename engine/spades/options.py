"""Spades' options and presets: every mode, scoring rule and variation is a named option.

A preset (the game's mode) is a named set of options; options given explicitly
override it. The resolved options are recorded in the game's first event
(`recorded`), so a game never depends on later default changes; an option added
after games were first recorded is written only when it differs from its default,
so that re-creating an older game (the audit does) gives back the very first event
it recorded. docs/spades.md explains each rule and where the sources are silent.
"""

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from engine.errors import InvalidOptions
from engine.options import OptionRules, merged_options, recorded_options

MODES = ("pairs", "solo", "suicide", "whiz", "mirror")
PARTNERSHIP_MODES = ("pairs", "suicide", "whiz", "mirror")
TRUMPS = ("standard", "bauers", "deuces_high", "jokers_high")


@dataclass(frozen=True, slots=True)
class Options:
    mode: str = "pairs"  # see MODES
    target_score: int = 500
    losing_score: int | None = None  # a side at or below it ends the game (and loses)
    # the game ends after this many hands, highest score wins: a safety net (a real game
    # takes 10-20 hands; random play may never reach the target); null removes it
    max_hands: int | None = 200
    set_scoring: str = "zero"  # a side short of its bid scores "zero" or "minus" 10 × bid
    trick_points: int = 10  # points per trick bid when the bid is made
    bag_limit: int = 10  # every `bag_limit` accumulated bags cost `bag_penalty`
    bag_penalty: int = 100
    # the bags past the limit when it is reached: "carry" (kept toward the next
    # penalty) | "reset" (dropped: the count starts again from 0, as the source says)
    bags_past_limit: str = "carry"
    nil: bool = True
    nil_bonus: int = 100  # + when a nil bid succeeds, − when it fails
    nil_tricks: str = "bags"  # a nil bidder's tricks: "bags" | "bid" (for the side) | "ignored"
    blind_nil: bool = False  # pairs only
    blind_nil_bonus: int = 200
    blind_bids: bool = False  # blind bids of 1 or more tricks; pairs only
    blind_bid_min: int = 4
    blind_bid_bonus: int = 200  # extra when the side makes its bid
    blind_bid_penalty: int = 200  # extra loss when it does not
    blind_deficit: int | None = None  # a side may bid blind only when trailing by this much
    trumps: str = "standard"  # see TRUMPS
    deuce_order: str = "SHDC"  # deuces_high: the deuces from the highest down
    boston: bool = False  # taking every trick of a hand wins the game outright
    three_players: bool = False  # Spades for three: set by seating three (solo only)
    first_dealer: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """Every field (views show them all)."""
        return asdict(self)

    def recorded(self) -> dict[str, Any]:
        """The options as the first event records them (`recorded_options`)."""
        return recorded_options(self.as_dict(), ADDED_LATER)

    @property
    def partnerships(self) -> bool:
        return self.mode in PARTNERSHIP_MODES

    @property
    def blind(self) -> bool:
        return self.blind_nil or self.blind_bids


PRESETS: dict[str, dict[str, Any]] = {
    # Partners across the table; blind nil and blind bids as the source gives them.
    "pairs": {"mode": "pairs", "blind_nil": True, "blind_bids": True},
    # Each for themselves ("cutthroat"): at most 5 bags, nil worth 50 (docs/spades.md).
    "solo": {"mode": "solo", "bag_limit": 5, "bag_penalty": 50, "nil_bonus": 50},
    "suicide": {"mode": "suicide"},
    "whiz": {"mode": "whiz"},
    "mirror": {"mode": "mirror"},
}
DEFAULT_PRESET = "pairs"

RULES = OptionRules(
    choices={
        "mode": MODES,
        "set_scoring": ("zero", "minus"),
        "bags_past_limit": ("carry", "reset"),
        "nil_tricks": ("bags", "bid", "ignored"),
        "trumps": TRUMPS,
    },
    flags=frozenset({"nil", "blind_nil", "blind_bids", "boston", "three_players"}),
    integers={
        "target_score": (1, 100_000, False),
        "losing_score": (-100_000, 0, True),
        "max_hands": (1, 10_000, True),
        "trick_points": (1, 1000, False),
        "bag_limit": (1, 100, False),
        "bag_penalty": (0, 10_000, False),
        "nil_bonus": (0, 10_000, False),
        "blind_nil_bonus": (0, 10_000, False),
        "blind_bid_min": (1, 17, False),
        "blind_bid_bonus": (0, 10_000, False),
        "blind_bid_penalty": (0, 10_000, False),
        "blind_deficit": (0, 100_000, True),
        "first_dealer": (0, 3, True),
    },
)
OPTION_NAMES = tuple(f.name for f in fields(Options))
# Options added after games were first recorded, with the default those games played by.
ADDED_LATER: dict[str, Any] = {"bags_past_limit": "carry"}


def _check_value(name: str, value: Any) -> Any:
    if RULES.covers(name):
        return RULES.check(name, value)
    if name == "deuce_order":
        if not isinstance(value, str) or sorted(value.upper()) != ["C", "D", "H", "S"]:
            raise InvalidOptions(
                "options.deuce_order", 'must list the four suits once each, e.g. "SHDC"'
            )
        return value.upper()
    return value


def resolve(preset: str | None, options: Mapping[str, Any] | None, players: int) -> Options:
    """Merge preset and explicit options, validate every field and the seat count."""
    merged = merged_options(PRESETS, DEFAULT_PRESET, preset, options, OPTION_NAMES, _check_value)
    if merged.get("three_players") and players != 3:
        raise InvalidOptions("options.three_players", "Spades for three needs three seats")
    merged["three_players"] = players == 3
    result = Options(**merged)
    _check_consistency(result, players)
    return result


def _check_consistency(opts: Options, players: int) -> None:
    if opts.partnerships:
        if players != 4:
            raise InvalidOptions("seats", f"{opts.mode} is played by four players in two pairs")
    elif players not in (3, 4):
        raise InvalidOptions("seats", "solo Spades takes three or four players")
    if opts.blind and opts.mode != "pairs":
        field = "options.blind_nil" if opts.blind_nil else "options.blind_bids"
        raise InvalidOptions(field, "blind bids are played in pairs mode only")
    if not opts.nil and opts.blind_nil:
        raise InvalidOptions("options.blind_nil", "blind nil needs nil bids (option nil)")
    if not opts.nil and opts.mode in ("suicide", "whiz", "mirror"):
        raise InvalidOptions("options.nil", f"{opts.mode} cannot be played without nil bids")
    if opts.first_dealer is not None and opts.first_dealer >= players:
        raise InvalidOptions("options.first_dealer", f"must be a seat from 0 to {players - 1}")
    tricks = 13 if players == 4 else 17
    if opts.blind_bid_min > tricks:
        raise InvalidOptions("options.blind_bid_min", f"must be at most {tricks}")


def from_dict(data: dict[str, Any]) -> Options:
    """Rebuild options recorded in an event (already validated when the game began)."""
    return Options(**data)
