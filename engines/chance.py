"""The game PRNG: counter-based, keyed by the game seed, the same on every Python.

Algorithm ``tourney-prng-v1`` (docs/log-format.md restates it for outside checkers):

* block(k) = SHA-256( "tourney-prng-v1" 0x00 seed 0x00 stream(8 bytes, big-endian)
  counter(8 bytes, big-endian) ), for counter k = 0, 1, 2, ...
* each block gives four 64-bit words (big-endian), used in order;
* ``below(n)`` draws words until one is below 2^64 - (2^64 mod n) and returns it mod n
  (rejection sampling: no modulo bias);
* ``shuffle`` is Fisher-Yates from the last position down: for i = len-1 .. 1,
  j = below(i + 1), swap items i and j.

A game's k-th chance step (k = 0, 1, ...) draws from stream k, so every chance outcome
depends only on the seed and the step's position in the log (ruling ALL-2).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

ALGORITHM = "tourney-prng-v1"
_DOMAIN = ALGORITHM.encode("ascii") + b"\x00"
_TWO64 = 1 << 64
_WORDS = struct.Struct(">4Q").unpack  # a block's four big-endian 64-bit words

T = TypeVar("T")


class Prng:
    """A deterministic stream of random numbers for one chance step."""

    __slots__ = ("_counter", "_prefix", "_words")

    def __init__(self, seed: str, stream: int) -> None:
        base = hashlib.sha256(_DOMAIN)
        base.update(seed.encode("utf-8") + b"\x00" + stream.to_bytes(8, "big"))
        self._prefix = base
        self._counter = 0
        self._words: list[int] = []

    def next_u64(self) -> int:
        """The next 64-bit word of the stream."""
        if not self._words:
            block = self._prefix.copy()
            block.update(self._counter.to_bytes(8, "big"))
            self._counter += 1
            # Reversed so that pop() hands out the words in block order.
            self._words = [*_WORDS(block.digest())][::-1]
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        limit = _TWO64 - (_TWO64 % n)
        while True:
            word = self.next_u64()
            if word < limit:
                return word % n

    def choice(self, items: Sequence[T]) -> T:
        """One item, uniformly."""
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place (Fisher-Yates, last position first)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A shuffled copy of ``items``."""
        out = list(items)
        self.shuffle(out)
        return out

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """``k`` distinct items in draw order (the first ``k`` of a partial shuffle)."""
        pool = list(items)
        out = []
        for _ in range(k):
            out.append(pool.pop(self.below(len(pool))))
        return out
