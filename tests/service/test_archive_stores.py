"""Both archive stores keep the one contract sealing relies on: what was put is what is
got, sealing again leaves one object holding the last bytes, a missing or foreign location
is ArchiveMissing, a changed byte is caught by the digest, and first use by many processes
at once does not fail. PostgreSQL is the server CARDTRAIL_TEST_POSTGRES_URL names (a local
one with trust authentication by default); its cases are skipped when none answers. Rows
made here have game ids of this run's own and are deleted afterwards.
"""

import functools
import multiprocessing
import os
import random
import threading
import uuid
from dataclasses import dataclass
from urllib.parse import quote

import psycopg
import pytest
import redis
from psycopg.conninfo import conninfo_to_dict

from engine.ledger import chain, chain_start, record_bytes
from service.api import create_app
from service.archive_pg import GAMES_OF, TABLE, PostgresStore
from service.archives import (
    ArchiveCorrupt,
    ArchiveInfo,
    ArchiveMissing,
    ArchiveStore,
    DirectoryStore,
    decode,
    digest_of,
    encode,
    open_store,
)
from service.store import EventStore, Record
from tests.service.helpers import create_game, play_to_the_end, tokens

URL_ENV = "CARDTRAIL_TEST_POSTGRES_URL"
PG_URL = os.environ.get(URL_ENV, "postgresql://postgres@127.0.0.1:5432/test")
RUN = f"archive-test-{uuid.uuid4().hex[:8]}-"  # every synthetic game id of this run
PLAYED: list[str] = []  # the played game's id, not of the run's form: deleted too
KEYS = {"k1": "ab" * 32}


@dataclass(frozen=True)
class Archive:
    info: ArchiveInfo
    blob: bytes
    digest: str
    records: tuple[Record, ...]


@functools.cache
def _postgres_absent() -> str | None:
    try:
        with psycopg.connect(PG_URL, connect_timeout=3):
            return None
    except psycopg.OperationalError as error:
        params = conninfo_to_dict(PG_URL)
        where = f"{params.get('host', 'localhost')}:{params.get('port', 5432)}"
        reason = str(error).strip().splitlines()[0] if str(error).strip() else "no answer"
        return f"no PostgreSQL at {where} (set {URL_ENV}): {reason}"


def _need_postgres() -> None:
    if (absent := _postgres_absent()) is not None:
        pytest.skip(absent)


def _sql(query: str, params: tuple = (), url: str = PG_URL) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(query, params)
        return cursor.fetchall() if cursor.description else []


def _delete_rows(url: str = PG_URL) -> None:
    _sql(f"DELETE FROM {TABLE} WHERE game LIKE %s OR game = ANY(%s)", (RUN + "%", PLAYED), url)


def _archive(
    game_id: str | None = None,
    moves: int = 3,
    players: tuple[str, ...] = ("acc-ann", "acc-bob"),
    finished: float = 1_700_000_100.25,
    status: str = "finished",
) -> Archive:
    """A sealed log of `moves` batches after the creation, chained as the store chains."""
    game_id = game_id or RUN + uuid.uuid4().hex
    records, last = [], chain_start(game_id)
    for version in range(1, moves + 2):
        event = {"type": "game_created" if version == 1 else "moved", "n": version, "é": "ü"}
        command = {"type": "create" if version == 1 else "move", "n": version}
        last = chain(last, record_bytes(event, command))
        records.append(Record(version, event, command, last, f"{1_700_000_000 + version}.5"))
    info = ArchiveInfo(
        game_id=game_id,
        game="rummy",
        preset=None,
        players=players,
        names=("ann", "bot:greedy"),
        status=status,
        result={"winners": [0], "scores": [5, 0]},
        created=1_700_000_000.5,
        finished=finished,
        version=len(records),
        head=last,
    )
    blob = encode(info, KEYS, records)
    return Archive(info, blob, digest_of(blob), tuple(records))


@pytest.fixture(scope="module")
def played(redis_url) -> Archive:
    """A real game, played to its end through the API, and its log as Redis holds it."""
    app = create_app(
        {"REDIS_URL": redis_url, "ALLOW_PRESET_DECK": True, "RATE_LIMITS_ENABLED": False}
    )
    try:
        client = app.test_client()
        created = create_game(client, seed="archive stores", options={"target_score": 1})
        play_to_the_end(client, created["id"], tokens(created), random.Random(7))
        view = client.get(f"/games/{created['id']}").get_json()
        keys = {k["key_id"]: k["public_key"] for k in client.get("/keys").get_json()["keys"]}
    finally:
        app.extensions["cardtrail"].redis.close()
    connection = redis.Redis.from_url(redis_url)
    records = tuple(EventStore(connection).records(created["id"]))
    connection.close()
    PLAYED.append(created["id"])
    info = ArchiveInfo(
        game_id=created["id"],
        game=view["game"],
        preset=view["preset"],
        players=(RUN + "ann",),
        names=tuple(seat["label"] for seat in view["seats"]),
        status=view["status"],
        result=view["result"],
        created=float(records[0].at),
        finished=float(next(record.at for record in reversed(records) if record.at)),
        version=len(records),
        head=records[-1].hash,
    )
    blob = encode(info, keys, records)
    return Archive(info, blob, digest_of(blob), records)


