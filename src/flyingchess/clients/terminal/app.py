"""The terminal game's app: the saved games (resume one, or start a new one), the new
game's seats and rules, and the game itself (game_screen.py).

Why Textual: it draws full-screen terminal apps from Python with Rich's styled text
(which the package's statistics already use), handles resizes, keys and mouse, runs on
the asyncio loop the client needs, works over SSH and in tmux, falls back to monochrome
with NO_COLOR, and comes with a headless pilot to test and time the app without a
terminal.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Final

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import App
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Label, OptionList, Static
from textual.widgets.option_list import Option

from ...engine.board import COLOURS
from ..game_client import ClientError, Game, GameClient, Invite, Refused, Unreachable, create_game, server_json
from .fit import TooSmall, fit
from .game_screen import GameScreen
from .words import LETTERS, Words

MAX_LISTED: Final = 1000
"""The games in progress the list shows at most (the newest changed)."""

CSS: Final = """
Screen { layout: vertical; }
#game { height: 1fr; }
#panel { width: 1fr; padding: 0 1; }
#panel > Static { height: auto; }
#panel > #log { height: 1fr; }
#keys { height: auto; dock: bottom; padding: 0 0 0 1; }
#too-small { display: none; width: 100%; height: 100%; content-align: center middle; text-style: bold; }
Screen.-too-small > * { display: none; }
Screen.-too-small > #too-small { display: block; }
.title { text-style: bold; padding: 0 1; }
OptionList { height: 1fr; }
.row { height: 2; }
.row Label { width: 22; padding: 0 1; }
Choice { width: 1fr; max-width: 44; padding: 0 1; }
Choice:focus { background: $accent; color: $text; text-style: bold; }
#start { margin: 1 0 0 22; }
"""


class HomeScreen(Screen[None]):
    """The saved games, newest first (unfinished ones can be resumed), and a new game."""

    warned = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_game", show=False),
        Binding("l", "language", show=False),
        Binding("q,escape", "quit_app", show=False),
    ]

    def compose(self) -> Any:
        app: TerminalApp = self.app  # type: ignore[assignment]
        words = app.words
        yield Static(Text(words("app.title"), Style(bold=True)), classes="title")
        yield Static(words("home.unfinished"), classes="title")
        yield OptionList(id="games")
        yield Static(Text(words("term.keys-home"), Style(dim=True)), id="keys")
        yield TooSmall(id="too-small")

    async def on_mount(self) -> None:
        fit(self)
        await self.reload()

    async def on_screen_resume(self) -> None:
        await self.reload()

    def on_resize(self, event: events.Resize) -> None:
        fit(self)

    async def reload(self) -> None:
        app: TerminalApp = self.app  # type: ignore[assignment]
        words = app.words
        games = self.query_one("#games", OptionList)
        games.clear_options()
        games.add_option(Option(Text(f"+ {words('home.new-game')}", Style(bold=True)), id="new"))
        try:
            summaries = await app.unfinished_games()
        except Unreachable:
            if not await app.find_server():
                app.notify(app.words("hint.unreachable"), severity="error")
                return
            summaries = await app.unfinished_games()
        except ClientError as error:
            app.notify(app.error_text(error), severity="error")
            return
        for summary in summaries:
            games.add_option(Option(_summary_text(words, summary), id=str(summary["id"])))
        games.highlighted = 0
        games.focus()

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_id == "new":
            self.action_new_game()
        elif event.option_id is not None:
            app: TerminalApp = self.app  # type: ignore[assignment]
            await app.open_game(Invite(app.base.rstrip("/"), event.option_id))

    def action_new_game(self) -> None:
        self.app.push_screen(SetupScreen())

    async def action_language(self) -> None:
        app: TerminalApp = self.app  # type: ignore[assignment]
        app.next_language()
        await self.recompose()
        await self.reload()

    def action_quit_app(self) -> None:
        app: TerminalApp = self.app  # type: ignore[assignment]
        others = app.servers.pages() if app.servers is not None else 0
        if others and not self.warned:  # quitting stops the server they play on
            self.warned = True
            app.notify(app.words("term.others-connected"), severity="warning", timeout=5)
            self.set_timer(5, self._forget_warning)
            return
        app.exit()

    def _forget_warning(self) -> None:
        self.warned = False


def _summary_text(words: Words, summary: Mapping[str, Any]) -> Text:
    text = Text()
    for colour in summary.get("players", []):
        text.append(LETTERS.get(colour, "?"))
    rules = summary.get("rules_name")
    text.append(f"  {words(f'preset.{rules}') if rules else words('preset.custom')}")
    text.append(f"  · {words('home.actions', n=summary.get('actions', 0))}", Style(dim=True))
    text.append(f"  · {_local_time(str(summary.get('updated', '')))}", Style(dim=True))
    return text


def _local_time(stamp: str) -> str:
    """The server's UTC time (ISO 8601) in this computer's time zone, to the minute."""
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


class Choice(Static, can_focus=True):
    """One of a few values, changed with the arrow keys, Space or Enter: one line, and
    nothing pops up (a drop-down list is clipped in a 24-row window)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "turn(-1)", show=False),
        Binding("right,space,enter", "turn(1)", show=False),
    ]

    def __init__(self, options: list[tuple[str, str]], value: str, id: str) -> None:
        super().__init__(id=id)
        self.options = options
        self.index = next((i for i, (_, known) in enumerate(options) if known == value), 0)

    @property
    def value(self) -> str:
        return self.options[self.index][1]

    def on_mount(self) -> None:
        self._show()

    def action_turn(self, step: int) -> None:
        self.index = (self.index + step) % len(self.options)
        self._show()

    def on_click(self) -> None:
        self.action_turn(1)

    def _show(self) -> None:
        self.update(f"◀ {self.options[self.index][0]} ▶")


