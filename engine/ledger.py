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
DEAL_KEY_LABEL_V2 = b"cardtrail/deal/v2"
DEAL_KEY_VERSION = 2  # the encoding new games use; `players_seated.v` records it


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


def deal_key(
    server_seed: str, client_seeds: Sequence[str | None], encoding: int = DEAL_KEY_VERSION
) -> bytes:
    """The key every deck of a game is shuffled from (docs/dealing.md).

    Version 2 (every game seated since it exists) length-prefixes each part, so that no
    two lists of seeds give one key:
        SHA-256("cardtrail/deal/v2" ‖ u32(len server) ‖ server ‖ u32(seats) ‖
                for each seat: 0x00 (no seed) | 0x01 ‖ u32(len seed) ‖ seed)
    with u32 a big-endian unsigned 32-bit length, and every string UTF-8.
    Version 1 (older games; the `v` of their `players_seated` says so) separated seeds
    with 0x00 bytes, which a seed holding a 0x00 could imitate:
        SHA-256("cardtrail/deal/v1" ‖ server ‖ for each seat: 0x00 ‖ seed or nothing)
    """
    if encoding == 1:
        digest = hashlib.sha256(DEAL_KEY_LABEL + server_seed.encode("utf-8"))
        for seed in client_seeds:
            digest.update(b"\x00" + (seed or "").encode("utf-8"))
        return digest.digest()
    if encoding != 2:
        raise ValueError(f"unknown deal key encoding {encoding!r}")
    digest = hashlib.sha256(DEAL_KEY_LABEL_V2 + _prefixed(server_seed))
    digest.update(len(client_seeds).to_bytes(4, "big"))
    for seed in client_seeds:
        digest.update(b"\x00" if seed is None else b"\x01" + _prefixed(seed))
    return digest.digest()


def _prefixed(text: str) -> bytes:
    data = text.encode("utf-8")
    return len(data).to_bytes(4, "big") + data


# -- receipts -----------------------------------------------------------------

RECEIPT_LABEL = b"cardtrail/receipt/v1\n"


def key_id(public_key: bytes) -> str:
    """A signing key's name: the first 16 hex digits of SHA-256 of its raw public key."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def receipt_message(game_id: str, version: int, chain_hash: str, signer: str) -> bytes:
    """What a receipt's signature covers: that game `game_id` was at `version`, with the
    chain hash `chain_hash` there, as the key `signer` saw it (docs/audit.md).

        "cardtrail/receipt/v1\\n" ‖ canonical({"game", "hash", "key_id", "version"})
    """
    fields = {"game": game_id, "hash": chain_hash, "key_id": signer, "version": version}
    return RECEIPT_LABEL + canonical_json(fields).encode("utf-8")
