"""Archives in PostgreSQL: one row per sealed game in `cardtrail_archives`, the object in
a bytea column and the metadata an archive is looked up by in columns of their own (the
seated accounts in a text[] with a GIN index, for a player's finished games).

The table and its indexes are made on first use, under a transaction-scoped advisory
lock, so processes starting together do not race on them. A store holds one connection,
opened when first needed and used under a lock (gevent greenlets in the web process
share it; psycopg waits cooperatively once gevent has patched the process). A forked
process (an RQ work horse) does not touch its parent's connection: it opens its own.
A connection that fails (the server restarted, the session was ended) is dropped and
the statement tried once more on a new one; every statement here is safe to repeat.
"""

import hashlib
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.json import Jsonb

from service.archives import MOST_OBJECT, ArchiveCorrupt, ArchiveInfo, ArchiveMissing
from service.errors import Busy

TABLE = "cardtrail_archives"
PREFIX = "pg:"  # a location is "pg:<game id>"
CONNECT_TIMEOUT = 10  # seconds, unless the URL says otherwise
# The advisory lock that serialises making the table: a fixed key derived from its name.
SCHEMA_LOCK = int.from_bytes(hashlib.sha256(TABLE.encode()).digest()[:8], "big", signed=True)

SCHEMA = (
    f"""CREATE TABLE IF NOT EXISTS {TABLE} (
        game text PRIMARY KEY,
        game_type text NOT NULL,
        preset text,
        players text[] NOT NULL,
        names text[] NOT NULL,
        status text NOT NULL,
        result jsonb,
        created timestamptz NOT NULL,
        finished timestamptz NOT NULL,
        version integer NOT NULL,
        head text NOT NULL,
        digest text NOT NULL,
        bytes integer NOT NULL,
        data bytea NOT NULL,
        sealed_at timestamptz NOT NULL DEFAULT now()
    )""",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_players ON {TABLE} USING gin (players)",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_finished ON {TABLE} (finished DESC, game DESC)",
)

PUT = f"""INSERT INTO {TABLE} AS a (game, game_type, preset, players, names, status,
        result, created, finished, version, head, digest, bytes, data)
    VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
    ON CONFLICT (game) DO UPDATE SET game_type = excluded.game_type,
        preset = excluded.preset, players = excluded.players, names = excluded.names,
        status = excluded.status, result = excluded.result, created = excluded.created,
        finished = excluded.finished, version = excluded.version, head = excluded.head,
        digest = excluded.digest, bytes = excluded.bytes, data = excluded.data,
        sealed_at = now()"""

INFO_COLUMNS = "game, game_type, preset, players, names, status, result, created, finished, \
version, head"

# A player's archives, newest finished first: `players @> array[...]` is what the GIN
# index on players answers.
GAMES_OF = f"""SELECT {INFO_COLUMNS} FROM {TABLE}
    WHERE players @> ARRAY[%(player)s]::text[]
      AND (%(before)s::timestamptz IS NULL OR finished < %(before)s::timestamptz)
    ORDER BY finished DESC, game DESC
    LIMIT %(limit)s"""

T = TypeVar("T")


class ArchiveUnavailable(Busy):
    """The database did not answer, twice: a 503 to retry (an archive is not damaged for
    that), as for Redis, rather than a 500."""

    def __init__(self) -> None:
        detail = "The archive store is unavailable; retry shortly."
        super().__init__("archive_unavailable", detail, retry_after=5)


