"""The rooms a process pauses while Redis is away, and their return. A room owned here
whose lease runs out on this process's clock (Redis frozen or gone, so the lease could
not be renewed) stops at that moment and is set aside with its pages; once Redis has
answered since, each comes back here if nobody took it meanwhile (claimed anew, loaded,
and handed the pages it had), else its pages reconnect, to its new owner. One job:
`ClusteredRooms` (rooms.py) composes a `Suspension` and hands it the rooms that pause."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Final

import redis

from ..errors import DamagedGame, NoSuchGame, RoomAway, StoreError
from ..logs import log_failure
from ..rooms.room import Room
from .forwarding import RemotePage

if TYPE_CHECKING:
    from .rooms import ClusteredRooms

log = logging.getLogger("flyingchess.server")

EXPIRY_CHECK_SECONDS: Final = 0.1
"""How often a process looks for rooms whose lease ran out on its own clock."""


class Suspension:
    """The paused rooms of one process's `ClusteredRooms`, and the task that brings them
    back."""

    def __init__(self, rooms: ClusteredRooms) -> None:
        self.rooms = rooms
        self.suspended: dict[str, Room] = {}
        """Rooms whose lease ran out while Redis could not be reached, with their pages."""
        self.paused_at = 0.0
        """When a room was last paused: Redis must answer after that for rooms to come back."""
        self.resuming: asyncio.Task[None] | None = None

    async def expire_leases(self) -> None:
        """Stop every room whose lease has run out on this process's clock, at that moment:
        Redis may be frozen or away and say nothing (a room would also stop by itself the
        next time it acts). The paused rooms come back once Redis has answered since (in a
        task of their own: asking a frozen Redis waits, and this watch must not)."""
        while True:
            await asyncio.sleep(EXPIRY_CHECK_SECONDS)
            for game_id, room in list(self.rooms.rooms.items()):
                if room.epoch is not None and not room.lost and not self.rooms.cluster.holds(game_id):
                    room.pause()  # its pages stay: it may come back here when Redis does
            if self.suspended and (self.resuming is None or self.resuming.done()):
                self.resuming = asyncio.get_running_loop().create_task(self._resume_when_redis_answers())
                self.resuming.add_done_callback(log_failure)

    def room_paused(self, room: Room) -> None:
        """Its lease ran out on this process's clock (Room.pause): set aside with its pages
        until Redis answers again (`_resume`)."""
        if self.rooms.rooms.get(room.id) is room:
            log.warning("room %s: lease ran out before it was renewed; pausing it", room.id)
            self.rooms.rooms.pop(room.id, None)
            earlier = self.suspended.get(room.id)
            if earlier is None:
                self.suspended[room.id] = room
            else:  # paused again before it came back: one entry, with every page of both
                earlier.presence.watchers.update(room.presence.watchers)
                room.presence.watchers = {}
            self.paused_at = time.monotonic()

    def hang_up(self) -> None:
        """The process is shutting down (`ClusteredRooms.drain`): the paused rooms' pages
        are hung up on (1012) and reconnect, to whichever process owns each room by then."""
        for paused in self.suspended.values():
            for watcher in list(paused.presence.watchers):
                asyncio.get_running_loop().create_task(watcher.close(code=1012))
        self.suspended.clear()

    def stop(self) -> None:
        """Stop bringing rooms back (`ClusteredRooms.stop`)."""
        if self.resuming is not None:
            self.resuming.cancel()

    async def _resume_when_redis_answers(self) -> None:
        """Ask Redis every tenth of a second (a short ping, on connections of its own) until
        it has answered since the last room paused, then bring the paused rooms back: the
        heartbeat alone noticed its return up to a second late."""
        while self.rooms.cluster.healthy_since <= self.paused_at:
            if not await self.rooms.cluster.probe():
                await asyncio.sleep(EXPIRY_CHECK_SECONDS)
        await self._resume()

    async def _resume(self) -> None:
        """Redis answers again: each paused room comes back here if nobody took it
        meanwhile (claimed anew, loaded, and handed the pages it had, each with a fresh
        snapshot and the control it had); else its pages reconnect, to its new owner. All
        at once: one by one, hundreds of rooms took seconds to come back."""
        games = list(self.suspended)
        try:
            held = await self.rooms.cluster.acquire_all(games)
        except (redis.RedisError, OSError):
            return  # not yet: the next round
        ours = [game_id for game_id in games if game_id in held]
        loaded = dict(zip(ours, await self.rooms.own_all(ours), strict=True))
        taken = [self._take_back(game_id, loaded.get(game_id)) for game_id in games]
        for game_id, outcome in zip(games, await asyncio.gather(*taken, return_exceptions=True), strict=True):
            if isinstance(outcome, Exception):  # the others still come back
                log.error("room %s: cannot take it back", game_id, exc_info=outcome)

    async def _take_back(self, game_id: str, loaded: Room | BaseException | None) -> None:
        """The room loaded anew (`loaded`), or why it could not be (None: another process
        holds its lease now): its pages go to it, else they reconnect."""
        old = self.suspended.pop(game_id, None)
        if old is None:
            return
        room = loaded if isinstance(loaded, Room) else None
        if isinstance(loaded, (NoSuchGame, RoomAway, StoreError, DamagedGame)):
            log.warning("room %s: cannot take it back: %s", game_id, loaded)
        elif isinstance(loaded, BaseException):  # a fault of ours: logged, and the pages reconnect
            log.error("room %s: cannot take it back", game_id, exc_info=loaded)
        pages = list(old.presence.watchers.items())
        old.presence.watchers = {}
        remote_pages = self.rooms.remote_pages
        if room is None:
            for key in [key for key, page in remote_pages.items() if page.game_id == game_id]:
                remote_pages.pop(key, None)
            for page, _ in pages:
                asyncio.get_running_loop().create_task(page.close(code=1012))
            return
        old.successor = room
        for page, control in pages:
            if isinstance(page, RemotePage) and remote_pages.get((page.group.node, page.conn)) is not page:
                continue  # it left (or its process died) while the room was paused
            with contextlib.suppress(ConnectionError):
                await room.connect(page, control)
