"""Snapshots are only a cache: deleting every one of them changes no answer, and one
that does not check out (made up, edited, copied, another secret's, a pickle that would
run code) is ignored: every answer stays what the log says, and nothing in it runs."""

import dataclasses
import hashlib
import hmac
import json
import os
import pickle
import random
import shlex

import pytest

from engine import games, table
from engine.ledger import canonical_json
from engine.simulation.random_play import play_random_game
from service import keys
from service.api import create_app
from service.repository import SNAPSHOT_EVERY
from service.signing import KEY_FILE_ENV, load_or_create
from service.snapshots import Snapshot, SnapshotStore
from service.store import EventStore
from tests.service.helpers import auth, create_game, play_random_move, tokens

MOVES = 80
CUTS = 12  # states snapshot per random game, spread over it
# Every app of the session holds the session's signing key (tests/service/conftest.py), as
# a deployment's processes do, so each derives the one snapshot secret and reads the
# snapshots another wrote; an app with a key of its own would ignore them.


def snapshot_secret() -> bytes:
    return load_or_create(os.environ[KEY_FILE_ENV]).secret("snapshots")


@pytest.fixture
def reads(monkeypatch):
    """What each load made of the stored snapshot: a Snapshot it started from, or None
    (it folded the log from the start)."""
    outcomes = []
    decode = SnapshotStore.decode

    def recorded(self, game_id, data, game):
        outcome = decode(self, game_id, data, game)
        outcomes.append(outcome)
        return outcome

    monkeypatch.setattr(SnapshotStore, "decode", recorded)
    return outcomes


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
    config = {"REDIS_URL": redis_url, "ALLOW_PRESET_DECK": True, "RATE_LIMITS_ENABLED": False}
    app = create_app(config)
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

    assert SnapshotStore(redis_client, snapshot_secret()).delete_all() == 2
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


# -- every game's states read back exactly ------------------------------------------


def _fewest_seats(game, preset):
    for players in range(2, 9):
        try:
            game.resolve_options(preset, None, players)
        except Exception:
            continue
        return players
    raise AssertionError(f"{game.name}: preset {preset} takes no seat count")


