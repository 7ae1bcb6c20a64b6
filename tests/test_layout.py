"""Where the board's places are drawn (`flyingchess.engine.layout`, what the page and the
environments' images draw from) and the image the environments render from it."""

from __future__ import annotations

import math

import pytest

from flyingchess import new_game, setup_position
from flyingchess.engine import board
from flyingchess.engine.board import COLOURS, RING_SIZE
from flyingchess.engine.layout import (
    CENTRE_POINT,
    SIZE,
    board_layout,
    flight_curve,
    hangar_slots,
    lane_point,
    point_of,
    ring_point,
    takeoff_point,
)


def quarter_turn(point: tuple[float, float]) -> tuple[float, float]:
    """A point turned a quarter clockwise about the board's centre."""
    x, y = point
    return (SIZE - 1 - y, x)


def test_the_ring_is_52_cells_each_next_to_the_one_before_inside_the_board() -> None:
    cells = [ring_point(cell) for cell in range(RING_SIZE)]
    assert len(set(cells)) == RING_SIZE
    assert all(0 <= x < SIZE and 0 <= y < SIZE for x, y in cells)
    for here, there in zip(cells, cells[1:] + cells[:1]):  # one step apart (diagonal at the cross's inner corners)
        assert max(abs(here[0] - there[0]), abs(here[1] - there[1])) == 1


@pytest.mark.parametrize("seat", range(4))
def test_every_colour_is_drawn_as_red_turned_a_quarter_per_seat(seat: int) -> None:
    def turned(point: tuple[float, float]) -> tuple[float, float]:
        for _ in range(seat):
            point = quarter_turn(point)
        return point

    for progress in [board.TAKEOFF, *range(board.RING_FIRST, board.CENTRE)]:
        assert point_of(seat, progress) == pytest.approx(turned(point_of(0, progress)))
    assert sorted(hangar_slots(seat)) == sorted(turned(point) for point in hangar_slots(0))


@pytest.mark.parametrize("seat", range(4))
def test_planes_in_a_hangar_lane_and_takeoff_have_places_of_their_own(seat: int) -> None:
    hangar = hangar_slots(seat)
    assert len(set(hangar)) == 4
    assert hangar == sorted(hangar, key=lambda point: (point[1], point[0]))  # keys 1-4 read like text
    lane = [lane_point(seat, progress) for progress in range(board.LANE_FIRST, board.CENTRE + 1)]
    ring = {ring_point(cell) for cell in range(RING_SIZE)}
    assert len(set(lane)) == len(lane) and not set(lane) & ring and takeoff_point(seat) not in ring
    distances = [math.dist(point, CENTRE_POINT) for point in lane]
    assert distances == sorted(distances, reverse=True)  # the lane leads to the centre
    # the first ring cell is next to the takeoff place, the turn cell next to the lane's first
    assert math.dist(takeoff_point(seat), point_of(seat, board.RING_FIRST)) == 1
    assert math.dist(point_of(seat, board.RING_LAST), lane[0]) == 1


@pytest.mark.parametrize("seat", range(4))
def test_the_flight_line_bends_through_the_crossing(seat: int) -> None:
    curve = flight_curve(seat)
    assert curve["start"] == point_of(seat, board.LAUNCH_PAD) and curve["end"] == point_of(seat, board.FLIGHT_TARGET)
    # a quadratic curve at its middle: (start + 2 control + end) / 4
    middle = [(curve["start"][i] + 2 * curve["control"][i] + curve["end"][i]) / 4 for i in range(2)]
    assert middle == pytest.approx(list(curve["crossing"]))


def test_the_layout_the_page_draws_marks_each_cell_by_the_rules() -> None:
    layout = board_layout()
    assert layout["size"] == SIZE and len(layout["ring"]) == RING_SIZE
    for cell in layout["ring"]:
        seat = board.SEAT[cell["colour"]]
        progress = board.progress_at(seat, cell["cell"])
        assert cell["colour"] == board.ring_cell_colour(cell["cell"])
        assert cell["pad"] == (progress == board.LAUNCH_PAD) and cell["jump"] == (progress in board.JUMP_FROM)
    assert sum(cell["pad"] for cell in layout["ring"]) == 4 and sum(cell["turn"] for cell in layout["ring"]) == 4
    assert set(layout["colours"]) == set(COLOURS)


def test_the_rendered_board_shows_each_plane_in_its_colour_where_the_layout_puts_it() -> None:
    from flyingchess.envs.render import CELL, RGB, board_image, describe

    state = setup_position({"red": [5, -1, -1, board.CENTRE], "blue": [30, -1, -1, -1]}, roll=None)
    image = board_image(state)
    assert image.shape == (SIZE * CELL, SIZE * CELL, 3)
    for colour, progress in (("red", 5), ("blue", 30)):
        x, y = point_of(board.SEAT[colour], progress)
        pixel = image[int((y + 0.5) * CELL), int((x + 0.5) * CELL)]
        assert tuple(int(v) for v in pixel) == RGB[colour], (colour, progress)
    assert not (board_image(new_game(2)) == image).all()  # the planes change the picture
    text = describe(state, observer="blue")
    assert text.splitlines()[0].startswith("red") and "blue (you): [30, -1, -1, -1]" in text
