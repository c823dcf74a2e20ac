"""The event store: one Redis Stream per game, appended atomically by version.

A game's version is the number of events in its stream, and event n is stored
under the explicit entry id `0-n`. The append script checks the expected version
and writes the whole batch in one step, so two writers can never both append at
the same version. Nothing is ever trimmed or rewritten.

A finished game's stream is sealed into an archive and then dropped (`service.sealing`):
every read that finds no entries asks `sealed` for the game's archived log, so whoever
reads a log need not know where it lives.
"""

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import redis

from engine.ledger import canonical_json, chain, chain_start, record_bytes
from service import keys, scripts

IDEMPOTENCY_TTL = 2 * 24 * 3600  # keys are kept at least 24 h


class VersionConflict(Exception):
    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"expected version {expected}, the game is at {actual}")
        self.expected = expected
        self.actual = actual


@dataclass(frozen=True)
class Appended:
    version: int
    last_hash: str = ""
    replayed: dict[str, Any] | None = None  # the stored idempotency record, if a repeat


@dataclass(frozen=True)
class Batch:
    """Events ready to append after `expected_version`: stored as canonical JSON, each
    with its chain hash, the command on the first. The hashes are known before the
    append, so an answer can be signed for the version the batch will make."""

    game_id: str
    expected_version: int
    values: tuple[str, ...]  # for each event: its JSON, its hash, its command's JSON or ""
    last_hash: str

    @property
    def version(self) -> int:
        return self.expected_version + len(self.values) // 3

    @classmethod
    def of(
        cls,
        game_id: str,
        expected_version: int,
        previous_hash: str,
        events: list[dict[str, Any]],
        command: dict[str, Any] | None,
    ) -> "Batch":
        """`previous_hash` is the hash at `expected_version` (the chain's start for a new
        game); the append's version check guarantees it is still the last one."""
        values: list[str] = []
        last_hash = previous_hash
        for index, event in enumerate(events):
            opener = command if index == 0 else None
            last_hash = chain(last_hash, record_bytes(event, opener))
            values += [canonical_json(event), last_hash, canonical_json(opener) if opener else ""]
        return cls(game_id, expected_version, tuple(values), last_hash)


@dataclass(frozen=True)
class Record:
    """One log entry: the event, the command that opened its batch (if it did), its hash."""

    version: int
    event: dict[str, Any]
    command: dict[str, Any] | None
    hash: str
    at: str = ""  # with a command: when its batch was recorded ("<s>.<µs>"; "" in older logs)


def _record(entry_id: bytes, fields: dict[bytes, bytes]) -> Record:
    command = fields.get(b"c")
    return Record(
        version=_version_of(entry_id),
        event=json.loads(fields[b"e"]),
        command=json.loads(command) if command else None,
        hash=fields.get(b"h", b"").decode(),
        at=fields.get(b"t", b"").decode(),
    )


def _version_of(entry_id: bytes | str) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.split("-", 1)[1])


class SealedLog(Protocol):
    """A sealed game's whole log (`service.archives.Sealed`)."""

    @property
    def version(self) -> int: ...

    def lines(self, after: int = 0, upto: int | None = None) -> list[str]: ...

    def records(self, after: int = 0, upto: int | None = None) -> list[Record]: ...


Sealer = Callable[[str], SealedLog | None]


