"""Sealed games under attack: a tombstone edited to point at another game's archive or
outside the store, an archive forged to name this game, a decompression bomb, a
malformed entry, and appends to a game whose tombstone is recorded. Each is refused
(503 archive_corrupt / archive_missing, or a version conflict), never served as the game;
a game that has not ended is never sealed, whatever the status index says."""

import json
import random
import tracemalloc

import pytest
import zstandard

from engine.ledger import chain_start
from service import keys
from service.api import create_app
from service.archive_pg import TABLE
from service.archives import MOST_OBJECT, MOST_TEXT, ArchiveCorrupt, decode, digest_of
from service.sealed_logs import Decoded
from service.sealing import seal_all_finished
from service.store import Batch, VersionConflict
from service.table_records import Tombstone
from tests.service import test_sealing
from tests.service.helpers import create_game, play_random_move, tokens
from tests.service.test_archive_stores import _archive, _sql
from tests.service.test_sealing import finished_game, seal

archive, sealing_app = test_sealing.archive, test_sealing.sealing_app  # the same stores


def _forget(app) -> None:
    cardtrail = app.extensions["cardtrail"]
    cardtrail.repository.forget()
    cardtrail.repository.sealed.decoded.clear()


def _sealed_pair(app) -> tuple[str, list, str]:
    client = app.test_client()
    mine, toks = finished_game(client, seed="mine", deals=1)
    theirs, _ = finished_game(client, seed="theirs", deals=1)
    seal(app, mine)
    seal(app, theirs)
    _forget(app)
    return mine, toks, theirs


def test_a_tombstone_pointing_at_another_games_archive_is_refused(sealing_app, redis_client):
    mine, toks, theirs = _sealed_pair(sealing_app)
    client = sealing_app.test_client()
    honest = client.get(f"/games/{theirs}").data
    theirs_fields = redis_client.hmget(keys.meta(theirs), ["archive:location", "archive:digest"])
    redis_client.hset(
        keys.meta(mine),
        mapping={"archive:location": theirs_fields[0], "archive:digest": theirs_fields[1]},
    )
    _forget(sealing_app)
    for path in (f"/games/{mine}", f"/games/{mine}/export", f"/games/{mine}/events?after=0"):
        response = client.get(path, headers={"Authorization": f"Bearer {toks[0]}"})
        assert response.status_code == 503, (path, response.status_code)
        assert response.get_json()["code"] == "archive_corrupt"
        assert theirs_fields[0].decode() not in response.get_data(as_text=True)
    assert client.get(f"/games/{theirs}").data == honest


@pytest.mark.parametrize(
    "location", ["../../etc/passwd", "/etc/passwd", "pg:../x", "ab/\x00x", "pg:\x00", "..", "ab/."]
)
def test_a_tombstone_pointing_outside_the_store_is_refused(sealing_app, redis_client, location):
    client = sealing_app.test_client()
    game_id, _ = finished_game(client, seed="outside", deals=1)
    seal(sealing_app, game_id)
    kind = redis_client.hget(keys.meta(game_id), "archive:store").decode()
    if kind == "directory" and location.startswith("ab/"):  # a directory, not a file
        store = sealing_app.extensions["cardtrail"].repository.archive
        (store.root / "ab").mkdir(parents=True, exist_ok=True)
    redis_client.hset(keys.meta(game_id), "archive:location", location)
    _forget(sealing_app)
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 503, response.get_data(as_text=True)
    assert response.get_json()["code"] == "archive_missing"


def test_a_directory_in_place_of_the_archive_is_missing(sealing_app, redis_client):
    client = sealing_app.test_client()
    game_id, _ = finished_game(client, seed="a directory", deals=1)
    seal(sealing_app, game_id)
    store = sealing_app.extensions["cardtrail"].repository.archive
    if store.kind != "directory":
        pytest.skip("a directory store's case")
    location = redis_client.hget(keys.meta(game_id), "archive:location").decode()
    path = store.root / location
    path.unlink()
    path.mkdir()
    _forget(sealing_app)
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 503 and response.get_json()["code"] == "archive_missing"


def _rewritten(blob: bytes, change) -> bytes:
    text = zstandard.ZstdDecompressor().decompress(blob).decode()
    header, *lines = text.rstrip("\n").split("\n")
    header, lines = change(json.loads(header), lines)
    text = "\n".join([json.dumps(header), *lines]) + "\n"
    return zstandard.ZstdCompressor().compress(text.encode())


