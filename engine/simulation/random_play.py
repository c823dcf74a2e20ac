"""Seeded random-vs-random play, in-process: every seat picks a uniformly random legal move.

Used by the benchmark, `cardtrail simulate` and tests. The deal comes from the
game seed (as everywhere, see `engine.table`); the choices come from an explicit
`random.Random`, never the global one, so a (seed, rng seed) pair replays exactly.
"""

import random
from collections.abc import Callable
from typing import Any

from engine import games, table
from engine.games import Event, State

__all__ = ["play_random_game", "simulate_random"]


def play_random_game(
    name: str,
    players: int,
    seed: str,
    preset: str | None = None,
    options: dict[str, Any] | None = None,
    rng: random.Random | None = None,
    max_commands: int = 1_000_000,
) -> tuple[State, list[Event]]:
    """Play one whole game with random legal moves; return the final state and every event.

    `rng` defaults to `random.Random(seed)`. `max_commands` guards against a rules bug
    that would never end a game (RuntimeError rather than a hang).
    """
    if rng is None:
        rng = random.Random(seed)
    game = games.get(name)
    key = table.seed_key(seed)
    state, events = table.new_game(name, players, key, preset=preset, options=options)
    legal_moves, to_act, is_finished = game.legal_moves, game.to_act, game.is_finished
    random_bits = rng.getrandbits
    for _ in range(max_commands):
        if is_finished(state):
            return state, events
        seat = to_act(state)[0]
        moves = legal_moves(state, seat)
        # rng.choice(moves), inlined (the same draws, so the same pick): it runs every step
        count = len(moves)
        width = count.bit_length()
        pick = random_bits(width)
        while pick >= count:
            pick = random_bits(width)
        command = {**moves[pick], "seat": seat}
        state, new = table.play(game, state, command, key)
        events.extend(new)
    raise RuntimeError(f"{name} game {seed!r} did not finish within {max_commands} commands")


def simulate_random(
    name: str,
    players: int,
    games_count: int,
    seed: str,
    preset: str | None = None,
    options: dict[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Play games 0 … games_count - 1 (game i: seed and rng seed f"{seed}:{i}"); per-seat
    figures, JSON-ready: the floor a bot must beat, and a check that no seat is favoured.

    Read from the events every game records (`hand_ended` deltas, `game_ended` winners),
    so any registered game works. A tie shares the win. `progress(done)` after each game.
    """
    wins = [0.0] * players
    points = [0] * players
    hands = 0
    for index in range(games_count):
        game_seed = f"{seed}:{index}"
        _, events = play_random_game(
            name, players, game_seed, preset, options, rng=random.Random(game_seed)
        )
        for event in events:
            if event["type"] == "hand_ended":
                hands += 1
                for seat, delta in enumerate(event["deltas"]):
                    points[seat] += delta
            elif event["type"] == "game_ended":
                for seat in event["winners"]:
                    wins[seat] += 1 / len(event["winners"])
        if progress is not None:
            progress(index + 1)
    return {
        "game": name,
        "preset": preset,
        "options": options,
        "players": players,
        "seed": seed,
        "games": games_count,
        "hands": hands,
        "hands_per_game": hands / games_count if games_count else 0.0,
        "seats": [
            {
                "seat": seat,
                "wins": wins[seat],
                "win_rate": wins[seat] / games_count if games_count else 0.0,
                "points_per_hand": points[seat] / hands if hands else 0.0,
            }
            for seat in range(players)
        ],
    }
