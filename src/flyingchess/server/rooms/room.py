"""Rooms: one game each, with its seats, the pages watching it, and its bots.

A room is the server's authority over one game. Every request goes through the engine;
every change is computed first, written to the store, and only then adopted in memory
and broadcast, so a failed write changes nothing anywhere. Bots play their seats by
themselves while anyone is watching. Rooms are loaded from the store on first use (in a
worker thread) and dropped from memory when nobody watches, so a restarted server
carries on exactly where the last one stopped and idle games cost no memory.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import random
import secrets
import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, Final, Protocol, cast

from ...bots import Bot, make_bot, playable, seat_chooser
from ...events import Event
from ...fair_dice import MAX_CONTRIBUTIONS, DiceProof, ProofError
from ...game import (
    IllegalMoveError,
    State,
    Turn,
    legal_moves,
    play_out,
    roll,
)
from ...moves import move_infos
from ...record import Record, canonical_state, parse_action, replay_actions
from ...rules import Rules
from ..limits import KeyedBuckets, Limits
from ..protocol import (
    Chat,
    Contribute,
    Hello,
    Join,
    Kick,
    Message,
    Move,
    ProtocolError,
    React,
    Roll,
    SetSeat,
    Speed,
    Start,
    Sync,
    encode_message,
    parse_seats,
    parse_timer,
)
from ..storage.async_store import LoopStore
from ..storage.store import StoredGame, StoreError
from .dice import EntropyDice
from .presence import Presence, Watcher
from .seats import AUTOPILOT_BOT, HOST, Control, Seat, SeatKind, Seats, token_hash
from .session import MOVED_AWAY, GameSession, rebuild

BOT_DELAY: Final = {"slow": 1.2, "normal": 0.6, "fast": 0.25, "instant": 0.0}
"""Seconds a bot waits before each roll, by the room's speed."""
RESTARTING: Final = "this server is restarting: reconnecting"
GRACE_SECONDS: Final = 30.0
"""How long a seat whose player left waits before the autopilot plays it."""
CHAT_SHOWN: Final = 30
"""Chat lines a snapshot carries, so a page that reloads sees the conversation."""
STORE_RETRY_SECONDS: Final = 2.0
"""How long bots wait to try again after the store failed to take their move."""

log = logging.getLogger("flyingchess.server")


class RoomLike(Protocol):
    """What a page's connection needs of a room: the room itself when this process owns
    it, or (with several processes) a stand-in that forwards to the owner."""

    id: str

    def watcher_count(self) -> int: ...

    async def connect(self, page: Watcher, control: Control) -> None: ...

    async def receive(self, page: Watcher, address: str, request: Message, text: str) -> None: ...

    async def disconnect(self, page: Watcher) -> None: ...


def iso_time(timestamp: float) -> str:
    return _iso_second(int(timestamp))


@functools.lru_cache(maxsize=4096)
def _iso_second(second: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))


@functools.lru_cache(maxsize=256)
def rules_summary(rules: Rules) -> tuple[dict[str, Any], str | None]:
    """A game's rules as pages see them, and their preset's name: the same for every
    update of a game, so worked out once (read-only: shared by every snapshot)."""
    return rules.to_json(), rules.preset_name()


