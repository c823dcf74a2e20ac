"""Redis stays flat: bots play many games in real worker processes, each game is sealed
when it ends, and what is left of a finished game in Redis (its keys, and RQ's keys for
its jobs) is a small tombstone; the archives are a small fraction of the exports."""

import os

import pytest

from service import keys
from service.api import create_app
from tests.service.live import Workers, queue_idle, wait_until

GAMES = int(os.environ.get("CARDTRAIL_TEST_SEALED_GAMES", "200"))
MOST_BYTES_PER_GAME = 1024
MOST_ARCHIVE_SHARE = 0.15


@pytest.fixture
def archive_dir(tmp_path):
    return tmp_path / "archives"


@pytest.fixture
def sealing_app(redis_url, redis_client, archive_dir):
    app = create_app(
        {"REDIS_URL": redis_url, "RATE_LIMITS_ENABLED": False, "ARCHIVE": str(archive_dir)}
    )
    yield app
    app.extensions["cardtrail"].redis.close()


@pytest.fixture
def workers(redis_url, redis_client, archive_dir):
    started = Workers(redis_url, redis_client)
    started.start(CARDTRAIL_ARCHIVE=str(archive_dir))
    started.start(scheduler=False, CARDTRAIL_ARCHIVE=str(archive_dir))
    yield started
    started.close()


def memory_of(redis_client, game_id: str) -> tuple[int, list[str]]:
    """MEMORY USAGE summed over the game's own keys and every RQ key naming the game."""
    tag = keys.meta(game_id).rsplit(":", 1)[0].replace("{", "[{]").replace("}", "[}]")
    found = [k for k in redis_client.scan_iter(match=tag + "*", count=1000)]
    found += [k for k in redis_client.scan_iter(match=f"rq:*{game_id}*", count=1000)]
    return sum(redis_client.memory_usage(k, samples=0) or 0 for k in found), found


def test_finished_bot_games_cost_redis_a_tombstone_each(
    sealing_app, redis_client, workers, archive_dir
):
    client = sealing_app.test_client()
    seats = [
        [{"bot": "greedy"}, {"bot": "random"}],
        [{"bot": "strong"}, {"bot": "greedy"}, {"bot": "random"}],
    ]
    ids = []
    for n in range(GAMES):
        created = client.post(
            "/games",
            json={"seats": seats[n % 2], "options": {"game_end": "deals", "deals": 1}},
        )
        assert created.status_code == 201, created.get_json()
        ids.append(created.get_json()["id"])
    tables = sealing_app.extensions["cardtrail"].repository.tables

    def all_sealed() -> bool:
        return all(tables.tombstone(game_id) is not None for game_id in ids)

    wait_until(all_sealed, 60 + GAMES * 2, f"{GAMES} bots' games to end and be sealed")
    wait_until(lambda: queue_idle(redis_client), 30, "the queue to empty")
    exports = archives = 0
    worst = (0, [])
    for game_id in ids:
        used, found = memory_of(redis_client, game_id)
        worst = max(worst, (used, found))
        exports += len(client.get(f"/games/{game_id}/export").data)
    archives = sum(p.stat().st_size for p in archive_dir.rglob("*.zst"))
    assert len(list(archive_dir.rglob("*.zst"))) == GAMES
    assert worst[0] <= MOST_BYTES_PER_GAME, worst
    assert archives / exports <= MOST_ARCHIVE_SHARE, (archives, exports)
    game = client.get(f"/games/{ids[-1]}").get_json()
    assert game["status"] == "finished" and game["version"] > 20
