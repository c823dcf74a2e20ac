"""Histories rewritten by someone who can write to the store, re-chained so that the
hash chain alone cannot tell: the forgeries the receipts must catch."""

import json
import random
from typing import Any

from engine import games, ledger, table
from engine.events import HAND_DEALT, PLAYERS_SEATED, SEED_REVEALED
from service import keys
from tests.replays.exports import Line, build_batches, chain, rechain


def _batches(lines: list[Line]) -> list[list[Line]]:
    cut: list[list[Line]] = []
    for line in lines:
        if line.command is not None or not cut:
            cut.append([])
        cut[-1].append(line)
    return cut


def other_moves_after_a_deal(
    game_id: str, lines: list[Line], game: str, hand: int, rng: random.Random
) -> list[Line]:
    """The log kept up to the batch that dealt `hand`, then other legal moves to the end
    (the same seeds, so every deal still follows from them)."""
    rules = games.get(game)
    kept: list[Line] = []
    for batch in _batches(lines):
        kept += batch
        if any(line.event["type"] == HAND_DEALT and line.event["hand"] == hand for line in batch):
            break
    server_seed = next(
        line.event["server_seed"] for line in lines if line.event["type"] == SEED_REVEALED
    )
    seated = next(line.event for line in lines if line.event["type"] == PLAYERS_SEATED)
    seeds = table.Seeds(server_seed, tuple(seated["client_seeds"]), seated["v"])
    state = table.fold(rules, [line.event for line in kept])
    forged = list(kept)
    while not rules.is_finished(state):
        seat = rules.to_act(state)[0]
        command = {**rng.choice(rules.legal_moves(state, seat)), "seat": seat}
        step = table.move(rules, state, command, seeds)
        state = step.state
        events = json.loads(json.dumps(step.events))
        for index, event in enumerate(events):
            forged.append(Line(0, event, command if index == 0 else None, ""))
    return rechain(game_id, forged)


def a_new_game(game_id: str, players: int, game: str, **kwargs: Any) -> list[Line]:
    """A whole other game under the same id: a new seed, commitment and decks."""
    return chain(game_id, build_batches("a forger's seed", players, game=game, **kwargs))


def write_over(redis_client, game_id: str, lines: list[Line]) -> None:
    """Replace the game's stream with `lines`, as a writer with access to Redis would."""
    redis_client.delete(keys.events(game_id), keys.snapshot(game_id))
    for line in lines:
        fields = {"e": ledger.canonical_json(line.event), "h": line.hash}
        if line.command is not None:
            fields["c"] = ledger.canonical_json(line.command)
        redis_client.xadd(keys.events(game_id), fields, id=f"0-{line.version}")