def _mid_hand_cuts(game, events):
    """About CUTS places spread over the log, each moved on to a state with a hand in play."""
    cuts, state, step = [], None, max(1, len(events) // CUTS)
    for index, event in enumerate(events, start=1):
        state = table.evolve(game, state, event)
        due = index >= step * (len(cuts) + 1)
        if due and state.hand is not None and state.status == "playing":
            cuts.append((index, state))
    return cuts


def same(a, b):
    """Equal, and of the same types all the way down (`==` takes True for 1 and a list
    for a tuple's equal only if both are lists); the order of a dict's keys aside."""
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    return a == b


@pytest.mark.parametrize("name", games.names())
def test_every_games_snapshot_reads_back_equal_and_folds_on_identically(name, redis_client):
    game = games.get(name)
    store = SnapshotStore(redis_client, snapshot_secret())
    for preset in game.presets[:3]:
        players = _fewest_seats(game, preset)
        final, played = play_random_game(name, players, f"snapshots:{preset}", preset)
        events = json.loads(canonical_json(played))  # as the log keeps them
        assert table.fold(game, events) == final
        cuts = _mid_hand_cuts(game, events)
        assert len(cuts) >= min(CUTS // 2, len(events) // 40), (preset, len(cuts))
        game_id = f"{name}-{preset}"
        for version, state in cuts:
            last_hash = hashlib.sha256(str(version).encode()).hexdigest()
            store.save(game_id, game, Snapshot(version, state, last_hash))
            read = store.decode(game_id, redis_client.hgetall(keys.snapshot(game_id)), game)
            assert read == Snapshot(version, state, last_hash), (preset, version)
            assert read.state is not state and same(read.state, state), (preset, version)
            assert table.fold(game, events[version:], read.state) == final
            for seat in (None, *range(players)):
                assert game.view(read.state, seat) == game.view(state, seat)


# -- a snapshot that does not check out is ignored ------------------------------------


class RunsCode:
    """Unpickled, it runs a shell command that creates `path`."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {shlex.quote(str(self.path))}",))


def signed(fields, game_id, secret=None):
    """`fields` with the MAC a holder of `secret` (by default the servers') would give them
    (the stored format)."""
    secret = snapshot_secret() if secret is None else secret
    claims = {
        "game": game_id,
        "version": int(fields[b"version"]),
        "rules_version": fields[b"rules_version"].decode(),
        "hash": fields[b"hash"].decode(),
        "state": fields[b"state"].decode(),
    }
    message = canonical_json(claims).encode()
    return {**fields, b"mac": hmac.new(secret, message, hashlib.sha256).hexdigest().encode()}


def edited(fields, change):
    """`fields` with the state JSON changed by `change` (the MAC left as it was)."""
    state = json.loads(fields[b"state"])
    change(state)
    return {**fields, b"state": canonical_json(state).encode()}


def _swap_a_card(state):
    hands = state["hand"]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]


def _players_as_text(state):
    state["players"] = str(state["players"])


def _hands_played_as_true(state):
    state["hands_played"] = True


def _unknown_field(state):
    state["__class__"] = "os.system"


def tamperings(fields, game_id, other_fields, marker):
    """Name -> the snapshot's hash fields after someone who can write Redis (but does
    not hold the secret, unless said) has been at them."""
    pickled = pickle.dumps(RunsCode(marker), protocol=pickle.HIGHEST_PROTOCOL)
    ascii_pickle = pickle.dumps(RunsCode(marker), protocol=0)  # valid UTF-8: reaches the JSON
    old_format = {name: fields[name] for name in (b"version", b"rules_version", b"hash")}
    version = int(fields[b"version"])
    return {
        "a pickle as the state": {**fields, b"state": pickled},
        "a pickle in the old format": {**old_format, b"state": pickled},
        "a pickle signed with the secret": signed({**fields, b"state": ascii_pickle}, game_id),
        "garbage bytes": {name: bytes(range(256))[::-1] for name in fields},
        "garbage state": {**fields, b"state": b"\x80\xff{not json"},
        "no mac": {name: value for name, value in fields.items() if name != b"mac"},
        "no hash": {name: value for name, value in fields.items() if name != b"hash"},
        "a wrong field type": edited(fields, _players_as_text),
        "a wrong field type, signed": signed(edited(fields, _players_as_text), game_id),
        "true for an int, signed": signed(edited(fields, _hands_played_as_true), game_id),
        "an unknown field, signed": signed(edited(fields, _unknown_field), game_id),
        "JSON nested too deeply, signed": signed({**fields, b"state": b"[" * 100_000}, game_id),
        "other rules": {**fields, b"rules_version": b"rummy-0"},
        "other rules, signed": signed({**fields, b"rules_version": b"rummy-0"}, game_id),
        "one card changed": edited(fields, _swap_a_card),
        "an earlier version": {**fields, b"version": str(version - 1).encode()},
        "another secret's": signed(fields, game_id, secret=b"another deployment"),
        "another game's": other_fields,
        "another game's, as this game's version": {**other_fields, b"version": fields[b"version"]},
    }


def _with_snapshot(client, redis_client, seed, **options):
    created = create_game(client, seed=seed, **options)
    game_id, toks = created["id"], tokens(created)
    play(client, game_id, toks, random.Random(seed), SNAPSHOT_EVERY + 5)
    fields = redis_client.hgetall(keys.snapshot(game_id))
    assert set(fields) == {b"version", b"rules_version", b"hash", b"state", b"mac"}
    return game_id, toks, fields


def test_a_snapshot_that_does_not_check_out_is_ignored_and_runs_nothing(
    app, client, redis_url, redis_client, reads, tmp_path
):
    game_id, toks, fields = _with_snapshot(
        client, redis_client, "tampered", names=("ann", "bob", "cid")
    )
    _, _, other_fields = _with_snapshot(
        client, redis_client, "another", names=("ann", "bob", "cid", "dee"), game="spades"
    )
    assert signed(fields, game_id) == fields  # the tests sign as the store does
    proof, marker = tmp_path / "the payload runs", tmp_path / "ran"
    pickle.loads(pickle.dumps(RunsCode(proof)))
    assert proof.exists()  # the payload is live: unpickling it would have run code

    before = seen_cold(redis_url, game_id, toks)
    assert reads and isinstance(reads[-1], Snapshot)  # the snapshot was used
    assert before == everything_seen(app, game_id, toks)
    key = keys.snapshot(game_id)
    for name, tampered in tamperings(fields, game_id, other_fields, marker).items():
        redis_client.delete(key)
        redis_client.hset(key, mapping=tampered)
        del reads[:]
        try:
            after = seen_cold(redis_url, game_id, toks)
        finally:
            assert not marker.exists(), f"{name}: reading the snapshot ran code"
        assert after == before, name
        assert reads == [None], name  # ignored: the state was folded from the log
    assert everything_seen(app, game_id, toks) == before
    # The load that ignored it wrote a good snapshot in its place.
    del reads[:]
    assert seen_cold(redis_url, game_id, toks) == before
    assert len(reads) == 1 and isinstance(reads[0], Snapshot)


def test_decoding_never_raises_whatever_the_hash_holds(redis_client):
    game = games.get(games.DEFAULT_GAME)
    store = SnapshotStore(redis_client, snapshot_secret())
    fields = {b"version": b"1", b"rules_version": game.rules_version.encode(), b"hash": b"0"}
    junk = [
        {},
        {b"state": b"{}"},
        {**fields, b"state": b"{}", b"mac": "é".encode()},
        {**fields, b"version": b"\xff", b"state": b"{}", b"mac": b"00"},
        {**fields, b"version": "١".encode(), b"state": b"{}", b"mac": b"00"},
        {**fields, b"version": b"-1", b"state": b"{}", b"mac": b"00"},
        signed({**fields, b"state": b"null"}, "g"),
        signed({**fields, b"state": b"NaN"}, "g"),
        signed({**fields, b"state": b'{"players": 1e999}'}, "g"),
        signed({**fields, b"state": b"{" * 50_000}, "g"),
    ]
    for data in junk:
        assert store.decode("g", data, game) is None, data
