"""Sealing a game that ended: its whole log into the archive store, out of Redis.

The log is the truth and is kept, but not in RAM: once a game is over (finished, forfeited
or abandoned) a background job writes its log as one archive (`service.archives`), reads
it back and checks it, records a tombstone in the table (where the archive is, its digest,
the version and chain head), and only then drops the hot keys: the stream, the snapshot,
the clock and the move idempotency keys. Each step can be repeated: a job killed after
any of them and run again finds what was done and goes on, so there is always exactly
one verified archive and no lost event. A game still in play is never sealed.
"""

import os
import signal
from dataclasses import dataclass

import redis

from engine.events import SEED_REVEALED
from service import keys
from service.archives import ArchiveInfo, ArchiveStore, decode, digest_of, encode
from service.errors import Conflict
from service.repository import Loaded, Repository
from service.signing import KeyRing, Signer
from service.store import Record
from service.tables import Tombstone

STEPS = ("archived", "verified", "recorded", "purged")
KILL_AFTER_ENV = "CARDTRAIL_TEST_SEAL_KILL_AFTER"  # fault injection for the crash tests


@dataclass(frozen=True)
class Outcome:
    game_id: str
    result: str  # "sealed", "already_sealed", "not_ended"
    archive_bytes: int = 0


def ended(loaded: Loaded, records: list[Record]) -> bool:
    """The game is over and nothing more will be written to its log: finished (a
    forfeit too), or abandoned, its seed revealed (the last thing a closed table logs)."""
    if loaded.table.status == "abandoned":
        return bool(records) and records[-1].event["type"] == SEED_REVEALED
    return loaded.game.is_finished(loaded.state)


class Sealing:
    def __init__(self, repository: Repository, keyring: KeyRing, store: ArchiveStore) -> None:
        self.repository = repository
        self.tables = repository.tables
        self.keyring = keyring
        self.store = store

    def seal(self, game_id: str) -> Outcome:
        outcome = self._seal(game_id)
        self.repository.redis.zrem(keys.SEALS_DUE, game_id)  # sealed, or not to be
        return outcome

    def _seal(self, game_id: str) -> Outcome:
        table = self.tables.get(game_id)
        if table.archive is not None:  # recorded before: check it, then finish the job
            self.repository.sealed.read(game_id, table.archive)  # ArchiveCorrupt if it is not
            self.tables.purge(game_id)
            _step("purged")
            return Outcome(game_id, "already_sealed", 0)
        loaded = self.repository.load(game_id)
        records = self.repository.events.records(game_id)
        if not ended(loaded, records):
            return Outcome(game_id, "not_ended")
        if len(records) != loaded.version:
            raise Conflict("log_changed", f"The log of {game_id!r} changed while sealing.")
        info = _info(loaded, records)
        blob = encode(info, self._keys(), records)
        digest = digest_of(blob)
        location = self.store.put(info, blob, digest)
        _step("archived")
        sealed = decode(game_id, self.store.get(location), digest)
        if sealed.records() != records:
            raise Conflict("archive_differs", f"The archive of {game_id!r} differs from its log.")
        _step("verified")
        tombstone = Tombstone(self.store.kind, location, digest, info.version, info.head)
        if not self.tables.seal(game_id, tombstone):
            raise Conflict("log_changed", f"The log of {game_id!r} changed while sealing.")
        _step("recorded")
        self.repository.sealed.decoded.put(game_id, sealed)
        self.tables.purge(game_id)
        _step("purged")
        return Outcome(game_id, "sealed", len(blob))

    def _keys(self) -> dict[str, str]:
        """The public keys that signed this server's receipts, so the archive alone
        lets anyone check a player's receipts."""
        return {key["key_id"]: key["public_key"] for key in self.keyring.all()}


def seal_all_finished(
    client: redis.Redis, store: ArchiveStore, signer: Signer | None = None
) -> dict[str, int]:
    """Seal every game the status indexes list as finished or abandoned whose log is
    still in Redis (a store kept from before sealing existed): how many of each outcome."""
    repository = Repository(client, signer.secret("snapshots") if signer else None, store)
    sealing = Sealing(repository, KeyRing(client), store)
    counts: dict[str, int] = {}
    for status in ("finished", "abandoned"):
        for raw in client.zscan_iter(keys.games_by_status(status), count=500):
            game_id = raw[0].decode()
            if repository.tables.tombstone(game_id) is None:
                outcome = sealing.seal(game_id).result
                counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def _info(loaded: Loaded, records: list[Record]) -> ArchiveInfo:
    table = loaded.table
    stamps = [record.at for record in records if record.at]
    result = loaded.state.result
    return ArchiveInfo(
        game_id=table.id,
        game=table.game,
        preset=table.preset,
        players=tuple(sorted(table.players_here())),
        names=tuple(table.names()),
        status="abandoned" if table.status == "abandoned" else "finished",  # as `ended` found it
        result=dict(result) if result else None,
        created=table.created,
        finished=float(stamps[-1]) if stamps else table.created,
        version=loaded.version,
        head=loaded.last_hash,
    )


def _step(name: str) -> None:
    """The crash tests' hook: the process dies at once after the named step."""
    if os.environ.get(KILL_AFTER_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
