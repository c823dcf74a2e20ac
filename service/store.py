"""The event store: one Redis Stream per game, appended atomically by version.

A game's version is the number of events in its stream, and event n is stored
under the explicit entry id `0-n`. The append script checks the expected version
and writes the whole batch in one step, so two writers can never both append at
the same version. Nothing is ever trimmed or rewritten. Snapshots are a cache of
the folded state, keyed by version and rules version; deleting them changes no
answer, only the time it takes to compute one.
"""

import json
import pickle
from dataclasses import dataclass
from typing import Any

import redis

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
    replayed: dict[str, Any] | None = None  # the stored idempotency record, if a repeat


def encode(event: dict[str, Any]) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept (the audit hashes these bytes)."""
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _version_of(entry_id: bytes | str) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.split("-", 1)[1])


class EventStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._append = client.register_script(scripts.APPEND)

    def append(
        self,
        game_id: str,
        expected_version: int,
        events: list[dict[str, Any]],
        idempotency: tuple[str, dict[str, Any]] | None = None,
    ) -> Appended:
        """Append `events` if the game is at `expected_version`, else raise VersionConflict."""
        idem_key, record = idempotency if idempotency else ("", None)
        result = self._append(
            keys=[keys.events(game_id), keys.idempotency(game_id, idem_key)],
            args=[
                expected_version,
                json.dumps(record) if record is not None else "",
                IDEMPOTENCY_TTL,
                *(encode(event) for event in events),
            ],
        )
        status = result[0].decode() if isinstance(result[0], bytes) else result[0]
        if status == "replay":
            return Appended(version=-1, replayed=json.loads(result[1]))
        if status == "conflict":
            raise VersionConflict(expected_version, int(result[1]))
        return Appended(version=int(result[1]))

    def idempotency_record(self, game_id: str, idem_key: str) -> dict[str, Any] | None:
        raw = self.redis.get(keys.idempotency(game_id, idem_key))
        return json.loads(raw) if raw else None

    def version(self, game_id: str) -> int:
        return self.redis.xlen(keys.events(game_id))

    def read(self, game_id: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
        """Events after version `after` (and up to `upto`), in order."""
        end = "+" if upto is None else f"0-{upto}"
        entries = self.redis.xrange(keys.events(game_id), f"(0-{after}", end)
        return [json.loads(fields[b"e"]) for _, fields in entries]

    def read_raw(self, game_id: str, after: int = 0) -> list[tuple[int, bytes]]:
        entries = self.redis.xrange(keys.events(game_id), f"(0-{after}", "+")
        return [(_version_of(entry_id), fields[b"e"]) for entry_id, fields in entries]

    def wait(self, game_id: str, after: int, timeout_s: float) -> None:
        """Block until the stream has an event after `after`, or the timeout passes."""
        if timeout_s <= 0:
            return
        self.redis.xread({keys.events(game_id): f"0-{after}"}, count=1, block=int(timeout_s * 1000))

    @staticmethod
    def decode_snapshot(data: dict[bytes, bytes], rules_version: str) -> tuple[int, Any] | None:
        """(version, state) from a snapshot hash, or None if absent or of other rules."""
        if not data or data.get(b"rules_version", b"").decode() != rules_version:
            return None
        return int(data[b"version"]), pickle.loads(data[b"state"])

    def save_snapshot(self, game_id: str, version: int, rules_version: str, state: Any) -> None:
        self.redis.hset(
            keys.snapshot(game_id),
            mapping={
                "version": version,
                "rules_version": rules_version,
                "state": pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL),
            },
        )

    def delete_snapshots(self) -> int:
        doomed = list(self.redis.scan_iter(match="cardtrail:game:*:snapshot", count=1000))
        if doomed:
            self.redis.delete(*doomed)
        return len(doomed)