def test_another_games_log_under_this_games_header_breaks_the_chain():
    mine, theirs = _archive(), _archive()

    def renamed(header, lines):
        header["info"]["game_id"] = mine.info.game_id
        return header, lines

    forged = _rewritten(theirs.blob, renamed)
    with pytest.raises(ArchiveCorrupt, match="chain"):
        decode(mine.info.game_id, forged, digest_of(forged))
    with pytest.raises(ArchiveCorrupt, match="not this game"):
        decode(mine.info.game_id, theirs.blob, theirs.digest)


@pytest.mark.parametrize("entry", ["[1, 2]", "7", '[[1], null, ""]', '[{}, [], ""]', "[{}]"])
def test_a_malformed_entry_is_corrupt_not_an_error(entry):
    made = _archive()
    forged = _rewritten(made.blob, lambda header, lines: (header, [*lines[:-1], entry]))
    with pytest.raises(ArchiveCorrupt):
        decode(made.info.game_id, forged, digest_of(forged))


def test_a_decompression_bomb_is_refused_without_allocating_it():
    made = _archive()
    declared = 4 * MOST_TEXT
    bomb = zstandard.ZstdCompressor(level=1).compressobj(size=declared)
    zeros = b"\0" * (1 << 20)
    blob = b"".join(bomb.compress(zeros) for _ in range(declared // len(zeros))) + bomb.flush()
    assert len(blob) < declared // 1000
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveCorrupt, match="over"):
            decode(made.info.game_id, blob, digest_of(blob))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * MOST_TEXT, peak


def test_a_frame_without_its_size_is_read_as_any_other():
    made = _archive()
    text = zstandard.ZstdDecompressor().decompress(made.blob)
    unsized = zstandard.ZstdCompressor(write_content_size=False).compress(text)
    assert decode(made.info.game_id, unsized, digest_of(unsized)).records() == list(made.records)


def test_decoded_archives_are_kept_to_a_byte_budget():
    kept = _archive()
    made = decode(kept.info.game_id, kept.blob, kept.digest)
    assert made.size > 0
    decoded = Decoded(size=10, most_bytes=3 * made.size)
    for game_id in "abcd":
        decoded.put(game_id, made)
    assert [decoded.get(g) is not None for g in "abcd"] == [False, True, True, True]
    decoded.put("d", made)  # the same game again counts once
    decoded.put("e", made)
    assert [decoded.get(g) is not None for g in "bcde"] == [False, True, True, True]


def test_an_append_to_a_sealed_game_is_refused_at_any_version(sealing_app, redis_client):
    client = sealing_app.test_client()
    game_id, _ = finished_game(client, seed="no second log", deals=1)
    export = client.get(f"/games/{game_id}/export").data
    seal(sealing_app, game_id)
    events = sealing_app.extensions["cardtrail"].repository.events
    version = events.version(game_id)
    fake = [{"type": "game_created", "v": 1, "forged": True}]
    for expected, previous in ((0, chain_start(game_id)), (version, "0" * 64)):
        batch = Batch.of(game_id, expected, previous, fake, {"type": "create"})
        with pytest.raises(VersionConflict) as refused:
            events.append(batch, (f"0:{expected}", {"request": "x", "response": {}}))
        assert refused.value.actual == version
    assert not redis_client.exists(keys.events(game_id))
    assert not redis_client.exists(keys.idempotency_keys(game_id))
    _forget(sealing_app)
    assert client.get(f"/games/{game_id}/export").data == export


def test_a_sealed_game_takes_no_event_before_its_stream_is_dropped(
    sealing_app, redis_client, monkeypatch
):
    client = sealing_app.test_client()
    game_id, _ = finished_game(client, seed="recorded, not purged", deals=1)
    repository = sealing_app.extensions["cardtrail"].repository
    monkeypatch.setattr(repository.tables, "purge", lambda game_id: False)  # killed before it
    seal(sealing_app, game_id)
    version = int(redis_client.xlen(keys.events(game_id)))
    head = repository.events.hash_at(game_id, version)
    batch = Batch.of(game_id, version, head, [{"type": "seed_revealed", "v": 1}], None)
    with pytest.raises(VersionConflict):
        repository.events.append(batch)
    assert int(redis_client.xlen(keys.events(game_id))) == version


def test_a_game_wrongly_listed_as_ended_is_never_sealed(sealing_app, redis_client):
    client = sealing_app.test_client()
    playing = create_game(client, seed="listed as finished")
    play_random_move(client, playing["id"], tokens(playing), random.Random(2))
    waiting = create_game(client, seed="listed abandoned", seats=[{"name": "a"}, {"open": True}])
    closed = create_game(client, seed="closed, seed unshown", seats=[{"name": "a"}, {"open": True}])
    cardtrail = sealing_app.extensions["cardtrail"]
    assert cardtrail.repository.tables.close(closed["id"])  # the sweep died before its log
    redis_client.zadd(keys.games_by_status("finished"), {playing["id"]: 1})
    redis_client.zadd(keys.games_by_status("abandoned"), {waiting["id"]: 1, closed["id"]: 1})
    counts = seal_all_finished(redis_client, cardtrail.repository.archive)
    assert counts == {"not_ended": 3}
    for game_id in (playing["id"], waiting["id"], closed["id"]):
        assert cardtrail.sealing.seal(game_id).result == "not_ended"  # a job queued by hand
        assert redis_client.exists(keys.events(game_id))
        assert cardtrail.repository.tables.tombstone(game_id) is None


def test_a_damaged_archive_is_answered_without_its_paths(sealing_app, redis_client):
    client = sealing_app.test_client()
    game_id, _ = finished_game(client, seed="told nothing", deals=1)
    seal(sealing_app, game_id)
    redis_client.hset(keys.meta(game_id), "archive:location", "zz/elsewhere.jsonl.zst")
    _forget(sealing_app)
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 503 and response.get_json()["code"] == "archive_missing"
    assert "elsewhere" not in response.get_data(as_text=True)


def test_an_archive_database_that_does_not_answer_is_a_503_to_retry(
    redis_url, redis_client, tmp_path
):
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "ALLOW_PRESET_DECK": True,
            "RATE_LIMITS_ENABLED": False,
            "ARCHIVE": "postgresql://postgres@127.0.0.1:1/test?connect_timeout=2",
        }
    )
    try:
        client = app.test_client()
        created = create_game(client, seed="no database")
        game_id = created["id"]
        tombstone = Tombstone("postgresql", f"pg:{game_id}", "0" * 64, 9, "0" * 64)
        redis_client.hset(keys.meta(game_id), mapping=tombstone.fields())
        app.extensions["cardtrail"].repository.forget()
        response = client.get(f"/games/{game_id}")
        assert response.status_code == 503, response.get_data(as_text=True)
        assert response.get_json()["code"] == "archive_unavailable"
        assert response.headers["Retry-After"] == "5"
        assert "127.0.0.1" not in response.get_data(as_text=True)
    finally:
        app.extensions["cardtrail"].redis.close()


