"""The repository: a game's table and state now, and appending what happened next.

A state is never stored as truth: it is the fold of the game's log. To make that fast
the repository keeps folded states in process memory (an LRU) and as snapshots in
Redis, and folds only the events since; both are caches, and dropping either changes
no answer (a snapshot that does not authenticate under this repository's secret is
simply not used). A load costs one round trip when the state is cached (the table and the
events since, pipelined); an append one more (the append script).
"""

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import redis

from engine import games, ledger, table
from engine.contract import Command, Event, Game
from service.archives import ArchiveStore
from service.errors import MovedOn, NotFound
from service.sealed_logs import SealedLogs
from service.snapshots import Snapshot, SnapshotStore
from service.store import Appended, Batch, EventStore, VersionConflict
from service.tables import Table, TableStore, decode

SNAPSHOT_EVERY = 32  # fold at most this many events past the last snapshot
CACHE_GAMES = 2048  # states kept in process memory (a cache like the snapshots)


@dataclass(frozen=True)
class Loaded:
    """A game as it is now: its table, its rules, its folded state and where its log ends."""

    table: Table
    game: Game[Any, Any]
    state: Any
    version: int
    last_hash: str

    @property
    def id(self) -> str:
        return self.table.id


class Repository:
    def __init__(
        self,
        client: redis.Redis,
        secret: bytes | None = None,
        archive: ArchiveStore | None = None,
    ) -> None:
        """`secret` authenticates the snapshots; None: one of this process's own (it then
        reads only the snapshots it wrote itself). `archive` holds the sealed games' logs
        (None: this process reads none; games then stay in Redis)."""
        self.redis = client
        self.tables = TableStore(client)
        self.archive = archive
        self.sealed = SealedLogs(archive, self.tables.tombstone)
        self.events = EventStore(client, self.sealed)
        self.snapshots = SnapshotStore(
            client, secrets.token_bytes(32) if secret is None else secret
        )
        self._cache: OrderedDict[str, Snapshot] = OrderedDict()
        self._lock = threading.Lock()

    def load(self, game_id: str) -> Loaded:
        """The game now: the cached state (or the snapshot) plus the events since, folded."""
        with self._lock:
            cached = self._cache.get(game_id)
        pipe = self.redis.pipeline(transaction=False)
        self.tables.get_in(pipe, game_id)
        if cached is None:
            self.snapshots.get_in(pipe, game_id)
        else:
            self.events.read_records_in(pipe, game_id, after=cached.version)
        raw_table, rest = pipe.execute()
        found = decode(game_id, raw_table)
        game = games.get(found.game)
        if found.archive is not None:
            return self._load_sealed(found, game, cached)
        if cached is not None:
            start = cached
            records = self.events.parse_records(rest)
        else:
            start = self.snapshots.decode(game_id, rest, game) or Snapshot(
                0, None, ledger.chain_start(game_id)
            )
            records = self.events.records(game_id, after=start.version)
        state = table.fold(game, (record.event for record in records), start.state)
        if state is None:  # a table whose first event is not written yet (or never was)
            raise NotFound("game_not_found", f"There is no game {game_id!r}.")
        now = Snapshot(
            records[-1].version if records else start.version,
            state,
            records[-1].hash if records else start.last_hash,
        )
        if cached is None and len(records) >= SNAPSHOT_EVERY:
            self.snapshots.save(game_id, game, now)
        self._remember(game_id, now)
        return Loaded(found, game, state, now.version, now.last_hash)

    def _load_sealed(self, found: Table, game: Game[Any, Any], cached: Snapshot | None) -> Loaded:
        """A sealed game: its log is whole and final, folded once and then kept."""
        assert found.archive is not None
        if cached is None or cached.version != found.archive.version:
            records = self.sealed.read(found.id, found.archive).records()
            state = table.fold(game, (record.event for record in records), None)
            cached = Snapshot(found.archive.version, state, found.archive.head)
            self._remember(found.id, cached)
        return Loaded(found, game, cached.state, cached.version, cached.last_hash)

    @staticmethod
    def batch(loaded: Loaded, events: list[Event], command: Command) -> Batch:
        """The batch `command` made, hashed onto the end of the loaded log."""
        return Batch.of(loaded.id, loaded.version, loaded.last_hash, events, command)

    def append(
        self,
        loaded: Loaded,
        batch: Batch,
        state: Any,
        idempotency: tuple[str, dict[str, Any]] | None = None,
    ) -> Appended:
        """Append the batch if the game is still at `loaded.version`; MovedOn if another
        append came first. `state` is the state after it (remembered as a cache)."""
        try:
            appended = self.events.append(batch, idempotency)
        except VersionConflict as conflict:
            raise MovedOn(
                "version_conflict",
                f"The game moved on (now at version {conflict.actual}); reload and try again.",
            ) from None
        if appended.replayed is None:
            self.remember_append(loaded, appended, state)
        return appended

    def remember_append(self, loaded: Loaded, appended: Appended, state: Any) -> None:
        now = Snapshot(appended.version, state, appended.last_hash)
        self._remember(loaded.id, now)
        if appended.version // SNAPSHOT_EVERY != loaded.version // SNAPSHOT_EVERY:
            self.snapshots.save(loaded.id, loaded.game, now)

    def _remember(self, game_id: str, snapshot: Snapshot) -> None:
        with self._lock:
            known = self._cache.get(game_id)
            if known is None or known.version <= snapshot.version:
                self._cache[game_id] = snapshot
                self._cache.move_to_end(game_id)
            while len(self._cache) > CACHE_GAMES:
                self._cache.popitem(last=False)

    def forget(self) -> None:
        """Drop the in-process cache (tests prove it is only a cache)."""
        with self._lock:
            self._cache.clear()
