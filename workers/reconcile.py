"""The reconciler: no game waits forever on a bot whose worker died.

It looks at every game waiting on a bot. If the job meant to play that turn is
missing, failed, finished without moving the game, or has been running far
longer than any bot thinks (its worker was killed), it enqueues the turn again
under a new attempt id. Duplicate moves are impossible however often this runs:
a turn appends only at its expected version.
"""

import time
from datetime import UTC, datetime

from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from service.application import ServiceError
from service.clock import DEADLINES
from service.turns import (
    QUEUE,
    TURN_JOBS,
    WAITING_ON_BOTS,
)
from workers.connection import game_service

STALE_AFTER_S = 4.0  # a bot turn takes milliseconds; a job running this long lost its worker
OVERDUE_S = 1.0  # a deadline this late has lost its scheduled job or its scheduler
_LIVE = {JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED}


RECONCILE_LOCK = "cardtrail:reconcile:lock"


def reconcile() -> int:
    """Re-enqueue lost bot turns; returns how many were re-enqueued (one worker at a time)."""
    service = game_service()
    if not service.redis.set(RECONCILE_LOCK, "1", nx=True, px=1500):
        return 0
    queue = service.turns.queue
    redis = service.redis
    requeued = 0
    for raw_id in redis.zrange(WAITING_ON_BOTS, 0, -1):
        game_id = raw_id.decode()
        try:
            loaded = service.load(game_id)
        except Exception:  # a vanished game: forget it
            redis.zrem(WAITING_ON_BOTS, game_id)
            continue
        bots = service.turns.bots_to_act(
            service.seats(loaded.meta), loaded.game.to_act(loaded.state)
        )
        if not bots:
            service.turns.after_append(game_id, loaded.version, [])
            continue
        current = redis.hget(TURN_JOBS, game_id)
        if current is not None and _alive(current.decode(), loaded.version, queue.connection):
            continue
        attempt = int(time.time() * 1000)
        service.turns.enqueue_turn(game_id, loaded.version, attempt=attempt)
        requeued += 1
    return requeued + _rearm_deadlines(service)


def _rearm_deadlines(service) -> int:
    """Deadlines whose job went missing are armed again; overdue ones are fired now.

    An overdue deadline usually means no scheduler is running (a killed worker's
    scheduler lock takes a minute to expire), so the reconciler enqueues it directly;
    the job itself checks the turn is still the one that timed out.
    """
    now = time.time()
    armed = 0
    queue = service.turns.queue
    for raw_id, _ in service.redis.zrangebyscore(DEADLINES, "-inf", "+inf", withscores=True):
        game_id = raw_id.decode()
        turns = service.clock.turns(game_id)
        if not turns:
            service.redis.zrem(DEADLINES, game_id)
            continue
        try:
            seats = service.seats(service.load(game_id).meta)
        except ServiceError:  # a vanished game: forget it
            service.redis.zrem(DEADLINES, game_id)
            continue
        for seat, turn in turns.items():
            if seat >= len(seats) or "bot" in seats[seat]:
                continue  # a bot's turn has no deadline: a lost bot turn is re-enqueued above
            version, deadline = turn["version"], turn["deadline"]
            if deadline < now - OVERDUE_S:
                service.clock.arm(game_id, version, seat, now, job_suffix=f"-late{int(now // 5)}")
                armed += 1
            elif not Job.exists(f"deadline-{game_id}-{version}", connection=queue.connection):
                service.clock.arm(game_id, version, seat, deadline)
                armed += 1
    return armed


def _alive(entry: str, version: int, connection) -> bool:
    """Is the job recorded for this game meant for this version, and still able to run?"""
    job_version, _, job_id = entry.partition(" ")
    if int(job_version) != version:
        return False
    try:
        job = Job.fetch(job_id, connection=connection)
    except NoSuchJobError:
        return False
    status = job.get_status(refresh=False)
    if status == JobStatus.QUEUED and _taken_but_never_started(job, connection):
        return False
    if status in _LIVE:
        return True
    if status == JobStatus.STARTED and job.started_at is not None:
        started = job.started_at.replace(tzinfo=job.started_at.tzinfo or UTC)
        return (datetime.now(UTC) - started).total_seconds() < STALE_AFTER_S
    return False


def _taken_but_never_started(job: Job, connection) -> bool:
    """A killed worker's socket can outlive it (its forked scheduler holds a copy), so
    Redis may still hand it the next job: the job then sits in RQ's intermediate queue."""
    queue = Queue(QUEUE, connection=connection)
    if connection.lpos(queue.intermediate_queue_key, job.id) is None:
        return False
    enqueued = job.enqueued_at
    if enqueued is None:
        return True
    enqueued = enqueued.replace(tzinfo=enqueued.tzinfo or UTC)
    return (datetime.now(UTC) - enqueued).total_seconds() > STALE_AFTER_S
