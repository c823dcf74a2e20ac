"""Partnership matches on `engine.tournament`: one bot plays both seats of a side.

`engine.tournament` seats one bot per seat and rotates the seats, so a Spades pairs
game between bots A and B is the four names (A, B, A, B): A holds seats 0 and 2, B
seats 1 and 3. Mirroring rotates the sides: deal `i` is played once with A on side 0
and once with B there (rotations 0 and 1; rotations 2 and 3 would only repeat them),
so each side gets the other's cards. Solo games need no help: `run_tournament` with
one name per seat already mirrors them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import tournament

__all__ = ["pair_names", "run_pairs_match", "summarize_pairs"]


def pair_names(a: str, b: str) -> list[str]:
    """The seat order of a partnership game between bots `a` and `b`."""
    return [a, b, a, b]


def run_pairs_match(
    a: str,
    b: str,
    games_count: int,
    seed: str,
    preset: str | None = "pairs",
    options: dict[str, Any] | None = None,
    start: int = 0,
    progress: Callable[[int, int], None] | None = None,
    game_name: str = "spades",
    mapper: tournament.Mapper = map,
) -> dict[str, Any]:
    """Deals start … start + games_count - 1, each with the sides swapped: the figures
    per bot (its side's wins, a 95% Wilson interval, points per hand, decision times).

    `game_name` may be any game whose sides are partners across the table (seats 0 & 2,
    1 & 3); `engine.tournament.run_match` checks that through the registry."""
    if a == b:
        raise ValueError("a pairs match needs two different bots")
    deals = range(start, start + games_count)
    records = tournament.play_games(
        pair_names(a, b), seed, deals, 2, game_name, preset, options, progress, mapper
    )
    summary = summarize_pairs(a, b, records)
    summary.update(
        {
            "game": game_name,
            "preset": preset,
            "options": options,
            "seed": seed,
            "deals": games_count,
            "mirrored": 2,
        }
    )
    return summary


def summarize_pairs(a: str, b: str, records: list[tournament.GameRecord]) -> dict[str, Any]:
    """Per bot: a side's win counts once per game (the partners share it)."""
    raw = tournament.summarize(pair_names(a, b), records)["bots"]
    bots = {}
    for name in (a, b):
        first, second = raw[name], raw[f"{name}#2"]
        games = first["games"]
        wins = first["wins"] + second["wins"]  # a side's win is shared by its two seats
        low, high = tournament.wilson(wins, games)
        times = _times(records, name, "times")
        cpu_times = _times(records, name, "cpu_times")
        bots[name] = {
            "games": games,
            "wins": wins,
            "win_rate": wins / games if games else 0.0,
            "win_rate_ci95": [low, high],
            "hands": first["hands"],  # both partners play every hand
            "points_per_hand": first["points_per_hand"],
            "decisions": len(times),
            "decision_ms_mean": _mean_ms(times),
            "decision_ms_p50": 1000 * tournament._percentile(times, 0.50),
            "decision_ms_p99": 1000 * tournament._percentile(times, 0.99),
            "decision_ms_max": 1000 * times[-1] if times else 0.0,
            "decision_cpu_ms_mean": _mean_ms(cpu_times),
            "decision_cpu_ms_p50": 1000 * tournament._percentile(cpu_times, 0.50),
            "decision_cpu_ms_p99": 1000 * tournament._percentile(cpu_times, 0.99),
        }
    return {"games": len(records), "hands": sum(r.hands for r in records), "bots": bots}


def _times(records: list[tournament.GameRecord], name: str, kind: str) -> list[float]:
    """Both seats' decision times (wall or CPU, when the tournament records it), sorted."""
    return sorted(
        t
        for record in records
        for label in (name, f"{name}#2")
        for t in getattr(record.bots[label], kind, ())
    )


def _mean_ms(times: list[float]) -> float:
    return 1000 * sum(times) / len(times) if times else 0.0
