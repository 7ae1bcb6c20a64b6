"""Where a room's die comes from.

The operating system's generator, read in blocks. `random.SystemRandom` asks the kernel
for every roll, and CPython lets go of the interpreter lock around that call: on a busy
server the event loop then waits for the database writer thread to hand the lock back,
once per roll. Reading 4 KB at a time keeps the same entropy source (and the same
unpredictability: nothing is derived, each roll consumes fresh kernel bytes) at the cost
of one kernel call per ~1,000 rolls.
"""

from __future__ import annotations

import os
import random
from typing import Any, NoReturn

BLOCK_BYTES = 4096


class EntropyDice(random.Random):
    """`random.SystemRandom` with a buffer: same source, no state to seed or restore."""

    def __init__(self, block_bytes: int = BLOCK_BYTES) -> None:
        self._block_bytes = block_bytes
        self._buffer = b""
        self._at = 0
        super().__init__()

    def _take(self, count: int) -> bytes:
        if self._at + count > len(self._buffer):
            self._buffer, self._at = os.urandom(max(self._block_bytes, count)), 0
        chunk = self._buffer[self._at : self._at + count]
        self._at += count
        return chunk

    def getrandbits(self, k: int) -> int:
        """k random bits (the only primitive `randint`, `randrange` and `choice` use)."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        count = (k + 7) // 8
        return int.from_bytes(self._take(count)) >> (count * 8 - k)

    def random(self) -> float:
        return (self.getrandbits(53)) * 2.0**-53

    def seed(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to seed: every value comes from the operating system."""

    def getstate(self) -> NoReturn:
        raise NotImplementedError("the operating system's generator has no state to save")

    def setstate(self, state: Any) -> NoReturn:
        raise NotImplementedError("the operating system's generator has no state to restore")
