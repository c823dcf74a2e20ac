"""The server's signing key, and the receipts it signs.

Every answer that appends to or shows a game carries a receipt: the game, a version,
the chain hash at that version, the key's id and an Ed25519 signature over
`engine.ledger.receipt_message`. A player who keeps their receipts can later prove what
the server showed them: a history rewritten in the store no longer has those hashes.

The key lives in a PEM file readable by its owner only (`CARDTRAIL_SIGNING_KEY_FILE`;
`cardtrail serve` keeps one in its data directory), created on first use. Without one,
a process signs with a key of its own that dies with it. Every key that ever signed is
listed in Redis (`KeyRing`), so receipts stay verifiable after a key is rotated.
"""

import hashlib
import hmac
import json
import os
import time
from pathlib import Path
from typing import Any

import redis
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine import ledger
from service import keys

ALGORITHM = "Ed25519"
KEY_FILE_ENV = "CARDTRAIL_SIGNING_KEY_FILE"


class Signer:
    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._key = private_key
        self.public_key = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.key_id = ledger.key_id(self.public_key)

    def receipt(self, game_id: str, version: int, chain_hash: str) -> dict[str, Any]:
        message = ledger.receipt_message(game_id, version, chain_hash, self.key_id)
        return {
            "game": game_id,
            "version": version,
            "hash": chain_hash,
            "key_id": self.key_id,
            "signature": self._key.sign(message).hex(),
        }

    def secret(self, purpose: str) -> bytes:
        """A secret of this key's for `purpose` (e.g. authenticating snapshots), so that
        every process holding the key derives the same one and nobody else can."""
        raw = self._key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        return hmac.new(raw, b"cardtrail/" + purpose.encode(), hashlib.sha256).digest()

    def public(self) -> dict[str, Any]:
        return {"key_id": self.key_id, "algorithm": ALGORITHM, "public_key": self.public_key.hex()}


def load_or_create(path: str | os.PathLike[str]) -> Signer:
    """The key in `path` (PEM, PKCS #8), made there (mode 0600) if there is none yet.

    Several processes may start at once: the key is written to a private temporary file
    and linked into place, so exactly one key wins and every process reads that one."""
    target = Path(path)
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)
        try:
            os.link(temporary, target)
        except FileExistsError:
            pass  # another process made it first: use theirs
        finally:
            temporary.unlink()
    loaded = serialization.load_pem_private_key(target.read_bytes(), password=None)
    if not isinstance(loaded, Ed25519PrivateKey):
        raise ValueError(f"{target} does not hold an Ed25519 private key")
    return Signer(loaded)


def ephemeral() -> Signer:
    """A key for this process only (when no key file is configured)."""
    return Signer(Ed25519PrivateKey.generate())


def configured() -> Signer | None:
    """The key CARDTRAIL_SIGNING_KEY_FILE names (made there if need be), or None."""
    path = os.environ.get(KEY_FILE_ENV)
    return load_or_create(path) if path else None


class KeyRing:
    """Every public key that ever signed a receipt here, by key id (GET /keys)."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    def register(self, signer: Signer) -> None:
        entry = {**signer.public(), "since": round(time.time(), 3)}
        self.redis.hsetnx(keys.SIGNING_KEYS, signer.key_id, json.dumps(entry))

    def all(self) -> list[dict[str, Any]]:
        found = [json.loads(raw) for raw in self.redis.hvals(keys.SIGNING_KEYS)]
        return sorted(found, key=lambda entry: (entry.get("since", 0), entry["key_id"]))
