"""The reconciler: no game waits forever on a bot whose worker died, or on a lost deadline.

It looks at every game waiting on a bot. If the job meant to play that turn is
missing, failed, finished without moving the game, or has been running far
longer than any bot thinks (its worker was killed), it enqueues the turn again
under a new attempt id. Duplicate moves are impossible however often this runs:
a turn appends only at its expected version. Then it re-arms every deadline whose
job went missing, and fires those long overdue.
"""

import time

from service.bootstrap import Cardtrail
from service.errors import NotFound
from workers.connection import cardtrail

OVERDUE_S = 1.0  # a deadline this late has lost its scheduled job or its scheduler


def reconcile() -> int:
    """Re-enqueue lost bot turns and deadlines; how many (one process at a time)."""
    app = cardtrail()
    if not app.scheduler.reconciler_turn():
        return 0
    return _requeue_bot_turns(app) + _rearm_deadlines(app)


def _requeue_bot_turns(app: Cardtrail) -> int:
    requeued = 0
    for game_id in app.scheduler.games_waiting_on_bots():
        try:
            loaded = app.repository.load(game_id)
        except NotFound:  # a vanished game: forget it
            app.scheduler.forget_game(game_id)
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
