"""Deterministic, documented shuffling keyed by HMAC-SHA256.

Python's `random` is not a stable contract across versions, so deals come from
this module alone. The algorithm (documented in docs/dealing.md so anyone can
re-implement it):

* A byte stream for (key, label) is HMAC-SHA256(key, f"{label}:{i}") for
  i = 0, 1, 2, … concatenated; it is read 4 bytes at a time as big-endian
  unsigned 32-bit integers.
* `uniform(n)` draws x from the stream until x < 2**32 - (2**32 % n) (rejection
  removes modulo bias) and returns x % n.
* `shuffle` is Fisher–Yates: for i from len-1 down to 1, j = uniform(i + 1),
  swap items i and j.
"""

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
_TWO32 = 2**32


def seed_key(seed: str) -> bytes:
    """The HMAC key for a textual game seed."""
    return hashlib.sha256(seed.encode("utf-8")).digest()


class KeyedStream:
    """Uniform integers drawn from the HMAC byte stream of (key, label)."""

    def __init__(self, key: bytes, label: str) -> None:
        self._words = self._generate(key, label)

    @staticmethod
    def _generate(key: bytes, label: str) -> Iterator[int]:
        block = 0
        while True:
            digest = hmac.new(key, f"{label}:{block}".encode(), hashlib.sha256).digest()
            yield from struct.unpack(">8I", digest)
            block += 1

    def uniform(self, n: int) -> int:
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _TWO32 - (_TWO32 % n)
        while True:
            x = next(self._words)
            if x < limit:
                return x % n


def shuffle(items: Sequence[T], key: bytes, label: str) -> tuple[T, ...]:
    """Fisher–Yates shuffle of `items` driven by the keyed stream."""
    stream = KeyedStream(key, label)
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = stream.uniform(i + 1)
        result[i], result[j] = result[j], result[i]
    return tuple(result)


def derive_hex(key: bytes, label: str) -> str:
    """A sub-key for one purpose (e.g. one hand's reshuffles), safe to reveal alone."""
    return hmac.new(key, label.encode(), hashlib.sha256).hexdigest()
