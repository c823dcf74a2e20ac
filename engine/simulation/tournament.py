"""Bot-versus-bot tournaments, in-process and without I/O: what `cardtrail simulate` runs.

Luck dominates a single card game, so every deal is played MIRRORED: game `i` uses
the seed f"{seed}:{i}" once per rotation of the seats (bots A, B → seats (A, B) then
(B, A)). A hand's deck depends only on the seed and the hand number, so each bot gets
the other's cards; what is left is the difference in play. Each bot sees only
`game.view(state, seat)` and its seat's redacted history of the current hand, exactly
as a worker would give it.

The result per bot: games played, games won (a tie shares the win), the win rate with
a 95% Wilson interval, points per hand (the mean score change per hand, from the
`hand_ended` events) and the mean / p50 / p99 wall time of its decisions
(`time.perf_counter`), with the same for the thread's CPU time (`time.thread_time`),
which a busy machine does not inflate. This is a measuring tool: nothing in a game
depends on the clock.

`run_match` is the entry point for a list of bot names: one name per seat is a
tournament as above; in a game played by sides (the registry's `Game.sides`, e.g. Spades
pairs), one name per side is a partnership match (`run_pairs_match`): each bot holds
every seat of its side and each deal is played once per side swap.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import games, table
from engine.bots import Memories, take_turn
from engine.contract import Bot
from engine.errors import IllegalMove, InvalidOptions
from engine.events import HAND_ENDED

__all__ = [
    "BotRecord",
    "GameRecord",
    "play_game",
    "play_games",
    "run_match",
    "run_pairs_match",
    "run_tournament",
    "seating",
    "summarize",
    "wilson",
]

MAX_SEATS = 12  # the most seats `seating` tries when it looks for a layout that fits
PARTNERS_ACROSS = ((0, 2), (1, 3))  # the partnership layout run_pairs_match plays

Progress = Callable[[int, int], None]
# How the games of a match are played: `map` in this process by default; a caller may
# pass a process pool's map (each game is independent, and its record the same anywhere).
Mapper = Callable[[Callable[[tuple], "GameRecord"], Iterable[tuple]], Iterable["GameRecord"]]


@dataclass
class BotRecord:
    """One bot's share of one game."""

    wins: float = 0.0
    hands: int = 0
    points: int = 0
    times: list[float] = field(default_factory=list)
    cpu_times: list[float] = field(default_factory=list)


@dataclass
class GameRecord:
    index: int
    rotation: int
    seats: tuple[str, ...]
    winners: list[int]
    hands: int
    commands: int
    bots: dict[str, BotRecord]


def _bots_for(game: games.Game) -> Mapping[str, Bot]:
    if not game.bots:
        raise ValueError(f"{game.name} has no bots")
    return game.bots


def _check_bots(game: games.Game, names: Sequence[str]) -> None:
    bots = _bots_for(game)
    unknown = [name for name in names if name not in bots]
    if unknown:
        raise InvalidOptions("bots", f"unknown bot {unknown[0]!r}; one of {', '.join(bots)}")


def _labels(names: Sequence[str]) -> list[str]:
    """Names as given, numbered when a bot plays itself ("strong", "strong#2")."""
    labels = []
    for index, name in enumerate(names):
        count = names[:index].count(name)
        labels.append(name if count == 0 else f"{name}#{count + 1}")
    return labels