def _row(label: str, field: Choice) -> Horizontal:
    return Horizontal(Label(label), field, classes="row")


class SetupScreen(Screen[None]):
    """A new game: who plays each colour (you, a bot, nobody), the rules and the pace."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", show=False),
        Binding("s", "start", show=False),
        Binding("down", "app.focus_next", show=False),
        Binding("up", "app.focus_previous", show=False),
    ]

    def compose(self) -> Any:
        app: TerminalApp = self.app  # type: ignore[assignment]
        words, meta = app.words, app.meta
        bots = [bot for bot in meta.get("bots", []) if bot.get("available", True)]
        kinds = [(words("seat.human"), "human")]
        kinds += [(words("seat.bot", name=words(f"bot.{bot['name']}")), f"bot:{bot['name']}") for bot in bots]
        kinds += [(words("setup.not-playing"), "none")]
        default_bot = "bot:heuristic" if any(bot["name"] == "heuristic" for bot in bots) else kinds[1][1]
        with VerticalScroll(id="setup"):
            yield Static(Text(words("setup.title"), Style(bold=True)), classes="title")
            for colour in COLOURS:
                first = "human" if colour == "red" else default_bot
                yield _row(
                    f"{words.colour(colour)} ({LETTERS[colour]})",
                    Choice(kinds, app.last_setup.get(f"seat-{colour}", first), f"seat-{colour}"),
                )
            presets = [(words(f"preset.{name}"), name) for name in meta.get("presets", {"classic": {}})]
            yield _row(words("setup.preset"), Choice(presets, app.last_setup.get("preset", presets[0][1]), "preset"))
            speeds = [(words(f"speed.{speed}"), speed) for speed in meta.get("speeds", ["normal"])]
            yield _row(words("game.speed"), Choice(speeds, app.last_setup.get("speed", app.speed), "speed"))
            yield Button(words("setup.start"), id="start", variant="primary")
        yield Static(Text(words("term.keys-setup"), Style(dim=True)), id="keys")
        yield TooSmall(id="too-small")

    def on_mount(self) -> None:
        fit(self)
        self.query_one("#seat-red", Choice).focus()

    def on_resize(self, event: events.Resize) -> None:
        fit(self)

    def action_back(self) -> None:
        self.app.pop_screen()

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        await self.action_start()

    async def action_start(self) -> None:
        app: TerminalApp = self.app  # type: ignore[assignment]
        seats: dict[str, dict[str, str]] = {}
        for colour in COLOURS:
            kind = self.query_one(f"#seat-{colour}", Choice).value
            if kind.startswith("bot:"):
                seats[colour] = {"kind": "bot", "bot": kind[4:]}
            elif kind == "human":
                seats[colour] = {"kind": "human"}
        if len(seats) < 2:
            app.notify(app.words("setup.min-two"), severity="error")
            return
        rules = self.query_one("#preset", Choice).value
        speed = self.query_one("#speed", Choice).value
        app.last_setup = {
            str(choice.id): choice.value for choice in self.query(Choice)
        }  # the next new game starts from these
        try:
            invite, token = await create_game(app.base, list(seats), seats, rules, speed=speed)
        except ClientError as error:
            app.notify(app.error_text(error), severity="error")
            return
        app.pop_screen()
        await app.open_game(invite, token)


class TerminalApp(App[None]):
    """The terminal game over one server (`base`): the local one, or the network game a
    `join` took a seat in (`joined`: then the app is that game alone)."""

    CSS = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", show=False, priority=True),  # quits at once, in any language (as q does)
    ]

    def __init__(
        self,
        base: str,
        words: Words,
        *,
        mono: bool = False,
        speed: str = "normal",
        joined: GameClient | None = None,
        servers: Any = None,
    ) -> None:
        super().__init__()
        self.servers = servers
        """The data folder's servers (run.py's LocalServers) for a local game, else None."""
        self.base = base
        self.words = words
        self.mono = mono
        self.speed = speed
        self.joined = joined
        self.meta: dict[str, Any] = {}
        self.analysis = False
        self.last_setup: dict[str, str] = {}
        """The new-game screen's last choices, by field (seats, rules, pace)."""
        self.failure: str | None = None
        """Why the app stopped before it could show a game (the command prints it)."""

    async def on_mount(self) -> None:
        self.title = self.words("app.title")
        try:
            self.meta = await server_json(self.base, "/api/meta")
        except ClientError as error:
            self.fail(self.error_text(error))
            return
        self.analysis = bool(self.meta.get("analysis"))
        if self.joined is not None:
            try:
                await self.joined.connect()
            except ClientError as error:
                self.fail(self.error_text(error))
                return
            await self.push_screen(GameScreen(self.joined))
        else:
            await self.push_screen(HomeScreen())

    async def find_server(self) -> bool:
        """The folder's server went away: find it again (or start one); True when the
        address changed."""
        if self.servers is None:
            return False
        try:
            base: str = await asyncio.to_thread(self.servers.find)
        except OSError as error:
            self.notify(str(error), severity="error")
            return False
        changed = base.rstrip("/") != self.base.rstrip("/")
        self.base = base
        return changed

    async def unfinished_games(self) -> list[dict[str, Any]]:
        """Every game in progress on the server, newest change first (page after page)."""
        found: list[dict[str, Any]] = []
        offset: int | None = 0
        while offset is not None and len(found) < MAX_LISTED:
            listed = await server_json(self.base, f"/api/games?limit=200&offset={offset}")
            found += [summary for summary in listed.get("games", []) if not summary.get("over")]
            offset = listed.get("next")
        return found[:MAX_LISTED]

    def fail(self, why: str) -> None:
        self.failure = why
        self.exit(return_code=2)

    async def open_game(self, invite: Invite, token: str | None = None) -> None:
        client = GameClient(invite, token)
        try:
            await client.connect()
        except ClientError as error:
            self.notify(self.error_text(error), severity="error")
            return
        await self.push_screen(GameScreen(client))

    def left_game(self, game: Game | None) -> None:
        if self.joined is not None:
            self.exit()
            return
        self.pop_screen()
        if game is not None and game.phase != "over":
            self.notify(self.words("term.saved"))

    def next_language(self) -> None:
        self.words = self.words.next_language()
        self.title = self.words("app.title")

    def error_text(self, error: ClientError) -> str:
        """A refusal in the player's words (the page's error messages), else the error's line."""
        if isinstance(error, Unreachable):
            return self.words("hint.unreachable")
        if isinstance(error, Refused):
            said = self.words(f"error.{error.code}", message=str(error))
            if said != f"error.{error.code}":
                return said
        return str(error)


def monochrome(asked: bool, environment: Mapping[str, str] = os.environ) -> bool:
    """Monochrome when asked (`--mono`) or when the terminal says so (NO_COLOR, TERM=dumb)."""
    return asked or "NO_COLOR" in environment or environment.get("TERM") == "dumb"
