"""Background work, behind one narrow interface: bot turns, turn deadlines, reminders and
webhook deliveries, as RQ jobs.

Jobs are referenced by dotted name, so the web app never imports the workers. Each job
id names its game and version (`service.keys`) and is enqueued with RQ's `unique`, so a
job is never enqueued twice; the reconciler (workers/reconcile.py) reads what is
pending through here and re-enqueues what a killed worker lost. Deadlines and
reminders are scheduled with `enqueue_at`, so they survive every process restarting.
"""

import contextlib
import json
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job, JobStatus

from service import keys

QUEUE = "cardtrail"  # bot turns, deadlines and reminders
# Webhook deliveries wait on their own queue, so a slow receiver never holds up a bot:
# `cardtrail worker --queues turns` and `--queues notify` can run as separate processes.
NOTIFY_QUEUE = "cardtrail-notify"
BOT_TURN_JOB = "workers.jobs.play_bot_turn"
DEADLINE_JOB = "workers.clock.turn_deadline"
REMINDER_JOB = "workers.notify.remind"
DELIVER_JOB = "workers.notify.deliver"
RATINGS_JOB = "workers.ratings.rate_game"
SEAL_JOB = "workers.sealing.seal_game"
STALE_AFTER_S = 4.0  # a bot turn takes milliseconds; a job running this long lost its worker
_LIVE = {JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED}
REMIND_AT = 0.8  # reminders go out at 80% of the move time, as correspondence servers do
DELIVERY_RETRY = Retry(max=5, interval=[1, 2, 4, 8, 16])
# Every job here is short and answers nobody: a finished one leaves nothing in Redis (its
# job key would be ~1 KB for each bot move, kept for nothing), a failed one an hour, to
# look into. What a job did is in the game's log, not in RQ.
RESULT_KEPT_S = 0
FAILED_KEPT_S = 3600
KEPT = {"result_ttl": RESULT_KEPT_S, "failure_ttl": FAILED_KEPT_S}


@dataclass(frozen=True)
class ClockedTurn:
    """A seat's current clocked turn, as the clock cache keeps it."""

    version: int  # the version of its `turn_started` event
    at: float
    deadline: float


def _age(moment: datetime) -> float:
    """Seconds since `moment` (RQ's datetimes may come without a time zone: UTC)."""
    return (datetime.now(UTC) - moment.replace(tzinfo=moment.tzinfo or UTC)).total_seconds()


