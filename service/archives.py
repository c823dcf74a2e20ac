"""Sealed archives: a finished game's whole log as one compressed object, kept out of RAM.

An archive is zstandard-compressed canonical JSON Lines: a header (the game, its version,
the chain head, the public keys that signed its receipts, and the metadata an archive
store indexes), then one line per log entry `[event, command or null, recorded at]`. The
chain hashes are not stored: they follow from the events, so decoding recomputes them and
checks the chain head; the object's SHA-256 (`digest`) is kept apart, in the game's
tombstone, and checked on every read, so a changed byte is found before anything is served.

Stores are behind one small interface (`ArchiveStore`): a directory (the embedded
default, inside the data directory) and PostgreSQL (`service.archive_pg`). `open_store`
picks one from a setting: a directory path, or a `postgresql://` URL. Reading a sealed
game's log, found by its tombstone, is `service.sealed_logs`.
"""

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import zstandard

from engine.ledger import canonical_json, chain, chain_start, record_bytes
from service.errors import Damaged
from service.store import Record

FORMAT = "cardtrail/archive"
FORMAT_VERSION = 1
LEVEL = 19  # sealing happens once, reading often: spend the time when writing
MOST_TEXT = 64 << 20  # an archive's JSON Lines, at most (a long game's are well under 1 MiB)
MOST_OBJECT = MOST_TEXT  # and its object: zstandard never makes text much larger
CHUNK = 1 << 20
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
    size: int = field(default=0, compare=False)  # the decompressed text's length

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
        raw = _text(game_id, blob)
        text = raw.decode("utf-8")
        header_line, *entries = text.rstrip("\n").split("\n")
        header = json.loads(header_line)
        info = ArchiveInfo.of(header["info"])
        keys = dict(header["keys"])
        parsed = [json.loads(line) for line in entries]
        if header.get("format") != FORMAT or info.game_id != game_id:
            raise ArchiveCorrupt(f"the archive of {game_id!r} is not this game's")
        return _chained(game_id, info, keys, parsed, len(raw))
    except (zstandard.ZstdError, UnicodeDecodeError, ValueError, KeyError, TypeError) as bad:
        raise ArchiveCorrupt(f"the archive of {game_id!r} cannot be read: {bad}") from None


def _text(game_id: str, blob: bytes) -> bytes:
    """The object decompressed, read a chunk at a time up to MOST_TEXT: a frame may declare
    any content size (zstandard's one-shot `decompress` allocates all of it at once, its
    `max_output_size` notwithstanding), so a small hostile object could otherwise make a
    web process allocate gigabytes."""
    chunks, size = [], 0
    with zstandard.ZstdDecompressor().stream_reader(blob) as reader:
        while chunk := reader.read(CHUNK):
            size += len(chunk)
            if size > MOST_TEXT:
                raise ArchiveCorrupt(f"the archive of {game_id!r} holds over {MOST_TEXT} bytes")
            chunks.append(chunk)
    return b"".join(chunks)


def _chained(
    game_id: str, info: ArchiveInfo, keys: dict[str, str], parsed: list[Any], size: int
) -> Sealed:
    entries, last = [], chain_start(game_id)
    for event, command, at in parsed:
        if not isinstance(event, dict) or not isinstance(command, dict | None):
            raise ValueError("an entry is not [event, command or null, recorded at]")
        event_json = canonical_json(event)
        command_json = canonical_json(command) if command is not None else ""
        last = chain(last, record_bytes(event, command))
        entries.append((event_json, command_json, last, at))
    if len(entries) != info.version or last != info.head:
        raise ArchiveCorrupt(f"the archive of {game_id!r} breaks its chain")
    return Sealed(info, keys, tuple(entries), size)


def _sync_folders(folder: Path, root: Path) -> None:
    """Make a rename (and a folder just made) durable: the tombstone recorded next is
    fsync'd by Redis at once, so the archive's name must be on disk before it."""
    for each in (folder, root):
        handle = os.open(each, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


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
            _sync_folders(path.parent, self.root)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return location

    def get(self, location: str) -> bytes:
        """The object's bytes; ArchiveMissing for anything but a readable file (a name
        with a NUL byte, a directory, a file this process may not read), never a 500, and
        ArchiveCorrupt for one too large to be an archive (not read into memory)."""
        try:
            with self._path(location).open("rb") as found:
                blob = found.read(MOST_OBJECT + 1)
        except (OSError, ValueError):
            raise ArchiveMissing(f"no archive at {location!r}") from None
        if len(blob) > MOST_OBJECT:
            raise ArchiveCorrupt(f"the object at {location!r} is over {MOST_OBJECT} bytes")
        return blob

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
