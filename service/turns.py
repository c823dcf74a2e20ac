"""Handing turns to the background: after an append leaves a bot to act, enqueue its turn.

Jobs are referenced by dotted name, so the web app never imports the workers.
A turn's job id names the game and version and is enqueued with RQ's `unique`,
so a turn is never enqueued twice; the reconciler (workers/reconcile.py) re-enqueues
turns whose job was lost with a killed worker.
"""

import time

import redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError

QUEUE = "cardtrail"
# Webhook deliveries wait on their own queue, so a slow receiver never holds up a bot:
# `cardtrail worker --queues turns` and `--queues notify` can run as separate processes.
NOTIFY_QUEUE = "cardtrail-notify"
BOT_TURN = "workers.jobs.play_bot_turn"
WAITING_ON_BOTS = "cardtrail:bots:waiting"  # sorted set: game id -> since when
TURN_JOBS = "cardtrail:bots:jobs"  # hash: game id -> "<version> <job id>" of the turn's job


def turn_job_id(game_id: str, version: int, attempt: int = 0) -> str:
    base = f"bot-{game_id}-{version}"
    return base if attempt == 0 else f"{base}-retry{attempt}"


class TurnDispatcher:
    def __init__(self, queue_connection: redis.Redis, state_connection: redis.Redis) -> None:
        self.queue = Queue(QUEUE, connection=queue_connection)
        self.redis = state_connection

    def bots_to_act(self, seats_info: list[dict], to_act: list[int]) -> list[int]:
        return [seat for seat in to_act if seats_info[seat].get("bot")]

    def after_append(
        self, game_id: str, version: int, bot_seats: list[int], waited: bool = True
    ) -> None:
        """Enqueue the turn of a bot now to act; else forget the game was waiting on one
        (when it `waited` before this append: a human's move after a human's needs nothing)."""
        if not bot_seats:
            if not waited:
                return
            pipe = self.redis.pipeline(transaction=False)
            pipe.zrem(WAITING_ON_BOTS, game_id)
            pipe.hdel(TURN_JOBS, game_id)
            pipe.execute()
            return
        self.redis.zadd(WAITING_ON_BOTS, {game_id: time.time()})
        self.enqueue_turn(game_id, version)

    def enqueue_turn(self, game_id: str, version: int, attempt: int = 0) -> None:
        job_id = turn_job_id(game_id, version, attempt)
        try:
            self.queue.enqueue(
                BOT_TURN,
                game_id,
                version,
                job_id=job_id,
                unique=True,
                retry=Retry(max=3, interval=[1, 2, 4]),
                result_ttl=600,
                failure_ttl=3600,
            )
        except DuplicateJobError:
            return
        self.redis.hset(TURN_JOBS, game_id, f"{version} {job_id}")
