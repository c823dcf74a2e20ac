"""Sealing on a real 3-master Redis Cluster: the scripts that seal and purge a game touch
only keys of its one slot (the purge drops the move idempotency keys its set names), so a
game played with Idempotency-Keys is sealed, leaves nothing but its table, reads back the
same, and takes no further append. Skipped where no Redis 7 is on PATH."""

import random

import pytest
from redis.cluster import RedisCluster

from service import keys
from service.api import create_app
from service.redis_server import EmbeddedRedis
from service.store import Batch, VersionConflict
from tests.scale import test_cluster
from tests.service.helpers import create_game, move, tokens, view

cluster = test_cluster.cluster  # the fixture: three masters on localhost
pytestmark = test_cluster.pytestmark


def _play_with_keys(client, game_id: str, toks: list, rng: random.Random) -> int:
    """Random legal moves to the end, each sent with an Idempotency-Key."""
    moves = 0
    while (seen := view(client, game_id))["status"] != "finished":
        turn = seen["turn"]
        command = rng.choice(view(client, game_id, toks[turn])["you"]["legal_moves"])
        answer = move(client, game_id, toks[turn], command, Idempotency_Key=f"k{moves}")
        assert answer.status_code == 200, answer.get_json()
        moves += 1
    return moves


def test_a_game_is_sealed_and_purged_on_a_cluster(cluster, tmp_path, monkeypatch):
    queue = EmbeddedRedis(tmp_path / "queue").start()  # RQ speaks no cluster
    monkeypatch.setenv("REDIS_CLUSTER", "1")
    monkeypatch.setenv("RQ_REDIS_URL", queue.url)
    app = create_app(
        {
            "REDIS_URL": cluster,
            "ALLOW_PRESET_DECK": True,
            "RATE_LIMITS_ENABLED": False,
            "ARCHIVE": str(tmp_path / "archives"),
        }
    )
    store = RedisCluster.from_url(cluster)
    try:
        client = app.test_client()
        one_deal = {"game_end": "deals", "deals": 1}
        created = create_game(client, seed="cluster seal", options=one_deal)
        game_id = created["id"]
        assert _play_with_keys(client, game_id, tokens(created), random.Random(3)) > 0
        assert store.scard(keys.idempotency_keys(game_id)) > 0
        export = client.get(f"/games/{game_id}/export").data
        cardtrail = app.extensions["cardtrail"]
        assert cardtrail.sealing.seal(game_id).result == "sealed"
        tag = keys.meta(game_id).rsplit(":", 1)[0]
        node = store.get_node_from_key(keys.meta(game_id))
        left = store.scan_iter(match=tag.replace("{", "[{]") + "*", target_nodes=node)
        assert {key.decode() for key in left} == {keys.meta(game_id)}
        cardtrail.repository.forget()
        cardtrail.repository.sealed.decoded.clear()
        assert client.get(f"/games/{game_id}/export").data == export
        fake = Batch.of(game_id, 0, "", [{"type": "game_created", "v": 1}], {"type": "create"})
        with pytest.raises(VersionConflict):
            cardtrail.repository.events.append(fake)
        assert not store.exists(keys.events(game_id))
    finally:
        store.close()
        app.extensions["cardtrail"].redis.close()
        queue.stop()
