"""The notice a screen shows instead of itself in a window too small to draw it."""

from __future__ import annotations

from typing import Any, Final

from textual.screen import Screen
from textual.widgets import Static

SMALLEST: Final = (64, 20)
"""The smallest window the game is drawn in (columns, rows): the board at two characters
a place and a panel beside it; below it a notice asks for a larger window."""


class TooSmall(Static):
    """Shown instead of a screen's content while the window is smaller than `SMALLEST`."""


def fit(screen: Screen[Any]) -> bool:
    """Show the notice or the screen for the window's size; True when it is too small."""
    columns, rows = screen.app.size
    small = columns < SMALLEST[0] or rows < SMALLEST[1]
    screen.set_class(small, "-too-small")
    if small:
        words = screen.app.words  # type: ignore[attr-defined]
        note = words("term.too-small", width=SMALLEST[0], height=SMALLEST[1], w=columns, h=rows)
        screen.query_one(TooSmall).update(note)
    return small