class Room:
    """The server's authority over one game: it composes the game session (state and
    persistence), the seats (who may act), and presence (who is here, the autopilot
    clock), runs the bots, and tells every page what changed. One change at a time
    (`lock`); each is stored before anyone hears of it."""

    def __init__(
        self,
        store: LoopStore,
        stored: StoredGame,
        state: State,
        dice: random.Random,
        limits: Limits = Limits(),
        grace: float = GRACE_SECONDS,
        epoch: int | None = None,
        holds: Callable[[], bool] = lambda: True,
    ) -> None:
        """A room over a stored game whose `state` the caller has rebuilt (`rebuild`).
        `epoch`: this process's claim on the game when several processes share the
        database (every write is fenced with it); None for one process alone.
        `holds`: whether this process still holds the room's lease on its own clock; once
        it does not, the room writes and sends nothing more (cluster/nodes.py)."""
        self.holds = holds
        self.session = GameSession(store, stored, state, epoch, self.lose, holds, self.pause)
        self.presence = Presence(int(stored.extra.get("timer", 0) or 0), grace)
        self.id = stored.id
        self.lost = False
        """Another process has claimed the game: this room may do nothing more."""
        self.successor: Room | None = None
        """The room that took over from this one in this process (after an outage of Redis):
        the pages' connections still name this one, and are handed to it."""
        self.on_lost: Callable[[Room], Awaitable[None]] | None = None
        self.on_paused: Callable[[Room], None] | None = None
        self.limits = limits
        self.dice = dice
        self.bots: dict[str, Bot] = {}
        self.recent_chat: list[dict[str, Any]] = []
        self.lock = asyncio.Lock()
        self.bot_task: asyncio.Task[None] | None = None
        self.watchdog: asyncio.Task[None] | None = None
        self.joins = KeyedBuckets(limits.join_rate, limits.join_burst, capacity=1_000)
        self.chat_lines = KeyedBuckets(limits.chat_rate, limits.chat_burst, capacity=16)
        self.reactions = KeyedBuckets(limits.react_rate, limits.react_burst, capacity=16)

    async def load_chat(self) -> None:
        lines = await self.session.store.chat(self.id, CHAT_SHOWN)
        self.recent_chat = [dict(line, at=iso_time(line["at"])) for line in lines]

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
        session, state = self.session, self.session.state
        rules, rules_name = rules_summary(session.rules)
        moves = []
        if state.phase == "move":
            moves = [move.to_json() for move in move_infos(state)]
        return {
            "id": self.id,
            "created": iso_time(session.created),
            "updated": iso_time(session.updated),
            "rules": rules,
            "rules_name": rules_name,
            "players": list(session.players),
            "seats": self.public_seats(),
            "state": canonical_state(state),
            "phase": state.phase,
            "roll": state.roll,
            "moves": moves,
            "actions": len(session.actions),
            "speed": session.speed,
            "hints": session.extra.get("hints") is True,
            "dice": self._dice_view(),
            "started": session.started,
            "timer": self.presence.timer,
            "turn_left": self.presence.turn_left(self.seats, state.colour),
            "grace": self.presence.grace,
            "chat": self.recent_chat,
        }

    def _dice_view(self) -> dict[str, Any] | None:
        """What every page may know of the dice commitment (None: local dice)."""
        proof = self.session.proof
        if proof is None:
            return None
        view = proof.public(reveal=self.session.dice_revealed)
        return dict(view, seed=view.get("seed"))

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
            raise ProtocolError("reconnecting", MOVED_AWAY)

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
        current = asyncio.current_task()
        for task in (self.bot_task, self.watchdog):
            if task is not None and task is not current:
                task.cancel()

    async def deleted(self) -> None:
        """The game was deleted: its tasks stop, its pages are told so and hung up on."""
        for task in (self.bot_task, self.watchdog):
            if task is not None:
                task.cancel()
        watchers, self.presence.watchers = list(self.presence.watchers), {}
        gone = ProtocolError("unknown-game", "this game was deleted").to_json()
        await self._deliver(watchers, encode_message(gone))
        for watcher in watchers:
            asyncio.get_running_loop().create_task(watcher.close(code=4404))

    async def connect(self, page: Watcher, control: Control) -> None:
        """A page starts watching: it gets a snapshot, the others see its seats connect."""
        await self.attach(page, control, first=True)
        await page.send_text(encode_message({"type": "snapshot", "game": self.snapshot()}))
        self.wake_bots()

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
            await self._broadcast([])
            self.wake_bots()

    # ---------------------------------------------------------------- presence

    async def attach(self, watcher: Watcher, control: Control, first: bool = False) -> None:
        """A page watches the room with this control (again, after hello or join). Others
        see its seats connect; on its `first` attach the page itself gets a snapshot next."""
        before = self.presence.connected(self.seats)
        self.presence.attach(watcher, control)
        await self.heard_from(control)
        if self.presence.connected(self.seats) != before:
            await self._broadcast([], skip=watcher if first else None)

    async def heard_from(self, control: Control) -> None:
        """A page that controls seats is here: its seats leave the autopilot."""
        if self.presence.heard_from(control, self.seats):
            await self._broadcast([])

    async def _watch_clock(self) -> None:
        """Put absent or timed-out seats on autopilot, so a game never hangs."""
        while self.presence.watchers and not self.state.over:
            due = (
                self.presence.autopilot_due(time.monotonic(), self.seats, self.state.colour)
                if self.session.started
                else set()
            )
            if due:
                async with self.lock:
                    self.presence.autopilot |= due
                    await self._broadcast([])
                self.wake_bots()
            await asyncio.sleep(0.25)

    def authenticate(self, token: str) -> Control:
        return self.seats.authenticate(token, self.session.host_token)

    # ---------------------------------------------------------------- seats

    async def join(self, watcher: Watcher, colour: str, name: str, address: str) -> str:
        """Take an open seat: returns the new secret token (shown to that page only)."""
        async with self.lock:
            if colour not in self.seats:
                raise ProtocolError("bad-message", f"{colour} does not play in this game")
            if self.seats[colour].kind != "open":
                raise ProtocolError("seat-taken", f"the {colour} seat is not free")
            held = self.presence.control_of(watcher)
            if any(self.seats.controls(held, c) for c in held.colours):
                raise ProtocolError("already-seated", "this page already plays a seat here")
            wait = self.joins.allow(address, time.monotonic())
            if wait:
                raise ProtocolError(
                    "rate-limited",
                    f"too many seats taken from your address in this room: try again in {wait:.0f} s",
                    retry_after=wait,
                )
            token = secrets.token_urlsafe(24)
            digest = token_hash(token)
            await self.session.write_seats(
                self.seats.with_seat(colour, Seat("player", name=name, token=digest)), self.session.started
            )
            self.presence.watchers[watcher] = Control(colours=frozenset({colour}), token=digest)
            await self._broadcast([])
        self.wake_bots()
        return token

    async def set_seat(self, control: Control, colour: str, kind: str, bot: str | None) -> None:
        """The host gives a seat to a bot, to its own device, or opens it (removing a player)."""
        async with self.lock:
            if not control.host:
                raise ProtocolError("not-host", "only the host may change seats")
            seat = Seat("bot", bot=bot or AUTOPILOT_BOT) if kind == "bot" else Seat(cast(SeatKind, kind))
            await self.session.write_seats(self.seats.with_seat(colour, seat), self.session.started)
            self.presence.seat_changed(colour)
            for watcher, lost in self.presence.revoked(self.seats):
                await self._send(watcher, {"type": "seat-lost", "colours": sorted(lost.colours)})
            await self._broadcast([])
        self.wake_bots()

    async def start(self, control: Control) -> None:
        """The host starts a gathered game; seats still open go to the heuristic bot.
        With committed dice, the pages' contributions close now: a seated page that has
        not sent one yet gets a moment (`Limits.contribution_wait`), never more."""
        if not control.host:
            raise ProtocolError("not-host", "only the host starts the game")
        await self._await_contributions(time.monotonic() + self.limits.contribution_wait)
        async with self.lock:
            if self.session.started:
                raise ProtocolError("wrong-phase", "the game has already started")
            if self.session.dice_revealed:
                raise ProtocolError("dice-revealed", REVEALED_MESSAGE)
            await self.session.write_seats(self.seats.started(), True)
            self.presence.new_turn()
            await self._broadcast([])
        self.wake_bots()

    async def _await_contributions(self, deadline: float) -> None:
        while self.session.proof is not None and time.monotonic() < deadline:
            sent = set(self.session.proof.contributors)
            waiting = {
                key for control in self.presence.watchers.values() if (key := self._contributor(control)) is not None
            }
            if waiting <= sent:
                return
            await asyncio.sleep(0.05)

    def _contributor(self, control: Control) -> str | None:
        """Who a page contributes as: "host", its colour, or None (a spectator)."""
        if control.host:
            return "host"
        colours = sorted(self.seats.controlled_by(control))
        return colours[0] if colours else None

    async def contribute(self, control: Control, value: str) -> None:
        """A seated page's random share in the dice, before the game starts."""
        async with self.lock:
            proof = self.session.proof
            if proof is None:
                raise ProtocolError("no-commitment", "this game's dice are not committed (a game on one device)")
            if self.session.dice_revealed:
                raise ProtocolError("dice-revealed", REVEALED_MESSAGE)
            if self.session.started:
                raise ProtocolError("wrong-phase", "contributions close when the game starts")
            who = self._contributor(control)
            if who is None:
                raise ProtocolError("not-your-seat", "only the host and seated players contribute to the dice")
            if who in proof.contributors:
                raise ProtocolError("already-contributed", "this seat has already contributed to the dice")
            if len(proof.contributions) >= MAX_CONTRIBUTIONS:
                raise ProtocolError("already-contributed", "the dice have all the contributions they take")
            try:  # the proof checks it once more: only the host and the seats players hold now
                updated = proof.with_seated(self.seats.held_by_players()).with_contribution(who, value)
            except ProofError as refused:
                raise ProtocolError("not-your-seat", str(refused)) from None
            await self.session.write_proof(updated)
            await self._broadcast([])

    async def reveal_dice(self) -> None:
        """Show the seed of a game given up for a rematch; it can roll no more."""
        async with self.lock:
            proof = self.session.proof
            if proof is None or proof.revealed or self.state.over:
                return
            await self.session.write_proof(replace(proof, revealed=True))
            await self._broadcast([])

    async def announce_rematch(self, new_id: str) -> None:
        """The game is given up for a rematch: its dice seed is revealed, and every page
        in the room learns where the rematch is, so guests can follow."""
        await self.reveal_dice()
        await self._send_all({"type": "rematch", "id": new_id})

    async def say(self, control: Control, text: str | None = None, emoji: str | None = None) -> None:
        """Chat or a reaction, from the host or a player, to everyone in the room."""
        colour, name = self.seats.speaker(control)
        buckets = self.chat_lines if text is not None else self.reactions
        wait = buckets.allow(colour or "host", time.monotonic())
        if wait:
            what = "chat lines" if text is not None else "reactions"
            raise ProtocolError("rate-limited", f"too many {what}: wait {wait:.0f} s", retry_after=wait)
        if text is not None:
            now = time.time()
            await self.session.add_chat(now, colour, name, text, keep=self.limits.chat_history)
            message = {"type": "chat", "colour": colour, "name": name, "text": text, "at": iso_time(now)}
            line = {k: v for k, v in message.items() if k != "type"}
            self.recent_chat = (self.recent_chat + [line])[-CHAT_SHOWN:]
        else:
            message = {"type": "react", "colour": colour, "name": name, "emoji": emoji}
        await self._send_all(message)

    # ---------------------------------------------------------------- the game

    def _check_still_at(self, at: int | None) -> None:
        """A request meant for the game at `at` actions is refused once it has moved on (a
        page that sends its roll again after reconnecting must not roll twice)."""
        if at is not None and at != len(self.session.actions):
            raise ProtocolError("moved-on", "the game has moved on since: look at the board again")

    async def human_roll(self, control: Control = HOST, at: int | None = None) -> None:
        async with self.lock:
            self._check_still_at(at)
            self._check_human_turn("roll", control)
            value = self._next_roll()
            rolled, events = roll(self.state, value)
            if legal_moves(rolled):
                await self.session.hold_roll(value, rolled)
            else:
                events += await self.session.commit(rolled, value, None)
            self.presence.new_turn()
            await self._broadcast(events)
        self.wake_bots()

    async def human_move(self, plane: int, control: Control = HOST, at: int | None = None) -> None:
        async with self.lock:
            self._check_still_at(at)
            self._check_human_turn("move", control)
            assert self.state.roll is not None
            try:
                events = await self.session.commit(self.state, self.state.roll, plane)
            except IllegalMoveError as error:
                raise ProtocolError("illegal-move", str(error)) from None
            self.presence.new_turn()
            await self._broadcast(events)
        self.wake_bots()

    async def set_speed(self, control: Control, speed: str) -> None:
        async with self.lock:
            if not control.host:
                raise ProtocolError("not-host", "only the host sets the pace of the bots")
            await self.session.set_speed(speed)
            await self._broadcast([])
        self.wake_bots()

    def _next_roll(self) -> int:
        """The next die: derived from the commitment in a network game (roll number =
        actions so far, so a restarted server rolls the same), else the OS generator."""
        proof = self.session.proof
        return self.dice.randint(1, 6) if proof is None else proof.roll(len(self.session.actions))

    def _check_human_turn(self, phase: str, control: Control) -> None:
        state = self.state
        if state.over:
            raise ProtocolError("game-over", "the game is over")
        if self.session.dice_revealed:
            raise ProtocolError("dice-revealed", REVEALED_MESSAGE)
        if not self.session.started:
            raise ProtocolError("not-started", "the host has not started the game yet")
        colour = state.colour
        assert colour is not None
        seat = self.seats[colour]
        if seat.kind == "bot":
            raise ProtocolError("not-your-turn", f"{colour} is played by a bot")
        if seat.kind == "open":
            raise ProtocolError("waiting-for-players", f"the {colour} seat is waiting for a player")
        if not self.seats.controls(control, colour):
            raise ProtocolError("not-your-seat", f"you do not play {colour}")
        if state.phase != phase:
            wanted = "choose a plane" if state.phase == "move" else "roll the die"
            raise ProtocolError("wrong-phase", f"{colour} must {wanted} first")

    # ---------------------------------------------------------------- telling the pages

    async def _broadcast(self, events: list[Event], skip: Watcher | None = None) -> None:
        await self._send_all({"type": "update", "events": [e.to_json() for e in events], "game": self.snapshot()}, skip)

    async def _send_all(self, message: dict[str, Any], skip: Watcher | None = None) -> None:
        text = encode_message(message)  # once for all
        await self._deliver([watcher for watcher in self.presence.watchers if watcher is not skip], text)

    async def _send(self, watcher: Watcher, message: dict[str, Any]) -> None:
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

    # ---------------------------------------------------------------- bots

    def _bot_for(self, colour: str) -> Bot:
        seat = self.seats[colour]
        name = seat.bot if seat.kind == "bot" and seat.bot is not None and playable(seat.bot) else AUTOPILOT_BOT
        key = f"{colour}:{name}"
        if key not in self.bots:
            seed = zlib.crc32(f"{self.id}:{colour}".encode())
            self.bots[key] = make_bot(name, seed)
        return self.bots[key]

    def wake_bots(self) -> None:
        """Let the bots (and the autopilot) play while a page watches, and keep the clock
        that puts absent players on autopilot running."""
        loop = asyncio.get_running_loop()
        if (self.bot_task is None or self.bot_task.done()) and self._bot_to_move():  # no task per human action
            self.bot_task = loop.create_task(self._run_bots())
            self.bot_task.add_done_callback(log_failure)
        if self.watchdog is None or self.watchdog.done():
            self.watchdog = loop.create_task(self._watch_clock())
            self.watchdog.add_done_callback(log_failure)

    def _bot_to_move(self) -> bool:
        colour = self.state.colour
        if self.lost or not self.presence.watchers or colour is None or not self.session.started:
            return False
        if self.session.dice_revealed:
            return False
        return self.seats[colour].kind == "bot" or colour in self.presence.autopilot

    async def _run_bots(self) -> None:
        while self._bot_to_move():
            await asyncio.sleep(BOT_DELAY[self.session.speed])
            async with self.lock:
                if not self._bot_to_move():
                    return
                colour = self.state.colour
                assert colour is not None
                # a die a person rolled before the autopilot took over is the die to play
                pending = self.state.roll

                def dice(pending: int | None = pending) -> int:
                    return self._next_roll() if pending is None else pending

                turns: list[Turn] = []
                play_out(
                    self.state._replace(roll=None),
                    seat_chooser({colour: self._bot_for(colour)}),
                    dice,
                    watch=turns.append,
                    checked=True,
                    actions=1,
                )
                turn = turns[0]
                events = turn.events[1:] if pending is not None else turn.events  # announced already
                try:
                    await self.session.store_action(turn.roll, turn.plane, turn.after)
                except ProtocolError:  # the game has moved to another process: stop
                    return
                except StoreError as error:
                    # nothing changed and nobody saw the roll: say so, then try again
                    log.warning("room %s: %s", self.id, error)
                    await self._send_all(ProtocolError("storage-unavailable", STORAGE_MESSAGE).to_json())
                    await asyncio.sleep(STORE_RETRY_SECONDS)
                    continue
                self.presence.new_turn()
                await self._broadcast(events)


