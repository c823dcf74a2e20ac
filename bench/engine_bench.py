"""Engine benchmark: how fast the rules engine rebuilds and plays games, in-process.

Prints, from one run (so the ratios hold on a noisy shared machine):
  * fold: events folded per second while rebuilding one long multi-hand game
    (`table.fold(game, events)` from nothing, repeated);
  * hands: random-vs-random full hands per second, 2 players, pagat preset (every
    command a uniformly random pick from `game.legal_moves`, dealing included);
  * baselines measured alongside: the same event list through a JSON round trip and
    through `copy.deepcopy` (events/s), and a trivial Python loop (iterations/s);
    with the ratios fold ÷ JSON round trip and hands/s per million loop iterations/s.

Times are CPU seconds of this process (`time.process_time`), best of several rounds
(the median is shown too): other processes on a shared machine then mostly cost
wall time, not the figures. Goals (issue 2): fold ≥ 200,000 events/s, ≥ 200 hands/s.

    python -m bench.engine_bench [--rounds 5] [--games 6] [--quick] [--json]
"""

import argparse
import copy
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from engine import games, table
from engine.random_play import play_random_game

LONG_GAME = {"game_end": "deals", "deals": 30}  # pagat otherwise: ~30 hands, ~15,000 events
FOLD_GOAL = 200_000
HANDS_GOAL = 200


def _timed(work: Callable[[], Any], rounds: int) -> list[float]:
    """CPU seconds of each of `rounds` runs of `work`."""
    clock = time.process_time
    times = []
    for _ in range(rounds):
        started = clock()
        work()
        times.append(max(clock() - started, 1e-9))
    return times


def _rates(amount: float, times: list[float]) -> dict[str, float]:
    return {"best": amount / min(times), "median": amount / statistics.median(times)}


def long_game_events(deals: int = LONG_GAME["deals"]) -> list[dict[str, Any]]:
    """Every event of one seeded random 2-player game of `deals` hands."""
    options = dict(LONG_GAME, deals=deals)
    _, events = play_random_game(
        "rummy", 2, "bench:long", preset="pagat", options=options, rng=random.Random(1)
    )
    return events


def bench_fold(events: list[dict[str, Any]], rounds: int) -> dict[str, Any]:
    game = games.get("rummy")
    times = _timed(lambda: table.fold(game, events), rounds)
    return {"events": len(events), "events_per_s": _rates(len(events), times)}


def bench_hands(games_count: int, rounds: int) -> dict[str, Any]:
    """The same seeded games each round, so every round is the same work."""
    hands = 0

    def play() -> None:
        nonlocal hands
        hands = 0
        for index in range(games_count):
            seed = f"bench:hands:{index}"
            state, _ = play_random_game("rummy", 2, seed, preset="pagat", rng=random.Random(index))
            hands += state.hands_played

    times = _timed(play, rounds)
    return {"games": games_count, "hands": hands, "hands_per_s": _rates(hands, times)}


def bench_baselines(events: list[dict[str, Any]], rounds: int) -> dict[str, Any]:
    count = len(events)
    json_times = _timed(lambda: json.loads(json.dumps(events)), rounds)
    copy_times = _timed(lambda: copy.deepcopy(events), rounds)
    loops = 1_000_000

    def loop() -> None:
        total = 0
        for i in range(loops):
            total += i

    loop_times = _timed(loop, rounds)
    return {
        "json_roundtrip_events_per_s": _rates(count, json_times),
        "deepcopy_events_per_s": _rates(count, copy_times),
        "loop_iterations_per_s": _rates(loops, loop_times),
    }


def run(rounds: int = 5, games_count: int = 6, deals: int = LONG_GAME["deals"]) -> dict[str, Any]:
    """All figures of one run, JSON-ready."""
    events = long_game_events(deals)
    fold = bench_fold(events, rounds)
    hands = bench_hands(games_count, rounds)
    base = bench_baselines(events, rounds)
    fold_rate = fold["events_per_s"]["best"]
    hands_rate = hands["hands_per_s"]["best"]
    return {
        "clock": "process CPU time, best of rounds",
        "rounds": rounds,
        "fold": fold,
        "hands": hands,
        "baseline": base,
        "ratios": {
            "fold_per_json_roundtrip": fold_rate / base["json_roundtrip_events_per_s"]["best"],
            "fold_per_deepcopy": fold_rate / base["deepcopy_events_per_s"]["best"],
            "hands_per_s_per_mloop_per_s": hands_rate
            / (base["loop_iterations_per_s"]["best"] / 1e6),
        },
        "goals": {
            "fold_events_per_s": FOLD_GOAL,
            "hands_per_s": HANDS_GOAL,
            "fold_met": fold_rate >= FOLD_GOAL,
            "hands_met": hands_rate >= HANDS_GOAL,
        },
    }


def _report(result: dict[str, Any]) -> str:
    fold, hands, base, ratios = (
        result["fold"],
        result["hands"],
        result["baseline"],
        result["ratios"],
    )
    goals = result["goals"]

    def rate(figures: dict[str, float], unit: str) -> str:
        return f"{figures['best']:>12,.0f} {unit}  (median {figures['median']:,.0f})"

    mark = {True: "goal met", False: "BELOW GOAL"}
    lines = [
        f"engine benchmark — {result['clock']} ({result['rounds']} rounds)",
        f"fold      {rate(fold['events_per_s'], 'events/s')}  over {fold['events']:,} events"
        f"  [{mark[goals['fold_met']]}: {goals['fold_events_per_s']:,}]",
        f"hands     {rate(hands['hands_per_s'], 'hands/s ')}  2 players, pagat, random moves,"
        f" {hands['hands']} hands in {hands['games']} games"
        f"  [{mark[goals['hands_met']]}: {goals['hands_per_s']}]",
        "baselines",
        f"  json    {rate(base['json_roundtrip_events_per_s'], 'events/s')}  dumps + loads",
        f"  copy    {rate(base['deepcopy_events_per_s'], 'events/s')}  copy.deepcopy",
        f"  loop    {rate(base['loop_iterations_per_s'], 'iter/s  ')}  for i in range: total += i",
        "ratios",
        f"  fold ÷ json round trip       {ratios['fold_per_json_roundtrip']:.2f}",
        f"  fold ÷ deepcopy              {ratios['fold_per_deepcopy']:.2f}",
        f"  hands/s per Mloop/s          {ratios['hands_per_s_per_mloop_per_s']:.2f}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per figure")
    parser.add_argument("--games", type=int, default=6, help="random games per hands round")
    parser.add_argument("--deals", type=int, default=LONG_GAME["deals"], help="long game deals")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.games, args.deals = 2, 1, 2
    result = run(rounds=args.rounds, games_count=args.games, deals=args.deals)
    print(json.dumps(result, indent=2) if args.json else _report(result))


if __name__ == "__main__":
    main()
