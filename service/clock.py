"""Turn clocks: table options, the turn events in the log, and the jobs that enforce them.

A clock is a table option, not a rule of any game: `move_time` (e.g. "24h", "90m",
"2s"), `on_timeout` ("bot", the default: a bot of level `timeout_bot` plays the turn;
or "forfeit") — given among a game's options and recorded in its first event.
When a seat's turn begins the log gets `turn_started` (with the time and the
deadline); a time-out is the event `turn_timed_out`. Deadlines and reminders are
RQ jobs scheduled with `enqueue_at` (so they survive every process restarting);
the reconciler re-arms any that went missing.
"""

import json
import math
import re
import time
from datetime import UTC, datetime
from typing import Any

import redis
from rq import Queue
from rq.exceptions import DuplicateJobError

from engine.errors import InvalidOptions
from service import keys

TABLE_OPTIONS = ("move_time", "on_timeout", "timeout_bot")
BOT_LEVELS = ("random", "greedy", "strong")
DEADLINE_JOB = "workers.clock.turn_deadline"
REMINDER_JOB = "workers.notify.remind"
DEADLINES = "cardtrail:clock:deadlines"  # sorted set: game id -> earliest pending deadline
REMIND_AT = 0.8  # reminders go out at 80% of the move time, as correspondence servers do
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: Any) -> int:
    """Seconds in "30s", "15m", "24h", "3d" (1 second to 30 days)."""
    match = re.fullmatch(r"(\d{1,6})([smhd])", text) if isinstance(text, str) else None
    if not match:
        raise InvalidOptions("options.move_time", 'a duration such as "2s", "15m", "24h", "3d"')
    seconds = int(match.group(1)) * _UNITS[match.group(2)]
    if not 1 <= seconds <= 30 * 86400:
        raise InvalidOptions("options.move_time", "must be between 1 second and 30 days")
    return seconds


def split_options(options: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the game's own options, the clock or None); the clock validated."""
    options = dict(options or {})
    given = {name: options.pop(name) for name in TABLE_OPTIONS if name in options}
    if not given:
        return options, None
    if "move_time" not in given:
        raise InvalidOptions("options.move_time", "on_timeout and timeout_bot need a move_time")
    clock = {
        "move_time": given["move_time"],
        "seconds": parse_duration(given["move_time"]),
        "on_timeout": given.get("on_timeout", "bot"),
        "timeout_bot": given.get("timeout_bot", "greedy"),
    }
    if clock["on_timeout"] not in ("bot", "forfeit"):
        raise InvalidOptions("options.on_timeout", 'must be "bot" or "forfeit"')
    if clock["timeout_bot"] not in BOT_LEVELS:
        raise InvalidOptions("options.timeout_bot", f"must be one of {', '.join(BOT_LEVELS)}")
    return options, clock


def turn_started(seat: int, now: float, seconds: int) -> dict[str, Any]:
    return {
        "type": "turn_started",
        "v": 1,
        "seat": seat,
        "at": round(now, 3),
        "deadline": round(now + seconds, 3),
    }


def turn_timed_out(seat: int, now: float, action: str) -> dict[str, Any]:
    return {"type": "turn_timed_out", "v": 1, "seat": seat, "at": round(now, 3), "action": action}


class Clock:
    """Arms deadline and reminder jobs, and remembers each seat's current turn."""

    def __init__(self, queue: Queue, state: redis.Redis) -> None:
        self.queue = queue
        self.redis = state

    def turns(self, game_id: str) -> dict[int, dict[str, Any]]:
        """seat -> {"version", "at", "deadline"} of the turn each seat is on, if clocked."""
        raw = self.redis.hgetall(keys.clock(game_id))
        return {int(seat): json.loads(value) for seat, value in raw.items()}

    def started(
        self,
        game_id: str,
        started: list[tuple[int, dict[str, Any]]],
        ended_seats: list[int],
        remind: set[int],
        humans: set[int],
    ) -> None:
        """Record new turns (version, event) and arm their jobs; forget finished turns."""
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
            self.arm(game_id, version, seat, event["deadline"])
            if seat in remind:
                at = event["at"] + (event["deadline"] - event["at"]) * REMIND_AT
                self._schedule(
                    at, REMINDER_JOB, game_id, version, seat, job_id=f"remind-{game_id}-{version}"
                )
        self.refresh_index(game_id)

    def arm(
        self, game_id: str, version: int, seat: int, deadline: float, job_suffix: str = ""
    ) -> None:
        self._schedule(
            deadline,
            DEADLINE_JOB,
            game_id,
            version,
            seat,
            job_id=f"deadline-{game_id}-{version}{job_suffix}",
        )

    def refresh_index(self, game_id: str) -> None:
        deadlines = [turn["deadline"] for turn in self.turns(game_id).values()]
        if deadlines:
            self.redis.zadd(DEADLINES, {game_id: min(deadlines)})
        else:
            self.redis.zrem(DEADLINES, game_id)

    def _schedule(self, at: float, func: str, *args: Any, job_id: str) -> None:
        # RQ scores scheduled jobs in whole seconds, truncating: rounding up keeps a job
        # from running before its time (a reminder before 80%, a deadline before it is due).
        when = datetime.fromtimestamp(math.ceil(at), UTC)
        try:
            if at <= time.time():
                self.queue.enqueue(func, *args, job_id=job_id, unique=True, result_ttl=600)
            else:
                self.queue.enqueue_at(when, func, *args, job_id=job_id, unique=True, result_ttl=600)
        except DuplicateJobError:
            pass