class EventStore:
    def __init__(self, client: redis.Redis, sealed: Sealer | None = None) -> None:
        """`sealed` finds a sealed game's archived log (None: no game is ever sealed)."""
        self.redis = client
        self.sealed: Sealer = sealed or (lambda game_id: None)
        self._append = client.register_script(scripts.APPEND)

    def append(
        self, batch: "Batch", idempotency: tuple[str, dict[str, Any]] | None = None
    ) -> Appended:
        """Append the batch if the game is still at its expected version, else raise
        VersionConflict; with `idempotency` (key digest, record), the record is kept
        with the batch, or the record already kept for that key is returned."""
        idem_key, record = idempotency if idempotency else ("", None)
        result = self._append(
            keys=[
                keys.events(batch.game_id),
                keys.idempotency(batch.game_id, idem_key),
                keys.idempotency_keys(batch.game_id),
                keys.meta(batch.game_id),
            ],
            args=[
                batch.expected_version,
                json.dumps(record) if record is not None else "",
                IDEMPOTENCY_TTL,
                *batch.values,
            ],
        )
        status = result[0].decode() if isinstance(result[0], bytes) else result[0]
        if status == "replay":
            return Appended(version=-1, replayed=json.loads(result[1]))
        if status == "conflict":
            raise VersionConflict(batch.expected_version, int(result[1]))
        return Appended(version=int(result[1]), last_hash=batch.last_hash)

    def idempotency_record(self, game_id: str, idem_key: str) -> dict[str, Any] | None:
        raw = self.redis.get(keys.idempotency(game_id, idem_key))
        return json.loads(raw) if raw else None

    def version(self, game_id: str) -> int:
        found = int(self.redis.xlen(keys.events(game_id)))
        return found or self._sealed_version(game_id)

    def versions(self, game_ids: list[str]) -> list[int]:
        """The versions of many games, in one round trip (and one more per sealed game)."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.xlen(keys.events(game_id))
        found = [int(length) for length in pipe.execute()]
        return [n or self._sealed_version(i) for i, n in zip(game_ids, found, strict=True)]

    def _sealed_version(self, game_id: str) -> int:
        sealed = self.sealed(game_id)
        return sealed.version if sealed is not None else 0

    def read(self, game_id: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
        """Events after version `after` (and up to `upto`), in order."""
        end = "+" if upto is None else f"0-{upto}"
        entries = self.redis.xrange(keys.events(game_id), f"(0-{after}", end)
        if not entries and (sealed := self.sealed(game_id)) is not None:
            return [json.loads(line) for line in sealed.lines(after, upto)]
        return [json.loads(fields[b"e"]) for _, fields in entries]

    def records(self, game_id: str, after: int = 0, upto: int | None = None) -> list[Record]:
        """Log entries after version `after` (and up to `upto`), with commands and hashes."""
        end = "+" if upto is None else f"0-{upto}"
        entries = self.redis.xrange(keys.events(game_id), f"(0-{after}", end)
        if not entries and (sealed := self.sealed(game_id)) is not None:
            return sealed.records(after, upto)
        return self.parse_records(entries)

    @staticmethod
    def read_records_in(pipe: redis.client.Pipeline, game_id: str, after: int) -> None:
        """Queue the read of the entries after `after` on `pipe` (one round trip with the
        caller's other reads); `parse_records` turns the answer into records."""
        pipe.xrange(keys.events(game_id), f"(0-{after}", "+")

    @staticmethod
    def parse_records(entries: list[tuple[bytes, dict[bytes, bytes]]]) -> list[Record]:
        return [_record(entry_id, fields) for entry_id, fields in entries]

    def read_raw(self, game_id: str, after: int = 0) -> list[tuple[int, bytes]]:
        """(version, stored event bytes) pairs: what tests compare to prove nothing changed."""
        entries = self.redis.xrange(keys.events(game_id), f"(0-{after}", "+")
        if not entries and (sealed := self.sealed(game_id)) is not None:
            lines = sealed.lines(after)
            return [(after + 1 + i, line.encode()) for i, line in enumerate(lines)]
        return [(_version_of(entry_id), fields[b"e"]) for entry_id, fields in entries]

    def newest_first(self, game_id: str, upto: int | None = None) -> Iterator[dict[str, Any]]:
        """The events up to `upto` (default: the newest), newest first, read in pages
        as far as the caller iterates (a bot's memory reads back only to the deal)."""
        newest = "+" if upto is None else f"0-{upto}"
        first = True
        while True:
            page = self.redis.xrevrange(keys.events(game_id), newest, "-", count=128)
            if first and not page and (sealed := self.sealed(game_id)) is not None:
                yield from (json.loads(line) for line in reversed(sealed.lines(0, upto)))
                return
            first = False
            for _entry_id, fields in page:
                yield json.loads(fields[b"e"])
            if len(page) < 128:
                return
            newest = "(" + page[-1][0].decode()

    def newest_records(self, game_id: str) -> Iterator[Record]:
        """Log entries newest first, read in pages as far as the caller iterates."""
        newest = "+"
        first = True
        while True:
            page = self.redis.xrevrange(keys.events(game_id), newest, "-", count=16)
            if first and not page and (sealed := self.sealed(game_id)) is not None:
                yield from reversed(sealed.records())
                return
            first = False
            yield from self.parse_records(page)
            if len(page) < 16:
                return
            newest = "(" + page[-1][0].decode()

    def hash_at(self, game_id: str, version: int) -> str:
        if version == 0:
            return chain_start(game_id)
        entries = self.redis.xrange(keys.events(game_id), f"0-{version}", f"0-{version}")
        if not entries and (sealed := self.sealed(game_id)) is not None:
            return sealed.records(version - 1, version)[0].hash
        return entries[0][1][b"h"].decode()

    def wait(self, game_id: str, after: int, timeout_s: float) -> None:
        """Block until the stream has an event after `after`, or the timeout passes."""
        if timeout_s <= 0:
            return
        # BLOCK 0 would mean "for ever": however short the wait, block at least 1 ms.
        block_ms = max(1, int(timeout_s * 1000))
        self.redis.xread({keys.events(game_id): f"0-{after}"}, count=1, block=block_ms)