class TurnScheduler:
    def __init__(self, queue_connection: redis.Redis, state_connection: redis.Redis) -> None:
        self.queue = Queue(QUEUE, connection=queue_connection)
        self.notify_queue = Queue(NOTIFY_QUEUE, connection=queue_connection)
        self.redis = state_connection

    # -- bot turns ------------------------------------------------------------

    def bot_turn_due(self, game_id: str, version: int) -> None:
        """A bot is to act at `version`: remember the game waits on it, and enqueue the turn."""
        self.redis.zadd(keys.BOTS_WAITING, {game_id: time.time()})
        self.enqueue_turn(game_id, version)

    def no_bot_due(self, game_id: str) -> None:
        """No bot is to act any more: forget the game was waiting on one."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(keys.BOTS_WAITING, game_id)
        pipe.hdel(keys.TURN_JOBS, game_id)
        pipe.execute()

    def enqueue_turn(self, game_id: str, version: int, attempt: int = 0) -> None:
        job_id = keys.bot_turn_job(game_id, version, attempt)
        try:
            self.queue.enqueue(
                BOT_TURN_JOB,
                game_id,
                version,
                job_id=job_id,
                unique=True,
                retry=Retry(max=3, interval=[1, 2, 4]),
                result_ttl=RESULT_KEPT_S,
                failure_ttl=FAILED_KEPT_S,
            )
        except DuplicateJobError:
            return
        self.redis.hset(keys.TURN_JOBS, game_id, f"{version} {job_id}")

    def games_waiting_on_bots(self) -> list[str]:
        return [raw.decode() for raw in self.redis.zrange(keys.BOTS_WAITING, 0, -1)]

    def forget_game(self, game_id: str) -> None:
        """A game that vanished: nothing waits on it any more."""
        self.redis.zrem(keys.BOTS_WAITING, game_id)
        self.redis.zrem(keys.DEADLINES, game_id)

    def turn_job_alive(self, game_id: str, version: int) -> bool:
        """Is the job last enqueued for the game's bot turn meant for `version`, and still
        able to run? (Not if it is missing, failed, done, or started so long ago that its
        worker must have died.)"""
        entry = self.redis.hget(keys.TURN_JOBS, game_id)
        if entry is None:
            return False
        job_version, _, job_id = entry.decode().partition(" ")
        if int(job_version) != version:
            return False
        try:
            job = Job.fetch(job_id, connection=self.queue.connection)
        except NoSuchJobError:
            return False
        status = job.get_status(refresh=False)
        if status == JobStatus.QUEUED and self._taken_but_never_started(job):
            return False
        if status in _LIVE:
            return True
        if status == JobStatus.STARTED and job.started_at is not None:
            return _age(job.started_at) < STALE_AFTER_S
        return False

    def _taken_but_never_started(self, job: Job) -> bool:
        """A killed worker's socket can outlive it (its forked scheduler holds a copy), so
        Redis may still hand it the next job: the job then sits in RQ's intermediate queue."""
        intermediate = self.queue.intermediate_queue_key
        if self.queue.connection.lpos(intermediate, job.id) is None:
            return False
        return job.enqueued_at is None or _age(job.enqueued_at) > STALE_AFTER_S

    def reconciler_turn(self) -> bool:
        """Whether this process may reconcile now (one process at a time, every 1.5 s)."""
        return bool(self.redis.set(keys.RECONCILE_LOCK, "1", nx=True, px=1500))

    # -- clocks ---------------------------------------------------------------

    def clocked_turns(self, game_id: str) -> dict[int, ClockedTurn]:
        """seat -> the clocked turn it is on."""
        raw = self.redis.hgetall(keys.clock(game_id))
        return {int(seat): ClockedTurn(**json.loads(value)) for seat, value in raw.items()}

    def turns_started(
        self,
        game_id: str,
        started: list[tuple[int, dict[str, Any]]],
        ended_seats: Iterable[int],
        remind: set[int],
        humans: set[int],
    ) -> None:
        """Record new turns (version, `turn_started` event), forget ended ones, and arm the
        deadlines (and, for seats with a webhook, reminders) of the humans' turns."""
        pipe = self.redis.pipeline(transaction=False)
        for seat in ended_seats:
            pipe.hdel(keys.clock(game_id), seat)
        for version, event in started:
            turn = {"version": version, "at": event["at"], "deadline": event["deadline"]}
            pipe.hset(keys.clock(game_id), event["seat"], json.dumps(turn))
        pipe.execute()
        for version, event in started:
            seat = event["seat"]
            if seat not in humans:
                continue
            self.arm_deadline(game_id, version, seat, event["deadline"])
            if seat in remind:
                at = event["at"] + (event["deadline"] - event["at"]) * REMIND_AT
                job_id = keys.reminder_job(game_id, version)
                self._schedule(at, REMINDER_JOB, game_id, version, seat, job_id=job_id)
        self.refresh_deadlines(game_id)

    def arm_deadline(
        self, game_id: str, version: int, seat: int, deadline: float, suffix: str = ""
    ) -> None:
        job_id = keys.deadline_job(game_id, version, suffix)
        self._schedule(deadline, DEADLINE_JOB, game_id, version, seat, job_id=job_id)

    def deadline_armed(self, game_id: str, version: int) -> bool:
        job_id = keys.deadline_job(game_id, version)
        return bool(Job.exists(job_id, connection=self.queue.connection))

    def refresh_deadlines(self, game_id: str) -> None:
        deadlines = [turn.deadline for turn in self.clocked_turns(game_id).values()]
        if deadlines:
            self.redis.zadd(keys.DEADLINES, {game_id: min(deadlines)})
        else:
            self.redis.zrem(keys.DEADLINES, game_id)

    def games_with_deadlines(self) -> list[str]:
        return [raw.decode() for raw in self.redis.zrange(keys.DEADLINES, 0, -1)]

    def _schedule(self, at: float, func: str, *args: Any, job_id: str) -> None:
        # RQ scores scheduled jobs in whole seconds, truncating: rounding up keeps a job
        # from running before its time (a reminder before 80%, a deadline before it is due).
        when = datetime.fromtimestamp(math.ceil(at), UTC)
        try:
            if at <= time.time():
                self.queue.enqueue(func, *args, job_id=job_id, unique=True, **KEPT)
            else:
                self.queue.enqueue_at(when, func, *args, job_id=job_id, unique=True, **KEPT)
        except DuplicateJobError:
            pass

    # -- ratings ----------------------------------------------------------------

    def ratings_due(self, game_id: str) -> None:
        """A game ended: rate it (once, however often this is asked: the job id names
        the game, and applying a game twice changes nothing)."""
        with contextlib.suppress(DuplicateJobError):
            self.queue.enqueue(
                RATINGS_JOB,
                game_id,
                job_id=keys.ratings_job(game_id),
                unique=True,
                retry=DELIVERY_RETRY,
                result_ttl=RESULT_KEPT_S,
                failure_ttl=FAILED_KEPT_S,
            )

    def seal_due(self, game_id: str, attempt: int = 0) -> None:
        """A game ended: seal its log into the archive (once: the job id names the game,
        and sealing twice leaves one archive). The game stays listed as due until it is
        sealed, so the reconciler tries again (`attempt`) what a crash or an outage of
        the archive store left undone. On the notify queue: compressing a long log takes
        a while, and no bot's turn should wait for it."""
        self.redis.zadd(keys.SEALS_DUE, {game_id: time.time()}, nx=True)
        with contextlib.suppress(DuplicateJobError):
            self.notify_queue.enqueue(
                SEAL_JOB,
                game_id,
                job_id=keys.seal_job(game_id, attempt),
                unique=True,
                retry=DELIVERY_RETRY,
                **KEPT,
            )

    def sealed(self, game_id: str) -> None:
        self.redis.zrem(keys.SEALS_DUE, game_id)

    def seals_overdue(self, ended_before: float, count: int) -> list[str]:
        """Games that ended before `ended_before` and are not sealed yet, oldest first."""
        found = self.redis.zrangebyscore(keys.SEALS_DUE, "-inf", ended_before, start=0, num=count)
        return [raw.decode() for raw in found]

    # -- webhook deliveries ---------------------------------------------------

    def deliver(self, url: str, secret: str, body: str) -> None:
        """One signed delivery, retried with back-off by RQ."""
        self.notify_queue.enqueue(
            DELIVER_JOB,
            url,
            secret,
            body,
            retry=DELIVERY_RETRY,
            result_ttl=RESULT_KEPT_S,
            failure_ttl=FAILED_KEPT_S,
        )
