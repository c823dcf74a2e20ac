"""Rummy's options and presets: every house rule is a named, validated option.

Defaults are Pagat's standard game. A preset is a named set of options; options
given explicitly override it. The resolved options are recorded in the game's
first event (`recorded`), so a game never depends on later default changes; an
option added after games were first recorded is written only when it differs
from its default, so that re-creating an older game (the audit does) gives back
the very first event it recorded.
"""

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from engine.errors import InvalidOptions
from engine.options import OptionRules, merged_options, recorded_options


@dataclass(frozen=True, slots=True)
class Options:
    melds_per_turn: str = "one"  # "one" | "any"
    going_rummy: str = "none"  # "none" | "double" | "bonus"
    rummy_bonus: int = 10
    lay_off_after_meld: bool = False
    aces: str = "low"  # "low" | "high_or_low"
    round_the_corner: bool = False
    must_discard_to_go_out: bool = False
    stock_exhausted: str = "turn_over"  # "turn_over" | "shuffle" | "end"
    # when the stock counts as run out: "next_draw" (the next player wants to draw from
    # the empty stock, Pagat) | "last_card" (the moment its last card is drawn)
    stock_exhausted_at: str = "next_draw"
    max_stock_reuses: int | None = None  # None = unlimited
    no_winner: str = "lowest_wins"  # "lowest_wins" | "stalemate"
    scoring: str = "winner"  # "winner" | "penalty" | "pay"
    game_end: str = "target"  # "target" | "deals"; when unset, "deals" for pay scoring
    target_score: int = 100
    target_score_by_players: dict[str, int] | None = None
    deals: int = 10
    hand_size: int | None = None  # None = 10 for 2 players, 7 for 3-4, 6 for 5-6
    jokers: int = 0
    joker_points: int = 15
    starter_extra_card: bool = False
    all_at_once_from_deal: int | None = None
    first_dealer: int | None = None
    min_players: int = 2
    max_players: int = 6

    def as_dict(self) -> dict[str, Any]:
        """Every field (views show them all)."""
        # by hand: dataclasses.asdict deep-copies, and views call this on every read
        data = {name: getattr(self, name) for name in OPTION_NAMES}
        if self.target_score_by_players is not None:
            data["target_score_by_players"] = dict(self.target_score_by_players)
        return data

    def recorded(self) -> dict[str, Any]:
        """The options as the first event records them (`recorded_options`)."""
        return recorded_options(self.as_dict(), ADDED_LATER)

    def hand_size_for(self, players: int) -> int:
        if self.hand_size is not None:
            return self.hand_size
        return 10 if players == 2 else 7 if players <= 4 else 6

    def target_for(self, players: int) -> int:
        if self.target_score_by_players and str(players) in self.target_score_by_players:
            return self.target_score_by_players[str(players)]
        return self.target_score

    def stock_reuse_allowed(self, reuses_so_far: int) -> bool:
        if self.stock_exhausted == "end":
            return False
        return self.max_stock_reuses is None or reuses_so_far < self.max_stock_reuses

    def all_at_once(self, hand_number: int) -> bool:
        start = self.all_at_once_from_deal
        return start is not None and hand_number >= start


PRESETS: dict[str, dict[str, Any]] = {
    # Pagat's standard game, with Pagat's suggested limit: play ends when the stock
    # runs out for the third time (two reuses) and the next player declines the discard.
    "pagat": {"max_stock_reuses": 2},
    "block": {"stock_exhausted": "end"},
    "penalty": {"max_stock_reuses": 2, "scoring": "penalty", "target_score": 100},
    "wrotham": {
        "jokers": 3,
        "hand_size": 7,
        "starter_extra_card": True,
        "all_at_once_from_deal": 4,
        "game_end": "deals",
        "deals": 6,
        "max_stock_reuses": 2,
    },
    # The popular online site: any number of melds; the moment the stock runs out the
    # discard pile is reshuffled, and the moment it runs out again the hand is a
    # stalemate; going rummy doubles; the target scores by player count were lost from
    # the source, the defaults here are the site's published 100 / 75 / 50.
    "classic-online": {
        "melds_per_turn": "any",
        "stock_exhausted": "shuffle",
        "stock_exhausted_at": "last_card",
        "max_stock_reuses": 1,
        "no_winner": "stalemate",
        "going_rummy": "double",
        "target_score_by_players": {"2": 100, "3": 75, "4": 50},
        "max_players": 4,
    },
}
DEFAULT_PRESET = "pagat"

