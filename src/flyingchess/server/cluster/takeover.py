"""The watch a process keeps on the others, and the rooms it takes over from them. When
the owner of a room that pages here watch dies (or gives the room up, or leaves it
unowned for longer than a lease), this process takes the lease, loads the room and moves
those pages to it on the connections they have; pages of a dead process leave the rooms
owned here. One job: `ClusteredRooms` (rooms.py) composes a `Takeovers`, and the
stand-ins (forwarding.py) and the inbox (inbox.py) ask it to take a room over."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Final

import redis

from .. import metrics
from ..logs import log_failure
from ..rooms.room import Room
from .forwarding import RemoteRoom
from .loads import Coalesced

if TYPE_CHECKING:
    from .rooms import ClusteredRooms

log = logging.getLogger("flyingchess.server")

CHECK_SECONDS: Final = 0.25
"""How often a process checks that the owners of its forwarded rooms are still there
(two Redis round trips, however many rooms)."""


class Takeovers:
    """One process's watch on the owners of the rooms it forwards to, and its takeovers
    of their rooms, for its `ClusteredRooms`."""

    def __init__(self, rooms: ClusteredRooms) -> None:
        self.rooms = rooms
        self.asked: dict[str, RemoteRoom] = {}
        """The stand-ins of rooms to take over, until their batch takes them."""
        self.takes: Coalesced[Room] = Coalesced(self._take_all)

    async def check_owners(self) -> None:
        """Forwarded rooms whose owner is gone reconnect their pages; pages of processes
        that are gone leave the rooms owned here."""
        rooms, cluster = self.rooms, self.rooms.cluster
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            try:
                forwarded = list(rooms.remote.values())
                owners = await cluster.owners_of([remote.id for remote in forwarded])
                nodes = {remote.owner for remote in forwarded} | {node for node, _ in rooms.remote_pages}
                living = await cluster.living(sorted(nodes))
                now = time.monotonic()
                for remote, owner in zip(forwarded, owners, strict=True):
                    if owner is None and remote.owner in living:
                        # its owner is taking it back (Redis was away); if it does not, take it
                        remote.unowned_since = remote.unowned_since or now
                        if now - remote.unowned_since > cluster.lease_seconds:
                            self.take_over_from(remote)
                        continue
                    remote.unowned_since = None
                    if owner not in living or owner == cluster.node:
                        self.take_over_from(remote)
                    elif owner != remote.owner:
                        await remote.lost()  # it went to a third process: the pages find it there
                gone = nodes - living
                for key in [key for key in rooms.remote_pages if key[0] in gone]:
                    page = rooms.remote_pages.pop(key)
                    room = rooms.rooms.get(page.game_id)
                    if room is not None:
                        await room.disconnect(page)
            except (redis.RedisError, OSError) as error:
                # Redis is away: the forwarded pages keep their connections (their requests
                # are answered `reconnecting`) until it is back and the rooms go on
                log.warning("cannot check the other processes: %s", error)

    async def owner_died(self, dead: str) -> None:
        """The dead process's rooms that pages here watch move here now (not at the next check)."""
        for remote in [remote for remote in self.rooms.remote.values() if remote.owner == dead]:
            self.take_over_from(remote)

    def take_over_from(self, remote: RemoteRoom) -> bool:
        """The owner of a room pages here watch is gone: take the lease (unless a third
        process has, or the owner turns out to be alive), load the room here and move the
        pages to it. False when that room is not this process's to take. Rooms asked for
        in the same moment (a leaving or dead owner's) are taken together (`_take_all`)."""
        if self.rooms.remote.get(remote.id) is not remote:
            return False  # being taken over already, or lost
        del self.rooms.remote[remote.id]
        remote.begin_move()
        self.asked[remote.id] = remote

        async def taking() -> Room | None:
            try:
                return await self.takes.load(remote.id)
            except NotOurs:
                return None

        task = asyncio.get_running_loop().create_task(remote.move_to(taking()), name=f"take over {remote.id}")
        task.add_done_callback(log_failure)
        return True

    async def _take_all(self, game_ids: list[str]) -> dict[str, Room | Exception]:
        """Take the leases of these rooms where they are this process's to take, in a few
        round trips for them all (the owners, who of them lives, the leases), and load
        those rooms together (`own_all`). A rolling restart hands a process hundreds of
        rooms at once: as two commands each, Redis took an eighth of its event loop while
        the other process's pages reconnected to it."""
        remotes = [self.asked.pop(game_id) for game_id in game_ids]
        cluster = self.rooms.cluster
        owners = await cluster.owners_of(game_ids)
        earlier = {remote.owner for remote, owner in zip(remotes, owners, strict=True) if owner == remote.owner}
        living = await cluster.living(sorted(earlier))
        ours = [game_id for game_id, owner in zip(game_ids, owners, strict=True) if owner == cluster.node]
        ours += await cluster.acquire_all(
            [game_id for game_id, owner in zip(game_ids, owners, strict=True) if owner is None]
        )
        for dead in earlier - living:
            from_dead = [remote.id for remote in remotes if remote.owner == dead]
            ours += await cluster.take_over_all(from_dead, dead)
        metrics.takeovers.inc(len(ours))
        rooms = await self.rooms.own_all(ours)
        taken: dict[str, Room | Exception] = {game_id: NotOurs(game_id) for game_id in game_ids}
        for game_id, room in zip(ours, rooms, strict=True):
            if not isinstance(room, Room | Exception):
                raise room  # cancelled: the process is stopping
            taken[game_id] = room
        return taken


class NotOurs(Exception):
    """A room another process owns now (a third one took it, or its owner lives): not
    this process's to take over."""