async def _roll(room: Room, page: Watcher, address: str, request: Roll) -> None:
    await room.human_roll(room.control_of(page), request.at)


async def _move(room: Room, page: Watcher, address: str, request: Move) -> None:
    await room.human_move(request.plane, room.control_of(page), request.at)


async def _speed(room: Room, page: Watcher, address: str, request: Speed) -> None:
    await room.set_speed(room.control_of(page), request.speed)


async def _sync(room: Room, page: Watcher, address: str, request: Sync) -> None:
    await _reply(page, {"type": "snapshot", "game": room.snapshot()})


async def _hello(room: Room, page: Watcher, address: str, request: Hello) -> None:
    control = room.authenticate(request.token)
    await room.attach(page, control)
    await _reply(page, {"type": "welcome", "role": control.role, "colours": sorted(control.colours)})


async def _join(room: Room, page: Watcher, address: str, request: Join) -> None:
    token = await room.join(page, request.colour, request.name, address)
    await _reply(page, {"type": "joined", "colour": request.colour, "token": token})


async def _set_seat(room: Room, page: Watcher, address: str, request: SetSeat) -> None:
    await room.set_seat(room.control_of(page), request.colour, request.kind, request.bot)


async def _start(room: Room, page: Watcher, address: str, request: Start) -> None:
    await room.start(room.control_of(page))


