"""The rooms of one process: loaded from the store on first use (in a worker thread),
kept while pages watch, dropped when nobody does (everything is stored), created from a
new game or an imported record. With several processes, cluster/rooms.py's
ClusteredRooms keeps its rooms the same way, in a RoomCache of its own (both set up by
`RoomKeeping.of`)."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, NamedTuple, Protocol

from ...engine.game import (
    State,
)
from ...engine.rules import Rules
from ...records.fair_dice import DiceProof
from ...records.record import Record, parse_action, replay_actions
from ..errors import RESTARTING, NoSuchGame, RoomAway
from ..limits import Limits
from ..protocol import (
    ProtocolError,
    parse_seats,
    parse_timer,
)
from ..storage.async_store import LoopStore
from ..storage.store import StoredGame
from .dice import EntropyDice
from .room import GRACE_SECONDS, Room, RoomLike
from .seats import token_hash
from .session import LoadedGame, load


@dataclass(frozen=True)
class RoomMaker:
    """What every room of a process is built with: its store, a die of its own, the
    limits and the autopilot's grace."""

    store: LoopStore
    dice_factory: Callable[[], random.Random]
    limits: Limits
    grace: float

    def __call__(self, game: LoadedGame, epoch: int | None = None, holds: Callable[[], bool] = lambda: True) -> Room:
        return Room(self.store, game, self.dice_factory(), self.limits, self.grace, epoch, holds)


class RoomCache:
    """The rooms a process holds in memory: each loaded once however many ask at the same
    moment, kept while pages watch, dropped (unwatched ones first) at the cap or when idle,
    and never kept past its game's deletion. Both ways of keeping rooms, one process
    (`Rooms`) and several (cluster/rooms.py, `ClusteredRooms`), hold one; `on_drop` is
    told of each room that leaves (the cluster gives up its lease)."""

    def __init__(self, limits: Limits, on_drop: Callable[[Room], None] = lambda room: None) -> None:
        self.limits = limits
        self.on_drop = on_drop
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self.loading: dict[str, asyncio.Future[Room]] = {}
        self.deleted_while_loading: set[str] = set()

    async def load_once(self, game_id: str, loader: Callable[[str], Awaitable[Room]]) -> Room:
        """The room `loader` makes for the game, kept here; one load however many ask."""
        pending = self.loading.get(game_id)
        if pending is None:
            pending = self.loading[game_id] = asyncio.ensure_future(self._load(game_id, loader))

            def loaded(_: object) -> None:
                self.loading.pop(game_id, None)
                self.deleted_while_loading.discard(game_id)

            pending.add_done_callback(loaded)
        return await asyncio.shield(pending)

    async def _load(self, game_id: str, loader: Callable[[str], Awaitable[Room]]) -> Room:
        room = await loader(game_id)
        await room.chat.load()
        # Deleted while it loaded? `forget` marks it, and nothing awaits between this
        # check and keeping the room, so no room can outlive its game.
        if game_id in self.deleted_while_loading:
            self.on_drop(room)
            raise NoSuchGame("no game with that id")
        return self.keep(room)

    def keep(self, room: Room) -> Room:
        """Hold a room in memory (unless another request loaded it meanwhile)."""
        if room.id in self.rooms:
            return self.rooms[room.id]
        self.make_space()
        self.rooms[room.id] = room
        return room

    def make_space(self) -> None:
        """Below the cap on rooms in memory, dropping rooms nobody watches; `server-busy`
        when every room is watched."""
        if len(self.rooms) < self.limits.rooms_in_memory:
            return
        for old_id in [i for i, r in self.rooms.items() if r.evictable()]:
            self.drop(old_id)
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
            self.drop(game_id)
        return len(idle)

    def drop(self, game_id: str) -> None:
        """A room leaves memory (everything about it is stored)."""
        room = self.rooms.pop(game_id, None)
        if room is not None:
            self.on_drop(room)

    async def forget(self, game_id: str, delete: Callable[[str], Awaitable[bool]]) -> bool:
        """Delete a game (`delete`: from the store); pages still watching it are told it
        is gone and hung up on. False when there was no such game."""
        if not _plausible_id(game_id):
            return False
        if game_id in self.loading:
            self.deleted_while_loading.add(game_id)
        if not await delete(game_id):
            return False
        await self.forget_in_memory(game_id)
        return True

    async def forget_in_memory(self, game_id: str) -> None:
        """A deleted game's room: its tasks stop, its pages are told it is gone."""
        room = self.rooms.get(game_id)
        if room is None:
            return
        self.drop(game_id)
        await room.deleted()


class RoomKeeping(NamedTuple):
    """What a directory keeps its rooms with, built the same way for both (`Rooms` and
    cluster/rooms.py's `ClusteredRooms`) by `RoomKeeping.of`: the store, the limits, the
    `RoomMaker` every room is built by and the `RoomCache` that holds them."""

    store: LoopStore
    limits: Limits
    make_room: RoomMaker
    cache: RoomCache

    @classmethod
    def of(
        cls,
        store: LoopStore,
        dice_factory: Callable[[], random.Random],
        grace: float,
        limits: Limits,
        on_drop: Callable[[Room], None] = lambda room: None,
    ) -> RoomKeeping:
        """`on_drop` is told of each room that leaves the cache (`RoomCache`)."""
        return cls(store, limits, RoomMaker(store, dice_factory, limits, grace), RoomCache(limits, on_drop))


