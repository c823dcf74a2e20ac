"""Sealed archives: a finished game's whole log as one compressed object, kept out of RAM.

An archive is zstandard-compressed canonical JSON Lines: a header (the game, its version,
the chain head, the public keys that signed its receipts, and the metadata an archive
store indexes), then one line per log entry `[event, command or null, recorded at]`. The
chain hashes are not stored: they follow from the events, so decoding recomputes them and
checks the chain head; the object's SHA-256 (`digest`) is kept apart, in the game's
tombstone, and checked on every read, so a changed byte is found before anything is served.

Stores are behind one small interface (`ArchiveStore`): a directory (the embedded
default, inside the data directory) and PostgreSQL (`service.archive_pg`). `open_store`
picks one from a setting: a directory path, or a `postgresql://` URL.
"""

import hashlib
import json
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import zstandard

from engine.ledger import canonical_json, chain, chain_start, record_bytes
from service.errors import Damaged
from service.store import Record
from service.table_records import Tombstone

FORMAT = "cardtrail/archive"
FORMAT_VERSION = 1
LEVEL = 19  # sealing happens once, reading often: spend the time when writing
DECODED_KEPT = 64  # decoded archives kept in process memory (a cache: dropping it changes nothing)
DECODED_BUDGET = 64 * 1024 * 1024  # and at most this much of their text
ENV = "CARDTRAIL_ARCHIVE"  # a directory, or a postgresql:// URL


class ArchiveCorrupt(Damaged):
    """An archive object that is not what was sealed: its digest, its chain or its form
    differ. Reported, never served."""

    def __init__(self, detail: str) -> None:
        super().__init__("archive_corrupt", detail)


class ArchiveMissing(Damaged):
    """No archive object where the tombstone says the game's log is."""

    def __init__(self, detail: str) -> None:
        super().__init__("archive_missing", detail)


@dataclass(frozen=True)
class ArchiveInfo:
    """What a store may index an archive by (PostgreSQL keeps it in columns)."""

    game_id: str
    game: str
    preset: str | None
    players: tuple[str, ...]  # the accounts seated (player ids), for "a player's games"
    names: tuple[str, ...]  # each seat's name or bot level, as the table shows it
    status: str
    result: dict[str, Any] | None
    created: float
    finished: float
    version: int
    head: str

    def as_dict(self) -> dict[str, Any]:
        found = asdict(self)
        found["players"], found["names"] = list(self.players), list(self.names)
        return found

    @classmethod
    def of(cls, data: dict[str, Any]) -> "ArchiveInfo":
        return cls(**{**data, "players": tuple(data["players"]), "names": tuple(data["names"])})


@dataclass(frozen=True)
class Sealed:
    """A decoded archive: its metadata, the signing keys, and each log entry as stored
    (the event's JSON, its command's JSON or "", its chain hash, when it was recorded).
    Entries are kept as text and parsed per read, so no caller can change a cached one."""

    info: ArchiveInfo
    keys: dict[str, str]
    entries: tuple[tuple[str, str, str, str], ...] = field(repr=False)

    @property
    def version(self) -> int:
        return len(self.entries)

    def lines(self, after: int = 0, upto: int | None = None) -> list[str]:
        return [entry[0] for entry in self.entries[after:upto]]

    def records(self, after: int = 0, upto: int | None = None) -> list[Record]:
        """Entries after version `after` (and up to `upto`), as the event store's records."""
        return [
            Record(after + 1 + i, json.loads(event), json.loads(opener) if opener else None, h, at)
            for i, (event, opener, h, at) in enumerate(self.entries[after:upto])
        ]


class ArchiveStore(Protocol):
    """Where archive objects live. `put` is safe to repeat (the same game's object is
    replaced by the same bytes); `location` is what the tombstone keeps to find it."""

    kind: str

    def put(self, info: ArchiveInfo, blob: bytes, digest: str) -> str: ...

    def get(self, location: str) -> bytes: ...

    def remove(self, location: str) -> None: ...