async def _kick(room: Room, page: Watcher, address: str, request: Kick) -> None:
    await room.set_seat(room.control_of(page), request.colour, "open", None)


async def _chat(room: Room, page: Watcher, address: str, request: Chat) -> None:
    await room.say(room.control_of(page), text=request.text)


async def _react(room: Room, page: Watcher, address: str, request: React) -> None:
    await room.say(room.control_of(page), emoji=request.emoji)


async def _contribute(room: Room, page: Watcher, address: str, request: Contribute) -> None:
    await room.contribute(room.control_of(page), request.value)


async def _reply(page: Watcher, message: dict[str, Any]) -> None:
    await page.send_text(encode_message(message))


Handler = Callable[[Room, Watcher, str, Any], Awaitable[None]]
HANDLERS: Final[dict[type, Handler]] = {
    Roll: _roll,
    Move: _move,
    Speed: _speed,
    Sync: _sync,
    Hello: _hello,
    Join: _join,
    SetSeat: _set_seat,
    Start: _start,
    Kick: _kick,
    Chat: _chat,
    React: _react,
    Contribute: _contribute,
}
"""What each message a page may send does: one entry per message type of protocol.py."""


REVEALED_MESSAGE: Final = "this game's dice were revealed when its rematch began: it cannot go on"
STORAGE_MESSAGE: Final = "the server cannot save games right now; nothing was changed: try again soon"


