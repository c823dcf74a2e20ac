"""The game log's proofs, pure and documented (docs/export-format.md):

* canonical JSON — the exact bytes that are hashed and stored;
* the hash chain — each record's hash is SHA-256(previous hash ‖ record bytes), starting
  from SHA-256(game id), so changing, removing or inserting any event breaks the chain;
* provably fair deals — the server commits to SHA-256(server seed) in the first event and
  reveals the seed when the game ends; the deal key mixes the server seed with every
  player's client seed, so neither side alone could have chosen the cards.
"""

import hashlib
import json
from collections.abc import Sequence
from typing import Any

DEAL_KEY_LABEL = b"cardtrail/deal/v1"


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def record_bytes(event: dict[str, Any], command: dict[str, Any] | None) -> bytes:
    """What one log entry commits to: the event, and the command that opened its batch."""
    record: dict[str, Any] = {"event": event}
    if command is not None:
        record["command"] = command
    return canonical_json(record).encode("utf-8")


def chain_start(game_id: str) -> str:
    return hashlib.sha256(game_id.encode("utf-8")).hexdigest()


def chain(previous_hash: str, record: bytes) -> str:
    return hashlib.sha256(bytes.fromhex(previous_hash) + record).hexdigest()


def commitment(server_seed: str) -> str:
    return hashlib.sha256(server_seed.encode("utf-8")).hexdigest()


def deal_key(server_seed: str, client_seeds: Sequence[str | None]) -> bytes:
    """SHA-256(label ‖ server seed ‖ for each seat: 0x00 ‖ its client seed or nothing)."""
    digest = hashlib.sha256(DEAL_KEY_LABEL + server_seed.encode("utf-8"))
    for seed in client_seeds:
        digest.update(b"\x00" + (seed or "").encode("utf-8"))
    return digest.digest()
