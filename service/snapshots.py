"""Snapshots: a cache of a game's folded state at some version, kept beside its log.

A snapshot is keyed by the version it was folded to and the rules version that folded
it; a snapshot of other rules is ignored. Deleting snapshots changes no answer, only
the time it takes to compute one (the log is the truth).
"""

import pickle
from dataclasses import dataclass
from typing import Any

import redis

from service import keys


@dataclass(frozen=True)
class Snapshot:
    version: int
    state: Any
    last_hash: str


class SnapshotStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    @staticmethod
    def get_in(pipe: Any, game_id: str) -> None:
        """Queue the read of a game's snapshot on `pipe`; `decode` its answer."""
        pipe.hgetall(keys.snapshot(game_id))

    @staticmethod
    def decode(data: dict[bytes, bytes], rules_version: str) -> Snapshot | None:
        """The snapshot in a hash, or None if absent or folded by other rules."""
        if not data or data.get(b"rules_version", b"").decode() != rules_version:
            return None
        return Snapshot(int(data[b"version"]), pickle.loads(data[b"state"]), data[b"hash"].decode())

    def save(self, game_id: str, rules_version: str, snapshot: Snapshot) -> None:
        self.redis.hset(
            keys.snapshot(game_id),
            mapping={
                "version": snapshot.version,
                "rules_version": rules_version,
                "state": pickle.dumps(snapshot.state, protocol=pickle.HIGHEST_PROTOCOL),
                "hash": snapshot.last_hash,
            },
        )

    def delete_all(self) -> int:
        doomed = list(self.redis.scan_iter(match=keys.SNAPSHOT_PATTERN, count=1000))
        if doomed:
            self.redis.delete(*doomed)
        return len(doomed)
