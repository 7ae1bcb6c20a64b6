"""Rooms: one game each, with its seats, the pages watching it, and its bots.

A room is the server's authority over one game. Every request goes through the engine,
every change is committed to the store before it is broadcast, and bots play their
seats by themselves while anyone is watching. Rooms are loaded from the store on first
use, so a restarted server carries on exactly where the last one stopped.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import random
import secrets
import time
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Final, Protocol

from ..bots import Bot, make_bot
from ..events import Captured, Event, Flew, Jumped, Bounced
from ..game import IllegalMoveError, State, apply, carried_planes, legal_moves, new_game, roll
from ..record import Record, canonical_state, parse_action, rules_to_json
from ..rules import Rules
from .protocol import ProtocolError, parse_seats
from .store import Store, StoredGame

BOT_DELAY: Final = {"slow": 1.2, "normal": 0.6, "fast": 0.25, "instant": 0.0}
"""Seconds a bot waits before each roll, by the room's speed."""
GRACE_SECONDS: Final = 30.0
"""How long a seat whose player left waits before the autopilot plays it."""
AUTOPILOT_BOT: Final = "heuristic"
CHAT_KEPT: Final = 30
"""Chat lines a snapshot carries, so a page that reloads sees the conversation."""
PLAYED_BY_PEOPLE: Final = ("human", "player")


class Watcher(Protocol):
    """A page watching a room (a WebSocket in the app)."""

    async def send_text(self, data: str) -> None: ...


def iso_time(timestamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))


def describe_move(state: State, plane: int) -> dict[str, Any]:
    """What a legal move does, from the engine's own events (the page's hover preview)."""
    after, events = apply(state, plane)
    planes = carried_planes(state, plane)
    start = state.planes[state.turn][plane]
    return {
        "plane": plane,
        "planes": list(planes),
        "from": start,
        "to": after.planes[state.turn][plane],
        "launch": start == -1,
        "jump": any(isinstance(e, Jumped) for e in events),
        "flight": any(isinstance(e, Flew) for e in events),
        "bounce": any(isinstance(e, Bounced) for e in events),
        "captures": [{"colour": e.colour, "planes": list(e.planes), "progress": e.progress,
                      "cause": e.cause} for e in events if isinstance(e, Captured)],
        "events": [e.to_json() for e in events],
    }


