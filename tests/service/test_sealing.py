"""Sealing a finished game: its log leaves Redis for the archive store, and nothing a
caller reads changes; a job killed after any step, run again, leaves one verified archive;
a damaged archive is found and reported, never served; a game in play is never sealed."""

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service import keys
from service.api import create_app
from service.archive_pg import TABLE
from service.archives import DirectoryStore, digest_of
from service.sealing import KILL_AFTER_ENV, STEPS
from tests.service.helpers import create_game, play_random_move, play_to_the_end, tokens
from tests.service.test_archive_stores import PG_URL, _postgres_absent, _sql


class Store:
    """One archive store the tests seal into: its setting, and a look at its objects."""

    def __init__(self, kind: str, spec: str) -> None:
        self.kind, self.spec = kind, spec
        self.sealed: list[str] = []

    def objects(self, game_id: str) -> list[bytes]:
        if self.kind == "directory":
            return [p.read_bytes() for p in Path(self.spec).rglob("*") if p.is_file()]
        found = _sql(f"SELECT data FROM {TABLE} WHERE game = %s", (game_id,))
        return [bytes(row[0]) for row in found]

    def damage(self, game_id: str, location: str) -> None:
        if self.kind == "directory":
            path = DirectoryStore(self.spec)._path(location)
            blob = bytearray(path.read_bytes())
            blob[len(blob) // 2] ^= 0x01
            path.write_bytes(bytes(blob))
            return
        flip = f"UPDATE {TABLE} SET data = set_byte(data, length(data) / 2,"
        flip += " get_byte(data, length(data) / 2) # 1) WHERE game = %s"
        _sql(flip, (game_id,))

    def lose(self, game_id: str, location: str) -> None:
        if self.kind == "directory":
            DirectoryStore(self.spec)._path(location).unlink()
        else:
            _sql(f"DELETE FROM {TABLE} WHERE game = %s", (game_id,))


@pytest.fixture(params=["directory", "postgresql"])
def archive(request, tmp_path):
    if request.param == "postgresql":
        if (absent := _postgres_absent()) is not None:
            pytest.skip(absent)
        store = Store("postgresql", PG_URL)
    else:
        store = Store("directory", str(tmp_path / "archives"))
    yield store
    if store.kind == "postgresql" and store.sealed:
        _sql(f"DELETE FROM {TABLE} WHERE game = ANY(%s)", (store.sealed,))


@pytest.fixture
def sealing_app(redis_url, redis_client, archive):
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "ALLOW_PRESET_DECK": True,
            "RATE_LIMITS_ENABLED": False,
            "ARCHIVE": archive.spec,
        }
    )
    app.config["TEST_ARCHIVE"] = archive
    yield app
    app.extensions["cardtrail"].redis.close()


def finished_game(client, seed: str = "sealing", deals: int = 2) -> tuple[str, list]:
    created = create_game(client, seed=seed, options={"game_end": "deals", "deals": deals})
    toks = tokens(created)
    play_to_the_end(client, created["id"], toks, random.Random(seed))
    return created["id"], toks


