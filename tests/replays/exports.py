"""Exports built without a server, exactly as the service writes them, and ways to tamper.

`build_export` plays a seeded random game through the table's protocol
(`engine.table`: one `create` batch with the commitment, the client seeds and the
first deal; one batch per seated command; `seed_revealed` after the last move), as
the service does, chains the hashes with `engine.ledger` and writes the lines with
`replays.export`. tests/service/test_replays.py checks that a game played over
HTTP exports to the very same bytes, so the offline audit tests below audit what
the service really produces.
"""

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine import games, ledger, table
from replays.export import export_lines

GAME = games.get("rummy")


@dataclass
class Line:
    version: int
    event: dict[str, Any]
    command: dict[str, Any] | None
    hash: str


def build_batches(
    server_seed: str,
    players: int,
    moves: Sequence[dict[str, Any]] | None = None,
    rng: random.Random | None = None,
    preset: str | None = None,
    options: dict[str, Any] | None = None,
    client_seeds: Sequence[str | None] | None = None,
    deck: Sequence[str] | None = None,
    deck_source: str | None = None,
    max_moves: int = 3000,
    game: str = "rummy",
    waiting: bool = False,
    seed_source: str | None = "server",
    seats: Sequence[dict[str, str]] | None = None,
) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The (command, events) batches of a whole game of `game`, made by the table's
    protocol alone: the given seated `moves`, or random legal ones from `rng`. `deck`
    deals hand 1 from that deck; `deck_source` overrides what the creation event claims
    (a lying server); `seed_source` who chose the server seed (None: a game from before
    it was recorded); `waiting` seats the players in a batch of its own, as when the last
    open seat is joined; `seats` who sat where (None: a log from before it was recorded)."""
    rules = games.get(game)
    seeds = table.Seeds(
        server_seed, tuple(client_seeds) if client_seeds is not None else (None,) * players
    )
    setup = table.setup(rules, preset, options, players)
    source = deck_source or ("seed" if deck is None else "explicit")
    created = table.create(setup, server_seed, source, seed_source)
    seated = table.seat(rules, created.state, seeds, deck, seats)
    if waiting:
        batches = [(table.CREATE, created.events), (table.START, seated.events)]
    else:
        batches = [(table.CREATE, [*created.events, *seated.events])]
    state = seated.state
    queue = list(moves) if moves is not None else None
    while not rules.is_finished(state):
        assert len(batches) < max_moves, "the game did not finish"
        if queue is not None:
            command = queue.pop(0)
        else:
            seat = rules.to_act(state)[0]
            command = {**rng.choice(rules.legal_moves(state, seat)), "seat": seat}
        step = table.move(rules, state, command, seeds)
        state = step.state
        batches.append((command, step.events))
    # Through JSON, as the store keeps them.
    return [(dict(c), json.loads(json.dumps(e))) for c, e in batches]


def chain(game_id: str, batches) -> list[Line]:
    """Number and hash-chain events as the store does: the command on each batch's first."""
    lines: list[Line] = []
    previous = ledger.chain_start(game_id)
    for command, events in batches:
        for index, event in enumerate(events):
            with_command = command if index == 0 else None
            previous = ledger.chain(previous, ledger.record_bytes(event, with_command))
            lines.append(Line(len(lines) + 1, event, with_command, previous))
    return lines


def rechain(game_id: str, lines: Sequence[Line]) -> list[Line]:
    """Renumber 1..n and recompute every hash: a forger who rewrites the whole chain."""
    fixed: list[Line] = []
    previous = ledger.chain_start(game_id)
    for version, line in enumerate(lines, start=1):
        previous = ledger.chain(previous, ledger.record_bytes(line.event, line.command))
        fixed.append(Line(version, line.event, line.command, previous))
    return fixed


def text(game_id: str, lines: Sequence[Line], game: str = "rummy", keys: list | None = None) -> str:
    return "".join(line + "\n" for line in export_lines(game_id, game, lines, keys))


def keys_of(export_text: str) -> list | None:
    """The signing keys an export's header carries (a server's export has them)."""
    return json.loads(export_text.split("\n", 1)[0]).get("keys")


def parse(export_text: str) -> tuple[str, list[Line]]:
    """The game id and the lines of an export (for tampering with them)."""
    rows = [json.loads(row) for row in export_text.splitlines() if row]
    header, records = rows[0], rows[1:]
    lines = [Line(r["version"], r["event"], r.get("command"), r["hash"]) for r in records]
    return header["game_id"], lines


def build_export(game_id: str = "offline-game", **kwargs: Any) -> str:
    return text(game_id, chain(game_id, build_batches(**kwargs)), kwargs.get("game", "rummy"))
