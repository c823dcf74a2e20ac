"""The reconciler: no game waits forever on a bot whose worker died, or on a lost deadline.

It looks at every game waiting on a bot. If the job meant to play that turn is
missing, failed, finished without moving the game, or has been running far
longer than any bot thinks (its worker was killed), it enqueues the turn again
under a new attempt id. Duplicate moves are impossible however often this runs:
a turn appends only at its expected version. Then it re-arms every deadline whose
job went missing, and fires those long overdue. Last, it abandons the waiting games
whose open seats stayed empty longer than `CARDTRAIL_WAITING_EXPIRES` (default 7 days),
oldest first, a few at a time.
"""

import logging
import os
import time

from engine import InvalidOptions
from engine.table.clock import parse_duration
from service.bootstrap import Cardtrail
from service.errors import NotFound, ServiceError
from workers.connection import cardtrail

log = logging.getLogger(__name__)

OVERDUE_S = 1.0  # a deadline this late has lost its scheduled job or its scheduler
WAITING_EXPIRES_ENV = "CARDTRAIL_WAITING_EXPIRES"
WAITING_EXPIRES = "7d"
# Each sweep looks at this many expired waiting games at a time, at most this many times:
# a backlog (thousands created at once) drains over many ticks without delaying bot turns.
ABANDON_BATCH = 25
ABANDON_BATCHES = 4


def reconcile() -> int:
    """Re-enqueue lost bot turns and deadlines, abandon expired waiting games; how many
    (one process at a time)."""
    app = cardtrail()
    if not app.scheduler.reconciler_turn():
        return 0
    return (
        _requeue_bot_turns(app) + _rearm_deadlines(app) + _abandon_expired(app) + _reseal(app)
    )


SEAL_GRACE_S = 120.0  # a game that ended this long ago and is still not sealed is retried
SEAL_RETRY_EVERY_S = 600  # at most one new attempt per game this often
SEAL_BATCH = 25


def _reseal(app: Cardtrail) -> int:
    """Games that ended and are still in Redis (their seal job crashed, or ran out of
    retries while the archive store was down) get a new attempt."""
    if app.sealing is None:
        return 0
    now = time.time()
    due = app.scheduler.seals_overdue(now - SEAL_GRACE_S, SEAL_BATCH)
    for game_id in due:
        app.scheduler.seal_due(game_id, attempt=int(now // SEAL_RETRY_EVERY_S))
    return len(due)


def _requeue_bot_turns(app: Cardtrail) -> int:
    requeued = 0
    for game_id in app.scheduler.games_waiting_on_bots():
        try:
            loaded = app.repository.load(game_id)
        except NotFound:  # a vanished game: forget it
            app.scheduler.forget_game(game_id)
            continue
        except ServiceError as error:  # a sealed game whose archive cannot be read now
            log.warning("game %s: not loaded (%s): %s", game_id, error.code, error.detail)
            continue
        if not loaded.table.bots_among(loaded.game.to_act(loaded.state)):
            app.scheduler.no_bot_due(game_id)
            continue
        if app.scheduler.turn_job_alive(game_id, loaded.version):
            continue
        app.scheduler.enqueue_turn(game_id, loaded.version, attempt=int(time.time() * 1000))
        requeued += 1
    return requeued


def _rearm_deadlines(app: Cardtrail) -> int:
    """Deadlines whose job went missing are armed again; overdue ones are fired now.

    An overdue deadline usually means no scheduler is running (a killed worker's
    scheduler lock takes a minute to expire), so the reconciler enqueues it directly;
    the job itself checks the turn is still the one that timed out.
    """
    now = time.time()
    armed = 0
    scheduler = app.scheduler
    for game_id in scheduler.games_with_deadlines():
        turns = scheduler.clocked_turns(game_id)
        if not turns:
            scheduler.refresh_deadlines(game_id)  # none left: out of the index
            continue
        try:
            table = app.repository.tables.get(game_id)
        except NotFound:  # a vanished game: forget it
            scheduler.forget_game(game_id)
            continue
        for seat, turn in turns.items():
            if seat >= table.players or table.seats[seat].bot is not None:
                continue  # a bot's turn has no deadline: a lost bot turn is re-enqueued above
            if turn.deadline < now - OVERDUE_S:
                late = f"-late{int(now // 5)}"
                scheduler.arm_deadline(game_id, turn.version, seat, now, suffix=late)
                armed += 1
            elif not scheduler.deadline_armed(game_id, turn.version):
                scheduler.arm_deadline(game_id, turn.version, seat, turn.deadline)
                armed += 1
    return armed


def waiting_expiry() -> int:
    """Seconds a waiting game's open seats may stay empty: CARDTRAIL_WAITING_EXPIRES, a
    duration such as "30s", "15m", "24h" or "7d" (at most 30 days)."""
    return parse_duration(os.environ.get(WAITING_EXPIRES_ENV) or WAITING_EXPIRES)


def _abandon_expired(app: Cardtrail) -> int:
    """Waiting games created longer ago than the expiry are abandoned, oldest first.

    A game the handler leaves waiting (a join is filling its last seat) stays in the
    index: the next batch starts past it, so such games never hold up the others."""
    try:
        expiry = waiting_expiry()
    except InvalidOptions:
        log.error("%s is not a duration such as 7d: no waiting game expires", WAITING_EXPIRES_ENV)
        return 0
    now = time.time()
    closed = offset = 0
    for _ in range(ABANDON_BATCHES):
        ids = app.repository.tables.waiting_since(now - expiry, offset, ABANDON_BATCH)
        for game_id in ids:
            if _abandon(app, game_id, now):
                closed += 1
            else:
                offset += 1
        if len(ids) < ABANDON_BATCH:
            break
    return closed


def _abandon(app: Cardtrail, game_id: str, now: float) -> bool:
    """Whether the game left the waiting index: abandoned now, or vanished."""
    try:
        return app.handlers.abandon(game_id, now) is not None
    except NotFound:  # a vanished game: forget it
        app.repository.tables.unlist(game_id)
        return True
    except ServiceError as refused:  # another sweep appended first: it is theirs
        log.info("waiting game %s not abandoned: %s", game_id, refused.code)
        return False