def play_game(
    names: Sequence[str],
    seed: str,
    index: int,
    rotation: int,
    game_name: str = "rummy",
    preset: str | None = None,
    options: dict[str, Any] | None = None,
    max_commands: int = 200_000,
) -> GameRecord:
    """Play deal `index` with the bots rotated by `rotation` seats; one record.

    Seat s is played by bot (s + rotation) % n. Each bot's rng is seeded from the game
    and its label, so a tournament replays exactly.
    """
    game = games.get(game_name)
    labels = _labels(names)
    players = len(names)
    seat_bot = [(seat + rotation) % players for seat in range(players)]
    game_seed = f"{seed}:{index}"
    key = table.seed_key(game_seed)
    state, events = table.new_game(game_name, players, key, preset=preset, options=options)
    memories = Memories(game, players)
    records = {label: BotRecord() for label in labels}
    rngs = [random.Random(f"{game_seed}:{rotation}:{labels[seat_bot[s]]}") for s in range(players)]

    def record(new: list[dict[str, Any]], state: Any) -> None:
        memories.observe(new, state)
        for event in new:
            if event["type"] == HAND_ENDED:
                for seat in range(players):
                    entry = records[labels[seat_bot[seat]]]
                    entry.hands += 1
                    entry.points += event["deltas"][seat]

    record(events, state)
    commands = 0
    perf, cpu = time.perf_counter, time.thread_time
    while not game.is_finished(state):
        if commands >= max_commands:
            raise RuntimeError(f"game {game_seed!r} rotation {rotation} did not finish")
        seat = game.to_act(state)[0]
        label = labels[seat_bot[seat]]
        view = game.view(state, seat)
        started, started_cpu = perf(), cpu()
        command = take_turn(game, seat, names[seat_bot[seat]], view, memories.of(seat), rngs[seat])
        records[label].times.append(perf() - started)
        records[label].cpu_times.append(cpu() - started_cpu)
        try:
            state, new = table.play(game, state, command, key)
        except IllegalMove as error:
            raise IllegalMove(
                error.code,
                f"bot {label} in game {game_seed!r} rotation {rotation}: {command}: "
                f"{error.message}",
            ) from error
        record(new, state)
        commands += 1
    winners = list(state.result["winners"])
    for seat in winners:
        records[labels[seat_bot[seat]]].wins += 1 / len(winners)
    return GameRecord(
        index=index,
        rotation=rotation,
        seats=tuple(labels[b] for b in seat_bot),
        winners=winners,
        hands=state.hands_played,
        commands=commands,
        bots=records,
    )


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval: honest near 0 and 1, where the normal one is not."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def _percentile(ordered: list[float], fraction: float) -> float:
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
    return ordered[index]