@pytest.fixture(params=["directory", "postgresql"])
def kind(request) -> str:
    if request.param == "postgresql":
        _need_postgres()
    return request.param


@pytest.fixture
def archives(kind, tmp_path):
    if kind == "directory":
        yield DirectoryStore(tmp_path / "archives")
        return
    store = PostgresStore(PG_URL)
    yield store
    store.close()
    _delete_rows()


def _fresh(kind: str, tmp_path):
    """A setting naming a store nothing has used yet: a new directory, or a new schema."""
    if kind == "directory":
        yield str(tmp_path / "fresh")
        return
    schema = "archive_test_" + uuid.uuid4().hex[:12]
    _sql(f"CREATE SCHEMA {schema}")
    joiner = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{joiner}options={quote(f'-csearch_path={schema}')}"
    _sql(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def fresh(kind, tmp_path):
    yield from _fresh(kind, tmp_path)


@pytest.fixture
def fresh_postgres(tmp_path):
    _need_postgres()
    yield from _fresh("postgresql", tmp_path)


@pytest.fixture
def postgres() -> PostgresStore:
    _need_postgres()
    store = PostgresStore(PG_URL)
    yield store
    store.close()
    _delete_rows()


def _objects(store: ArchiveStore, game_id: str, url: str = PG_URL) -> int:
    """How many objects the store holds for the game (a leftover temporary file counts)."""
    if isinstance(store, DirectoryStore):
        found = [path.name for path in store.root.rglob("*") if path.is_file()]
        return sum(1 for name in found if game_id in name or name.startswith(".seal-"))
    return _sql(f"SELECT count(*) FROM {TABLE} WHERE game = %s", (game_id,), url)[0][0]


def _flip_a_byte(store: ArchiveStore, location: str, game_id: str) -> None:
    if isinstance(store, DirectoryStore):
        path = store.root / location
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
        return
    flip = f"""UPDATE {TABLE} SET data = set_byte(data, length(data) / 2,
        get_byte(data, length(data) / 2) # 1) WHERE game = %s"""
    _sql(flip, (game_id,))


def test_a_played_game_round_trips(archives, played):
    location = archives.put(played.info, played.blob, played.digest)
    got = archives.get(location)
    assert type(got) is bytes and got == played.blob
    sealed = decode(played.info.game_id, got, played.digest)
    assert sealed.info == played.info
    assert tuple(sealed.records()) == played.records  # the hashes Redis kept, recomputed
    assert sealed.info.status == "finished" and sealed.info.result is not None
    archives.remove(location)
    with pytest.raises(ArchiveMissing):
        archives.get(location)


def test_sealing_again_keeps_one_object_with_the_last_bytes(archives):
    first = _archive(moves=2)
    second = _archive(first.info.game_id, moves=5, status="abandoned")
    location = archives.put(first.info, first.blob, first.digest)
    assert archives.put(second.info, second.blob, second.digest) == location
    assert archives.put(second.info, second.blob, second.digest) == location
    assert archives.get(location) == second.blob
    assert _objects(archives, first.info.game_id) == 1
    again = decode(first.info.game_id, archives.get(location), second.digest)
    assert tuple(again.records()) == second.records


def test_an_unknown_location_is_missing(archives):
    kept, never = _archive(), _archive()
    location = archives.put(kept.info, kept.blob, kept.digest)
    elsewhere = location.replace(kept.info.game_id, never.info.game_id)
    with pytest.raises(ArchiveMissing):
        archives.get(elsewhere)
    archives.remove(elsewhere)  # removing what is not there is no error
    archives.remove(location)
    archives.remove(location)
    with pytest.raises(ArchiveMissing):
        archives.get(location)


def test_a_changed_byte_is_found_by_the_digest(archives):
    made = _archive()
    location = archives.put(made.info, made.blob, made.digest)
    _flip_a_byte(archives, location, made.info.game_id)
    changed = archives.get(location)
    assert changed != made.blob and len(changed) == len(made.blob)
    with pytest.raises(ArchiveCorrupt, match="digest"):
        decode(made.info.game_id, changed, made.digest)


FOREIGN = ["../x", "/etc/passwd", "ab/../../x", "../archives/x", "", "x", "ab/cd/ef", "pg:"]


@pytest.mark.parametrize("location", FOREIGN)
def test_foreign_locations_are_refused(archives, tmp_path, location):
    outside = tmp_path / "x"  # what "../x" names from the directory store's root
    outside.write_bytes(b"not an archive")
    with pytest.raises(ArchiveMissing):
        archives.get(location)
    with pytest.raises(ArchiveMissing):
        archives.remove(location)
    assert outside.read_bytes() == b"not an archive"


def test_a_directory_location_is_not_a_postgresql_one(postgres):
    with pytest.raises(ArchiveMissing):
        postgres.get("ab/abcdef.jsonl.zst")
    with pytest.raises(ArchiveMissing):
        DirectoryStore("/nonexistent").get("pg:abcdef")


def _first_use(spec: str, game_id: str, barrier) -> None:
    store = open_store(spec)
    assert store is not None
    barrier.wait(10)
    made = _archive(game_id)
    assert store.get(store.put(made.info, made.blob, made.digest)) == made.blob
    if isinstance(store, PostgresStore):
        store.close()


def test_first_use_by_many_processes_at_once(fresh):
    forked = multiprocessing.get_context("fork")
    barrier = forked.Barrier(6)
    ids = [RUN + uuid.uuid4().hex for _ in range(6)]
    processes = [forked.Process(target=_first_use, args=(fresh, i, barrier)) for i in ids]
    for process in processes:
        process.start()
    for process in processes:
        process.join(30)
    assert [process.exitcode for process in processes] == [0] * 6
    store = open_store(fresh)
    assert store is not None
    assert [_objects(store, game_id, fresh) for game_id in ids] == [1] * 6
    if isinstance(store, PostgresStore):
        assert store.count() == 6
        store.close()


def test_first_use_by_many_threads_at_once(fresh):
    store = open_store(fresh)
    assert store is not None
    barrier, failures = threading.Barrier(8), []

    def seal() -> None:
        try:
            _first_use(fresh, RUN + uuid.uuid4().hex, barrier)
            made = _archive()
            assert store.get(store.put(made.info, made.blob, made.digest)) == made.blob
        except BaseException as error:  # reported below, in the test's thread
            failures.append(error)

    threads = [threading.Thread(target=seal) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert failures == []
    if isinstance(store, PostgresStore):
        assert store.count() == 16
        store.close()


def _read_in_child(store: ArchiveStore, location: str, blob: bytes) -> None:
    assert store.get(location) == blob
    if isinstance(store, PostgresStore):
        store.close()  # its own session, not the parent's


def test_a_forked_process_leaves_its_parents_connection_alone(postgres):
    made = _archive()
    location = postgres.put(made.info, made.blob, made.digest)
    session = postgres._conn.info.backend_pid
    forked = multiprocessing.get_context("fork")
    with postgres._lock:  # held by another thread at the fork: the child has its own
        child = forked.Process(target=_read_in_child, args=(postgres, location, made.blob))
        child.start()
    child.join(20)
    if child.is_alive():
        child.kill()
    assert child.exitcode == 0
    assert postgres.get(location) == made.blob
    assert postgres._conn.info.backend_pid == session  # the same session, not a new one


def test_an_ended_session_is_reopened(postgres):
    name = RUN + "session"
    store = PostgresStore(f"{PG_URL}{'&' if '?' in PG_URL else '?'}application_name={name}")
    made = _archive()
    location = store.put(made.info, made.blob, made.digest)
    ended = _sql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
        (name,),
    )
    assert ended == [(True,)]
    assert store.get(location) == made.blob
    store.close()


def test_a_players_games_newest_finished_first(postgres):
    player, other = RUN + "player", RUN + "other"
    before = postgres.count()
    at = 1_750_000_000.125
    made = {
        offset: _archive(players=(player, other), finished=at + offset)
        for offset in (10.0, 30.0, 20.0)
    }
    not_theirs = _archive(players=(other,), finished=at + 40)
    for archive in [*made.values(), not_theirs]:
        postgres.put(archive.info, archive.blob, archive.digest)
    assert postgres.count() == before + 4
    newest_first = [made[offset].info for offset in (30.0, 20.0, 10.0)]
    assert postgres.games_of(player, 10) == newest_first
    assert postgres.games_of(player, 2) == newest_first[:2]
    assert postgres.games_of(player, 10, before=at + 20) == newest_first[2:]
    assert [info.game_id for info in postgres.games_of(other, 1)] == [not_theirs.info.game_id]
    assert postgres.games_of(RUN + "nobody", 10) == []
    again = _archive(made[10.0].info.game_id, players=(other,), finished=at + 10)
    postgres.put(again.info, again.blob, again.digest)  # sealed again: its columns follow
    assert postgres.games_of(player, 10) == newest_first[:2]


def test_a_new_table_keeps_objects_uncompressed(fresh_postgres):
    store = PostgresStore(fresh_postgres)
    store.count()
    store.close()
    storage = f"""SELECT attstorage FROM pg_attribute
        WHERE attrelid = '{TABLE}'::regclass AND attname = 'data'"""
    assert _sql(storage, (), fresh_postgres) == [("e",)]  # external: not compressed again


def test_a_players_games_are_found_through_the_players_index(postgres):
    postgres.count()  # the table and its indexes exist
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")
        params = {"player": RUN + "p", "limit": 5, "before": None}
        plan = "\n".join(row[0] for row in conn.execute("EXPLAIN " + GAMES_OF, params))
    assert f"{TABLE}_players" in plan