def log_failure(task: asyncio.Task[None]) -> None:
    """A done callback for background tasks: a failure reaches the log, never vanishes."""
    if not task.cancelled() and task.exception() is not None:
        log.error("a background task failed: %s", task.get_name(), exc_info=task.exception())


class Rooms:
    """The rooms in memory: loaded from the store when first asked for (in a worker
    thread, once however many ask at the same moment), dropped when nobody watches."""

    def __init__(
        self,
        store: LoopStore,
        dice_factory: Callable[[], random.Random] = EntropyDice,
        grace: float = GRACE_SECONDS,
        limits: Limits = Limits(),
    ) -> None:
        self.store = store
        self.dice_factory = dice_factory
        self.grace = grace
        self.limits = limits
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self.loading: dict[str, asyncio.Future[Room]] = {}
        self.deleted_while_loading: set[str] = set()
        self.draining = False
        """Shutting down: no page is taken any more (`drain`)."""

    def unavailable(self) -> ProtocolError | None:
        """Why this process takes no page now (at once, before a handshake is answered),
        or None."""
        return ProtocolError("reconnecting", RESTARTING) if self.draining else None

    async def for_page(self, game_id: str) -> RoomLike:
        """The room a page's connection talks to (here: the room itself)."""
        if self.draining:
            raise ProtocolError("reconnecting", RESTARTING)
        return await self.get(game_id)

    async def view(self, game_id: str) -> Room:
        """A room to read (a snapshot, the record, replay steps) or to check the host of."""
        return await self.get(game_id)

    async def announce_rematch(self, old_id: str, new_id: str) -> None:
        """The old game is given up: its room reveals its dice and tells its pages where
        the rematch is (loaded for it when nobody watches: the reveal must be stored)."""
        room = self.rooms.get(old_id) or await self.view(old_id)
        await room.announce_rematch(new_id)

    async def get(self, game_id: str) -> Room:
        room = self.rooms.get(game_id)
        if room is not None:
            self.rooms.move_to_end(game_id)
            return room
        if not _plausible_id(game_id):
            raise ProtocolError("unknown-game", "no game with that id")
        pending = self.loading.get(game_id)
        if pending is None:
            pending = self.loading[game_id] = asyncio.ensure_future(self._load(game_id))

            def loaded(_: object) -> None:
                self.loading.pop(game_id, None)
                self.deleted_while_loading.discard(game_id)

            pending.add_done_callback(loaded)
        return await asyncio.shield(pending)

    async def _load(self, game_id: str) -> Room:
        stored = await self.store.load(game_id)
        if stored is None:
            raise ProtocolError("unknown-game", "no game with that id")
        state = await self.store.run_blocking(rebuild, stored)
        room = self._room(stored, state)
        await room.load_chat()
        # Deleted while it loaded? `forget` marks it, and nothing awaits between this
        # check and keeping the room, so no room can outlive its game.
        if game_id in self.deleted_while_loading:
            raise ProtocolError("unknown-game", "no game with that id")
        return self._keep(room)

    def _room(self, stored: StoredGame, state: State) -> Room:
        return Room(self.store, stored, state, self.dice_factory(), self.limits, self.grace)

    def _keep(self, room: Room) -> Room:
        """Hold a room in memory (unless another request loaded it meanwhile)."""
        if room.id in self.rooms:
            return self.rooms[room.id]
        self._make_space()
        self.rooms[room.id] = room
        return room

    def _make_space(self) -> None:
        """Below the cap on rooms in memory, dropping rooms nobody watches; `server-busy`
        when every room is watched."""
        if len(self.rooms) < self.limits.rooms_in_memory:
            return
        for old_id in [i for i, r in self.rooms.items() if r.evictable()]:
            self._drop(old_id)
            if len(self.rooms) < self.limits.rooms_in_memory:
                return
        raise ProtocolError("server-busy", "the server is full: try again later")

    def sweep(self, now: float) -> int:
        """Drop rooms nobody has watched for a while; returns how many were dropped."""
        idle = [
            game_id
            for game_id, room in self.rooms.items()
            if room.evictable() and now - room.presence.last_seen >= self.limits.room_idle_seconds
        ]
        for game_id in idle:
            self._drop(game_id)
        return len(idle)

    async def drain(self) -> None:
        """The process is shutting down: each room finishes the change under way (it is
        stored and sent), then stops and hangs up on its pages (1012: they reconnect)."""
        self.draining = True
        for room in list(self.rooms.values()):
            if not room.lost:
                async with room.lock:
                    await room.lose()

    def _drop(self, game_id: str) -> None:
        """A room leaves memory (everything about it is stored)."""
        self.rooms.pop(game_id, None)

    async def create(
        self,
        rules: Rules,
        players: tuple[str, ...],
        seats: dict[str, dict[str, str]],
        extra: dict[str, Any] | None = None,
        actions: list[tuple[int, int | None]] | None = None,
        state: State | None = None,
        speed: str = "normal",
    ) -> tuple[Room, str]:
        """A new stored game from checked parts, and the host's secret token (handed to its
        creator once). The room is built before anything is written, and kept only after
        the write succeeded. `state` is the state after `actions`, when the caller has it."""
        actions = actions or []
        if state is None:
            state = replay_actions(players, rules, actions)
        host_token = secrets.token_urlsafe(24)
        now = time.time()
        started = not any(seat["kind"] == "open" for seat in seats.values())
        extra = dict(extra or {})
        if not started:  # players will join from other devices: dice they can check
            seated = tuple(colour for colour, seat in seats.items() if seat["kind"] == "player")
            extra["dice"] = DiceProof.new(first=len(actions), seated=seated).stored()
        stored = StoredGame(
            secrets.token_urlsafe(9),
            now,
            now,
            rules.to_json(),
            list(players),
            seats,
            extra,
            None,
            speed,
            state.over,
            state.winner,
            list(state.ranking),
            actions,
            token_hash(host_token),
            started,
        )
        room = self._room(stored, state)
        self._make_space()  # before the write: a refused game must not be stored (and room for it here)
        await self.store.create(
            stored.id,
            stored.rules,
            stored.players,
            seats,
            stored.extra,
            actions,
            state.over,
            state.winner,
            list(state.ranking),
            stored.host_token,
            started,
            speed=speed,
        )
        return self._adopt_new(room), host_token

    def _adopt_new(self, room: Room) -> Room:
        """A game just created: kept here, where its first page will find it."""
        return self._keep(room)

    async def forget(self, game_id: str) -> bool:
        """Delete a game; pages still watching it are told it is gone and hung up on."""
        if not _plausible_id(game_id):
            return False
        if game_id in self.loading:
            self.deleted_while_loading.add(game_id)
        if not await self.store.delete(game_id):
            return False
        await self.forget_in_memory(game_id)
        return True

    async def forget_in_memory(self, game_id: str) -> None:
        """A deleted game's room: its tasks stop, its pages are told it is gone."""
        room = self.rooms.get(game_id)
        if room is None:
            return
        self._drop(game_id)
        await room.deleted()


