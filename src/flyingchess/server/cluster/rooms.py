"""Rooms across several server processes (`serve --redis`): the owner plays, the others
forward. This module finds a page its room and keeps the rooms owned here; see nodes.py
for leases, messages and liveness, forwarding.py for the stand-ins (`RemoteRoom`,
`RemotePage`), inbox.py for what a process does with the messages the others send it,
takeover.py for the watch on the other processes and the rooms taken over from them, and
suspension.py for the rooms paused while Redis is away.

A page's connection asks `ClusteredRooms.for_page`: when no live process owns the room,
this one takes the lease, claims the game in the database (a new epoch) and loads it;
when another process owns it, the page gets a `RemoteRoom`, which forwards what the page
sends to the owner and hands the page what the owner sends back. At the owner each such
page is a `RemotePage` watcher; messages to several pages on one process go out once.

When an owner dies, a process that forwards pages to it takes the room over and moves
those pages to it on the connections they have (each keeps the control the owner last
told it of, and gets a fresh snapshot): no reconnection for them. Whatever else goes
wrong (a lease is lost, Redis goes away, the room went to a third process) ends the same
way: the pages concerned are closed with 1012 and reconnect by themselves, to whichever
process owns the room by then. Nothing half-done is acknowledged: a move counts once it
is stored under the owner's epoch, and a write under an old epoch fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
from collections.abc import Callable, Mapping
from typing import Any

import redis

from .. import metrics
from ..errors import RESTARTING, UNAVAILABLE, DamagedGame, NoSuchGame, RoomAway, StoreError
from ..limits import Limits
from ..rooms.dice import EntropyDice
from ..rooms.presence import Watcher
from ..rooms.registry import NewGame, RoomKeeping, create_room
from ..rooms.room import GRACE_SECONDS, Room, RoomLike
from ..rooms.session import LoadedGame, load
from ..storage.async_store import LoopStore
from ..storage.store import StoredGame
from .forwarding import RemotePage, RemoteRoom
from .inbox import Inbox
from .loads import Coalesced
from .nodes import Cluster
from .suspension import Suspension
from .takeover import Takeovers

log = logging.getLogger("flyingchess.server")


class ClusteredRooms:
    """Rooms when several processes share the database and a Redis (a `RoomDirectory`,
    as rooms/registry.py's `Rooms` is for one process). The rooms this process owns are
    kept in a `RoomCache` like that one's; a room leaving it gives up its lease. Composed
    with the parts of one concern each: its `Inbox`, its `Takeovers` and its `Suspension`."""

    def __init__(
        self,
        store: LoopStore,
        dice_factory: Callable[[], random.Random] = EntropyDice,
        grace: float = GRACE_SECONDS,
        limits: Limits = Limits(),
        *,
        cluster: Cluster,
    ) -> None:
        self.store, self.limits, self.make_room, self.cache = RoomKeeping.of(
            store, dice_factory, grace, limits, on_drop=self._release
        )
        self.rooms = self.cache.rooms
        """The rooms this process owns, by game id."""
        self.loading = self.cache.loading
        self.draining = False
        """Shutting down: no page is taken any more (`drain`)."""
        self.cluster = cluster
        self.remote: dict[str, RemoteRoom] = {}
        """Rooms other processes own that pages here watch."""
        self.edge_pages: dict[str, Watcher] = {}
        """Pages here watching a room another process owns, by connection id."""
        self.remote_pages: dict[tuple[str, str], RemotePage] = {}
        """Pages of other processes watching rooms owned here, by (process, connection)."""
        self.tasks: list[asyncio.Task[None]] = []
        self.inbox = Inbox(self, cluster)
        self.takeovers = Takeovers(self)
        self.suspension = Suspension(self)
        self.loads: Coalesced[Room] = Coalesced(self._load_all_owned)

    # ----------------------------------------------------------------- running

    async def start(self) -> None:
        await self.cluster.start()
        self.tasks = [
            asyncio.create_task(self._renew_leases()),
            asyncio.create_task(self.takeovers.check_owners()),
            asyncio.create_task(self.suspension.expire_leases()),
        ]

    async def drain(self) -> None:
        """The process is shutting down (SIGTERM): hand every room to the others. Each room
        finishes the change under way, stops, and gives its lease up; the processes that
        forward pages to it are told to take it over at once, and move those pages on
        the connections they have (as when an owner dies); its own pages are hung up on
        (1012) and reconnect, to a process that owns it by then. Pages here watching rooms
        of other processes are hung up on too: their rooms are elsewhere and go on."""
        self.draining = True
        for game_id, room in list(self.rooms.items()):
            if room.lost:
                continue
            async with room.lock:  # the change under way is stored and sent first
                forwarded = [page for page in room.presence.watchers if isinstance(page, RemotePage)]
                for page in forwarded:  # not hung up on: their processes move them
                    room.presence.watchers.pop(page, None)
                await room.lose()  # gives the lease up (on_lost) and hangs up on the pages here
            for node in {page.group.node for page in forwarded}:
                with contextlib.suppress(redis.RedisError, OSError):
                    await self.cluster.send(node, {"op": "leaving", "room": game_id, "node": self.cluster.node})
        for remote in list(self.remote.values()):
            await remote.lost()
        self.suspension.hang_up()

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        self.suspension.stop()
        for game_id in list(self.rooms):
            await self.cluster.release(game_id)
        await self.cluster.stop()

    async def _renew_leases(self) -> None:
        while True:
            await asyncio.sleep(self.cluster.lease_seconds / 3)
            owned = [game_id for game_id, room in self.rooms.items() if room.epoch is not None]
            # A room still loading is held too: loading many at once can outlast a lease.
            owned += [game_id for game_id in self.loading if game_id not in self.rooms]
            try:
                lost = await self.cluster.renew(owned)
            except (redis.RedisError, OSError) as error:
                log.warning("cannot renew room leases: %s", error)
                lost = owned if self.cluster.cut_off() else []
            for game_id in lost:
                room = self.rooms.get(game_id)
                if room is not None:
                    log.warning("room %s: lease lost; another process may own it now", game_id)
                    await room.lose()

    # ----------------------------------------------------------------- finding rooms

    def unavailable(self) -> RoomAway | None:
        if self.draining:
            return RoomAway(RESTARTING)
        if self.cluster.cut_off():
            return RoomAway(UNAVAILABLE)
        return None

    async def for_page(self, game_id: str) -> RoomLike:
        """The room itself when this process owns it (taking it when nobody live does),
        else a stand-in that forwards to its owner."""
        if self.draining:
            raise RoomAway(RESTARTING)
        if self.cluster.cut_off():
            raise RoomAway(UNAVAILABLE)
        for _ in range(int(self.cluster.lease_seconds * 10) + 20):
            room = self.rooms.get(game_id)
            if room is not None and not room.lost:
                if self.cluster.holds(game_id):
                    return room
                await room.lose()  # its lease ran out: find who owns the game now
            try:
                owner = await self.cluster.owner_of(game_id)
                if owner is None or owner == self.cluster.node:
                    if await self.cluster.acquire(game_id):
                        return await self._own(game_id)
                    continue
                if await self.cluster.alive(owner):
                    remote = self.remote.get(game_id)
                    if remote is None or remote.owner != owner:
                        remote = self.remote[game_id] = RemoteRoom(self, game_id, owner)
                    return remote
                if await self.cluster.take_over(game_id, owner):  # its owner died: no need to wait out the lease
                    metrics.takeovers.inc()
                    await self.takeovers.owner_died(owner)
                    return await self._own(game_id)
            except (redis.RedisError, OSError):
                raise RoomAway(UNAVAILABLE) from None
            await asyncio.sleep(0.1)  # another process took it meanwhile: look again
        raise RoomAway(UNAVAILABLE)

    async def _own(self, game_id: str) -> Room:
        """This process now holds the lease: claim the game (fencing any previous owner)
        and load it, once however many pages ask at the same moment."""
        room = self.rooms.get(game_id)
        if room is not None and not room.lost:  # loaded while the caller awaited Redis
            return room
        return await self.cache.load_once(game_id, self.loads.load)

    async def own_all(self, game_ids: list[str]) -> list[Room | BaseException]:
        """`_own` for many rooms whose leases this process holds again (Redis back after
        an outage): each room, or why it could not be loaded."""
        return await asyncio.gather(*(self._own(game_id) for game_id in game_ids), return_exceptions=True)

    async def _load_all_owned(self, game_ids: list[str]) -> dict[str, Room | Exception]:
        """Claim and load rooms whose leases this process holds (`Coalesced`, loads.py:
        every room asked for in the same moment): one transaction of claims, one read."""
        try:
            epochs = await self.store.claim_all(game_ids)
            stored = await self.store.load_all(list(epochs))
        except StoreError:
            for game_id in game_ids:
                await self.cluster.release(game_id)
            raise
        for game_id in set(game_ids).difference(stored):  # no such game
            await self.cluster.release(game_id)
        games = await asyncio.to_thread(_read_all, stored)
        return {
            game_id: game if isinstance(game, Exception) else self._room_for(game, epochs[game_id])
            for game_id, game in games.items()
        }

    def _room_for(self, game: LoadedGame, epoch: int) -> Room:
        room = self.make_room(game, epoch, holds=functools.partial(self.cluster.holds, game.id))
        room.on_lost = self._room_lost
        room.on_paused = self.suspension.room_paused
        return room

    async def _room_lost(self, room: Room) -> None:
        if self.rooms.get(room.id) is room:
            self.rooms.pop(room.id, None)
            await self.cluster.release(room.id)
        for key in [key for key, page in self.remote_pages.items() if page.game_id == room.id]:
            self.remote_pages.pop(key, None)

    def _release(self, room: Room) -> None:
        """A room owned here leaves memory (or was deleted while it loaded): its lease goes."""
        if room.epoch is not None:
            asyncio.get_running_loop().create_task(self.cluster.release(room.id))

    async def view(self, game_id: str) -> Room:
        """The owned room, else the game as stored (to read: snapshot, record, replay)."""
        room = self.rooms.get(game_id)
        if room is not None and not room.lost and self.cluster.holds(game_id):
            return room
        stored = await self.store.load(game_id)
        if stored is None:
            raise NoSuchGame("no game with that id")
        game = await asyncio.to_thread(load, stored)
        return self.make_room(game)

    async def create(self, new: NewGame) -> Room:
        """A new game, stored; not kept here: its first page decides which process owns it."""
        return await create_room(self.store, self.cache, self.make_room, new)

    def sweep(self, now: float) -> int:
        return self.cache.sweep(now)

    async def announce_rematch(self, old_id: str, new_id: str) -> None:
        """The old game is given up (Rooms.announce_rematch): by its owner, wherever it is."""
        room = self.rooms.get(old_id)
        if room is not None and not room.lost:
            await self.announce_rematch_here(old_id, new_id)
        elif not await self._to_owner(old_id, {"op": "rematch", "room": old_id, "new": new_id}):
            await self._reveal_unowned(old_id)

    async def _reveal_unowned(self, game_id: str) -> None:
        """Reveal the dice of a game no process plays (as far as Redis says). The game is
        claimed in the database first: a process that still rolls for it unseen can then
        write nothing more, and its pages reconnect to the revealed game."""
        epoch = await self.store.claim(game_id)
        stored = await self.store.load(game_id) if epoch is not None else None
        if stored is None:
            return
        game = await asyncio.to_thread(load, stored)
        await self.make_room(game, epoch).gathering.reveal_dice()

    async def forget(self, game_id: str) -> bool:
        gone = await self.cache.forget(game_id, self.store.delete)
        if gone:
            await self._to_owner(game_id, {"op": "forget", "room": game_id})
        return gone

    async def _to_owner(self, game_id: str, message: dict[str, Any]) -> bool:
        """Tell the room's owner, wherever it is; False when nobody (else) owns it."""
        with contextlib.suppress(redis.RedisError, OSError):
            owner = await self.cluster.owner_of(game_id)
            if owner is not None and owner != self.cluster.node:
                await self.cluster.send(owner, message)
                return True
        return False

    async def announce_rematch_here(self, old_id: str, new_id: str) -> None:
        """The owner's side of a rematch: the room reveals its dice and its pages hear it
        (loaded for it when nobody watches: the reveal must be stored)."""
        room = self.rooms.get(old_id) or await self.view(old_id)
        await room.gathering.announce_rematch(new_id)

    async def forget_in_memory(self, game_id: str) -> None:
        """Another process deleted the game: its room here stops and its pages are told."""
        await self.cache.forget_in_memory(game_id)


def _read_all(stored: Mapping[str, StoredGame | DamagedGame]) -> dict[str, LoadedGame | Exception]:
    """Each game read (`load`, CPU-bound: in one worker thread for them all), or why not."""
    games: dict[str, LoadedGame | Exception] = {}
    for game_id, one in stored.items():
        try:
            games[game_id] = one if isinstance(one, DamagedGame) else load(one)
        except DamagedGame as damaged:
            games[game_id] = damaged
    return games
