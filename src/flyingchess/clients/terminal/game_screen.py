"""The game in the terminal: followed as the server sends it and played with the keys,
over a `GameClient` (the server plays the bots, keeps the clock and stores every move);
the board and the panel beside it are drawn by `game_view.py`.

Keys as on the page: Space rolls, 1-4 move that plane, the arrows choose among the
moves (shown on the board) and Enter plays the chosen one; `a` auto-moves when there
is one choice, `c` shows the win chances, `r` the rules, `l` the next language; Escape
or `q` leaves the game (it stays saved on the server).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType

from ..game_client import ClientError, GameClient, Invite, Refused, Update
from .board_view import BoardView
from .fit import fit
from .game_view import GameView

RELOCATE_SECONDS = 3.0
"""How long a local game's connection may stay down before it looks for its server again."""
AUTO_MOVE_SECONDS = 0.4
"""How long the roll shows before a move with no choice is played for the player."""


class GameScreen(GameView):
    """The game as the server sends it, drawn as it comes (`GameView`), and the keys that
    act on it; the connection watched, a local game's server looked for again."""

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
        super().__init__(client)
        self.following: asyncio.Task[None] | None = None
        self.shown_connected = True
        self.down_since: float | None = None
        self.relocating = False

    # -------------------------------------------------------------- following the game

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


__all__ = ["BoardView", "GameScreen"]