def answers(client, game_id: str, toks: list) -> dict:
    """Every read of a finished game, as bytes: views per seat and for a spectator,
    events, hands, every replay step, the export and the audit."""
    found = {}

    def get(path, token=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = client.get(path, headers=headers)
        assert response.status_code == 200, (path, response.get_json())
        found[(path, token)] = response.data
        return response

    for token in [None, *toks]:
        get(f"/games/{game_id}", token)
        get(f"/games/{game_id}/events?after=0", token)
        get(f"/games/{game_id}/events?after=7", token)
    hands = get(f"/games/{game_id}/hands").get_json()
    for hand in hands["hands"]:
        get(f"/games/{game_id}/hands/{hand['number']}/replay")
        for step in range(hand["steps"] + 1):
            get(f"/games/{game_id}/hands/{hand['number']}/replay?step={step}")
    get(f"/games/{game_id}/export")
    get(f"/games/{game_id}/audit")
    receipts = [client.get(f"/games/{game_id}").get_json()["receipt"]]
    audit = client.post(f"/games/{game_id}/audit", json={"receipts": receipts})
    assert audit.status_code == 200, audit.get_json()
    found["audit with receipts"] = audit.data
    return found


def seal(app, game_id: str):
    app.config["TEST_ARCHIVE"].sealed.append(game_id)
    return app.extensions["cardtrail"].sealing.seal(game_id)


def hot_keys(redis_client, game_id: str) -> set[str]:
    tag = keys.meta(game_id).rsplit(":", 1)[0]
    return {key.decode() for key in redis_client.scan_iter(match=tag.replace("{", "[{]") + "*")}


def ended_game(app, client, kind: str) -> tuple[str, list]:
    """A game that ended as `kind`: Rummy or Spades played to the end, a resignation, a
    table nobody filled (abandoned)."""
    if kind == "rummy":
        return finished_game(client)
    if kind == "spades":
        seats = [{"name": name} for name in ("ann", "bob", "cy", "dee")]
        created = create_game(
            client, seed="sealed spades", seats=seats, game="spades", preset="pairs",
            options={"max_hands": 1},
        )  # fmt: skip
        toks = tokens(created)
        play_to_the_end(client, created["id"], toks, random.Random(2))
        return created["id"], toks
    if kind == "forfeit":
        created = create_game(client, seed="resigned")
        toks = tokens(created)
        play_random_move(client, created["id"], toks, random.Random(3))
        resign = client.post(
            f"/games/{created['id']}/moves",
            json={"type": "forfeit"},
            headers={"Authorization": f"Bearer {toks[1]}"},
        )
        assert resign.status_code == 200, resign.get_json()
        return created["id"], toks
    created = create_game(client, seed="abandoned", seats=[{"name": "ann"}, {"open": True}])
    assert app.extensions["cardtrail"].handlers.abandon(created["id"], time.time()) == 3
    return created["id"], [tokens(created)[0]]


@pytest.mark.parametrize("kind", ["rummy", "spades", "forfeit", "abandoned"])
def test_every_answer_is_the_same_before_and_after_sealing(sealing_app, redis_client, kind):
    client = sealing_app.test_client()
    game_id, toks = ended_game(sealing_app, client, kind)
    before = answers(client, game_id, toks)
    outcome = seal(sealing_app, game_id)
    assert outcome.result == "sealed" and outcome.archive_bytes > 0
    assert hot_keys(redis_client, game_id) == {keys.meta(game_id)}  # the tombstone only
    sealing_app.extensions["cardtrail"].repository.forget()
    sealing_app.extensions["cardtrail"].repository.sealed.decoded.clear()
    after = answers(client, game_id, toks)
    assert after.keys() == before.keys()
    for key in before:
        assert after[key] == before[key], key
    assert seal(sealing_app, game_id).result == "already_sealed"


def test_a_game_in_play_or_waiting_is_never_sealed(sealing_app, redis_client):
    client = sealing_app.test_client()
    created = create_game(client, seed="in play")
    play_random_move(client, created["id"], tokens(created), random.Random(1))
    waiting = create_game(client, seed="waiting", seats=[{"name": "ann"}, {"open": True}])
    for game_id in (created["id"], waiting["id"]):
        assert seal(sealing_app, game_id).result == "not_ended"
        assert redis_client.exists(keys.events(game_id))
        assert sealing_app.extensions["cardtrail"].repository.tables.tombstone(game_id) is None


def test_a_move_after_sealing_is_refused_as_game_over(sealing_app):
    client = sealing_app.test_client()
    game_id, toks = finished_game(client, seed="after", deals=1)
    seal(sealing_app, game_id)
    response = client.post(
        f"/games/{game_id}/moves",
        json={"type": "draw", "source": "stock"},
        headers={"Authorization": f"Bearer {toks[0]}"},
    )
    assert response.status_code == 409, response.get_json()
    assert response.get_json()["code"] == "game_over"


def _seal_in_a_process(redis_url: str, archive, game_id: str, kill_after: str | None):
    archive.sealed.append(game_id)
    env = {**os.environ, "REDIS_URL": redis_url, "CARDTRAIL_ARCHIVE": archive.spec}
    env.pop(KILL_AFTER_ENV, None)
    if kill_after:
        env[KILL_AFTER_ENV] = kill_after
    code = f"from workers.sealing import seal_game; print(seal_game({game_id!r}))"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("step", STEPS)
def test_a_sealing_killed_after_any_step_then_run_again_leaves_one_verified_archive(
    sealing_app, redis_client, redis_url, archive, step
):
    client = sealing_app.test_client()
    game_id, toks = finished_game(client, seed=f"killed {step}", deals=1)
    before = answers(client, game_id, toks)
    events_before = client.get(f"/games/{game_id}/export").data
    killed = _seal_in_a_process(redis_url, archive, game_id, step)
    assert killed.returncode == -9, (killed.stdout, killed.stderr)
    again = _seal_in_a_process(redis_url, archive, game_id, None)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() in ("sealed", "already_sealed")
    objects = archive.objects(game_id)
    assert len(objects) == 1, len(objects)  # one archive, no temporary file left
    tombstone = sealing_app.extensions["cardtrail"].repository.tables.tombstone(game_id)
    assert tombstone is not None and digest_of(objects[0]) == tombstone.digest
    assert hot_keys(redis_client, game_id) == {keys.meta(game_id)}
    sealing_app.extensions["cardtrail"].repository.forget()
    assert client.get(f"/games/{game_id}/export").data == events_before  # no event lost
    assert answers(client, game_id, toks) == before


def test_a_damaged_archive_is_reported_and_never_served(sealing_app, archive):
    client = sealing_app.test_client()
    game_id, toks = finished_game(client, seed="damaged", deals=1)
    seal(sealing_app, game_id)
    cardtrail = sealing_app.extensions["cardtrail"]
    tombstone = cardtrail.repository.tables.tombstone(game_id)
    archive.damage(game_id, tombstone.location)
    cardtrail.repository.forget()
    cardtrail.repository.sealed.decoded.clear()
    for path_ in (f"/games/{game_id}", f"/games/{game_id}/export", f"/games/{game_id}/hands"):
        response = client.get(path_, headers={"Authorization": f"Bearer {toks[0]}"})
        assert response.status_code == 503, (path_, response.status_code)
        body = response.get_json()
        assert body["code"] == "archive_corrupt"
        assert "cards" not in response.get_data(as_text=True)
    archive.lose(game_id, tombstone.location)
    cardtrail.repository.sealed.decoded.clear()
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 503 and response.get_json()["code"] == "archive_missing"


def test_followers_of_a_sealed_game_get_its_events_at_once(sealing_app):
    client = sealing_app.test_client()
    game_id, toks = finished_game(client, seed="followed", deals=1)
    seal(sealing_app, game_id)
    started = time.monotonic()
    polled = client.get(f"/games/{game_id}/events?after=3&wait=5").get_json()
    assert time.monotonic() - started < 3 and polled["events"][0]["version"] == 4
    stream = client.get(f"/games/{game_id}/stream", headers={"Last-Event-ID": "3"})
    text = stream.get_data(as_text=True)
    assert "id: 4\n" in text and "event: game_ended" in text


def test_players_see_their_sealed_games_as_before(sealing_app):
    from tests.service.accounts import account, bare

    ann, bob = account(sealing_app, "ann"), account(sealing_app, "bob")
    client = bare(sealing_app)
    created = client.post(
        "/games",
        json={
            "seats": [{"me": True}, {"player": bob.name}],
            "options": {"game_end": "deals", "deals": 1},
        },
        headers=ann.headers,
    )
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    joined = client.post(f"/games/{game_id}/join", json={}, headers=bob.headers)
    assert joined.status_code == 201, joined.get_json()
    toks = [ann.token, bob.token]
    play_to_the_end(client, game_id, toks, random.Random(4))

    def seen() -> list[bytes]:
        return [
            client.get(path, headers=who.headers).data
            for who in (ann, bob)
            for path in ("/players/me/games?status=finished", f"/games/{game_id}")
        ]

    before = seen()
    seal(sealing_app, game_id)
    sealing_app.extensions["cardtrail"].repository.forget()
    assert seen() == before


def test_a_game_whose_seal_job_was_lost_is_sealed_by_the_reconciler(
    sealing_app, redis_client, redis_url, archive, monkeypatch
):
    from rq import Queue

    from service.scheduler import NOTIFY_QUEUE
    from workers import connection, reconcile, sealing

    client = sealing_app.test_client()
    game_id, _ = finished_game(client, seed="lost job", deals=1)
    queue = Queue(NOTIFY_QUEUE, connection=redis_client)
    assert keys.seal_job(game_id) in queue.job_ids  # the reaction asked for it at once
    queue.empty()  # and it was lost: a crash, or its retries ran out while the store was down
    assert redis_client.zscore(keys.SEALS_DUE, game_id) is not None
    redis_client.zadd(keys.SEALS_DUE, {game_id: time.time() - 600})  # ended ten minutes ago
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("CARDTRAIL_ARCHIVE", archive.spec)
    archive.sealed.append(game_id)
    connection.cardtrail.cache_clear()
    try:
        redis_client.delete(keys.RECONCILE_LOCK)
        assert reconcile.reconcile() >= 1
        [retry] = queue.job_ids
        assert retry.startswith(keys.seal_job(game_id) + "-retry")
        assert sealing.seal_game(game_id) == "sealed"
    finally:
        connection.cardtrail.cache_clear()
    assert redis_client.zscore(keys.SEALS_DUE, game_id) is None
    assert hot_keys(redis_client, game_id) == {keys.meta(game_id)}


def test_a_sealed_game_keeps_no_snapshot_written_late(sealing_app, redis_client):
    client = sealing_app.test_client()
    game_id, _ = finished_game(client, seed="late snapshot", deals=1)
    repository = sealing_app.extensions["cardtrail"].repository
    loaded = repository.load(game_id)
    seal(sealing_app, game_id)
    from service.snapshots import Snapshot

    late = Snapshot(loaded.version, loaded.state, loaded.last_hash)
    repository.snapshots.save(game_id, loaded.game, late)  # a load that began before the purge
    assert not redis_client.exists(keys.snapshot(game_id))


def test_archiving_another_servers_games_needs_its_own_store(redis_url, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CARDTRAIL_ARCHIVE"}
    done = subprocess.run(
        [sys.executable, "-m", "cardtrail.cli", "archive", "--all-finished",
         "--data-dir", str(tmp_path)],
        env={**env, "REDIS_URL": redis_url}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "CARDTRAIL_ARCHIVE" in done.stderr
    assert not (tmp_path / "archives").exists()
