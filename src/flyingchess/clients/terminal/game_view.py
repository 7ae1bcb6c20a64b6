"""What the game screen shows and how it is drawn: the board, the panel beside it (the
players, the status, the moves, the chances or rules, the log) and the keys' line."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text
from textual import events
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static

from ...engine.events import Event
from ..game_client import ClientError, Game, GameClient, Move, server_json
from .board_view import BoardView
from .fit import TooSmall, fit
from .narrate import Line, log_lines
from .panel import chances_text, log_line_text, moves_text, players_text, rules_text, status_text

if TYPE_CHECKING:
    from .app import TerminalApp

PANEL_COLUMNS = 50
"""Columns kept beside the board for the panel (a player's line fits in them)."""
LOG_LINES = 400
"""Lines the move log keeps (the newest): more than any window shows."""


class GameView(Screen[None]):
    """The game screen's state and its drawing (`draw`: the whole screen from that state);
    `GameScreen` follows the game as the server sends it and acts on the keys."""

    def __init__(self, client: GameClient) -> None:
        super().__init__()
        self.client = client
        self.game: Game | None = None
        self.chosen = 0
        self.events: list[Event] = []
        """Every event since the screen opened: the log, told again in a new language."""
        self.lines: list[Line] = []
        self.auto = True
        self.show_chances = False
        self.show_rules = False
        self.chances: dict[str, float] | None = None
        self.message = Text()
        self.drawn_at = 0.0
        """When the screen last drew a change (the redraw benchmark reads it)."""

    @property
    def terminal(self) -> TerminalApp:
        app: TerminalApp = self.app  # type: ignore[assignment]
        return app

    def compose(self) -> Any:
        with Horizontal(id="game"):
            yield BoardView()
            with Vertical(id="panel"):
                yield Static(id="players")
                yield Static(id="status")
                yield Static(id="moves")
                yield Static(id="extra")
                yield Static(id="log")
        yield Static(id="keys")
        yield TooSmall(id="too-small")

    # -------------------------------------------------------------- drawing

    def on_resize(self, event: events.Resize) -> None:
        fit(self)
        self.draw()

    def draw(self) -> None:
        words, mono = self.terminal.words, self.terminal.mono
        game = self.game
        you = self.client.you
        columns, rows = self.size
        board_room = (max(columns - PANEL_COLUMNS, 32), max(rows - 2, 17))
        options = self.options()
        move = options[self.chosen] if 0 <= self.chosen < len(options) else None
        mine = game is not None and game.to_move in you.controls and game.phase == "move"
        self.query_one(BoardView).show(game, move if mine else None, mono, board_room)
        if game is None:
            self.query_one("#status", Static).update(words("home.loading"))
            return
        self.query_one("#players", Static).update(players_text(words, game, you, mono))
        status = status_text(words, game, you)
        if not self.client.connected:
            status = Text(words("game.reconnecting"), Style(bold=True, reverse=mono))
        if game.to_move in you.controls and game.phase != "over":
            auto = words("opt.on" if self.auto else "opt.off")
            status.append(f"  ({words('term.auto-move', state=auto)})", Style(dim=True))
        if self.message:
            status = Text.assemble(status, "\n", self.message)
        self.query_one("#status", Static).update(status)
        self.query_one("#moves", Static).update(
            moves_text(words, game, self.options(), self.chosen, mono) if mine else ""
        )
        extra = Text()
        if self.show_rules:
            extra = rules_text(words, game.state.rules, game.raw.get("rules_name"))
        elif self.show_chances:
            extra = chances_text(words, self.chances, mono)
        self.query_one("#extra", Static).update(extra)
        self._draw_log()
        self.query_one("#keys", Static).update(Text(words("term.keys-game"), Style(dim=True)))
        self.drawn_at = time.perf_counter()

    def _write_log(self, events: list[Event] | tuple[Event, ...]) -> None:
        """The events' lines at the log's end (the newest LOG_LINES kept)."""
        self.lines.extend(log_lines(self.terminal.words, events))
        del self.lines[:-LOG_LINES]

    def _draw_log(self) -> None:
        """The log's newest lines that fit the room it has, wrapped lines counted: it
        always ends with the latest event."""
        log = self.query_one("#log", Static)
        width, height = max(log.size.width, 20), max(log.size.height, 1)
        shown: list[Text] = []
        used = 0
        for line in reversed(self.lines):
            text = log_line_text(line, self.terminal.mono)
            rows = max(1, -(-text.cell_len // width))
            if used + rows > height:
                break
            shown.append(text)
            used += rows
        log.update(Text("\n").join(reversed(shown)))

    def options(self) -> list[Move]:
        """The player's choices: one move for each (planes that would make the same move
        are one choice, as on the page)."""
        game = self.game
        if game is None or game.phase != "move":
            return []
        first: dict[int, Move] = {}
        for move in game.moves:
            first.setdefault(move.choice, move)
        return list(first.values())

    def say(self, text: str, error: bool = False) -> None:
        self.message = Text(
            text, Style(bold=True, color=None if self.terminal.mono else ("#ff6b6b" if error else None))
        )
        self.draw()

    def _ask_chances(self) -> None:
        """The win chances the panel shows, asked for the game as it stands (an answer
        that comes after the game has moved on is left out)."""
        if not self.terminal.analysis:
            self.say(self.terminal.words("term.chances-none"))
            return
        game = self.game
        if game is None:
            return

        async def asking() -> None:
            try:
                found = await server_json(self.client.invite.base, f"/api/games/{game.id}/chances")
            except ClientError as error:
                self.say(self.terminal.error_text(error), error=True)
                return
            if self.game is not None and found.get("actions") == self.game.actions:
                self.chances = found.get("chances")
                self.draw()

        self.run_worker(asking(), group="chances", exclusive=True)