def without_secrets(seats: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Seats with every token hash removed: the only form that may leave the server."""
    return {colour: {k: v for k, v in seat.items() if k != "token"} for colour, seat in seats.items()}


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Control:
    """What one connection may do: the host plays the room's `human` seats and manages
    seats; a player plays the seat its token names; anyone else watches."""

    host: bool = False
    colours: frozenset[str] = frozenset()
    token: str | None = None
    """The hash of the player's token: a seat given away since then is no longer theirs."""

    @property
    def role(self) -> str:
        return "host" if self.host else "player" if self.colours else "spectator"


class Room:
    def __init__(self, store: Store, stored: StoredGame, dice: random.Random) -> None:
        self.store = store
        self.id = stored.id
        self.created = stored.created
        self.updated = stored.updated
        self.rules = Rules.from_json(stored.rules)
        self.players = tuple(stored.players)
        self.seats: dict[str, dict[str, str]] = stored.seats
        self.host_token = stored.host_token
        self.started = stored.started
        self.extra = stored.extra
        self.speed = stored.speed
        self.actions: list[tuple[int, int | None]] = list(stored.actions)
        state = new_game(self.players, self.rules)
        for value, plane in self.actions:
            state, _ = roll(state, value)
            state, _ = apply(state, plane)
        if stored.pending_roll is not None and not state.over:
            state, _ = roll(state, stored.pending_roll)
        self.state = state
        self.dice = dice
        self.bots: dict[str, Bot] = {}
        self.watchers: dict[Watcher, Control] = {}
        self.timer = int(stored.extra.get("timer", 0) or 0)
        """Seconds a person may take for a turn before the autopilot moves (0: no limit)."""
        self.grace = GRACE_SECONDS
        self.absent_since: dict[str, float] = {}
        self.autopilot: set[str] = set()
        self.turn_started = time.monotonic()
        self.watchdog: asyncio.Task[None] | None = None
        self.recent_chat: list[dict[str, Any]] = [
            dict(line, at=iso_time(line["at"])) for line in store.chat(stored.id, CHAT_KEPT)]
        self.lock = asyncio.Lock()
        self.bot_task: asyncio.Task[None] | None = None

    # ---------------------------------------------------------------- views

    def seat_to_move(self) -> dict[str, str] | None:
        colour = self.state.colour
        return None if colour is None else self.seats[colour]

    def public_seats(self) -> dict[str, dict[str, Any]]:
        """Seats as every page may see them (never a token or its hash), with presence."""
        out = without_secrets(self.seats)
        for colour, public in out.items():
            public["connected"] = self.is_connected(colour)
            public["autopilot"] = colour in self.autopilot
        return out

    def controls(self, control: Control, colour: str) -> bool:
        seat = self.seats[colour]
        if control.host:
            return seat["kind"] == "human"
        # checked against the seat as it is now: a removed player's rights end at once
        return colour in control.colours and control.token is not None and seat.get("token") == control.token

    def is_connected(self, colour: str) -> bool:
        kind = self.seats[colour]["kind"]
        if kind == "bot":
            return True
        return kind in PLAYED_BY_PEOPLE and any(self.controls(c, colour) for c in self.watchers.values())

    # ---------------------------------------------------------------- presence

    async def attach(self, watcher: Watcher, control: Control, first: bool = False) -> None:
        """A page watches the room with this control (again, after hello or join). Others
        see its seats connect; on its `first` attach the page itself gets a snapshot next."""
        before = {c for c in self.seats if self.is_connected(c)}
        self.watchers[watcher] = control
        await self.heard_from(control)
        if {c for c in self.seats if self.is_connected(c)} != before:
            await self._broadcast([], skip=watcher if first else None)

    async def detach(self, watcher: Watcher) -> None:
        self.watchers.pop(watcher, None)
        now = time.monotonic()
        for colour, seat in self.seats.items():
            if seat["kind"] in PLAYED_BY_PEOPLE and not self.is_connected(colour):
                self.absent_since.setdefault(colour, now)
        if self.watchers:
            await self._broadcast([])
            self.wake_bots()

    async def heard_from(self, control: Control) -> None:
        """A page that controls seats is here: its seats leave the autopilot."""
        back = {c for c in self.seats if self.controls(control, c)}
        for colour in back:
            self.absent_since.pop(colour, None)
        if back & self.autopilot:
            self.autopilot -= back
            await self._broadcast([])

    def _autopilot_due(self, now: float) -> set[str]:
        if not self.started:
            return set()
        due = {c for c, since in self.absent_since.items()
               if now - since >= self.grace and self.seats[c]["kind"] in PLAYED_BY_PEOPLE}
        colour = self.state.colour
        if (self.timer and colour is not None and self.seats[colour]["kind"] in PLAYED_BY_PEOPLE
                and now - self.turn_started >= self.timer):
            due.add(colour)
        return due - self.autopilot

    async def _watch_clock(self) -> None:
        """Put absent or timed-out seats on autopilot, so a game never hangs."""
        while self.watchers and not self.state.over:
            due = self._autopilot_due(time.monotonic())
            if due:
                async with self.lock:
                    self.autopilot |= due
                    await self._broadcast([])
                self.wake_bots()
            await asyncio.sleep(0.25)

    def authenticate(self, token: str) -> Control:
        """The control a secret token gives, compared in constant time."""
        digest = token_hash(token)
        if self.host_token is not None and hmac.compare_digest(digest, self.host_token):
            return Control(host=True)
        for colour, seat in self.seats.items():
            if "token" in seat and hmac.compare_digest(digest, seat["token"]):
                return Control(colours=frozenset({colour}), token=seat["token"])
        raise ProtocolError("bad-token", "that token opens no seat in this game")

    def snapshot(self) -> dict[str, Any]:
        state = self.state
        moves = []
        if state.phase == "move":
            moves = [describe_move(state, plane) for plane in legal_moves(state)]
        return {
            "id": self.id,
            "created": iso_time(self.created),
            "updated": iso_time(self.updated),
            "rules": self.rules.to_json(),
            "rules_name": self.rules.preset_name(),
            "players": list(self.players),
            "seats": self.public_seats(),
            "state": canonical_state(state),
            "phase": state.phase,
            "roll": state.roll,
            "moves": moves,
            "actions": len(self.actions),
            "speed": self.speed,
            "started": self.started,
            "timer": self.timer,
            "turn_left": self._turn_left(),
            "grace": self.grace,
            "chat": self.recent_chat,
        }

    def _turn_left(self) -> float | None:
        """Seconds before the turn timer hands the seat to move to the autopilot."""
        colour = self.state.colour
        if not self.timer or colour is None or self.seats[colour]["kind"] not in PLAYED_BY_PEOPLE:
            return None
        return round(max(0.0, self.timer - (time.monotonic() - self.turn_started)), 1)

    def record(self) -> Record:
        record = Record(self.rules, self.players, [], rules_to_json(self.rules),
                        dict(self.extra, seats=self.public_seats(), id=self.id))
        for value, plane in self.actions:
            record.add(value, plane)
        return record

    def replay(self) -> dict[str, Any]:
        state = new_game(self.players, self.rules)
        initial = canonical_state(state)
        steps = []
        for value, plane in self.actions:
            state, events = roll(state, value)
            state, more = apply(state, plane)
            steps.append({"roll": value, "plane": plane,
                          "events": [e.to_json() for e in events + more],
                          "state": canonical_state(state)})
        return {"game": self.snapshot(), "initial": initial, "steps": steps}

    # ---------------------------------------------------------------- changes

    async def join(self, colour: str, name: str) -> tuple[str, Control]:
        """Take an open seat: returns the new secret token (shown to that page only)."""
        async with self.lock:
            if colour not in self.seats:
                raise ProtocolError("bad-message", f"{colour} does not play in this game")
            if self.seats[colour]["kind"] != "open":
                raise ProtocolError("seat-taken", f"the {colour} seat is not free")
            token = secrets.token_urlsafe(24)
            self.seats[colour] = {"kind": "player", "name": name, "token": token_hash(token)}
            self.store.set_seats(self.id, self.seats, self.started)
            await self._broadcast([])
        self.wake_bots()
        return token, Control(colours=frozenset({colour}), token=token_hash(token))

    async def set_seat(self, control: Control, colour: str, kind: str, bot: str | None) -> None:
        """The host gives a seat to a bot, to its own device, or opens it (removing a player)."""
        async with self.lock:
            if not control.host:
                raise ProtocolError("not-host", "only the host may change seats")
            if colour not in self.seats:
                raise ProtocolError("bad-message", f"{colour} does not play in this game")
            self.seats[colour] = {"kind": kind, "bot": bot or "heuristic"} if kind == "bot" else {"kind": kind}
            self.autopilot.discard(colour)
            self.absent_since.pop(colour, None)
            self.store.set_seats(self.id, self.seats, self.started)
            await self._broadcast([])
        self.wake_bots()

    async def start(self, control: Control) -> None:
        """The host starts a gathered game; seats still open go to the heuristic bot."""
        async with self.lock:
            if not control.host:
                raise ProtocolError("not-host", "only the host starts the game")
            if self.started:
                raise ProtocolError("wrong-phase", "the game has already started")
            for colour, seat in self.seats.items():
                if seat["kind"] == "open":
                    self.seats[colour] = {"kind": "bot", "bot": AUTOPILOT_BOT}
            self.started = True
            self.turn_started = time.monotonic()
            self.store.set_seats(self.id, self.seats, self.started)
            await self._broadcast([])
        self.wake_bots()

    async def announce_rematch(self, new_id: str) -> None:
        """Tell every page in the room where the rematch is, so guests can follow."""
        await self._send_all({"type": "rematch", "id": new_id})

    async def say(self, control: Control, text: str | None = None, emoji: str | None = None) -> None:
        """Chat or a reaction, from the host or a player, to everyone in the room."""
        if control.role == "spectator":
            raise ProtocolError("not-your-seat", "only players may chat")
        colour = next(iter(control.colours), None)
        name = self.seats[colour].get("name", colour) if colour else "host"
        if text is not None:
            now = time.time()
            self.store.add_chat(self.id, now, colour, name, text)
            message = {"type": "chat", "colour": colour, "name": name, "text": text, "at": iso_time(now)}
            self.recent_chat = (self.recent_chat + [{k: v for k, v in message.items() if k != "type"}])[-CHAT_KEPT:]
        else:
            message = {"type": "react", "colour": colour, "name": name, "emoji": emoji}
        await self._send_all(message)

    async def human_roll(self, control: Control = Control(host=True)) -> None:
        async with self.lock:
            self._check_human_turn("roll", control)
            value = self.dice.randint(1, 6)
            rolled, events = roll(self.state, value)
            if legal_moves(rolled):
                self.store.set_pending_roll(self.id, value)
                self.state = rolled
                self.turn_started = time.monotonic()
            else:
                events += self._commit(rolled, value, None)
            await self._broadcast(events)
        self.wake_bots()

    async def human_move(self, plane: int, control: Control = Control(host=True)) -> None:
        async with self.lock:
            self._check_human_turn("move", control)
            assert self.state.roll is not None
            value = self.state.roll
            try:
                events = self._commit(self.state, value, plane)
            except IllegalMoveError as error:
                raise ProtocolError("illegal-move", str(error)) from None
            await self._broadcast(events)
        self.wake_bots()

    async def set_speed(self, control: Control, speed: str) -> None:
        async with self.lock:
            if not control.host:
                raise ProtocolError("not-host", "only the host sets the pace of the bots")
            self.speed = speed
            self.store.set_speed(self.id, speed)
            await self._broadcast([])
        self.wake_bots()

    def _check_human_turn(self, phase: str, control: Control) -> None:
        if self.state.over:
            raise ProtocolError("game-over", "the game is over")
        if not self.started:
            raise ProtocolError("not-started", "the host has not started the game yet")
        colour = self.state.colour
        seat = self.seat_to_move()
        assert colour is not None and seat is not None
        if seat["kind"] == "bot":
            raise ProtocolError("not-your-turn", f"{colour} is played by a bot")
        if seat["kind"] == "open":
            raise ProtocolError("waiting-for-players", f"the {colour} seat is waiting for a player")
        if not self.controls(control, colour):
            raise ProtocolError("not-your-seat", f"you do not play {colour}")
        if self.state.phase != phase:
            wanted = "choose a plane" if self.state.phase == "move" else "roll the die"
            raise ProtocolError("wrong-phase", f"{self.state.colour} must {wanted} first")

    def _commit(self, rolled: State, value: int, plane: int | None) -> list[Event]:
        """Apply, store, then adopt the new state (the store write comes before any message)."""
        after, events = apply(rolled, plane)
        seq = len(self.actions)
        self.store.append_action(self.id, seq, value, plane, after.over, after.winner,
                                 list(after.ranking))
        self.actions.append((value, plane))
        self.state = after
        self.turn_started = time.monotonic()
        return events

    async def _broadcast(self, events: list[Event], skip: Watcher | None = None) -> None:
        await self._send_all({"type": "update", "events": [e.to_json() for e in events],
                              "game": self.snapshot()}, skip)

    async def _send_all(self, message: dict[str, Any], skip: Watcher | None = None) -> None:
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)  # once for all
        for watcher in list(self.watchers):
            if watcher is skip:
                continue
            try:
                await watcher.send_text(text)
            except Exception:  # a page that went away: forget it, never stop the game
                self.watchers.pop(watcher, None)

    # ---------------------------------------------------------------- bots

    def _bot_for(self, colour: str) -> Bot:
        seat = self.seats[colour]
        name = seat["bot"] if seat["kind"] == "bot" else AUTOPILOT_BOT
        key = f"{colour}:{name}"
        if key not in self.bots:
            seed = zlib.crc32(f"{self.id}:{colour}".encode())
            self.bots[key] = make_bot(name, seed)
        return self.bots[key]

    def wake_bots(self) -> None:
        """Let the bots (and the autopilot) play while a page watches, and keep the clock
        that puts absent players on autopilot running."""
        loop = asyncio.get_running_loop()
        if self.bot_task is None or self.bot_task.done():
            self.bot_task = loop.create_task(self._run_bots())
        if self.watchdog is None or self.watchdog.done():
            self.watchdog = loop.create_task(self._watch_clock())

    def _bot_to_move(self) -> bool:
        colour = self.state.colour
        if not self.watchers or colour is None or not self.started:
            return False
        return self.seats[colour]["kind"] == "bot" or colour in self.autopilot

    async def _run_bots(self) -> None:
        while self._bot_to_move():
            delay = BOT_DELAY[self.speed]
            await asyncio.sleep(delay)
            async with self.lock:
                if not self._bot_to_move():
                    return
                colour = self.state.colour
                assert colour is not None
                events: list[Event] = []
                rolled = self.state
                if rolled.roll is None:
                    rolled, events = roll(rolled, self.dice.randint(1, 6))
                assert rolled.roll is not None
                plane = self._bot_for(colour).choose(rolled)
                events += self._commit(rolled, rolled.roll, plane)
                await self._broadcast(events)


