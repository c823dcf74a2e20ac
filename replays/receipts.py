"""Receipts: what a player was shown, signed by the server, checked against a game's log.

A receipt `{game, version, hash, key_id, signature}` says the server showed the game at
`version` with the chain hash `hash` there; the signature (Ed25519, by the key named
`key_id`) covers `engine.ledger.receipt_message`. A log rewritten after a receipt was
issued no longer has that hash at that version, however well its chain was recomputed:
the audit names the first receipt it contradicts. docs/audit.md has the details.
"""

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from engine import ledger
from replays.verdict import Entry, Verdict

FIELDS = ("game", "version", "hash", "key_id", "signature")


class BadReceipts(ValueError):
    """A receipts file or keys file that cannot be read."""


def parse_receipts(lines: Iterable[str | bytes]) -> list[dict[str, Any]]:
    """One receipt per line, as the API returns them; blank lines are skipped."""
    receipts = []
    for number, line in enumerate(lines, start=1):
        text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
        if not text.strip():
            continue
        try:
            receipt = json.loads(text)
        except ValueError as error:
            raise BadReceipts(f"receipts line {number} is not JSON ({error})") from None
        if not isinstance(receipt, dict):
            raise BadReceipts(f"receipts line {number} is not a receipt")
        receipts.append(receipt)
    return receipts


def parse_keys(data: Any) -> dict[str, bytes]:
    """key id -> raw public key, from `GET /keys`'s answer or an export header's `keys`."""
    entries = data.get("keys", []) if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise BadReceipts("the keys are not a list")
    found = {}
    for entry in entries:
        try:
            raw = bytes.fromhex(entry["public_key"])
        except (TypeError, KeyError, ValueError):
            raise BadReceipts(f"a key is unreadable: {entry!r}") from None
        if entry.get("algorithm", "Ed25519") == "Ed25519" and len(raw) == 32:
            found[ledger.key_id(raw)] = raw  # named by its own digest, not by its claim
    return found


def refusal(receipt: Mapping[str, Any], game_id: str, keys: Mapping[str, bytes]) -> str | None:
    """Why `receipt` is not a valid receipt of this game by one of `keys`, or None."""
    if not all(name in receipt for name in FIELDS):
        return "it lacks " + ", ".join(name for name in FIELDS if name not in receipt)
    version, chain_hash, signer = receipt["version"], receipt["hash"], receipt["key_id"]
    if receipt["game"] != game_id:
        return f"it is a receipt of game {receipt['game']!r}, not of this one"
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        return "its version is not a number"
    if not isinstance(chain_hash, str) or not isinstance(signer, str):
        return "its hash or key id is not text"
    public = keys.get(signer)
    if public is None:
        return f"it is signed by key {signer!r}, which is not among the server's keys"
    try:
        signature = bytes.fromhex(str(receipt["signature"]))
        message = ledger.receipt_message(game_id, version, chain_hash, signer)
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (ValueError, InvalidSignature):
        return "its signature does not verify: it was altered, or not issued by that key"
    return None


def check(
    game_id: str,
    entries: Sequence[Entry],
    receipts: Sequence[Mapping[str, Any]],
    keys: Mapping[str, bytes],
    verdict: Verdict,
) -> bool:
    """Every receipt valid and matching the log; else fail `verdict` naming the first."""
    verdict.receipts = len(receipts)
    for index, receipt in enumerate(receipts, start=1):
        why = refusal(receipt, game_id, keys)
        version = receipt.get("version") if isinstance(receipt.get("version"), int) else None
        if why is not None:
            verdict.fail(version, f"receipt {index} is not valid: {why}")
            return False
        assert version is not None
        logged = ledger.chain_start(game_id) if version == 0 else None
        if 0 < version <= len(entries):
            logged = entries[version - 1].hash
        if logged is None:
            verdict.fail(
                version,
                f"receipt {index} was issued at version {version}, but the log "
                f"ends at {len(entries)}: events the player was shown are missing",
            )
            return False
        if logged != receipt["hash"]:
            verdict.fail(
                version,
                f"receipt {index} contradicts the log at version {version}: "
                "this is not the history the server showed the receipt's holder",
            )
            return False
    verdict.checks["receipts"] = True
    return True
