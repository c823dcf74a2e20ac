"""Engine benchmark: how fast the rules engine rebuilds and plays games, in-process.

Prints, from one run (so the ratios hold on a noisy shared machine):
  * fold: events folded per second while rebuilding one long multi-hand game
    (`table.fold(game, events)` from nothing, repeated);
  * hands: random-vs-random full hands per second, 2 players, pagat preset (every
    command a uniformly random pick from `game.legal_moves`, dealing included);
  * baselines measured alongside: the same event list through a JSON round trip and
    through `copy.deepcopy` (events/s), and a trivial Python loop (iterations/s);
    with the ratios fold ÷ JSON round trip, fold ÷ deepcopy and hands/s per million
    loop iterations/s;
  * spades: the same two figures for Spades, 4 players, pairs preset (fold of one long
    seeded random game of `--spades-deals` hands; random hands/s over `--games` random
    games, which run to the preset's 200-hand `max_hands` since random bids seldom
    reach 500), with their own JSON and deepcopy baselines on the Spades events and
    the same loop baseline. No goal is set for these.

Times are CPU seconds of this process (`time.process_time`). Every round times each
workload once, one after the other, so a round's ratios compare figures taken moments
apart; each figure is reported as the best round (and the median), each ratio as the
median of the rounds' ratios. Goals: fold ≥ 200,000 events/s, ≥ 200 hands/s.

    python -m bench.engine_bench [--rounds 7] [--games 6] [--deals 30] [--spades-deals 120]
                                 [--quick] [--json]
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
from engine.simulation.random_play import play_random_game

LONG_GAME = {"game_end": "deals", "deals": 30}  # pagat otherwise: ~10,000 events
SPADES_LONG_HANDS = 120  # a random pairs game cut at 120 hands: ~9,000 events
SPADES = {"name": "spades", "players": 4, "preset": "pairs"}
FOLD_GOAL = 200_000
HANDS_GOAL = 200
LOOP_ITERATIONS = 1_000_000


def long_game_events(deals: int = LONG_GAME["deals"]) -> list[dict[str, Any]]:
    """Every event of one seeded random 2-player pagat game of `deals` hands."""
    options = dict(LONG_GAME, deals=deals)
    _, events = play_random_game(
        "rummy", 2, "bench:long", preset="pagat", options=options, rng=random.Random(1)
    )
    return events


def spades_long_game_events(hands: int = SPADES_LONG_HANDS) -> list[dict[str, Any]]:
    """Every event of one seeded random 4-player Spades pairs game cut at `hands` hands."""
    _, events = play_random_game(
        SPADES["name"],
        SPADES["players"],
        "bench:spades-long",
        preset=SPADES["preset"],
        options={"max_hands": hands},
        rng=random.Random(1),
    )
    return events


def _workloads(
    events: list[dict[str, Any]],
    games_count: int,
    spades_events: list[dict[str, Any]],
) -> dict[str, Callable[[], int]]:
    """name -> work returning how many units (events, hands, iterations) it did."""
    game = games.get("rummy")
    spades = games.get(SPADES["name"])

    def fold() -> int:
        table.fold(game, events)
        return len(events)

    def hands() -> int:
        played = 0
        for index in range(games_count):  # the same seeded games every round
            state, _ = play_random_game(
                "rummy", 2, f"bench:hands:{index}", preset="pagat", rng=random.Random(index)
            )
            played += state.hands_played
        return played

    def json_roundtrip() -> int:
        json.loads(json.dumps(events))
        return len(events)

    def deepcopy() -> int:
        copy.deepcopy(events)
        return len(events)

    def loop() -> int:
        total = 0
        for i in range(LOOP_ITERATIONS):
            total += i
        return LOOP_ITERATIONS

    def spades_fold() -> int:
        table.fold(spades, spades_events)
        return len(spades_events)

    def spades_hands() -> int:
        played = 0
        for index in range(games_count):  # the same seeded games every round
            state, _ = play_random_game(
                SPADES["name"],
                SPADES["players"],
                f"bench:spades-hands:{index}",
                preset=SPADES["preset"],
                rng=random.Random(index),
            )
            played += state.hands_played
        return played

    def spades_json_roundtrip() -> int:
        json.loads(json.dumps(spades_events))
        return len(spades_events)

    def spades_deepcopy() -> int:
        copy.deepcopy(spades_events)
        return len(spades_events)

    return {
        "fold": fold,
        "hands": hands,
        "json": json_roundtrip,
        "deepcopy": deepcopy,
        "loop": loop,
        "spades_fold": spades_fold,
        "spades_hands": spades_hands,
        "spades_json": spades_json_roundtrip,
        "spades_deepcopy": spades_deepcopy,
    }


def _measure(workloads: dict[str, Callable[[], int]], rounds: int) -> dict[str, list[float]]:
    """Per workload, its rate (units per CPU second) in each round."""
    clock = time.process_time
    rates: dict[str, list[float]] = {name: [] for name in workloads}
    for _ in range(rounds):
        for name, work in workloads.items():
            started = clock()
            units = work()
            rates[name].append(units / max(clock() - started, 1e-9))
    return rates


def _figures(rates: list[float]) -> dict[str, float]:
    return {"best": max(rates), "median": statistics.median(rates)}


def _ratio(numerators: list[float], denominators: list[float], scale: float = 1.0) -> float:
    """The median over rounds of each round's ratio."""
    return statistics.median(n / (d * scale) for n, d in zip(numerators, denominators, strict=True))


