"""Jobs leave nothing behind: a game played by bots in a real worker process costs Redis
no job key nor result for any of its moves once they ran (RQ keeps a finished job's key
and result only when asked to; ours answer nobody)."""

import pytest

from tests.service.live import Workers, queue_idle, wait_until


@pytest.fixture
def workers(redis_url, redis_client):
    started = Workers(redis_url, redis_client)
    yield started
    started.close()


def rq_keys_of(redis_client, game_id: str) -> list[str]:
    found = [key.decode() for key in redis_client.scan_iter(match="rq:*", count=1000)]
    return [key for key in found if game_id in key]


def test_an_all_bot_game_leaves_no_job_key_nor_result(client, redis_client, workers):
    workers.start()
    created = client.post(
        "/games",
        json={
            "seats": [{"bot": "greedy"}, {"bot": "random"}],
            "options": {"game_end": "deals", "deals": 1},
        },
    ).get_json()
    game_id = created["id"]

    def finished() -> bool:
        return client.get(f"/games/{game_id}").get_json()["status"] == "finished"

    wait_until(finished, 120, "the bots' game to finish")
    wait_until(lambda: queue_idle(redis_client), 30, "the queue to empty")
    version = client.get(f"/games/{game_id}").get_json()["version"]
    assert version > 20  # many bot moves were jobs
    left = rq_keys_of(redis_client, game_id)
    assert left == [], left
    # Every job key in the store now is another game's or RQ's own bookkeeping.
    assert not [k for k in redis_client.scan_iter(match="rq:results:*")]
