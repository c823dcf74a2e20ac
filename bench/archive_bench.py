"""Sealing benchmarks, in-process against a real (embedded) Redis and a directory store.

* Redis bytes per finished game before and after sealing (MEMORY USAGE over its keys);
* archive bytes ÷ the raw JSON of its events (and ÷ its export, JSON Lines);
* sealing throughput, games/s (write, read back, verify, record, drop);
* a replay step of a sealed game ÷ the same step while the game was in Redis: warm (the
  hand's states already folded, as when someone steps through it; goal ≤ 2) and cold
  (every cache dropped first: read the whole log and fold the hand).

  python -m bench.archive_bench [--json]
"""

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench import report
from bench.service_bench import _finished_game
from service import keys
from service.api import create_app
from service.redis_server import EmbeddedRedis


def _memory(client, game_id: str) -> int:
    tag = keys.meta(game_id).rsplit(":", 1)[0].replace("{", "[{]").replace("}", "[}]")
    return sum(
        client.memory_usage(key, samples=0) or 0 for key in client.scan_iter(match=tag + "*")
    )


def _step_times(http, app, game_id: str, rounds: int, cold: bool) -> float:
    """The median time of a replay step of a random hand at a random step."""
    hands = http.get(f"/games/{game_id}/hands").get_json()["hands"]
    rng = random.Random(11)
    times = []
    for _ in range(rounds):
        hand = rng.choice(hands)
        step = rng.randrange(hand["steps"] + 1)
        if cold:
            _drop_caches(app)
        started = time.perf_counter()
        http.get(f"/games/{game_id}/hands/{hand['number']}/replay?step={step}")
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _drop_caches(app) -> None:
    cardtrail = app.extensions["cardtrail"]
    cardtrail.repository.forget()
    cardtrail.repository.sealed.decoded.clear()
    cardtrail.history._logs.clear()
    cardtrail.history._hand_states._hands.clear()


def run(games: int = 8, deals: int = 3) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        url = os.environ.get("REDIS_URL")
        embedded = None
        if not url:
            embedded = EmbeddedRedis(Path(tmp) / "redis").start()
            url = embedded.url
        try:
            return _measure(url, Path(tmp) / "archives", games, deals)
        finally:
            if embedded:
                embedded.stop()


def _measure(url: str, archive: Path, games: int, deals: int) -> dict:
    app = create_app({"REDIS_URL": url, "RATE_LIMITS_ENABLED": False, "ARCHIVE": str(archive)})
    http = app.test_client()
    cardtrail = app.extensions["cardtrail"]
    redis = cardtrail.redis
    ids = [_finished_game(http, deals) for _ in range(games)]
    before = [_memory(redis, game_id) for game_id in ids]
    raw = sum(
        len(line) for game_id in ids for _, line in cardtrail.repository.events.read_raw(game_id)
    )
    exports = sum(len(http.get(f"/games/{game_id}/export").data) for game_id in ids)
    warm_redis = statistics.median(_step_times(http, app, i, 100, False) for i in ids[:3])
    cold_redis = statistics.median(_step_times(http, app, i, 10, True) for i in ids[:3])
    started = time.perf_counter()
    archived = sum(cardtrail.sealing.seal(game_id).archive_bytes for game_id in ids)
    sealing_s = time.perf_counter() - started
    after = [_memory(redis, game_id) for game_id in ids]
    _drop_caches(app)
    warm_archive = statistics.median(_step_times(http, app, i, 100, False) for i in ids[:3])
    cold_archive = statistics.median(_step_times(http, app, i, 10, True) for i in ids[:3])
    events = sum(cardtrail.repository.events.version(game_id) for game_id in ids)
    return {
        "sealed_games": games,
        "events_per_sealed_game": round(events / games),
        "redis_bytes_per_game_before": round(statistics.mean(before)),
        "redis_bytes_per_game_after": round(statistics.mean(after)),
        "redis_bytes_after_max": max(after),
        "archive_bytes_per_game": round(archived / games),
        "archive_over_raw_json": round(archived / raw, 3),
        "archive_over_export": round(archived / exports, 3),
        "sealing_games_per_s": round(games / sealing_s, 1),
        "replay_step_ms_redis": round(warm_redis * 1000, 3),
        "replay_step_ms_archive": round(warm_archive * 1000, 3),
        "replay_archive_over_redis": round(warm_archive / warm_redis, 3),
        "replay_cold_ms_redis": round(cold_redis * 1000, 3),
        "replay_cold_ms_archive": round(cold_archive * 1000, 3),
        "replay_cold_archive_over_redis": round(cold_archive / cold_redis, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report(run(), args.json)


if __name__ == "__main__":
    main()
