"""Snapshots: a cache of a game's folded state at some version, kept beside its log.

Deleting snapshots changes no answer, only the time it takes to compute one (the log is
the truth); so a snapshot that does not check out in every way is no snapshot, and the
state is folded from the log instead.

Whoever can write the snapshot's Redis key must not be able to choose what the web
process runs or believes. The state is plain JSON (the game's `encode_state`), read back
only as the game's own state class (`decode_state`): nothing in the bytes names code.
Each snapshot carries an HMAC-SHA256, under a secret only the service holds, of the game
id, the version, the rules version, the chain hash at that version and the state's JSON
text: a snapshot edited, made up, or copied from another game or another version does
not verify. A process with another secret ignores every snapshot it did not write.

The hash's fields: version, rules_version, hash (the chain's), state (canonical JSON),
mac (hex).
"""

import hashlib
import hmac
import json
import logging
from dataclasses import dataclass
from typing import Any

import redis

from engine.contract import Game
from engine.ledger import canonical_json
from service import keys, scripts

log = logging.getLogger(__name__)

FIELDS = (b"version", b"rules_version", b"hash", b"state", b"mac")


@dataclass(frozen=True)
class Snapshot:
    version: int
    state: Any
    last_hash: str


def mac(
    secret: bytes, game_id: str, version: int, rules_version: str, last_hash: str, state: str
) -> str:
    """The snapshot's authentication: HMAC-SHA256 of the canonical JSON of all it claims."""
    claims = {
        "game": game_id,
        "version": version,
        "rules_version": rules_version,
        "hash": last_hash,
        "state": state,
    }
    message = canonical_json(claims).encode("utf-8")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


class SnapshotStore:
    def __init__(self, client: redis.Redis, secret: bytes) -> None:
        if not secret:
            raise ValueError("snapshots need a secret to authenticate them")
        self.redis = client
        self._secret = secret
        self._save = client.register_script(scripts.SAVE_SNAPSHOT)

    @staticmethod
    def get_in(pipe: Any, game_id: str) -> None:
        """Queue the read of a game's snapshot on `pipe`; `decode` its answer."""
        pipe.hgetall(keys.snapshot(game_id))

    def decode(
        self, game_id: str, data: dict[bytes, bytes], game: Game[Any, Any]
    ) -> Snapshot | None:
        """The snapshot in a hash, or None: absent, folded by other rules, not written
        by this secret for this game at this version, or not a state of this game.
        Never raises: whatever is stored there, the caller folds from the log."""
        try:
            return self._verified(game_id, data, game)
        except Exception:  # a cache entry that cannot be read is no entry
            log.warning("game %s: an unreadable snapshot is ignored", game_id, exc_info=True)
            return None

    def _verified(
        self, game_id: str, data: dict[bytes, bytes], game: Game[Any, Any]
    ) -> Snapshot | None:
        if not isinstance(data, dict) or not all(
            isinstance(data.get(name), bytes) for name in FIELDS
        ):
            return None  # none, or one from before snapshots were authenticated
        rules_version, version_text, last_hash, text = (
            _text(data[name]) for name in (b"rules_version", b"version", b"hash", b"state")
        )
        if rules_version != game.rules_version:
            return None
        if version_text is None or not (version_text.isascii() and version_text.isdecimal()):
            return None
        if last_hash is None or text is None:
            return None
        version = int(version_text)
        expected = mac(self._secret, game_id, version, rules_version, last_hash, text)
        if not hmac.compare_digest(expected.encode("ascii"), data[b"mac"]):
            log.debug("game %s: a snapshot of another secret, game or version", game_id)
            return None
        return self._state(game_id, version, last_hash, text, game)

    @staticmethod
    def _state(
        game_id: str, version: int, last_hash: str, text: str, game: Game[Any, Any]
    ) -> Snapshot | None:
        """The state of an authentic snapshot; None (and a warning: this process's own
        snapshot should always read back) when the game's codec refuses it."""
        try:
            state = game.decode_state(json.loads(text))
        except (ValueError, RecursionError) as error:  # CodecError and bad JSON alike
            log.warning("game %s: snapshot at %d refused: %s", game_id, version, error)
            return None
        return Snapshot(version, state, last_hash)

    def save(self, game_id: str, game: Game[Any, Any], snapshot: Snapshot) -> None:
        """Keep `snapshot` (the state at its version, folded by `game`'s rules); a state
        the codec cannot write is only logged: the append it follows has succeeded."""
        try:
            text = canonical_json(game.encode_state(snapshot.state))
        except (TypeError, ValueError):  # CodecError, or a value JSON cannot write
            log.exception("game %s: the state at %d cannot be snapshot", game_id, snapshot.version)
            return
        rules_version = game.rules_version
        fields = {
            "version": snapshot.version,
            "rules_version": rules_version,
            "hash": snapshot.last_hash,
            "state": text,
            "mac": mac(
                self._secret, game_id, snapshot.version, rules_version, snapshot.last_hash, text
            ),
        }
        self._save(
            keys=[keys.snapshot(game_id), keys.meta(game_id)],
            args=[value for pair in fields.items() for value in pair],
        )

    def delete_all(self) -> int:
        """Drop every game's snapshot (only the time to the next answer changes)."""
        doomed = list(self.redis.scan_iter(match=keys.SNAPSHOT_PATTERN, count=1000))
        if doomed:
            self.redis.delete(*doomed)
        return len(doomed)


def _text(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
