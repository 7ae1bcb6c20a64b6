"""Where every place of the board is drawn: a 15 x 15 cross, computed from board.py.

The page draws the board from `board_layout()` and never knows a rule: it asks where a
(colour, progress) pair is, which colour a ring cell has, and which cells are pads,
jumps and crossings. The ring runs clockwise around the cross like a Ludo track; each
colour's home lane is the middle row of its own arm and its hangar the corner before it.
"""

from __future__ import annotations

from typing import Any, Final

from . import board
from .board import COLOURS, RING_SIZE

SIZE: Final = 15
"""The board is SIZE x SIZE cell units; a point is the centre of a place, in those units."""

Point = tuple[float, float]


def _track() -> list[Point]:
    """The 52 ring cells of a 15 x 15 cross, clockwise from the left arm's top row."""
    cells: list[Point] = []
    cells += [(x, 6) for x in range(1, 6)]  # left arm, top row, going right
    cells += [(6, y) for y in range(5, -1, -1)]  # top arm, left column, going up
    cells += [(7, 0), (8, 0)]  # top tip
    cells += [(8, y) for y in range(1, 6)]  # top arm, right column, going down
    cells += [(x, 6) for x in range(9, 15)]  # right arm, top row, going right
    cells += [(14, 7), (14, 8)]  # right tip
    cells += [(x, 8) for x in range(13, 8, -1)]  # right arm, bottom row, going left
    cells += [(8, y) for y in range(9, 15)]  # bottom arm, right column, going down
    cells += [(7, 14), (6, 14)]  # bottom tip
    cells += [(6, y) for y in range(13, 8, -1)]  # bottom arm, left column, going up
    cells += [(x, 8) for x in range(5, -1, -1)]  # left arm, bottom row, going left
    cells += [(0, 7), (0, 6)]  # left tip
    assert len(cells) == RING_SIZE
    return [(float(x), float(y)) for x, y in cells]


TRACK: Final = _track()
TRACK_OFFSET: Final = 1
"""Drawing index of ring cell 0: puts every colour's turn cell (progress 50) on an arm tip."""

ARM_DIRECTION: Final = ((-1, 0), (0, -1), (1, 0), (0, 1))
"""Per seat, the direction from the centre out along its home arm (red left, then clockwise)."""

CENTRE_POINT: Final = (7.0, 7.0)


def ring_point(cell: int) -> Point:
    return TRACK[(cell + TRACK_OFFSET) % RING_SIZE]


def _rotate(seat: int, point: Point) -> Point:
    """Rotate a point given for seat 0 (red, left arm) a quarter turn clockwise per seat."""
    x, y = point
    for _ in range(seat):
        x, y = SIZE - 1 - y, x
    return (x, y)


def hangar_slots(seat: int) -> list[Point]:
    """Planes 1-4 in reading order (left to right, then top to bottom) whichever corner
    the hangar is in: keys 1-4 pick the same place in every colour's hangar."""
    corner = [_rotate(seat, point) for point in ((1.5, 1.5), (3.5, 1.5), (1.5, 3.5), (3.5, 3.5))]
    return sorted(corner, key=lambda point: (point[1], point[0]))


def takeoff_point(seat: int) -> Point:
    """Just outside the ring, beside the colour's first ring cell (red's is at (2, 6))."""
    return _rotate(seat, (2.0, 5.0))


def lane_point(seat: int, progress: int) -> Point:
    """Lane cells 51..55 step from the arm tip towards the centre; 56 is the centre."""
    dx, dy = ARM_DIRECTION[seat]
    steps = board.CENTRE - progress
    if progress == board.CENTRE:
        return (CENTRE_POINT[0] + 0.55 * dx, CENTRE_POINT[1] + 0.55 * dy)
    return (CENTRE_POINT[0] + (steps + 1) * dx, CENTRE_POINT[1] + (steps + 1) * dy)


def point_of(seat: int, progress: int, plane: int = 0) -> Point:
    """Where a plane of `seat` at `progress` is drawn (the hangar needs the plane index)."""
    if progress == board.HANGAR:
        return hangar_slots(seat)[plane]
    if progress == board.TAKEOFF:
        return takeoff_point(seat)
    if board.is_on_ring(progress):
        return ring_point(board.ring_index(seat, progress))
    return lane_point(seat, progress)


def flight_curve(seat: int) -> dict[str, Point]:
    """The flight line: from the pad to its target, bending through the crossing cell.

    A quadratic curve through the crossing cell at its middle has its control point at
    twice the crossing minus the midpoint of the ends."""
    start = point_of(seat, board.LAUNCH_PAD)
    end = point_of(seat, board.FLIGHT_TARGET)
    crossing = lane_point(board.opposite_seat(seat), board.CROSSING)
    middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    control = (2 * crossing[0] - middle[0], 2 * crossing[1] - middle[1])
    return {"start": start, "control": control, "end": end, "crossing": crossing}


def board_layout() -> dict[str, Any]:
    """Everything the page needs to draw the board and place planes, as JSON-ready data."""
    ring = []
    for cell in range(RING_SIZE):
        colour = board.ring_cell_colour(cell)
        seat = board.SEAT[colour]
        progress = board.progress_at(seat, cell)
        ring.append(
            {
                "cell": cell,
                "point": ring_point(cell),
                "colour": colour,
                "pad": progress == board.LAUNCH_PAD,
                "jump": progress in board.JUMP_FROM,
                "turn": progress == board.RING_LAST,
            }
        )
    colours = {}
    for seat, colour in enumerate(COLOURS):
        colours[colour] = {
            "seat": seat,
            "hangar": hangar_slots(seat),
            "takeoff": takeoff_point(seat),
            "lane": [lane_point(seat, p) for p in range(board.LANE_FIRST, board.CENTRE + 1)],
            "flight": flight_curve(seat),
            "crossing": lane_point(seat, board.CROSSING),
            "arm": ARM_DIRECTION[seat],
            "ring": [point_of(seat, p) for p in range(board.RING_FIRST, board.RING_LAST + 1)],
        }
    return {
        "size": SIZE,
        "centre": CENTRE_POINT,
        "ring": ring,
        "colours": colours,
        "progress": {
            "hangar": board.HANGAR,
            "takeoff": board.TAKEOFF,
            "ring_last": board.RING_LAST,
            "lane_first": board.LANE_FIRST,
            "centre": board.CENTRE,
            "launch_pad": board.LAUNCH_PAD,
            "flight_target": board.FLIGHT_TARGET,
            "crossing": board.CROSSING,
        },
    }
