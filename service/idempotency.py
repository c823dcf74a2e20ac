"""Idempotency-Key for the requests that hand out seat tokens: creating and joining a game.

A move's key is kept inside the game's append (`service.store`), atomically with the
events. A create or a join is not one append, so its key is claimed first (SET NX, with
a short life: a crashed request frees its key), the request runs once, and its answer is
kept for the key's lifetime. A repeat with the same key and the same request gets that
answer again; the same key with another request is refused (422), and a repeat while the
first is still running is told to retry (409).

Those answers hold seat tokens, and the server otherwise keeps only their digests
(`service.auth`). So an answer is kept sealed with AES-GCM under a key derived from the
Idempotency-Key itself, which the server never stores: only whoever holds the
Idempotency-Key can read the answer, whoever can read Redis cannot.
"""

import base64
import hashlib
import json
import secrets
from collections.abc import Callable
from typing import Any

import redis
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from service.errors import Conflict, Refused
from service.store import IDEMPOTENCY_TTL

CLAIM_S = 60  # how long a claimed key waits for its request's answer before it is free again
Answer = dict[str, Any]


def lookup_digest(key: str) -> str:
    """The key's name in Redis: a digest that reveals neither the key nor the sealing key."""
    return hashlib.sha256(b"cardtrail idempotency lookup\0" + key.encode()).hexdigest()


def fingerprint(request: Any) -> str:
    """A digest of the request as canonical JSON: what "the same request" means."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _sealing_key(key: str) -> bytes:
    return hashlib.sha256(b"cardtrail idempotency seal\0" + key.encode()).digest()


def seal(key: str, answer: Answer) -> str:
    nonce = secrets.token_bytes(12)
    sealed = AESGCM(_sealing_key(key)).encrypt(nonce, json.dumps(answer).encode(), None)
    return base64.b64encode(nonce + sealed).decode()


def unseal(key: str, text: str) -> Answer:
    raw = base64.b64decode(text)
    answer: Answer = json.loads(AESGCM(_sealing_key(key)).decrypt(raw[:12], raw[12:], None))
    return answer


class KeptAnswers:
    """Answers kept by Idempotency-Key, in the game store's Redis."""

    def __init__(self, client: redis.Redis, ttl: int = IDEMPOTENCY_TTL) -> None:
        self.redis = client
        self.ttl = ttl

    def once(
        self, where: Callable[[str], str], key: str, request: Any, make: Callable[[], Answer]
    ) -> Answer:
        """`make()`'s answer, made once per key: `where(digest)` names the key's record
        (service.keys), `request` is what must be the same for a repeat to be one."""
        name, asked = where(lookup_digest(key)), fingerprint(request)
        claim = json.dumps({"request": asked, "pending": True})
        while not self.redis.set(name, claim, nx=True, ex=CLAIM_S):
            kept = self.redis.get(name)
            if kept is not None:
                return self._repeat(key, json.loads(kept), asked)
        try:
            answer = make()
        except BaseException:
            self.redis.delete(name)  # refused or failed: nothing was given out, the key is free
            raise
        record = {"request": asked, "answer": seal(key, answer)}
        self.redis.set(name, json.dumps(record), ex=self.ttl)
        return answer

    @staticmethod
    def _repeat(key: str, record: dict[str, Any], asked: str) -> Answer:
        if record["request"] != asked:
            raise Refused(
                "idempotency_key_reused",
                "This Idempotency-Key was already used for a different request.",
                "Idempotency-Key",
            )
        if record.get("pending"):
            raise Conflict(
                "idempotency_key_in_use",
                "A request with this Idempotency-Key is still being answered; retry shortly.",
                "Idempotency-Key",
            )
        return unseal(key, record["answer"])
