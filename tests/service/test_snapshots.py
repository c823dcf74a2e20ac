"""Snapshots are only a cache: deleting every one of them changes no answer."""

import random

from service import keys
from service.api import create_app
from service.repository import SNAPSHOT_EVERY
from service.snapshots import SnapshotStore
from service.store import EventStore
from tests.service.helpers import auth, create_game, play_random_move, tokens

MOVES = 80


def everything_seen(app, game_id, toks):
    """Every seat's and a spectator's view and event feed, from a given app."""
    client = app.test_client()
    seen = {}
    for token in [*toks, None]:
        for path in (f"/games/{game_id}", f"/games/{game_id}/events?after=0"):
            response = client.get(path, headers=auth(token))
            assert response.status_code == 200
            seen[(token, path)] = response.get_json()
    return seen


def seen_cold(redis_url, game_id, toks):
    """What a new process (no in-memory state cache) answers."""
    app = create_app({"REDIS_URL": redis_url, "ALLOW_PRESET_DECK": True})
    try:
        return everything_seen(app, game_id, toks)
    finally:
        app.extensions["cardtrail"].redis.close()


def play(client, game_id, toks, rng, moves):
    for _ in range(moves):
        play_random_move(client, game_id, toks, rng)


def test_deleting_all_snapshots_changes_no_view(app, client, redis_url, redis_client):
    created = create_game(client, seed="snapshots", names=("ann", "bob", "cid"))
    game_id, toks = created["id"], tokens(created)
    # a second game, so that delete_snapshots has more than one to find
    other = create_game(client, seed="snapshots 2")
    store = EventStore(redis_client)
    rng = random.Random(5)

    play(client, game_id, toks, rng, MOVES)
    play(client, other["id"], tokens(other), rng, SNAPSHOT_EVERY)
    assert store.version(game_id) > 2 * SNAPSHOT_EVERY
    # Snapshots are written as the game grows: never more than SNAPSHOT_EVERY behind.
    snapshot_version = int(redis_client.hget(keys.snapshot(game_id), "version"))
    assert 0 <= store.version(game_id) - snapshot_version < SNAPSHOT_EVERY + 3
    # A process that has not seen the game reads the snapshot and the events since.
    cold = seen_cold(redis_url, game_id, toks)
    seen_cold(redis_url, other["id"], tokens(other))
    assert cold == everything_seen(app, game_id, toks)  # the app that played: its memory

    # More moves, so that loading means: the snapshot, plus the events since it.
    play(client, game_id, toks, rng, 10)
    version = store.version(game_id)
    assert version > snapshot_version
    warm = everything_seen(app, game_id, toks)
    from_snapshot = seen_cold(redis_url, game_id, toks)
    assert from_snapshot == warm
    assert from_snapshot[(None, f"/games/{game_id}")]["version"] == version

    assert SnapshotStore(redis_client).delete_all() == 2
    assert not redis_client.exists(keys.snapshot(game_id))
    assert not redis_client.exists(keys.snapshot(other["id"]))

    from_scratch = seen_cold(redis_url, game_id, toks)
    assert from_scratch == from_snapshot
    assert everything_seen(app, game_id, toks) == from_snapshot
    assert store.version(game_id) == version  # reading appended nothing


def test_a_snapshot_of_other_rules_is_ignored(client, redis_url, redis_client):
    created = create_game(client, seed="stale rules")
    game_id, toks = created["id"], tokens(created)
    rng = random.Random(2)
    for _ in range(SNAPSHOT_EVERY + 5):
        play_random_move(client, game_id, toks, rng)
    before = seen_cold(redis_url, game_id, toks)
    assert redis_client.exists(keys.snapshot(game_id))
    # A snapshot written by other rules (a garbage state) must not be used.
    redis_client.hset(
        keys.snapshot(game_id), mapping={"rules_version": "rummy-0", "state": b"garbage"}
    )
    assert seen_cold(redis_url, game_id, toks) == before