def run(
    rounds: int = 7,
    games_count: int = 6,
    deals: int = LONG_GAME["deals"],
    spades_deals: int = SPADES_LONG_HANDS,
) -> dict[str, Any]:
    """All figures of one run, JSON-ready."""
    events = long_game_events(deals)
    spades_events = spades_long_game_events(spades_deals)
    workloads = _workloads(events, games_count, spades_events)
    hands_played = workloads["hands"]()  # also warms up
    spades_hands_played = workloads["spades_hands"]()
    rates = _measure(workloads, rounds)
    fold, hands = _figures(rates["fold"]), _figures(rates["hands"])
    return {
        "clock": "process CPU time",
        "rounds": rounds,
        "fold": {"events": len(events), "events_per_s": fold},
        "hands": {"games": games_count, "hands": hands_played, "hands_per_s": hands},
        "spades": {
            "players": SPADES["players"],
            "preset": SPADES["preset"],
            "fold": {"events": len(spades_events), "events_per_s": _figures(rates["spades_fold"])},
            "hands": {
                "games": games_count,
                "hands": spades_hands_played,
                "hands_per_s": _figures(rates["spades_hands"]),
            },
        },
        "baseline": {
            "json_roundtrip_events_per_s": _figures(rates["json"]),
            "deepcopy_events_per_s": _figures(rates["deepcopy"]),
            "loop_iterations_per_s": _figures(rates["loop"]),
            "spades_json_roundtrip_events_per_s": _figures(rates["spades_json"]),
            "spades_deepcopy_events_per_s": _figures(rates["spades_deepcopy"]),
        },
        "ratios": {
            "fold_per_json_roundtrip": _ratio(rates["fold"], rates["json"]),
            "fold_per_deepcopy": _ratio(rates["fold"], rates["deepcopy"]),
            "hands_per_s_per_mloop_per_s": _ratio(rates["hands"], rates["loop"], 1e-6),
            "spades_fold_per_json_roundtrip": _ratio(rates["spades_fold"], rates["spades_json"]),
            "spades_fold_per_deepcopy": _ratio(rates["spades_fold"], rates["spades_deepcopy"]),
            "spades_hands_per_s_per_mloop_per_s": _ratio(
                rates["spades_hands"], rates["loop"], 1e-6
            ),
        },
        "goals": {
            "fold_events_per_s": FOLD_GOAL,
            "hands_per_s": HANDS_GOAL,
            "fold_met": fold["best"] >= FOLD_GOAL,
            "hands_met": hands["best"] >= HANDS_GOAL,
        },
    }


def _report(result: dict[str, Any]) -> str:
    fold, hands, spades = result["fold"], result["hands"], result["spades"]
    base, ratios, goals = result["baseline"], result["ratios"], result["goals"]

    def rate(figures: dict[str, float], unit: str) -> str:
        return f"{figures['best']:>12,.0f} {unit}  (median {figures['median']:,.0f})"

    mark = {True: "goal met", False: "BELOW GOAL"}
    return "\n".join(
        [
            f"engine benchmark: {result['clock']}, best of {result['rounds']} rounds",
            f"fold      {rate(fold['events_per_s'], 'events/s')}  rebuilding a game of "
            f"{fold['events']:,} events  [{mark[goals['fold_met']]}: "
            f"{goals['fold_events_per_s']:,}]",
            f"hands     {rate(hands['hands_per_s'], 'hands/s ')}  2 players, pagat, random "
            f"moves, {hands['hands']} hands in {hands['games']} games  "
            f"[{mark[goals['hands_met']]}: {goals['hands_per_s']}]",
            "baselines",
            f"  json    {rate(base['json_roundtrip_events_per_s'], 'events/s')}  "
            "the same events through json.dumps + json.loads",
            f"  copy    {rate(base['deepcopy_events_per_s'], 'events/s')}  "
            "the same events through copy.deepcopy",
            f"  loop    {rate(base['loop_iterations_per_s'], 'iter/s  ')}  "
            "for i in range(n): total += i",
            "ratios (median of each round's)",
            f"  fold ÷ json round trip       {ratios['fold_per_json_roundtrip']:.2f}",
            f"  fold ÷ deepcopy              {ratios['fold_per_deepcopy']:.2f}",
            f"  hands/s per Mloop/s          {ratios['hands_per_s_per_mloop_per_s']:.2f}",
            f"spades, {spades['players']} players, {spades['preset']} preset (no goal)",
            f"  fold    {rate(spades['fold']['events_per_s'], 'events/s')}  rebuilding a game "
            f"of {spades['fold']['events']:,} events",
            f"  hands   {rate(spades['hands']['hands_per_s'], 'hands/s ')}  random moves, "
            f"{spades['hands']['hands']} hands in {spades['hands']['games']} games",
            f"  json    {rate(base['spades_json_roundtrip_events_per_s'], 'events/s')}  "
            "the Spades events through json.dumps + json.loads",
            f"  copy    {rate(base['spades_deepcopy_events_per_s'], 'events/s')}  "
            "the Spades events through copy.deepcopy",
            f"  fold ÷ json round trip       {ratios['spades_fold_per_json_roundtrip']:.2f}",
            f"  fold ÷ deepcopy              {ratios['spades_fold_per_deepcopy']:.2f}",
            f"  hands/s per Mloop/s          {ratios['spades_hands_per_s_per_mloop_per_s']:.2f}",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds")
    parser.add_argument("--games", type=int, default=6, help="random games per hands round")
    parser.add_argument("--deals", type=int, default=LONG_GAME["deals"], help="long game deals")
    parser.add_argument(
        "--spades-deals", type=int, default=SPADES_LONG_HANDS, help="long Spades game hands"
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.games, args.deals, args.spades_deals = 2, 1, 2, 2
    result = run(
        rounds=args.rounds,
        games_count=args.games,
        deals=args.deals,
        spades_deals=args.spades_deals,
    )
    print(json.dumps(result, indent=2) if args.json else _report(result))


if __name__ == "__main__":
    main()