def import_parts(
    record: Record, limits: Limits
) -> tuple[dict[str, dict[str, str]], dict[str, Any], list[tuple[int, int | None]], State]:
    """A parsed record checked as strictly as a new game, then replayed once: (seats, extra,
    actions, final state). Runs in a worker thread. Seats come from the record when they
    are valid (a record from another tool may have none: every seat is then human)."""
    if len(record.actions) > limits.record_actions:
        raise ProtocolError(
            "bad-record", f"the record has {len(record.actions)} actions; at most {limits.record_actions} are accepted"
        )
    try:
        timer = parse_timer(record.extra.get("timer", 0))
    except ProtocolError as error:
        raise ProtocolError("bad-record", f"timer: {error.message}") from None
    actions = [parse_action(index, action) for index, action in enumerate(record.actions)]
    state = replay_actions(record.players, record.rules, actions)
    try:
        seats = parse_seats(record.players, record.extra.get("seats"))
    except ProtocolError:
        seats = parse_seats(record.players, None)
    extra = {key: value for key, value in record.extra.items() if key not in SERVER_KEYS}
    for key, value in extra.items():
        if _depth(value) > EXTRA_DEPTH:
            raise ProtocolError("bad-record", f"{key[:40]!r} nests more than {EXTRA_DEPTH} levels deep")
    if len(json.dumps(extra)) > EXTRA_CHARACTERS:
        raise ProtocolError("bad-record", f"the record's other fields are longer than {EXTRA_CHARACTERS} characters")
    if timer:
        extra["timer"] = timer
    return seats, extra, actions, state


SERVER_KEYS: Final = frozenset(
    {"seats", "id", "timer", "host_token", "speed", "pending_roll", "started", "created", "updated", "dice"}
)
"""Top-level record keys an import does not keep: the server decides them itself."""
EXTRA_DEPTH: Final = 16
EXTRA_CHARACTERS: Final = 64_000
"""An imported record's other top-level fields are kept (and come back in downloads)
when they nest at most 16 levels deep and take at most 64,000 characters."""


def _depth(value: Any) -> int:
    """How deeply a parsed JSON value nests (0 for a plain value); stops early when deep."""
    level, layer = 0, [value]
    while layer and level <= EXTRA_DEPTH:
        inner: list[Any] = []
        for item in layer:
            if isinstance(item, dict):
                inner.extend(item.values())
            elif isinstance(item, list):
                inner.extend(item)
        if not inner and not any(isinstance(item, (dict, list)) for item in layer):
            break
        layer, level = inner, level + 1
    return level


def _plausible_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 64 and all(c.isalnum() or c in "-_" for c in game_id)
