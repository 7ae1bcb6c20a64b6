"""Board geometry as data: colours, progress values, ring cells, own-colour cells, pad, crossing.

Every position is a plane's *progress* counted from its own colour's start (docs/rules.md
section 1), so the rules never mention a seat; this module is the one place that turns
progress into shared ring cells. Tables are computed once at import.
"""

from __future__ import annotations

from typing import Final

COLOURS: Final = ("red", "yellow", "blue", "green")
"""The four colours in clockwise seat order; a colour's seat is its index here."""

SEAT: Final = {colour: seat for seat, colour in enumerate(COLOURS)}

PLANES_PER_COLOUR: Final = 4
HANGAR: Final = -1
TAKEOFF: Final = 0
RING_FIRST: Final = 1
RING_LAST: Final = 50
"""The turn cell: the last ring cell before the colour's home lane."""
LANE_FIRST: Final = 51
LANE_LAST: Final = 55
CENTRE: Final = 56
RING_SIZE: Final = 52
ARM_OFFSET: Final = 13
"""Ring cells between one colour's start and the next colour's start."""

LAUNCH_PAD: Final = 18
FLIGHT_TARGET: Final = 30
CROSSING: Final = 53
"""Progress of the lane cell that the flight line of the opposite colour crosses."""
JUMP_DISTANCE: Final = 4

OWN_CELLS: Final = tuple(range(2, RING_LAST + 1, 4))
"""Progress values of a colour's own-coloured ring cells: 2, 6, ..., 50."""

JUMP_FROM: Final = frozenset(p for p in OWN_CELLS if p not in (LAUNCH_PAD, RING_LAST))
"""Own cells from which a plane jumps 4 on (every own cell but the pad and the turn cell)."""


def is_on_ring(progress: int) -> bool:
    return RING_FIRST <= progress <= RING_LAST


def is_in_lane(progress: int) -> bool:
    return LANE_FIRST <= progress <= LANE_LAST


def ring_index(seat: int, progress: int) -> int:
    """The shared ring cell (0..51) under a plane of `seat` at ring progress 1..50."""
    if not is_on_ring(progress):
        raise ValueError(f"progress {progress} is not on the ring (1..{RING_LAST})")
    return (ARM_OFFSET * seat + progress - 1) % RING_SIZE


def ring_cell_colour(cell: int) -> str:
    """The colour painted on ring cell `cell` (0..51)."""
    return COLOURS[(cell - 1) % len(COLOURS)]


def progress_at(seat: int, cell: int) -> int:
    """The ring progress (1..50, or 51/52 for cells a colour never reaches) of `cell` for `seat`."""
    return (cell - ARM_OFFSET * seat) % RING_SIZE + 1


def opposite_seat(seat: int) -> int:
    return (seat + 2) % len(COLOURS)


RING_INDEX: Final = tuple(
    tuple(ring_index(seat, p) if is_on_ring(p) else -1 for p in range(CENTRE + 1)) for seat in range(len(COLOURS))
)
"""RING_INDEX[seat][progress]: the ring cell, or -1 off the ring (hot-path table)."""

SAME_CELL: Final = tuple(
    tuple(
        tuple(
            progress_at(other, RING_INDEX[seat][p])
            if is_on_ring(p) and is_on_ring(progress_at(other, RING_INDEX[seat][p]))
            else -1
            for p in range(CENTRE + 1)
        )
        for other in range(len(COLOURS))
    )
    for seat in range(len(COLOURS))
)
"""SAME_CELL[seat][other][p]: the progress at which a plane of `other` shares the ring cell
of a `seat` plane at progress p, or -1 when it never can (off the ring, or the two ring
cells just before `other`'s start, which `other` never enters)."""
