"""Run every benchmark and print one table (`--json` for machines, `--write` to refresh
bench/RESULTS.md). Each figure is a ratio against a baseline measured in the same run.

    python -m bench [--json] [--write] [--scale] [--quick]
    python -m bench --profile-move   # only where a move's time goes (bench/move_profile.py)
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import archive_bench, bot_bench, engine_bench, followers, http_bench, service_bench
from engine.simulation.tournament import run_match, run_tournament

RESULTS = Path(__file__).with_name("RESULTS.md")
PROFILE = Path(__file__).with_name("move-profile.txt")
SPADES_DEALS = 100  # 200 mirrored games: ~1.5 min here; the 95% interval is about ±0.065
SPADES_DEALS_QUICK = 2


def _bots(games: int) -> dict[str, Any]:
    started = time.perf_counter()
    summary = run_tournament(["strong", "greedy"], games, "bench", preset="pagat")
    elapsed = time.perf_counter() - started
    strong = summary["bots"]["strong"]
    return {
        "rummy_strong_decision_p50_ms": round(strong["decision_ms_p50"], 3),
        "rummy_strong_decision_p99_ms": round(strong["decision_ms_p99"], 3),
        "rummy_bot_hands_per_s": round(summary["hands"] / elapsed, 1),
        "strong_win_rate": round(strong["win_rate"], 3),
    }


def _spades(deals: int) -> dict[str, Any]:
    """Strong against greedy, Spades pairs to 500, each deal played twice with the sides
    swapped (`deals` deals, 2 × `deals` games): decision times and the win rate."""
    started = time.perf_counter()
    summary = run_match(["strong", "greedy"], deals, "bench", game_name="spades", preset="pairs")
    elapsed = time.perf_counter() - started
    strong = summary["bots"]["strong"]
    low, high = strong["win_rate_ci95"]
    return {
        "spades_strong_decision_p50_ms": round(strong["decision_ms_p50"], 3),
        "spades_strong_decision_p99_ms": round(strong["decision_ms_p99"], 3),
        "spades_strong_decision_cpu_p99_ms": round(strong["decision_cpu_ms_p99"], 3),
        "spades_strong_decisions": strong["decisions"],
        "spades_games": summary["games"],
        "spades_hands": summary["hands"],
        "spades_strong_win_rate": round(strong["win_rate"], 3),
        "spades_strong_win_ci95": [round(low, 3), round(high, 3)],
        "spades_strong_win_ci95_low": round(low, 3),
        "spades_bot_hands_per_s": round(summary["hands"] / elapsed, 1),
        "spades_match_s": round(elapsed, 1),
    }


def _followers(count: int, moves: int) -> dict[str, Any]:
    """`count` followers (half SSE, half long-poll) over 100 games of one web process,
    then `moves` moves: how fast each move reaches every follower, and how /health
    answers meanwhile against the same process idle."""
    result = followers.run(count, 100, moves)
    keep = (
        "followers",
        "followers_connected",
        "deliveries",
        "missed",
        "fanout_p50_ms",
        "fanout_p99_ms",
        "fanout_max_ms",
        "health_idle_p99_ms",
        "health_loaded_p99_ms",
        "health_p99_over_idle",
        "move_p50_ms",
        "move_max_ms",
    )
    return {f"follow_{key}": result[key] for key in keep}


def run(quick: bool, scale: bool) -> dict[str, Any]:
    engine = engine_bench.run(
        rounds=2 if quick else 5,
        games_count=2 if quick else 6,
        spades_deals=2 if quick else engine_bench.SPADES_LONG_HANDS,
    )
    spades = engine["spades"]
    figures: dict[str, Any] = {
        "engine_fold_events_per_s": round(engine["fold"]["events_per_s"]["best"]),
        "engine_random_hands_per_s": round(engine["hands"]["hands_per_s"]["best"], 1),
        "engine_spades_fold_events_per_s": round(spades["fold"]["events_per_s"]["best"]),
        "engine_spades_random_hands_per_s": round(spades["hands"]["hands_per_s"]["best"], 1),
    }
    figures.update(http_bench.run(2 if quick else 5, 4, 2))
    figures.update(service_bench.run())
    figures.update(archive_bench.run(3 if quick else 8))
    figures.update(bot_bench.run(15 if quick else 60))
    figures.update(_bots(4 if quick else 40))
    figures.update(_spades(SPADES_DEALS_QUICK if quick else SPADES_DEALS))
    figures.update(_followers(500 if quick else 5000, 20 if quick else 40))
    if scale:
        for workers in (1, 2, 4):
            result = http_bench.run(2 if quick else 5, 8, workers)
            figures[f"scale_moves_per_s_{workers}_web"] = result["moves_per_s"]
            figures[f"scale_noop_per_s_{workers}_web"] = result["noop_requests_per_s"]
    return figures


GOALS = [
    ("engine_fold_events_per_s", ">=", 200_000, "engine fold events/s"),
    ("engine_random_hands_per_s", ">=", 200, "random 2-player hands/s"),
    ("moves_over_noop", ">=", 0.5, "moves/s ÷ no-op req/s"),
    ("latency_ratio_5000_over_50", "<=", 1.2, "move p50 @5000 ÷ @50"),
    ("fold_over_read", "<=", 1.0, "fold ÷ read from Redis"),
    ("bot_over_noop_p50", "<=", 3.0, "bot reply ÷ no-op job"),
    ("rummy_strong_decision_p99_ms", "<=", 20.0, "Rummy strong decision p99 ms"),
    ("replay_over_read", "<=", 2.0, "replay step ÷ state read"),
    ("redis_bytes_per_game_before", None, None, "Redis bytes per finished game, in Redis"),
    ("redis_bytes_per_game_after", "<=", 1024, "Redis bytes per finished game, sealed"),
    ("archive_over_raw_json", None, None, "archive bytes ÷ raw event JSON"),
    ("archive_over_export", "<=", 0.15, "archive bytes ÷ export bytes"),
    ("replay_archive_over_redis", "<=", 2.0, "replay step from archive ÷ from Redis"),
    ("replay_cold_archive_over_redis", None, None, "first replay step, archive ÷ Redis"),
    ("sealing_games_per_s", None, None, "sealing, games/s (one process)"),
    # the handlers alone (no HTTP): the signature is a larger share than over HTTP
    ("receipt_move_ratio", None, None, "move CPU with a receipt ÷ without (handlers)"),
    ("rummy_bot_hands_per_s", None, None, "Rummy bot-vs-bot hands/s"),
    ("spades_strong_decision_p99_ms", "<=", 20.0, "Spades strong decision p99 ms (wall)"),
    # judged on the lower bound of the 95% Wilson interval, not the point estimate
    ("spades_strong_win_ci95_low", ">=", 0.6, "Spades strong beats greedy, 95% CI low"),
    ("spades_strong_win_rate", None, None, "Spades strong win rate (point estimate)"),
    ("spades_bot_hands_per_s", None, None, "Spades bot-vs-bot hands/s"),
    ("follow_followers_connected", ">=", 5000, "followers held by one web process"),
    ("follow_missed", "<=", 0, "followers that missed a move"),
    ("follow_fanout_p99_ms", "<=", 1000, "move → every follower, p99 ms"),
    # the load generator shares the machine's two cores with the server it loads
    ("follow_health_p99_over_idle", "<=", 3.0, "/health p99 with followers ÷ idle"),
]


def table(figures: dict[str, Any]) -> str:
    rows = ["| figure | value | goal | met |", "|---|---|---|---|"]
    for key, op, goal, label in GOALS:
        value = figures.get(key)
        if goal is None:
            rows.append(f"| {label} | {value} | — | — |")
            continue
        met = value is not None and (value >= goal if op == ">=" else value <= goal)
        rows.append(f"| {label} | {value} | {op} {goal} | {'yes' if met else 'NO'} |")
    rows.append("")
    rows.append("| raw figure | value |")
    rows.append("|---|---|")
    rows += [f"| {key} | {value} |" for key, value in figures.items()]
    return "\n".join(rows)


def machine() -> str:
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (
        f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", action="store_true", help="write bench/RESULTS.md")
    parser.add_argument("--scale", action="store_true", help="also 1, 2 and 4 web processes")
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument(
        "--profile-move", action="store_true", help=f"profile moves only, into {PROFILE}"
    )
    args = parser.parse_args()
    if args.profile_move:  # a process of its own: it runs under gevent, as the server does
        command = [sys.executable, "-m", "bench.move_profile", "--out", str(PROFILE)]
        raise SystemExit(subprocess.run(command, check=False).returncode)
    figures = run(args.quick, args.scale)
    if args.json:
        print(json.dumps(figures))
    else:
        print(table(figures))
    if args.write:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        RESULTS.write_text(
            "# Benchmark results\n\n"
            f"Measured {stamp} on {machine()} — a shared machine, so read the ratios "
            "(each against a baseline from the same run) rather than absolute times.\n"
            "Regenerate with `python -m bench --write --scale`.\n\n" + table(figures) + "\n"
        )


if __name__ == "__main__":
    main()