def summarize(
    names: Sequence[str],
    records: Sequence[GameRecord],
    sides: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Per-bot totals over game records (JSON-ready; times in milliseconds).

    `sides` groups seat labels under one bot (a partnership: {"A": ["A", "A#2"]}): its
    seats' shares of a win add up, every seat plays every hand (so the hands and points
    are its first seat's), and the decision times of all its seats are pooled."""
    groups = sides or {label: [label] for label in _labels(names)}
    bots: dict[str, Any] = {}
    for bot, labels in groups.items():
        seats = [[r.bots[label] for r in records] for label in labels]
        wins = sum(e.wins for entries in seats for e in entries)
        hands = sum(e.hands for e in seats[0])
        points = sum(e.points for e in seats[0])
        times = sorted(t for entries in seats for e in entries for t in e.times)
        cpu_times = sorted(t for entries in seats for e in entries for t in e.cpu_times)
        played = len(records)
        low, high = wilson(wins, played)
        bots[bot] = {
            "games": played,
            "wins": wins,
            "win_rate": wins / played if played else 0.0,
            "win_rate_ci95": [low, high],
            "hands": hands,
            "points_per_hand": points / hands if hands else 0.0,
            "decisions": len(times),
            "decision_ms_mean": 1000 * sum(times) / len(times) if times else 0.0,
            "decision_ms_p50": 1000 * _percentile(times, 0.50),
            "decision_ms_p99": 1000 * _percentile(times, 0.99),
            "decision_ms_max": 1000 * times[-1] if times else 0.0,
            "decision_cpu_ms_mean": 1000 * sum(cpu_times) / len(cpu_times) if cpu_times else 0.0,
            "decision_cpu_ms_p50": 1000 * _percentile(cpu_times, 0.50),
            "decision_cpu_ms_p99": 1000 * _percentile(cpu_times, 0.99),
        }
    return {
        "games": len(records),
        "hands": sum(r.hands for r in records),
        "bots": bots,
    }


def _parameters(
    game_name: str,
    preset: str | None,
    options: dict[str, Any] | None,
    seed: str,
    deals: int,
    mirrored: int,
) -> dict[str, Any]:
    """What a match was, alongside its figures, ready for JSON."""
    return {
        "game": game_name,
        "preset": preset,
        "options": options,
        "seed": seed,
        "deals": deals,
        "mirrored": mirrored,
    }


def _play_job(job: tuple) -> GameRecord:
    return play_game(*job)


def play_games(
    names: Sequence[str],
    seed: str,
    deals: range,
    rotations: int,
    game_name: str,
    preset: str | None,
    options: dict[str, Any] | None,
    progress: Progress | None = None,
    mapper: Mapper = map,
) -> list[GameRecord]:
    """Every deal in `deals`, once per rotation, in that order (whatever `mapper` does)."""
    jobs = [
        (tuple(names), seed, index, rotation, game_name, preset, options)
        for index in deals
        for rotation in range(rotations)
    ]
    records = []
    for record in mapper(_play_job, jobs):
        records.append(record)
        if progress is not None:
            progress(len(records), len(jobs))
    return records


def run_tournament(
    names: Sequence[str],
    games_count: int,
    seed: str,
    game_name: str = "rummy",
    preset: str | None = None,
    options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    start: int = 0,
    mapper: Mapper = map,
) -> dict[str, Any]:
    """Play deals start … start + games_count - 1, each once per seat rotation.

    `progress(done, total)` is called after every game (a CLI drives a progress bar
    with it). Returns `summarize`'s figures plus the parameters, ready for JSON.
    """
    if len(names) < 2:
        raise ValueError("a tournament needs at least two bots")
    _check_bots(games.get(game_name), names)
    rotations = len(names)
    deals = range(start, start + games_count)
    records = play_games(
        names, seed, deals, rotations, game_name, preset, options, progress, mapper
    )
    summary = summarize(names, records)
    return {**summary, **_parameters(game_name, preset, options, seed, games_count, rotations)}


def run_pairs_match(
    a: str,
    b: str,
    games_count: int,
    seed: str,
    game_name: str,
    preset: str | None = None,
    options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    start: int = 0,
    mapper: Mapper = map,
) -> dict[str, Any]:
    """A partnership match between bots `a` and `b`, partners across the table.

    Seats run one bot each, so the game is the four names (a, b, a, b): `a` holds seats
    0 and 2, `b` seats 1 and 3. Mirroring swaps the sides: deal `i` is played once with
    `a` on side 0 and once with `b` there (rotations 0 and 1; 2 and 3 would only repeat
    them), so each side gets the other's cards. The figures are per bot, for its side.
    """
    if a == b:
        raise ValueError("a pairs match needs two different bots")
    names = [a, b, a, b]
    deals = range(start, start + games_count)
    records = play_games(names, seed, deals, 2, game_name, preset, options, progress, mapper)
    summary = summarize(names, records, sides={a: [a, f"{a}#2"], b: [b, f"{b}#2"]})
    return {**summary, **_parameters(game_name, preset, options, seed, games_count, 2)}


def seating(
    names_count: int,
    game_name: str = "rummy",
    preset: str | None = None,
    options: dict[str, Any] | None = None,
) -> tuple[tuple[int, ...], ...] | None:
    """How `names_count` bot names sit at this game and preset.

    None when they take one seat each (the options accept that many seats); else the
    game's sides (from the registry's `Game.sides`) when it is played in partnerships
    with that many sides, one name per side. InvalidOptions says which counts fit.
    """
    game = games.get(game_name)
    try:
        game.resolve_options(preset, options, names_count)
        return None
    except InvalidOptions as error:
        first_error = error
    per_seat, per_side = [], []
    for players in range(1, MAX_SEATS + 1):
        try:
            resolved = game.resolve_options(preset, options, players)
        except InvalidOptions:
            continue
        per_seat.append(players)
        sides = game.sides(resolved, players)
        if sides and all(len(side) > 1 for side in sides):
            if len(sides) == names_count:
                return sides
            per_side.append(len(sides))
    if not per_seat:
        raise first_error
    label = f"{game_name} ({preset})" if preset else game_name
    expected = f"{_either(per_seat)} bot names, one per seat"
    if per_side:
        expected += f", or {_either(sorted(set(per_side)))}, one per side"
    raise InvalidOptions("bots", f"{label} takes {expected}; got {names_count}")


def _either(counts: Sequence[int]) -> str:
    words = [str(count) for count in counts]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def run_match(
    names: Sequence[str],
    games_count: int,
    seed: str,
    game_name: str = "rummy",
    preset: str | None = None,
    options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    mapper: Mapper = map,
) -> dict[str, Any]:
    """Bots `names` at this game, mirrored: what `cardtrail simulate --bots` runs.

    One name per seat: `run_tournament`. One name per side of a partnership game:
    `run_pairs_match`, each bot holding both seats of its side.
    The figures carry `sides`: in a partnership match the seats of each side (the first
    name holds the first side in rotation 0, the other in rotation 1), else None. Names
    that do not fit the game (count, unknown bot) raise InvalidOptions before any game
    is played.
    """
    _check_bots(games.get(game_name), names)
    sides = seating(len(names), game_name, preset, options)
    if sides is None:
        summary = run_tournament(
            names, games_count, seed, game_name, preset, options, progress, mapper=mapper
        )
        summary["sides"] = None
        return summary
    if tuple(sorted(sides)) != PARTNERS_ACROSS:
        raise InvalidOptions("bots", f"{game_name}: no partnership match for sides {sides}")
    a, b = names
    if a == b:
        raise InvalidOptions("bots", "a partnership match needs two different bots")
    summary = run_pairs_match(
        a, b, games_count, seed, game_name, preset, options, progress, mapper=mapper
    )
    summary["sides"] = [list(side) for side in PARTNERS_ACROSS]
    return summary