RULES = OptionRules(
    choices={
        "melds_per_turn": ("one", "any"),
        "going_rummy": ("none", "double", "bonus"),
        "aces": ("low", "high_or_low"),
        "stock_exhausted": ("turn_over", "shuffle", "end"),
        "stock_exhausted_at": ("next_draw", "last_card"),
        "no_winner": ("lowest_wins", "stalemate"),
        "scoring": ("winner", "penalty", "pay"),
        "game_end": ("target", "deals"),
    },
    flags=frozenset(
        {
            "lay_off_after_meld",
            "round_the_corner",
            "must_discard_to_go_out",
            "starter_extra_card",
        }
    ),
    integers={
        "rummy_bonus": (0, 1000, False),
        "max_stock_reuses": (0, 100, True),
        "target_score": (1, 100_000, False),
        "deals": (1, 1000, False),
        "hand_size": (1, 20, True),
        "jokers": (0, 6, False),
        "joker_points": (0, 100, False),
        "all_at_once_from_deal": (1, 1000, True),
        "first_dealer": (0, 5, True),
        "min_players": (2, 6, False),
        "max_players": (2, 6, False),
    },
)
OPTION_NAMES = tuple(f.name for f in fields(Options))
# Options added after games were first recorded, with the default those games played by.
ADDED_LATER: dict[str, Any] = {"stock_exhausted_at": "next_draw"}
# The options that say when the game ends, for each `game_end`.
END_FIELDS = {"target": ("target_score", "target_score_by_players"), "deals": ("deals",)}
# Every option a game recorded before ADDED_LATER existed: a full record, not a request.
_RECORDED = frozenset(OPTION_NAMES) - ADDED_LATER.keys()


def _check_value(name: str, value: Any) -> Any:
    if RULES.covers(name):
        return RULES.check(name, value)
    if name == "target_score_by_players":
        if value is None:
            return value
        if not isinstance(value, dict) or not all(
            k in {"2", "3", "4", "5", "6"}
            and isinstance(v, int)
            and not isinstance(v, bool)
            and 1 <= v <= 100_000
            for k, v in value.items()
        ):
            raise InvalidOptions(
                "options.target_score_by_players", 'must map player counts "2"…"6" to targets'
            )
        return dict(value)
    return value


def resolve(preset: str | None, options: Mapping[str, Any] | None, players: int) -> Options:
    """Merge preset and explicit options, validate every field and the seat count."""
    merged = merged_options(PRESETS, DEFAULT_PRESET, preset, options, OPTION_NAMES, _check_value)
    given = dict(options or {})
    if not given.keys() >= _RECORDED:
        # Options as a player gives them; a complete set is a game's record, taken as it
        # was recorded (the audit re-creates games from it, older ones included).
        merged["game_end"] = _game_end(merged, given)
    result = Options(**merged)
    _check_consistency(result, players)
    return result


def _game_end(merged: dict[str, Any], given: dict[str, Any]) -> str:
    """How the game ends: as given; else as the ending options given imply (a target, or
    a number of deals); else as the preset says; else by the scoring, since Pagat's pay
    session "would last for a set number of hands rather than be played to a target
    score". Ending options that contradict the ending are refused, never ignored."""
    implied = [
        end for end, names in END_FIELDS.items() if any(given.get(n) is not None for n in names)
    ]
    if "game_end" in given:
        end = given["game_end"]
        for other in implied:
            if other != end:
                name = next(n for n in END_FIELDS[other] if given.get(n) is not None)
                raise InvalidOptions(
                    f"options.{name}",
                    f'does not apply: this game ends {_ENDINGS[end]} (game_end "{end}")',
                )
        return str(end)
    if len(implied) > 1:
        raise InvalidOptions(
            "options.game_end",
            'is needed when both a target score and a number of deals are given: "target" '
            'or "deals"',
        )
    if implied:
        return implied[0]
    if "game_end" in merged:
        return str(merged["game_end"])
    return "deals" if merged.get("scoring") == "pay" else "target"


_ENDINGS = {"target": "at a target score", "deals": "after a number of deals"}


def _check_consistency(opts: Options, players: int) -> None:
    if opts.min_players > opts.max_players:
        raise InvalidOptions("options.min_players", "must not exceed max_players")
    if not opts.min_players <= players <= opts.max_players:
        raise InvalidOptions(
            "seats", f"this game takes {opts.min_players} to {opts.max_players} players"
        )
    if opts.round_the_corner and opts.aces != "high_or_low":
        raise InvalidOptions("options.round_the_corner", 'needs aces "high_or_low"')
    if opts.first_dealer is not None and opts.first_dealer >= players:
        raise InvalidOptions("options.first_dealer", f"must be a seat from 0 to {players - 1}")
    pack = 52 + opts.jokers
    dealt = players * opts.hand_size_for(players) + (1 if opts.starter_extra_card else 0)
    if dealt + 2 > pack:
        raise InvalidOptions("options.hand_size", f"{players} hands of that size leave no stock")


def from_dict(data: dict[str, Any]) -> Options:
    """Rebuild options recorded in an event (already validated when the game began)."""
    return Options(**data)