def digest_of(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def encode(info: ArchiveInfo, keys: dict[str, str], records: Sequence[Record]) -> bytes:
    """The archive of a whole log (records 1..n, in order); the same log gives the same
    bytes, so sealing twice writes one object."""
    header = {"format": FORMAT, "v": FORMAT_VERSION, "info": info.as_dict(), "keys": keys}
    lines = [canonical_json(header)]
    for record in records:
        lines.append(canonical_json([record.event, record.command, record.at]))
    text = "\n".join(lines) + "\n"
    return zstandard.ZstdCompressor(level=LEVEL).compress(text.encode("utf-8"))


def decode(game_id: str, blob: bytes, digest: str) -> Sealed:
    """The archive's log, after checking the object's digest, its form, and the chain
    recomputed from the game's start to the head it records."""
    if digest_of(blob) != digest:
        raise ArchiveCorrupt(f"the archive of {game_id!r} does not match its digest")
    try:
        text = zstandard.ZstdDecompressor().decompress(blob).decode("utf-8")
        header_line, *entries = text.rstrip("\n").split("\n")
        header = json.loads(header_line)
        info = ArchiveInfo.of(header["info"])
        keys = dict(header["keys"])
        parsed = [json.loads(line) for line in entries]
    except (zstandard.ZstdError, UnicodeDecodeError, ValueError, KeyError, TypeError) as bad:
        raise ArchiveCorrupt(f"the archive of {game_id!r} cannot be read: {bad}") from None
    if header.get("format") != FORMAT or info.game_id != game_id:
        raise ArchiveCorrupt(f"the archive of {game_id!r} is not this game's")
    return _chained(game_id, info, keys, parsed)


def _chained(game_id: str, info: ArchiveInfo, keys: dict[str, str], parsed: list[Any]) -> Sealed:
    entries, last = [], chain_start(game_id)
    for event, command, at in parsed:
        event_json = canonical_json(event)
        command_json = canonical_json(command) if command is not None else ""
        last = chain(last, record_bytes(event, command))
        entries.append((event_json, command_json, last, at))
    if len(entries) != info.version or last != info.head:
        raise ArchiveCorrupt(f"the archive of {game_id!r} breaks its chain")
    return Sealed(info, keys, tuple(entries))


class DirectoryStore:
    """Archives as files under `root`, `<first two letters>/<game id>.jsonl.zst`, each
    written whole (a temporary file, synced, then renamed), so a crash leaves either the
    old object or the new one, never half of one."""

    kind = "directory"

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _path(self, location: str) -> Path:
        name = Path(location)
        if name.is_absolute() or ".." in name.parts or len(name.parts) != 2:
            raise ArchiveMissing(f"not an archive location: {location!r}")
        return self.root / name

    def put(self, info: ArchiveInfo, blob: bytes, digest: str) -> str:
        location = f"{info.game_id[:2]}/{info.game_id}.jsonl.zst"
        path = self._path(location)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".seal-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(blob)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return location

    def get(self, location: str) -> bytes:
        try:
            return self._path(location).read_bytes()
        except FileNotFoundError:
            raise ArchiveMissing(f"no archive at {location!r}") from None

    def remove(self, location: str) -> None:
        self._path(location).unlink(missing_ok=True)


def open_store(spec: str | None) -> ArchiveStore | None:
    """The store a setting names: a `postgresql://` URL, or a directory; none when unset
    (finished games then stay in Redis)."""
    if not spec:
        return None
    if spec.startswith(("postgresql://", "postgres://")):
        from service.archive_pg import PostgresStore

        return PostgresStore(spec)
    return DirectoryStore(spec)


class Decoded:
    """Decoded archives by game, the most recently read first: a replay steps through one
    game many times, and each step should not decompress the whole log again. At most
    `size` games and `budget` characters of log text are kept (one long Spades game is
    some megabytes; a hundred short ones are not)."""

    def __init__(self, size: int = DECODED_KEPT, budget: int = DECODED_BUDGET) -> None:
        self.size = size
        self.budget = budget
        self._items: OrderedDict[str, tuple[int, Sealed]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, game_id: str) -> Sealed | None:
        with self._lock:
            found = self._items.get(game_id)
            if found is None:
                return None
            self._items.move_to_end(game_id)
            return found[1]

    def put(self, game_id: str, sealed: Sealed) -> Sealed:
        weight = sum(len(event) + len(opener) + 80 for event, opener, _, _ in sealed.entries)
        with self._lock:
            if game_id in self._items:
                self._held -= self._items.pop(game_id)[0]
            self._items[game_id] = (weight, sealed)
            self._held += weight
            while len(self._items) > 1 and (
                len(self._items) > self.size or self._held > self.budget
            ):
                self._held -= self._items.popitem(last=False)[1][0]
        return sealed

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._held = 0


class SealedLogs:
    """The logs of sealed games: found by the tombstone the table keeps, read from the
    archive store, checked (`decode`) and kept decoded. A tombstone never changes once
    recorded, so a decoded log serves its game for as long as it is kept."""

    def __init__(
        self, store: ArchiveStore | None, tombstone: Callable[[str], Tombstone | None]
    ) -> None:
        self.store = store
        self.tombstone = tombstone
        self.decoded = Decoded()

    def __call__(self, game_id: str) -> Sealed | None:
        """The game's sealed log, or None for a game whose log is still in Redis."""
        found = self.decoded.get(game_id)
        if found is not None:
            return found
        tombstone = self.tombstone(game_id)
        return None if tombstone is None else self.read(game_id, tombstone)

    def read(self, game_id: str, tombstone: Tombstone) -> Sealed:
        found = self.decoded.get(game_id)
        if found is not None:
            return found
        if self.store is None or self.store.kind != tombstone.store:
            raise ArchiveMissing(f"the {tombstone.store} store holding {game_id!r} is not open")
        sealed = decode(game_id, self.store.get(tombstone.location), tombstone.digest)
        return self.decoded.put(game_id, sealed)
