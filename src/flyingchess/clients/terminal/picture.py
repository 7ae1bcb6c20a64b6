"""The board as rows of styled text for a terminal, from layout.py's places.

The board is layout.py's 15 x 15 cross, each place a block of `width` x `height`
characters inside a box-drawn frame. A plane is its colour's letter and its number
("R2"; "R+" for a stack in a narrow cell), so the board reads the same in monochrome;
with colour each ring, lane and hangar cell is painted its colour as on the page. A move
being considered is shown on the board: the cells it passes through, where it comes to
rest, the planes it sends home.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Final, NamedTuple

from rich.style import Style
from rich.text import Text

from ...engine import board, layout
from ...engine.board import COLOURS, SEAT
from ...engine.events import Flew, Jumped, Stepped
from ...engine.game import State
from .words import LETTERS

Cell = tuple[int, int]

STRONG: Final = {"red": "#e53935", "yellow": "#fdd835", "blue": "#1e88e5", "green": "#43a047"}
TINT: Final = {"red": "#6d2424", "yellow": "#6b5a12", "blue": "#1d3a6b", "green": "#1f5a2a"}
INK_ON: Final = {"red": "#ffffff", "yellow": "#000000", "blue": "#ffffff", "green": "#ffffff"}


class Mark(NamedTuple):
    """A move being considered: the cells it passes, where it rests, whom it hits."""

    path: frozenset[Cell] = frozenset()
    target: Cell | None = None
    hits: frozenset[Cell] = frozenset()


def cell_of(point: layout.Point) -> Cell:
    """The 15 x 15 cell a layout point falls in (half points round away from the corner)."""
    return (math.floor(point[0] + 0.5), math.floor(point[1] + 0.5))


def _rotated(seat: int, cell: Cell) -> Cell:
    x, y = cell
    for _ in range(seat):
        x, y = layout.SIZE - 1 - y, x
    return (x, y)


def _ground() -> dict[Cell, tuple[str, str]]:
    """Every drawn cell's (colour, kind) with no plane on it: ring, pad, lane, finish,
    hangar, takeoff and the centre."""
    ground: dict[Cell, tuple[str, str]] = {}
    for seat, colour in enumerate(COLOURS):
        for x in range(6):
            for y in range(6):
                ground[_rotated(seat, (x, y))] = (colour, "hangar")
        ground[cell_of(layout.takeoff_point(seat))] = (colour, "takeoff")
        for progress in range(board.LANE_FIRST, board.LANE_LAST + 1):
            ground[cell_of(layout.lane_point(seat, progress))] = (colour, "lane")
        ground[cell_of(layout.lane_point(seat, board.CENTRE))] = (colour, "finish")
    for index in range(board.RING_SIZE):
        colour = board.ring_cell_colour(index)
        pad = board.progress_at(SEAT[colour], index) == board.LAUNCH_PAD
        ground[cell_of(layout.ring_point(index))] = (colour, "pad" if pad else "ring")
    ground[cell_of(layout.CENTRE_POINT)] = ("", "centre")
    return ground


GROUND: Final = _ground()
GLYPH: Final = {"ring": ".", "lane": ".", "pad": "=", "takeoff": "^", "hangar": "", "finish": "", "centre": "()"}


def place_of(colour: str, progress: int, plane: int) -> Cell:
    return cell_of(layout.point_of(SEAT[colour], progress, plane))


def planes_by_cell(state: State) -> dict[Cell, list[tuple[str, int]]]:
    """Which planes stand in each cell: (colour, plane) pairs."""
    found: dict[Cell, list[tuple[str, int]]] = {}
    for colour, row in zip(state.players, state.planes, strict=True):
        for plane, progress in enumerate(row):
            found.setdefault(place_of(colour, progress, plane), []).append((colour, plane))
    return found


def move_mark(
    colour: str, plane: int, start: int, events: Iterable[object], hits: Iterable[tuple[str, int, int]]
) -> Mark:
    """The mark of a move of `colour`'s `plane` from `start`, read from its events (the
    steps, jumps and flight) and the planes it hits ((colour, plane, progress))."""
    path = {place_of(colour, start, plane)}
    end = start
    for event in events:
        if isinstance(event, Stepped):
            end = event.progress
        elif isinstance(event, (Jumped, Flew)):
            end = event.end
        else:
            continue
        path.add(place_of(colour, end, plane))
    if start == board.HANGAR and end == start:  # a launch: no step, the plane goes to its takeoff
        end = board.TAKEOFF
    target = place_of(colour, end, plane)
    struck = frozenset(place_of(victim, progress, index) for victim, index, progress in hits)
    return Mark(frozenset(path - {target}), target, struck)


def _label(planes: list[tuple[str, int]], width: int) -> str:
    colour = planes[0][0]
    letter = LETTERS[colour]
    if len(planes) == 1:
        return f"{letter}{planes[0][1] + 1}"
    numbers = "".join(str(plane + 1) for _, plane in sorted(planes))
    return f"{letter}{numbers}" if len(numbers) + 1 <= width else f"{letter}+"


def _cell_text(
    cell: Cell, planes: list[tuple[str, int]] | None, mark: Mark, width: int, mono: bool
) -> tuple[str, Style]:
    colour, kind = GROUND.get(cell, ("", ""))
    if planes:
        text = _label(planes, width)
        owner = planes[0][0]
        style = Style(bold=True) if mono else Style(bold=True, color=INK_ON[owner], bgcolor=STRONG[owner])
        if cell in mark.hits:
            text = "x" + text[: width - 1]
            style += (
                Style(reverse=True, strike=True) if mono else Style(bgcolor="#ffffff", color="#b00020", strike=True)
            )
    elif kind:
        text = GLYPH[kind]
        if mono and colour:  # the cell's colour as its letter
            text = "" if kind == "hangar" else colour[0] + GLYPH[kind].strip(".")
        style = Style(color="#d0d0d0", bgcolor=TINT[colour]) if colour and not mono else Style(dim=not colour)
    else:
        return " " * width, Style()
    if cell == mark.target:
        text = text if planes else "[]"
        style += (
            Style(reverse=True, bold=True, underline=True)
            if mono
            else Style(bgcolor="#f5f5f5", color="#000000", bold=True)
        )
    elif cell in mark.path and not planes:
        text = "+"
        style += Style(bold=True) if mono else Style(color="#ffffff", bold=True)
    return text[:width].center(width), style


def board_lines(state: State, width: int = 2, height: int = 1, mono: bool = False, mark: Mark = Mark()) -> list[Text]:
    """The board framed, `width` x `height` characters a place: (15 * width + 2) columns
    and (15 * height + 2) rows."""
    size = layout.SIZE
    planes = planes_by_cell(state)
    frame = Style(dim=True)
    lines = [Text("┌" + "─" * (size * width) + "┐", style=frame)]
    for y in range(size):
        row, blank = Text(), Text()  # the frame's dim must not become the row's base style
        row.append("│", frame)
        blank.append("│", frame)
        for x in range(size):
            text, style = _cell_text((x, y), planes.get((x, y)), mark, width, mono)
            row.append(text, style)
            blank.append(" " * width, Style(bgcolor=style.bgcolor) if style.bgcolor else Style())
        row.append("│", style=frame)
        blank.append("│", style=frame)
        lines.append(row)
        lines.extend(blank.copy() for _ in range(height - 1))
    lines.append(Text("└" + "─" * (size * width) + "┘", style=frame))
    return lines