class Rooms:
    """Every room, loaded from the store when first asked for."""

    def __init__(self, store: Store, dice_factory: Callable[[], random.Random] = random.Random,
                 grace: float = GRACE_SECONDS) -> None:
        self.store = store
        self.dice_factory = dice_factory
        self.grace = grace
        self.rooms: dict[str, Room] = {}

    def get(self, game_id: str) -> Room:
        room = self.rooms.get(game_id)
        if room is None:
            stored = self.store.load(game_id) if _plausible_id(game_id) else None
            if stored is None:
                raise ProtocolError("unknown-game", "no game with that id")
            room = self.rooms[game_id] = Room(self.store, stored, self.dice_factory())
            room.grace = self.grace
        return room

    def create(self, rules: Rules, players: tuple[str, ...], seats: Any,
               actions: list[tuple[int, int | None]] | None = None,
               extra: dict[str, Any] | None = None) -> tuple[Room, str]:
        """A new stored game, and the host's secret token (handed to its creator once)."""
        checked = parse_seats(players, seats)
        actions = actions or []
        state = new_game(players, rules)
        for value, plane in actions:
            state, _ = roll(state, value)
            state, _ = apply(state, plane)
        game_id = secrets.token_urlsafe(9)
        host_token = secrets.token_urlsafe(24)
        gathering = any(seat["kind"] == "open" for seat in checked.values())
        self.store.create(game_id, rules.to_json(), list(players), checked, extra or {}, actions,
                          state.over, state.winner, list(state.ranking), token_hash(host_token),
                          started=not gathering)
        return self.get(game_id), host_token

    def import_record(self, record: Record) -> tuple[Room, str]:
        """A loaded record becomes a stored game that continues from its end."""
        actions = []
        for index, action in enumerate(record.actions):
            actions.append(parse_action(index, action))
        list(record.replay())  # raises ActionError for an illegal action
        seats = record.extra.get("seats")
        try:
            checked = parse_seats(record.players, seats)
        except ProtocolError:
            checked = parse_seats(record.players, None)
        extra = {k: v for k, v in record.extra.items() if k not in ("seats", "id")}
        return self.create(record.rules, record.players, checked, actions, extra)

    def forget(self, game_id: str) -> bool:
        room = self.rooms.pop(game_id, None)
        if room is not None and room.bot_task is not None:
            room.bot_task.cancel()
        return self.store.delete(game_id) if _plausible_id(game_id) else False


def _plausible_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 64 and all(c.isalnum() or c in "-_" for c in game_id)
