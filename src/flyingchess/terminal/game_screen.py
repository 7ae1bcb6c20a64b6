"""The game in the terminal: the board, the panel beside it and the keys, over a
`GameClient` (the server plays the bots, keeps the clock and stores every move).

Keys as on the page: Space rolls, 1-4 move that plane, the arrows choose among the
moves (shown on the board) and Enter plays the chosen one; `a` auto-moves when there
is one choice, `c` shows the win chances, `r` the rules, `l` the next language; Escape
or `q` leaves the game (it stays saved on the server).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from ..client import ClientError, Game, GameClient, Invite, Move, Refused, Update, server_json
from ..events import Event
from .fit import TooSmall, fit
from .narrate import Line, log_lines
from .panel import chances_text, log_line_text, moves_text, players_text, rules_text, status_text
from .picture import Mark, board_lines, move_mark

if TYPE_CHECKING:
    from .app import TerminalApp

PANEL_COLUMNS = 50
"""Columns kept beside the board for the panel (a player's line fits in them)."""
LOG_LINES = 400
"""Lines the move log keeps (the newest): more than any window shows."""
RELOCATE_SECONDS = 3.0
"""How long a local game's connection may stay down before it looks for its server again."""
AUTO_MOVE_SECONDS = 0.4
"""How long the roll shows before a move with no choice is played for the player."""


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


class GameScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "roll", show=False),
        *(Binding(str(plane), f"move({plane - 1})", show=False) for plane in range(1, 5)),
        Binding("left,up", "choose(-1)", show=False),
        Binding("right,down", "choose(1)", show=False),
        Binding("enter", "play_chosen", show=False),
        Binding("a", "toggle_auto", show=False),
        Binding("c", "toggle_chances", show=False),
        Binding("r", "toggle_rules", show=False),
        Binding("s", "start", show=False),
        Binding("l", "language", show=False),
        Binding("escape,q", "leave", show=False),
    ]

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
        self.following: asyncio.Task[None] | None = None
        self.shown_connected = True
        self.down_since: float | None = None
        self.relocating = False

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

    def on_mount(self) -> None:
        fit(self)
        if self.client.game is not None:
            self.game = self.client.game
        self.following = asyncio.get_running_loop().create_task(self._follow())
        self.set_interval(0.25, self._watch_connection)
        self.draw()

    def _watch_connection(self) -> None:
        """Say so while the connection is down (the client opens it again by itself);
        after a few seconds of it, a local game looks for its folder's server again (it
        may have been started again elsewhere)."""
        if self.client.connected != self.shown_connected:
            self.shown_connected = self.client.connected
            self.down_since = None if self.client.connected else time.monotonic()
            self.draw()
        down = self.down_since is not None and time.monotonic() - self.down_since > RELOCATE_SECONDS
        if down and self.terminal.servers is not None and not self.relocating:
            self.relocating = True
            self.run_worker(self._relocate(), group="relocate")

    async def _relocate(self) -> None:
        try:
            if await self.terminal.find_server() and self.game is not None:
                moved = GameClient(Invite(self.terminal.base.rstrip("/"), self.game.id), self.client.token)
                await moved.connect()
                old, self.client = self.client, moved
                if self.following is not None:
                    self.following.cancel()
                await old.close()
                self.following = asyncio.get_running_loop().create_task(self._follow())
        except ClientError as error:
            self.say(self.terminal.error_text(error), error=True)
        finally:
            self.down_since = time.monotonic() if not self.client.connected else None
            self.relocating = False

    async def _follow(self) -> None:
        """Every update the server sends, drawn as it comes; the log grows with its events."""
        try:
            async for update in self.client.updates():
                self._take(update)
        except ClientError as error:
            self.say(self.terminal.error_text(error), error=True)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a fault of ours: said, never a traceback over the board
            self.say(f"{type(error).__name__}: {error}", error=True)

    def _take(self, update: Update) -> None:
        before = self.game
        self.game = update.game
        if update.snapshot and (before is None or before.actions != update.game.actions):
            self.events = []
            self.lines = []
        self.events.extend(update.events)
        self._write_log(update.events)
        if before is None or before.actions != update.game.actions or before.phase != update.game.phase:
            self.chosen = 0
            self.chances = None
            self.message = Text()
        if self.client.pending == 0:  # in a burst (bots at the fastest pace) only its last is drawn
            self.draw()
        if self.show_chances:
            self._ask_chances()
        self._auto_move()

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

    # -------------------------------------------------------------- acting

    def _act(self, work: Any) -> None:
        """Send a request without holding the screen; a refusal is said in the panel (but
        "moved-on": the game went on before it, which the screen shows by itself)."""

        async def acting() -> None:
            try:
                await work
            except Refused as error:
                if error.code != "moved-on":
                    self.say(self.terminal.error_text(error), error=True)
            except ClientError as error:
                self.say(self.terminal.error_text(error), error=True)

        self.run_worker(acting(), group="act")

    def _mine(self, phase: str) -> bool:
        game = self.game
        return game is not None and game.phase == phase and game.to_move in self.client.you.controls

    def _not_now(self) -> None:
        """A key that cannot act now says why: roll first, or whose turn it is."""
        game, words = self.game, self.terminal.words
        if game is None or game.phase == "over" or not game.started:
            return
        if self._mine("roll"):
            self.say(words("term.roll-first"))
        elif game.to_move is not None:
            self.say(words("term.not-your-turn", player=words.colour(game.to_move)))

    def action_roll(self) -> None:
        if self._mine("roll"):
            self._act(self.client.roll(self.game))
        elif self._mine("move"):
            self.say(self.terminal.words("term.choose-first"))
        else:
            self._not_now()

    def action_move(self, plane: int) -> None:
        game = self.game
        if not self._mine("move") or game is None:
            self._not_now()
            return
        move = next((move for move in game.moves if plane in move.planes), None)
        if move is None:
            self.say(self.terminal.words("term.cannot-move", plane=plane + 1))
            return
        self._act(self.client.move(move.plane, game))

    def action_choose(self, step: int) -> None:
        options = self.options()
        if self._mine("move") and options:
            self.chosen = (self.chosen + step) % len(options)
            self.draw()
        else:
            self._not_now()

    def action_play_chosen(self) -> None:
        options = self.options()
        if self._mine("move") and options:
            self._act(self.client.move(options[min(self.chosen, len(options) - 1)].plane, self.game))
        else:
            self.action_roll()

    def _auto_move(self) -> None:
        game = self.game
        if self.auto and game is not None and self._mine("move") and game.choices == 1 and game.moves:
            actions = game.actions

            async def later() -> None:
                await asyncio.sleep(AUTO_MOVE_SECONDS)
                shown = self.game
                if shown is not None and shown.actions == actions and self._mine("move"):
                    await self.client.move(shown.moves[0].plane, shown)

            self._act(later())

    def action_toggle_auto(self) -> None:
        self.auto = not self.auto
        self.draw()
        self._auto_move()

    def action_toggle_chances(self) -> None:
        self.show_chances = not self.show_chances
        self.show_rules = False
        if self.show_chances:
            self._ask_chances()
        self.draw()

    def _ask_chances(self) -> None:
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

    def action_toggle_rules(self) -> None:
        self.show_rules = not self.show_rules
        self.show_chances = False
        self.draw()

    def action_start(self) -> None:
        if self.game is not None and not self.game.started and self.client.you.role == "host":
            self._act(self.client.start())

    def action_language(self) -> None:
        self.terminal.next_language()
        self.lines = []
        self._write_log(self.events)  # the whole log again, in the new language
        self.draw()

    async def action_leave(self) -> None:
        if self.following is not None:
            self.following.cancel()
        await self.client.close()
        self.terminal.left_game(self.game)
