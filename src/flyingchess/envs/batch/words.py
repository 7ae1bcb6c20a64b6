"""One player's four planes as the four bytes of a uint32 word: the batch simulator's bit
tricks, its array types and the small tables its hot path indexes.

The tables are indexed by a plane's progress byte (the hangar, -1, is byte 255), by an
action, or by plane bits (bit i: plane i); byte-wise comparisons use the usual carry-free
tricks, so one word per game stands for four planes.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from ...engine.board import CENTRE, PLANES_PER_COLOUR

PASS_ACTION: Final = PLANES_PER_COLOUR
"""Actions 0..3 move that plane (any plane of a stack names the stack); action 4 passes
(legal only when no plane may move). Every environment and the simulator number them so."""
ACTIONS: Final = PLANES_PER_COLOUR + 1

Int8s = npt.NDArray[np.int8]
UInt8s = npt.NDArray[np.uint8]
Words = npt.NDArray[np.uint32]
Bools = npt.NDArray[np.bool_]
Indices = npt.NDArray[np.intp]

ROLL_SLOTS: Final = 7
"""Roll values 0..6 (0 unused): the inner index of a path."""
PATHS: Final = 256 * ROLL_SLOTS
"""Paths of one player, indexed (progress byte) * 7 + roll; the hangar's byte is 255."""
NO_TARGET: Final = 0x7F
"""A progress no plane ever has: a capture target that hits nothing."""
ONES: Final = np.uint32(0x01010101)
"""Multiplying a byte by this repeats it in all four bytes of a word."""
LOW_7: Final = np.uint32(0x7F7F7F7F)
HIGH_1: Final = np.uint32(0x80808080)
BYTE_WEIGHTS: Final = np.uint32(0x01020408)
"""(a word of 0/1 bytes) * this >> 24 = b0 + 2 b1 + 4 b2 + 8 b3: the word's plane bits."""
ALL_CENTRE: Final = np.uint32(CENTRE * 0x01010101)
"""Four planes in the centre."""
PLANE_IDS: Final = np.arange(PLANES_PER_COLOUR, dtype=np.uint8)
CHOICES: Final = 12
"""A uniform pick in 0..11 chooses uniformly among 1, 2, 3 or 4 legal moves."""
DRAWS: Final = 6 * CHOICES
"""The fast random step draws one number 0..71 per game: die = draw // 12 + 1 and
pick = draw % 12 are independent and uniform."""


def _byte_masks() -> Words:
    """BYTE_MASKS[bits]: the word with byte i all ones for each plane bit i (0..15)."""
    return np.array([sum(0xFF << (8 * i) for i in range(4) if bits >> i & 1) for bits in range(16)], np.uint32)


def _choice_table() -> Indices:
    """CHOICE_TABLE[bits * 72 + draw]: the plane that pick draw % 12 chooses among the
    planes in `bits` (PASS_ACTION when there are none)."""
    table = np.full(16 * DRAWS, PASS_ACTION, np.intp)
    for bits in range(1, 16):
        planes = [plane for plane in range(PLANES_PER_COLOUR) if bits >> plane & 1]
        for draw in range(DRAWS):
            table[bits * DRAWS + draw] = planes[draw % CHOICES * len(planes) // CHOICES]
    return table


BYTE_MASKS: Final = _byte_masks()
ACTION_MASKS: Final = np.append(BYTE_MASKS[[1, 2, 4, 8]], np.uint32(0))
"""ACTION_MASKS[action]: the byte of the named plane (none for a pass)."""
ACTION_BITS: Final = np.array([1, 2, 4, 8, 0], np.uint8)
ACTION_SHIFTS: Final = np.array([0, 8, 16, 24, 0], np.uint32)
"""ACTION_SHIFTS[action]: where the named plane's byte is in the word."""
CHOICE_TABLE: Final = _choice_table()
DIE_OF_DRAW: Final = np.arange(DRAWS, dtype=np.intp) // CHOICES + 1


def as_indices(values: npt.ArrayLike) -> Indices:
    """Rolls or actions as index integers (table look-ups with them are the fastest)."""
    return np.asarray(values).astype(np.intp)


def equal_bytes(words: Words, other: Words | np.uint32) -> Words:
    """0xFF in each byte where the two words hold the same byte, else 0 (exact, no carries)."""
    x = words ^ other
    clear = ~(((x & LOW_7) + LOW_7) | x) & HIGH_1
    return (clear >> np.uint32(7)) * np.uint32(0xFF)


def has_equal_byte(words: Words, other: Words) -> Bools:
    """Whether the two words hold the same byte anywhere: exact, and cheaper than
    `equal_bytes` (a borrow may mark a wrong byte, but never a word without a match)."""
    x = words ^ other
    found: Bools = ((x - ONES) & ~x & HIGH_1) != 0
    return found


def plane_bits(byte_masks: Words) -> UInt8s:
    """The plane bits (0..15) of words whose bytes are 0x00 or 0xFF (or 0 and 1)."""
    return (((byte_masks & ONES) * BYTE_WEIGHTS) >> np.uint32(24)).astype(np.uint8)


def bool_bits(planes: Bools) -> UInt8s:
    """The plane bits of each row of a bool [B, 4] array."""
    return plane_bits(np.ascontiguousarray(planes).view(np.uint32).reshape(-1))


def bits_to_bools(bits: UInt8s) -> Bools:
    return ((bits[:, None] >> PLANE_IDS) & 1).astype(np.bool_)