def test_a_sealed_game_is_offered_again_and_its_log_stays_sealed(sealing_app, redis_client):
    from tests.service.accounts import account, bare
    from tests.service.test_rematch import OPTIONS, play_invited

    ann, bob = account(sealing_app, "ann"), account(sealing_app, "bob")
    http = bare(sealing_app)
    old, _ = play_invited(http, ann, bob)
    export = http.get(f"/games/{old}/export").data
    seal(sealing_app, old)
    _forget(sealing_app)
    offered = http.post(f"/games/{old}/rematch", headers=ann.headers)
    assert offered.status_code == 201, offered.get_json()
    new = offered.get_json()["id"]
    assert http.post(f"/games/{new}/join", json={}, headers=bob.headers).status_code == 201
    created = sealing_app.extensions["cardtrail"].repository.events.read(new, after=0, upto=1)[0]
    assert created["first_dealer"] == (OPTIONS["first_dealer"] + 1) % 2
    assert not redis_client.exists(keys.events(old))
    assert http.get(f"/games/{old}").get_json()["rematch"] == new
    assert http.get(f"/games/{old}/export").data == export


def test_an_object_too_large_to_be_an_archive_is_not_read(sealing_app, redis_client):
    client = sealing_app.test_client()
    game_id, _ = finished_game(client, seed="too large", deals=1)
    seal(sealing_app, game_id)
    store = sealing_app.extensions["cardtrail"].repository.archive
    location = redis_client.hget(keys.meta(game_id), "archive:location").decode()
    huge = b"\0" * (MOST_OBJECT + 1)
    if store.kind == "directory":
        (store.root / location).write_bytes(huge)
    else:
        _sql(f"UPDATE {TABLE} SET data = %s WHERE game = %s", (huge, game_id))
    _forget(sealing_app)
    with pytest.raises(ArchiveCorrupt, match="large|over"):
        store.get(location)
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 503 and response.get_json()["code"] == "archive_corrupt"


def test_a_game_sealed_before_its_status_caught_up_is_archived_as_finished(
    sealing_app, redis_client
):
    client = sealing_app.test_client()
    game_id, _ = finished_game(client, seed="status lags", deals=1)
    redis_client.hset(keys.meta(game_id), "status", "playing")  # the status reaction lost
    seal(sealing_app, game_id)
    sealed = sealing_app.extensions["cardtrail"].repository.sealed(game_id)
    assert sealed is not None and sealed.info.status == "finished"