def _time(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def _info(row: tuple[Any, ...]) -> ArchiveInfo:
    game_id, game, preset, players, names, status, result, created, finished = row[:9]
    return ArchiveInfo(
        game_id=game_id,
        game=game,
        preset=preset,
        players=tuple(players),
        names=tuple(names),
        status=status,
        result=result,
        created=created.timestamp(),
        finished=finished.timestamp(),
        version=row[9],
        head=row[10],
    )


def _make_schema(conn: psycopg.Connection[Any]) -> None:
    """The table and its indexes, unless they are there; one process at a time. A new
    table's objects are stored uncompressed: they are zstandard already."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        found = conn.execute("SELECT to_regclass(%s)", (TABLE,)).fetchone()
        for statement in SCHEMA:
            conn.execute(statement)
        if found is None or found[0] is None:
            conn.execute(f"ALTER TABLE {TABLE} ALTER COLUMN data SET STORAGE EXTERNAL")


def game_of(location: str) -> str:
    """The game id a location names; anything but "pg:<game id>" is no archive here (nor
    is a NUL byte, which no text column can hold: PostgreSQL would answer an error)."""
    if not location.startswith(PREFIX) or len(location) == len(PREFIX) or "\x00" in location:
        raise ArchiveMissing(f"not an archive location: {location!r}")
    return location[len(PREFIX) :]


class PostgresStore:
    """Archive objects as rows of `cardtrail_archives` in the database `url` names."""

    kind = "postgresql"

    def __init__(self, url: str) -> None:
        params = conninfo_to_dict(url)
        params.setdefault("connect_timeout", CONNECT_TIMEOUT)
        params.setdefault("application_name", "cardtrail")
        self._params = params
        self._conninfo = make_conninfo("", **params)
        self._lock = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None
        self._inherited: psycopg.Connection[Any] | None = None
        self._owner = os.getpid()  # the process the connection and the lock belong to
        self._ready = False

    def __repr__(self) -> str:  # never the password
        where = f"{self._params.get('host', '')}:{self._params.get('port', '')}"
        return f"PostgresStore({where}/{self._params.get('dbname', '')})"

    def _forked(self) -> None:
        """In a forked process: the parent's session is kept but never used nor closed
        from here (closing it would end it for the parent too), and the lock is new (the
        parent's may have been held when it forked)."""
        self._inherited, self._conn = self._conn, None
        self._lock = threading.Lock()
        self._owner = os.getpid()

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            self._conn = psycopg.connect(self._conninfo, autocommit=True)
        if not self._ready:
            _make_schema(self._conn)
            self._ready = True
        return self._conn

    def _run(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """`work` on the store's connection; once more on a new one if that one failed."""
        if self._owner != os.getpid():
            self._forked()
        with self._lock:
            try:
                return work(self._connection())
            except psycopg.OperationalError:
                self._drop()
            try:
                return work(self._connection())
            except psycopg.OperationalError as error:
                self._drop()
                raise ArchiveUnavailable() from error

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def close(self) -> None:
        if self._owner != os.getpid():
            self._forked()
        with self._lock:
            self._drop()

    def put(self, info: ArchiveInfo, blob: bytes, digest: str) -> str:
        row = (
            info.game_id,
            info.game,
            info.preset,
            list(info.players),
            list(info.names),
            info.status,
            None if info.result is None else Jsonb(info.result),
            _time(info.created),
            _time(info.finished),
            info.version,
            info.head,
            digest,
            len(blob),
            blob,
        )
        self._run(lambda conn: conn.execute(PUT, row))
        return PREFIX + info.game_id

    def get(self, location: str) -> bytes:
        """The object's bytes; one too large to be an archive is not fetched."""
        game_id = game_of(location)
        query = f"""SELECT octet_length(data), CASE WHEN octet_length(data) <= %s THEN data END
            FROM {TABLE} WHERE game = %s"""
        row = self._run(lambda conn: conn.execute(query, (MOST_OBJECT, game_id)).fetchone())
        if row is None:
            raise ArchiveMissing(f"no archive at {location!r}")
        if row[1] is None:
            raise ArchiveCorrupt(f"the object at {location!r} is {row[0]} bytes, too large")
        return bytes(row[1])

    def remove(self, location: str) -> None:
        game_id = game_of(location)
        self._run(lambda conn: conn.execute(f"DELETE FROM {TABLE} WHERE game = %s", (game_id,)))

    def games_of(
        self, player_id: str, limit: int, before: float | None = None
    ) -> list[ArchiveInfo]:
        """The archives of the games `player_id` was seated in, newest finished first, at
        most `limit`; with `before`, only those finished before it (the next page)."""
        when = None if before is None else _time(before)
        found = {"player": player_id, "limit": limit, "before": when}
        rows = self._run(lambda conn: conn.execute(GAMES_OF, found).fetchall())
        return [_info(row) for row in rows]

    def count(self) -> int:
        row = self._run(lambda conn: conn.execute(f"SELECT count(*) FROM {TABLE}").fetchone())
        return int(row[0]) if row else 0
