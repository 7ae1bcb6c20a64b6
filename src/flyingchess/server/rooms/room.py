"""A room: one game, with its seats, the pages watching it, and its bots.

A room is the server's authority over one game. Every request goes through the engine;
every change is computed first, written to the store, and only then adopted in memory
and broadcast, so a failed write changes nothing anywhere. This module is the room's
core: its pages (connecting, the dispatch of their requests, telling them what
changed), whether it may still act (its lease), and its die. What it does is in parts
of one concern each: gathering.py (seats, start, dice shares), turns.py (the turns
people play), chat.py, bot_runner.py (bots and the autopilot clock), views.py (the
snapshot and what each page may do, as pages are told them), with the table of requests
in commands.py. registry.py keeps the rooms of a process.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol

from ...engine.events import Event
from ...engine.game import (
    State,
)
from ...records.record import Record
from ..errors import MOVED_AWAY, NoSuchGame, RoomAway, told
from ..limits import Limits
from ..protocol import (
    Message,
    encode_message,
)
from ..storage.async_store import LoopStore
from . import views
from .bot_runner import BotRunner
from .chat import RoomChat
from .commands import HANDLERS
from .gathering import Gathering
from .presence import Presence, Watcher
from .presence_updates import PresenceUpdates
from .seats import Control, Seats
from .session import GameSession, LoadedGame
from .turns import Turns

GRACE_SECONDS: Final = 30.0
"""How long a seat whose player left waits before the autopilot plays it."""


class RoomLike(Protocol):
    """What a page's connection needs of a room: the room itself when this process owns
    it, or (with several processes) a stand-in that forwards to the owner."""

    id: str

    def watcher_count(self) -> int: ...

    async def connect(self, page: Watcher, control: Control) -> None: ...

    async def receive(self, page: Watcher, address: str, request: Message, text: str) -> None: ...

    async def disconnect(self, page: Watcher) -> None: ...


class Room:
    """The server's authority over one game: it composes the game session (state and
    persistence), the seats (who may act), presence (who is here), and its parts
    (`gathering`, `turns`, `chat`, `bot_runner`), and tells every page what changed.
    One change at a time (`lock`, which the parts take too); each is stored before
    anyone hears of it."""

    def __init__(
        self,
        store: LoopStore,
        game: LoadedGame,
        dice: random.Random,
        limits: Limits = Limits(),
        grace: float = GRACE_SECONDS,
        epoch: int | None = None,
        holds: Callable[[], bool] = lambda: True,
    ) -> None:
        """A room over a game read from the store (`session.load`).
        `epoch`: this process's claim on the game when several processes share the
        database (every write is fenced with it); None for one process alone.
        `holds`: whether this process still holds the room's lease on its own clock; once
        it does not, the room writes and sends nothing more (cluster/nodes.py)."""
        self.holds = holds
        self.session = GameSession(store, game, epoch, self.lose, holds, self.pause)
        self.presence = Presence(game.timer, grace)
        self.id = game.id
        self.lost = False
        """Another process has claimed the game: this room may do nothing more."""
        self.successor: Room | None = None
        """The room that took over from this one in this process (after an outage of Redis):
        the pages' connections still name this one, and are handed to it."""
        self.on_lost: Callable[[Room], Awaitable[None]] | None = None
        self.on_paused: Callable[[Room], None] | None = None
        self.limits = limits
        self.dice = dice
        self.lock = asyncio.Lock()
        # the room's parts, each of one concern, all acting on this room under its lock
        self.gathering = Gathering(self)
        self.turns = Turns(self)
        self.chat = RoomChat(self)
        self.bot_runner = BotRunner(self)
        self.presence_updates = PresenceUpdates(self)

    # ---------------------------------------------------------------- views

    @property
    def state(self) -> State:
        return self.session.state

    @property
    def seats(self) -> Seats:
        return self.session.seats

    @property
    def epoch(self) -> int | None:
        return self.session.epoch

    def public_seats(self) -> dict[str, dict[str, Any]]:
        return self.presence.public_seats(self.seats)

    def control_of(self, watcher: Watcher) -> Control:
        return self.presence.control_of(watcher)

    def evictable(self) -> bool:
        """Nobody watches and no change is under way: the room may leave memory (all of
        it is stored). Its bot and clock tasks stop by themselves without watchers."""
        return not self.presence.watchers and not self.lock.locked()

    def watcher_count(self) -> int:
        if self.successor is not None:
            return self.successor.watcher_count()
        return len(self.presence.watchers)

    def snapshot(self) -> dict[str, Any]:
        return views.snapshot(self)

    def authority(self, control: Control) -> dict[str, Any]:
        return views.authority(self, control)

    def snapshot_for(self, page: Watcher) -> dict[str, Any]:
        """The whole game for one page, with what that page may do in it (`you`)."""
        return {"type": "snapshot", "game": self.snapshot(), "you": self.authority(self.control_of(page))}

    async def tell_authority(self, changed: Callable[[Watcher, Control], bool]) -> None:
        """Send a fresh `welcome` to each page whose authority `changed` (before the
        update that shows the new seats, so the page never acts on the old ones)."""
        for watcher, control in list(self.presence.watchers.items()):
            if changed(watcher, control):
                await self.send(watcher, {"type": "welcome", **self.authority(control)})

    def record(self) -> Record:
        return self.session.record(self.public_seats())

    def replay_steps(self, first: int, count: int) -> dict[str, Any]:
        return self.session.replay_steps(first, count)

    # ---------------------------------------------------------------- a page's connection

    def check_owned(self) -> None:
        """Refuse to act for a room this process no longer owns (its lease ran out on its
        own clock: the room pauses now, not when Redis next answers)."""
        if not self.may_send():
            self.pause()  # nothing more when it is stopped already
            raise RoomAway(MOVED_AWAY)

    async def lose(self) -> None:
        """Another process has claimed this game (or this one lost Redis for a lease): stop
        every task at once and hang up on every page; they reconnect to the new owner."""
        if self.lost:
            return
        self.suspend()
        pages, self.presence.watchers = list(self.presence.watchers), {}
        for page in pages:
            asyncio.get_running_loop().create_task(page.close(code=1012))
        if self.on_lost is not None:
            await self.on_lost(self)

    def may_send(self) -> bool:
        """Whether this room may still tell its pages anything: not stopped, and its lease
        not run out (a room paused and then replaced by a new one for the same game stays
        stopped even once the game's lease is held again)."""
        return not self.lost and self.holds()

    def pause(self) -> None:
        """The lease ran out on this process's clock: stop acting (`suspend`) and say so
        (`on_paused`): the rooms keep the pages for when the room comes back."""
        if self.lost:
            return
        self.suspend()
        if self.on_paused is not None:
            self.on_paused(self)

    def suspend(self) -> None:
        """The lease ran out while Redis could not be reached: stop acting at once (as
        `lose`), but keep the pages: the process may get the room back when Redis does,
        and then hands them to the room it loads (`successor`), with no reconnection."""
        self.lost = True
        self.bot_runner.stop()
        self.presence_updates.cancel()

    async def deleted(self) -> None:
        """The game was deleted: its tasks stop, its pages are told so and hung up on."""
        self.bot_runner.stop()
        watchers, self.presence.watchers = list(self.presence.watchers), {}
        gone = told(NoSuchGame("this game was deleted"))
        await self._deliver(watchers, encode_message(gone))
        for watcher in watchers:
            asyncio.get_running_loop().create_task(watcher.close(code=4404))

    async def connect(self, page: Watcher, control: Control) -> None:
        """A page starts watching: it gets a snapshot, the others see its seats connect."""
        await self.attach(page, control, first=True)
        await page.send_text(encode_message(self.snapshot_for(page)))
        self.bot_runner.wake()

    async def receive(self, page: Watcher, address: str, request: Message, text: str = "") -> None:
        """Carry out one checked request from a page (the dispatch table below)."""
        if self.successor is not None:
            await self.successor.receive(page, address, request, text)
            return
        self.check_owned()
        await self.heard_from(self.presence.control_of(page))
        await HANDLERS[type(request)](self, page, address, request)

    async def disconnect(self, page: Watcher) -> None:
        if self.successor is not None:
            await self.successor.disconnect(page)
            return
        self.presence.detach(page, self.seats)
        if self.presence.watchers:
            self.presence_updates.changed()
            self.bot_runner.wake()
        else:
            self.bot_runner.poke()  # nobody watches: the clock stops

    # ---------------------------------------------------------------- presence

    async def attach(self, watcher: Watcher, control: Control, first: bool = False) -> None:
        """A page watches the room with this control (again, after hello or join). Others
        see its seats connect (a moment later: `PresenceUpdates`); on its `first` attach
        the page itself gets a snapshot next."""
        before = self.presence.connected(self.seats)
        self.presence.attach(watcher, control)
        await self.heard_from(control)
        if self.presence.connected(self.seats) != before:
            self.presence_updates.changed(sent_the_game=watcher if first else None)

    async def heard_from(self, control: Control) -> None:
        """A page that controls seats is here: its seats leave the autopilot."""
        if self.presence.heard_from(control, self.seats):
            self.bot_runner.poke()  # a seat back from the autopilot is on the turn timer again
            await self.broadcast([])

    def authenticate(self, token: str) -> Control:
        return self.seats.authenticate(token, self.session.host_token)

    # ---------------------------------------------------------------- the game

    def next_roll(self) -> int:
        """The next die: derived from the commitment in a network game (roll number =
        actions so far, so a restarted server rolls the same), else the OS generator."""
        proof = self.session.proof
        return self.dice.randint(1, 6) if proof is None else proof.roll(len(self.session.actions))

    # ---------------------------------------------------------------- telling the pages

    async def broadcast(self, events: list[Event]) -> None:
        """Tell every page what happened and the whole game after it."""
        self.presence_updates.cancel()  # the game's seats say who is here: nothing more to tell
        await self.send_update(events, list(self.presence.watchers))

    async def send_update(self, events: list[Event], pages: list[Watcher]) -> None:
        update = {"type": "update", "events": [e.to_json() for e in events], "game": self.snapshot()}
        await self._deliver(pages, encode_message(update))

    async def send_all(self, message: dict[str, Any]) -> None:
        text = encode_message(message)  # once for all
        await self._deliver(list(self.presence.watchers), text)

    async def send(self, watcher: Watcher, message: dict[str, Any]) -> None:
        await self._deliver([watcher], encode_message(message))

    async def _deliver(self, watchers: list[Watcher], text: str) -> None:
        """Hand a message to each page. A page's outbox only queues (it never waits for
        the network), so a page that stops reading holds up nobody; one that went away or
        fell too far behind raises, and is forgotten. A room whose lease has run out sends
        nothing (another process may have played on, and its state would be stale) and
        pauses; its pages stay, for the room that takes over here if Redis comes back
        (ClusteredRooms) or to be hung up on when another process has it."""
        if not self.may_send():
            self.pause()
            return
        groups: dict[Any, list[Watcher]] = {}
        for watcher in watchers:
            group = getattr(watcher, "group", None)  # pages of another process share one message
            if group is not None:
                groups.setdefault(group, []).append(watcher)
                continue
            try:
                await watcher.send_text(text)
            except Exception:
                self.presence.watchers.pop(watcher, None)
        for group, pages in groups.items():
            try:
                group.deliver(pages, text, self.may_send)  # checked again when it goes out
            except Exception:
                for page in pages:
                    self.presence.watchers.pop(page, None)
        if not self.presence.watchers:
            self.bot_runner.poke()  # the last page went: the clock stops now, not at its next look
