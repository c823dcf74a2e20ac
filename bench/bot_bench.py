"""Bot-turn benchmark: a human move to the bot's reply appended, with one real worker.

Prints, from one run: the p50/p90 of (human move appended → the bot's reply in the
stream) and of a no-op RQ job's round trip (enqueue → job ran → visible in a stream),
both observed the same way (XREAD on a stream), and their ratio (goal ≤ 3).

    python -m bench.bot_bench [--turns 60] [--json]
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis
from rq import Queue

from bench import report
from service.bootstrap import Cardtrail, build
from service.commands import CreateGame, MakeMove, SeatRequest
from service.redis_server import EmbeddedRedis
from service.scheduler import QUEUE

BASELINE_STREAM = "bench:noop"


def _start_worker(url: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", "from workers.run import run_worker; run_worker()"],
        env={**os.environ, "REDIS_URL": url},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _noop_round_trips(client: redis.Redis, count: int) -> list[float]:
    queue = Queue(QUEUE, connection=client)
    times = []
    for _ in range(count):
        last = (
            client.xinfo_stream(BASELINE_STREAM)["last-generated-id"]
            if client.exists(BASELINE_STREAM)
            else "0-0"
        )
        started = time.perf_counter()
        queue.enqueue("bench.jobs.noop", BASELINE_STREAM, result_ttl=0)
        client.xread({BASELINE_STREAM: last}, count=1, block=10_000)
        times.append(time.perf_counter() - started)
    return times


def _bot_replies(app: Cardtrail, client: redis.Redis, count: int) -> list[float]:
    """Ann plays draw + discard; time from her discard's append to the bot's first move."""
    times: list[float] = []
    while len(times) < count:
        created = app.handlers.create(
            CreateGame(
                game="rummy",
                preset="pagat",
                options={"game_end": "deals", "deals": 1, "first_dealer": 1},
                seats=[SeatRequest(name="ann"), SeatRequest(bot="greedy")],
            )
        )
        game_id = created["id"]
        while len(times) < count:
            loaded = app.repository.load(game_id)
            game = loaded.game
            if game.is_finished(loaded.state) or 0 not in game.to_act(loaded.state):
                if game.is_finished(loaded.state):
                    break
                app.repository.events.wait(game_id, loaded.version, 5)
                continue
            moves = game.legal_moves(loaded.state, 0)
            if loaded.state.hand.phase == "draw":
                app.handlers.act(MakeMove(game_id, 0, {"type": "draw", "source": "stock"}))
                continue
            discard = next(m for m in moves if m["type"] == "discard")
            started = time.perf_counter()
            answer = app.handlers.act(MakeMove(game_id, 0, discard))
            if any(e["type"] in ("hand_ended", "game_ended") for e in answer["events"]):
                break
            app.repository.events.wait(game_id, answer["version"], 10)
            times.append(time.perf_counter() - started)
    return times


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(turns: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        url = os.environ.get("REDIS_URL")
        embedded = None
        if not url:
            embedded = EmbeddedRedis(Path(tmp) / "redis").start()
            url = embedded.url
        client = redis.Redis.from_url(url)
        worker = _start_worker(url)
        try:
            _noop_round_trips(client, 5)  # warm-up: the worker is up and imported
            app = build(client)
            _bot_replies(app, client, 3)
            noop = _noop_round_trips(client, turns)
            bot = _bot_replies(app, client, turns)
        finally:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(10)
            if embedded:
                embedded.stop()
    return {
        "bot_reply_p50_ms": round(statistics.median(bot) * 1000, 2),
        "bot_reply_p90_ms": round(_pct(bot, 0.9) * 1000, 2),
        "noop_job_p50_ms": round(statistics.median(noop) * 1000, 2),
        "noop_job_p90_ms": round(_pct(noop, 0.9) * 1000, 2),
        "bot_over_noop_p50": round(statistics.median(bot) / statistics.median(noop), 2),
        "turns": turns,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report(run(args.turns), args.json)


if __name__ == "__main__":
    main()
