"""What the environments render: the position as text, or the board as an RGB image.

The image is drawn with NumPy alone from the page's own layout (`flyingchess.engine.layout`):
ring cells and lanes in their colours, hangars, and each plane as a disc of its colour
(a ring of white when several share a place, the count shown by rings). Small (one cell
is 16 pixels, 240 x 240 in all) and fast enough for `RecordVideo`.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from ..engine import board
from ..engine.board import COLOURS, RING_SIZE, SEAT
from ..engine.game import State
from ..engine.layout import CENTRE_POINT, SIZE, hangar_slots, lane_point, point_of, ring_point

RENDER_MODES: Final = ("human", "ansi", "rgb_array")
CELL: Final = 16
"""Pixels per board unit."""
RGB: Final = {
    "red": (229, 72, 77),
    "yellow": (245, 180, 0),
    "blue": (62, 99, 221),
    "green": (48, 164, 108),
}
LIGHT: Final = {
    "red": (253, 229, 228),
    "yellow": (255, 243, 201),
    "blue": (226, 232, 253),
    "green": (218, 242, 228),
}
PAPER: Final = (250, 248, 242)
INK: Final = (40, 44, 60)

Image = npt.NDArray[np.uint8]


def describe(state: State, observer: str | None = None) -> str:
    """The position in a few lines: whose turn and the die, then each colour's planes
    (progress: -1 hangar, 0 takeoff, 1-50 ring, 51-55 home lane, 56 centre)."""
    if state.over:
        ranking = ", ".join(state.ranking)
        head = f"game over: {state.winner} wins (ranking: {ranking})"
    else:
        colour = state.players[state.turn]
        die = f"rolled {state.roll}" if state.roll is not None else "to roll"
        sixes = f", {state.sixes} six{'es' if state.sixes != 1 else ''} in a row" if state.sixes else ""
        head = f"{colour} {die}{sixes}"
    rows = [head]
    for colour, planes in zip(state.players, state.planes):
        mark = " (you)" if colour == observer else ""
        finished = " finished" if colour in state.ranking else ""
        rows.append(f"{colour:>6}{mark}: {list(planes)}{finished}")
    return "\n".join(rows)


def _disc(image: Image, centre: tuple[float, float], radius: float, colour: tuple[int, int, int]) -> None:
    cx, cy = (centre[0] + 0.5) * CELL, (centre[1] + 0.5) * CELL
    top, bottom = max(int(cy - radius), 0), min(int(cy + radius) + 1, image.shape[0])
    left, right = max(int(cx - radius), 0), min(int(cx + radius) + 1, image.shape[1])
    ys, xs = np.ogrid[top:bottom, left:right]
    inside = (xs + 0.5 - cx) ** 2 + (ys + 0.5 - cy) ** 2 <= radius**2
    image[top:bottom, left:right][inside] = colour


def _square(image: Image, centre: tuple[float, float], colour: tuple[int, int, int], margin: int = 1) -> None:
    x, y = int(centre[0] * CELL), int(centre[1] * CELL)
    image[y + margin : y + CELL - margin, x + margin : x + CELL - margin] = colour


def _board() -> Image:
    image = np.empty((SIZE * CELL, SIZE * CELL, 3), np.uint8)
    image[:] = PAPER
    for cell in range(RING_SIZE):
        _square(image, ring_point(cell), RGB[board.ring_cell_colour(cell)])
    for colour in COLOURS:
        seat = SEAT[colour]
        for progress in range(board.LANE_FIRST, board.CENTRE):
            _square(image, lane_point(seat, progress), LIGHT[colour])
        for slot in hangar_slots(seat):
            _disc(image, slot, CELL * 0.55, LIGHT[colour])
    _disc(image, CENTRE_POINT, CELL * 1.1, INK)
    return image


_EMPTY_BOARD: Final = _board()


def board_image(state: State) -> Image:
    """The position as an RGB image, SIZE * CELL pixels square."""
    image = _EMPTY_BOARD.copy()
    counts: dict[tuple[float, float], int] = {}
    for colour, planes in zip(state.players, state.planes):
        seat = SEAT[colour]
        for index, progress in enumerate(planes):
            where = point_of(seat, progress, index)
            if progress == board.CENTRE:  # the finished planes sit around the centre
                where = lane_point(seat, board.CENTRE)
            shown = counts.get(where, 0)
            counts[where] = shown + 1
            _disc(image, where, CELL * 0.42, (255, 255, 255))
            _disc(image, where, CELL * (0.36 - 0.08 * min(shown, 3)), RGB[colour])
    return image
