"""Seeded random-vs-random play, in-process: every seat picks a uniformly random legal move.

Used by the benchmark, `cardtrail simulate` and tests. The deal comes from the
game seed (as everywhere, see `engine.table`); the choices come from an explicit
`random.Random`, never the global one, so a (seed, rng seed) pair replays exactly.
"""

import random
from typing import Any

from engine import games, table
from engine.games import Event, State

__all__ = ["play_random_game"]


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
    choice = rng.choice
    for _ in range(max_commands):
        if is_finished(state):
            return state, events
        seat = to_act(state)[0]
        command = choice(legal_moves(state, seat))  # a fresh dict, ours to complete
        command["seat"] = seat
        state, new = table.play(game, state, command, key)
        events.extend(new)
    raise RuntimeError(f"{name} game {seed!r} did not finish within {max_commands} commands")
