"""The board as a widget of the game screen: scaled to the room it has, redrawn from the
game and the move chosen (its planes' way marked)."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widget import Widget

from ..game_client import Game, Move
from .picture import Mark, board_lines, move_mark


def board_scale(columns: int, rows: int) -> tuple[int, int]:
    """Characters a place (wide, high) for a board area of this size: 2 x 1 at 80 x 24,
    larger when the window is."""
    for width, height in ((4, 2), (3, 1), (2, 1)):
        if columns >= 15 * width + 2 and rows >= 15 * height + 2:
            return width, height
    return 2, 1


def mark_of(game: Game, move: Move | None) -> Mark:
    if move is None or game.to_move is None:
        return Mark()
    hits = [(hit["colour"], plane, int(hit["progress"])) for hit in move.captures for plane in hit["planes"]]
    return move_mark(game.to_move, move.plane, move.start, move.events, hits)


class BoardView(Widget):
    """The board, scaled to the room it has; redrawn from the game and the chosen move."""

    DEFAULT_CSS = "BoardView { width: auto; height: auto; }"

    def __init__(self) -> None:
        super().__init__()
        self.game: Game | None = None
        self.move: Move | None = None
        self.mono = False
        self.scale = (2, 1)

    def show(self, game: Game | None, move: Move | None, mono: bool, room: tuple[int, int]) -> None:
        self.game, self.move, self.mono = game, move, mono
        scale = board_scale(*room)
        if scale != self.scale:
            self.scale = scale
            self.refresh(layout=True)
        else:
            self.refresh()

    def get_content_width(self, container: Any, viewport: Any) -> int:
        return 15 * self.scale[0] + 2

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return 15 * self.scale[1] + 2

    def render(self) -> RenderableType:
        if self.game is None:
            return Text("")
        width, height = self.scale
        return Group(*board_lines(self.game.state, width, height, self.mono, mark_of(self.game, self.move)))
