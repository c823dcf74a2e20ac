"""Closing a waiting table nobody filled in time: `game_abandoned`, then the seed.

`Handlers.abandon` comes here; the reconciler's sweep calls it for every table that
waited longer than `CARDTRAIL_WAITING_EXPIRES` (docs/limits.md).
"""

from typing import TYPE_CHECKING

from engine import IllegalMove
from engine import table as protocol
from service.reactions import Appended
from service.repository import Loaded

if TYPE_CHECKING:
    from service.handlers import Handlers


def abandon(handlers: "Handlers", game_id: str, now: float) -> int | None:
    """Close a waiting game nobody filled in time: `game_abandoned` and the seed, at
    the version it was loaded at. The version it leaves the game at, or None when the
    game is no longer waiting (a join took the last seat first: it wins).

    The table is closed before the log is appended, so no join can seat anyone after
    the seed is shown; a crash in between leaves a closed table that the next sweep
    finishes."""
    loaded = handlers.repository.load(game_id)
    table = loaded.table
    if table.status not in ("waiting", "abandoned"):
        handlers.tables.set_status(table, table.status)  # out of the waiting index
        return None
    try:
        step = protocol.abandon(loaded.game, loaded.state, table.server_seed, now)
    except IllegalMove:  # seated and dealt, but the status was never updated
        finished = loaded.game.is_finished(loaded.state)
        handlers.tables.set_status(table, "finished" if finished else "playing")
        return None
    if not handlers.tables.close(game_id):
        return None
    if table.status == "abandoned" and _abandoned_already(handlers, loaded):
        handlers.tables.set_status(table, "abandoned")
        return loaded.version
    batch = handlers.repository.batch(loaded, step.events, protocol.ABANDON)
    handlers.repository.append(loaded, batch, step.state)
    handlers.tables.set_status(table, "abandoned")
    handlers.react(
        Appended(table, loaded.game, loaded.version, step.events, loaded.state, step.state, [])
    )
    return batch.version


def _abandoned_already(handlers: "Handlers", loaded: Loaded) -> bool:
    last = handlers.repository.events.read(loaded.id, after=loaded.version - 1)
    return bool(last) and last[-1]["type"] == "seed_revealed"