class NewGame(NamedTuple):
    stored: StoredGame
    game: LoadedGame
    host_token: str
    """The host's secret, handed to the game's creator once (only its hash is stored)."""


def new_game(
    rules: Rules,
    players: tuple[str, ...],
    seats: dict[str, dict[str, str]],
    extra: dict[str, Any] | None = None,
    actions: list[tuple[int, int | None]] | None = None,
    state: State | None = None,
    speed: str = "normal",
) -> NewGame:
    """A new game from checked parts, not stored yet (`Rooms.create` stores it). `state`
    is the state after `actions`, when the caller has it. A game with open seats has
    committed dice."""
    actions = actions or []
    if state is None:
        state = replay_actions(players, rules, actions)
    host_token = secrets.token_urlsafe(24)
    started = not any(seat["kind"] == "open" for seat in seats.values())
    extra = dict(extra or {})
    if not started:  # players will join from other devices: dice they can check
        seated = tuple(colour for colour, seat in seats.items() if seat["kind"] == "player")
        extra["dice"] = DiceProof.new(first=len(actions), seated=seated).stored()
    stored = StoredGame.new(
        secrets.token_urlsafe(9),
        rules.to_json(),
        list(players),
        seats,
        extra=extra,
        speed=speed,
        over=state.over,
        winner=state.winner,
        ranking=list(state.ranking),
        actions=actions,
        host_token=token_hash(host_token),
        started=started,
    )
    return NewGame(stored, load(stored, state), host_token)


class RoomDirectory(Protocol):
    """Where the app finds rooms: `Rooms` (one process) or cluster/rooms.py's
    `ClusteredRooms` (several sharing a database and a Redis)."""

    rooms: OrderedDict[str, Room]
    """The rooms this process plays, by game id."""

    def unavailable(self) -> RoomAway | None: ...

    async def for_page(self, game_id: str) -> RoomLike: ...

    async def view(self, game_id: str) -> Room: ...

    async def announce_rematch(self, old_id: str, new_id: str) -> None: ...

    async def create(self, new: NewGame) -> Room: ...

    async def forget(self, game_id: str) -> bool: ...

    def sweep(self, now: float) -> int: ...

    async def drain(self) -> None: ...


class Rooms:
    """The rooms of one process, all its own: loaded from the store when first asked for
    (in a worker thread), dropped when nobody watches."""

    def __init__(
        self,
        store: LoopStore,
        dice_factory: Callable[[], random.Random] = EntropyDice,
        grace: float = GRACE_SECONDS,
        limits: Limits = Limits(),
    ) -> None:
        self.store, self.limits, self.make_room, self.cache = RoomKeeping.of(store, dice_factory, grace, limits)
        self.rooms = self.cache.rooms
        """The rooms in memory, by game id."""
        self.draining = False
        """Shutting down: no page is taken any more (`drain`)."""

    def unavailable(self) -> RoomAway | None:
        """Why this process takes no page now (at once, before a handshake is answered),
        or None."""
        return RoomAway(RESTARTING) if self.draining else None

    async def for_page(self, game_id: str) -> RoomLike:
        """The room a page's connection talks to (here: the room itself)."""
        if self.draining:
            raise RoomAway(RESTARTING)
        return await self.get(game_id)

    async def view(self, game_id: str) -> Room:
        """A room to read (a snapshot, the record, replay steps) or to check the host of."""
        return await self.get(game_id)

    async def announce_rematch(self, old_id: str, new_id: str) -> None:
        """The old game is given up: its room reveals its dice and tells its pages where
        the rematch is (loaded for it when nobody watches: the reveal must be stored)."""
        room = self.rooms.get(old_id) or await self.view(old_id)
        await room.gathering.announce_rematch(new_id)

    async def get(self, game_id: str) -> Room:
        room = self.rooms.get(game_id)
        if room is not None:
            self.rooms.move_to_end(game_id)
            return room
        if not _plausible_id(game_id):
            raise NoSuchGame("no game with that id")
        return await self.cache.load_once(game_id, self._load)

    async def _load(self, game_id: str) -> Room:
        stored = await self.store.load(game_id)
        if stored is None:
            raise NoSuchGame("no game with that id")
        return self.make_room(await self.store.run_blocking(load, stored))

    async def create(self, new: NewGame) -> Room:
        """Store a new game (`new_game`); its room is built before anything is written,
        and kept only after the write succeeded."""
        return self.cache.keep(await create_room(self.store, self.cache, self.make_room, new))

    async def forget(self, game_id: str) -> bool:
        """Delete a game; pages still watching it are told it is gone and hung up on."""
        return await self.cache.forget(game_id, self.store.delete)

    def sweep(self, now: float) -> int:
        return self.cache.sweep(now)

    async def drain(self) -> None:
        """The process is shutting down: each room finishes the change under way (it is
        stored and sent), then stops and hangs up on its pages (1012: they reconnect)."""
        self.draining = True
        for room in list(self.rooms.values()):
            if not room.lost:
                async with room.lock:
                    await room.lose()


async def create_room(store: LoopStore, cache: RoomCache, make_room: RoomMaker, new: NewGame) -> Room:
    """Store a new game and return its room, not kept yet. Room for it is made in
    memory first: a game refused for want of it must not be stored."""
    room = make_room(new.game)
    cache.make_space()
    await store.create(new.stored)
    return room


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
