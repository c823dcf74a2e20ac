"""The logs of sealed games as the event store reads them: found by the tombstone the
table keeps, read from the archive store, checked (`service.archives.decode`) and kept
decoded in process memory, a bounded cache (dropping it changes nothing)."""

import threading
from collections import OrderedDict
from collections.abc import Callable

from service.archives import ArchiveMissing, ArchiveStore, Sealed, decode
from service.table_records import Tombstone

DECODED_KEPT = 64  # decoded archives kept at most
DECODED_BYTES = 256 << 20  # and at most this much of their text, however few they are


class Decoded:
    """Decoded archives by game, the newest `size` kept (and at most `most_bytes` of their
    text): a replay steps through one game many times, and each step should not
    decompress the whole log again."""

    def __init__(self, size: int = DECODED_KEPT, most_bytes: int = DECODED_BYTES) -> None:
        self.size, self.most_bytes = size, most_bytes
        self._items: OrderedDict[str, Sealed] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, game_id: str) -> Sealed | None:
        with self._lock:
            found = self._items.get(game_id)
            if found is not None:
                self._items.move_to_end(game_id)
            return found

    def put(self, game_id: str, sealed: Sealed) -> Sealed:
        with self._lock:
            replaced = self._items.pop(game_id, None)
            self._bytes += sealed.size - (replaced.size if replaced else 0)
            self._items[game_id] = sealed
            while len(self._items) > self.size or self._bytes > self.most_bytes:
                self._bytes -= self._items.popitem(last=False)[1].size
        return sealed

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


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
