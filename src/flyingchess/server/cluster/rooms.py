"""Rooms across several server processes (`serve --redis`): the owner plays, the others
forward. See nodes.py for leases, messages and liveness.

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
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

import redis

from .. import metrics
from ..logs import log_failure
from ..protocol import Hello, Message, Move, ProtocolError, Roll, encode_message, parse_message
from ..rooms.presence import Watcher
from ..rooms.registry import Rooms
from ..rooms.room import RESTARTING, Room, RoomLike
from ..rooms.seats import Control
from ..rooms.session import rebuild
from ..storage.store import StoreError
from .nodes import Cluster

log = logging.getLogger("flyingchess.server")

ASKED_AGAIN: Final = (Roll, Move)
"""Requests a room's dead owner never carried out that are dropped when the room moves:
the snapshot the move sends shows the page where the game stands, and it asks again
(carrying them out as well would answer twice). Anything else is carried out."""

CHECK_SECONDS: Final = 0.25
"""How often a process checks that the owners of its forwarded rooms are still there
(two Redis round trips, however many rooms)."""
EXPIRY_CHECK_SECONDS: Final = 0.1
"""How often a process looks for rooms whose lease ran out on its own clock."""
UNAVAILABLE: Final = "the game servers cannot reach each other right now: reconnecting"


def control_to_json(control: Control) -> dict[str, Any]:
    return {"host": control.host, "colours": sorted(control.colours), "token": control.token}


def control_from_json(data: dict[str, Any]) -> Control:
    token = data.get("token")
    return Control(
        host=bool(data.get("host")),
        colours=frozenset(str(colour) for colour in data.get("colours", [])),
        token=str(token) if token is not None else None,
    )


class NodeLink:
    """The messages from this process (an owner) to the pages of one other process."""

    def __init__(self, cluster: Cluster, node: str) -> None:
        self.cluster = cluster
        self.node = node

    def deliver(self, pages: list[RemotePage], text: str, valid: Callable[[], bool]) -> None:
        """Queued, not awaited (Cluster.post): dropped unsent unless `valid()` (the room may
        still send: Room.may_send) when it is about to go out."""
        self.cluster.post(self.node, {"op": "deliver", "conns": [page.conn for page in pages], "text": text}, valid)


class RemotePage:
    """A page connected to another process, as the owner's room sees it."""

    def __init__(self, link: NodeLink, conn: str, game_id: str) -> None:
        self.group = link
        """Pages of one process share a link: a broadcast goes to them in one message."""
        self.conn = conn
        self.game_id = game_id

    async def send_text(self, data: str) -> None:
        """Alone, outside a room's broadcast (which sends its pages of one process together)."""
        self.group.deliver([self], data, functools.partial(self.group.cluster.holds, self.game_id))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        with contextlib.suppress(redis.RedisError, OSError):
            await self.group.cluster.send(self.group.node, {"op": "close", "conns": [self.conn], "code": code})


class RemoteRoom:
    """The stand-in for a room another process owns: it forwards, the owner plays. When
    the owner dies this process may take the room over (`move_to`); from then on the
    stand-in hands its pages' requests to the room here."""

    def __init__(self, rooms: ClusteredRooms, game_id: str, owner: str) -> None:
        self.rooms = rooms
        self.id = game_id
        self.owner = owner
        self.conns: dict[Watcher, str] = {}
        self.controls: dict[Watcher, Control] = {}
        """What each page may do, as the owner last said (it authenticates, not us)."""
        self.hellos: dict[Watcher, tuple[str, Message, str]] = {}
        """Each page's last hello (address, request, text): said again to the room if it
        moves here before the owner answered it, or the page would play on as a watcher."""
        self.moving: asyncio.Future[Room | None] | None = None
        """Set while the room is being taken over here: requests wait for it."""
        self.local: Room | None = None
        self.resynced: set[Watcher] = set()
        """Pages sent their snapshot while the move is under way."""
        self.left: set[Watcher] = set()
        """Pages that went away while the move is under way."""
        self.unowned_since: float | None = None
        """Since when Redis has said nobody owns the room while its owner lives (it is
        getting the room back after an outage of Redis: the pages wait for it)."""

    def watcher_count(self) -> int:
        if self.local is not None:
            return self.local.watcher_count()
        return len(self.conns)  # the owner enforces the room's own limit

    async def _send(self, message: dict[str, Any]) -> bool:
        """Whether the owner heard it. When it did not, the owner is gone (or Redis is):
        the room moves here if it can, else the pages reconnect and find the new owner."""
        try:
            received = await self.rooms.cluster.send(
                self.owner, {**message, "room": self.id, "node": self.rooms.cluster.node}
            )
        except (redis.RedisError, OSError):
            # Redis is away: nobody can take the room over now. The page is told and keeps
            # its connection; when Redis is back the owner (or this process) goes on.
            raise ProtocolError("reconnecting", UNAVAILABLE) from None
        if not received and self.moving is None and not self.rooms.take_over_from(self):
            await self.lost()
        return received

    async def connect(self, page: Watcher, control: Control) -> None:
        conn = secrets.token_hex(8)
        self.conns[page] = conn
        self.controls[page] = control
        self.rooms.edge_pages[conn] = page
        await self._send({"op": "attach", "conn": conn, "host": control.host})

    async def receive(self, page: Watcher, address: str, request: Message, text: str) -> None:
        if isinstance(request, Hello) and self.local is None:
            self.hellos[page] = (address, request, text)
        if self.moving is None and self.local is None:
            conn = self.conns.get(page)
            if conn is None or await self._send({"op": "message", "conn": conn, "address": address, "text": text}):
                return
            # nobody heard it: the room is moving here (or the page is reconnecting)
        if self.moving is not None:
            answered = page not in self.resynced  # the snapshot the move sends answers it
            if await self.moving is None or (answered and isinstance(request, ASKED_AGAIN)):
                return
        if self.local is not None:
            await self.local.receive(page, address, request, text)

    async def disconnect(self, page: Watcher) -> None:
        self.hellos.pop(page, None)
        if self.moving is not None:
            self.left.add(page)  # not to be moved
        if self.local is not None:
            await self.local.disconnect(page)
            return
        conn = self.conns.pop(page, None)
        self.controls.pop(page, None)
        self.hellos.pop(page, None)
        if conn is not None:
            self.rooms.edge_pages.pop(conn, None)
            if self.moving is None:
                with contextlib.suppress(redis.RedisError, OSError):
                    await self.rooms.cluster.send(
                        self.owner, {"op": "detach", "room": self.id, "conn": conn, "node": self.rooms.cluster.node}
                    )
        if not self.conns and self.rooms.remote.get(self.id) is self:
            self.rooms.remote.pop(self.id, None)

    def controlled(self, conn: str, control: Control) -> None:
        page = self.rooms.edge_pages.get(conn)
        if page is not None and page in self.conns:
            self.controls[page] = control
            self.hellos.pop(page, None)  # answered: nothing to say again

    def begin_move(self) -> None:
        self.moving = asyncio.get_running_loop().create_future()

    async def move_to(self, taking: Awaitable[Room | None]) -> None:
        """Take the room over here (`taking` loads it; `begin_move` came first) and move
        the pages to it on their own connections: each gets a snapshot (a request the
        dead owner never answered is answered by it: the page asks again) and keeps its
        control."""
        assert self.moving is not None
        try:
            room = await taking
        except Exception as error:  # the database or Redis is away: reconnecting will tell
            log.warning("room %s: cannot take it over: %s", self.id, error)
            room = None
        if room is None or room.lost:
            self.moving.set_result(None)
            self.moving = None
            self.left.clear()
            await self.lost()
            return
        pages = list(self.conns)
        for conn in self.conns.values():
            self.rooms.edge_pages.pop(conn, None)
        self.conns = {}
        self.local = room
        try:
            for page in pages:
                control = self.controls.pop(page, Control())
                hello = self.hellos.pop(page, None)
                if page not in self.left:
                    # a refusal of one page's hello (its token opens nothing now) moves the others all the same
                    with contextlib.suppress(ConnectionError, ProtocolError):
                        await room.connect(page, control)
                        if hello is not None and control == Control():  # the owner never answered it
                            await room.receive(page, *hello)
                self.resynced.add(page)
        finally:  # requests that waited go to the room now, in order
            self.moving.set_result(room)
            self.moving = None
            self.resynced.clear()
            self.left.clear()

    async def lost(self) -> None:
        """The owner is gone: every page here reconnects (and finds the new owner)."""
        if self.rooms.remote.get(self.id) is self:
            self.rooms.remote.pop(self.id, None)
        pages, self.conns = list(self.conns.items()), {}
        self.controls = {}
        self.hellos = {}
        for page, conn in pages:
            self.rooms.edge_pages.pop(conn, None)
            asyncio.get_running_loop().create_task(page.close(code=1012))


class ClusteredRooms(Rooms):
    """Rooms when several processes share the database and a Redis."""

    def __init__(self, *args: Any, cluster: Cluster, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cluster = cluster
        self.remote: dict[str, RemoteRoom] = {}
        """Rooms other processes own that pages here watch."""
        self.edge_pages: dict[str, Watcher] = {}
        """Pages here watching a room another process owns, by connection id."""
        self.remote_pages: dict[tuple[str, str], RemotePage] = {}
        """Pages of other processes watching rooms owned here, by (process, connection)."""
        self.links: dict[str, NodeLink] = {}
        self.suspended: dict[str, Room] = {}
        """Rooms whose lease ran out while Redis could not be reached, with their pages."""
        self.paused_at = 0.0
        """When a room was last paused: Redis must answer after that for rooms to come back."""
        self.resuming: asyncio.Task[None] | None = None
        self.queues: dict[str, asyncio.Task[None]] = {}
        self.tasks: list[asyncio.Task[None]] = []
        for op, handler in {
            "attach": self._attach,
            "message": self._message,
            "detach": self._detach,
            "deliver": self._deliver_here,
            "close": self._close_here,
            "control": self._control_here,
            "rematch": self._rematch_here,
            "forget": self._forget_here,
            "leaving": self._owner_leaving,
        }.items():
            cluster.handle(op, handler)

    # ----------------------------------------------------------------- running

    async def start(self) -> None:
        await self.cluster.start()
        self.tasks = [
            asyncio.create_task(self._renew_leases()),
            asyncio.create_task(self._check_owners()),
            asyncio.create_task(self._expire_leases()),
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
        for paused in self.suspended.values():
            for watcher in list(paused.presence.watchers):
                asyncio.get_running_loop().create_task(watcher.close(code=1012))
        self.suspended.clear()

    async def stop(self) -> None:
        for task in [*self.tasks, *([self.resuming] if self.resuming is not None else [])]:
            task.cancel()
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

    async def _expire_leases(self) -> None:
        """Stop every room whose lease has run out on this process's clock, at that moment:
        Redis may be frozen or away and say nothing (a room would also stop by itself the
        next time it acts). The paused rooms come back once Redis has answered since (in a
        task of their own: asking a frozen Redis waits, and this watch must not)."""
        while True:
            await asyncio.sleep(EXPIRY_CHECK_SECONDS)
            for game_id, room in list(self.rooms.items()):
                if room.epoch is not None and not room.lost and not self.cluster.holds(game_id):
                    room.pause()  # its pages stay: it may come back here when Redis does
            if self.suspended and (self.resuming is None or self.resuming.done()):
                self.resuming = asyncio.get_running_loop().create_task(self._resume_when_redis_answers())
                self.resuming.add_done_callback(log_failure)

    async def _resume_when_redis_answers(self) -> None:
        """Ask Redis every tenth of a second (a short ping, on connections of its own) until
        it has answered since the last room paused, then bring the paused rooms back: the
        heartbeat alone noticed its return up to a second late."""
        while self.cluster.healthy_since <= self.paused_at:
            if not await self.cluster.probe():
                await asyncio.sleep(EXPIRY_CHECK_SECONDS)
        await self._resume()

    async def _resume(self) -> None:
        """Redis answers again: each paused room comes back here if nobody took it
        meanwhile (claimed anew, loaded, and handed the pages it had, each with a fresh
        snapshot and the control it had); else its pages reconnect, to its new owner. All
        at once: one by one, hundreds of rooms took seconds to come back."""
        games = list(self.suspended)
        try:
            owners = await self.cluster.owners_of(games)
        except (redis.RedisError, OSError):
            return  # not yet: the next round
        taken = [self._take_back(game_id, owner) for game_id, owner in zip(games, owners, strict=True)]
        for game_id, outcome in zip(games, await asyncio.gather(*taken, return_exceptions=True), strict=True):
            if isinstance(outcome, Exception):  # the others still come back
                log.error("room %s: cannot take it back", game_id, exc_info=outcome)

    async def _take_back(self, game_id: str, owner: str | None) -> None:
        old = self.suspended.get(game_id)
        if old is None:
            return
        try:
            ours = owner in (None, self.cluster.node) and await self.cluster.acquire(game_id)
        except (redis.RedisError, OSError):
            return  # not yet: the next round
        if self.suspended.get(game_id) is not old:
            return
        del self.suspended[game_id]
        room = None
        if ours:
            try:
                room = await self._own(game_id)
            except (ProtocolError, StoreError) as error:
                log.warning("room %s: cannot take it back: %s", game_id, error)
            except Exception:  # a fault of ours: logged, and the pages reconnect (not left paused)
                log.exception("room %s: cannot take it back", game_id)
        pages = list(old.presence.watchers.items())
        old.presence.watchers = {}
        if room is None:
            for key in [key for key, page in self.remote_pages.items() if page.game_id == game_id]:
                self.remote_pages.pop(key, None)
            for page, _ in pages:
                asyncio.get_running_loop().create_task(page.close(code=1012))
            return
        old.successor = room
        for page, control in pages:
            if isinstance(page, RemotePage) and self.remote_pages.get((page.group.node, page.conn)) is not page:
                continue  # it left (or its process died) while the room was paused
            with contextlib.suppress(ConnectionError):
                await room.connect(page, control)

    async def _check_owners(self) -> None:
        """Forwarded rooms whose owner is gone reconnect their pages; pages of processes
        that are gone leave the rooms owned here."""
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            try:
                forwarded = list(self.remote.values())
                owners = await self.cluster.owners_of([remote.id for remote in forwarded])
                nodes = {remote.owner for remote in forwarded} | {node for node, _ in self.remote_pages}
                living = await self.cluster.living(sorted(nodes))
                now = time.monotonic()
                for remote, owner in zip(forwarded, owners, strict=True):
                    if owner is None and remote.owner in living:
                        # its owner is taking it back (Redis was away); if it does not, take it
                        remote.unowned_since = remote.unowned_since or now
                        if now - remote.unowned_since > self.cluster.lease_seconds:
                            self.take_over_from(remote)
                        continue
                    remote.unowned_since = None
                    if owner not in living or owner == self.cluster.node:
                        self.take_over_from(remote)
                    elif owner != remote.owner:
                        await remote.lost()  # it went to a third process: the pages find it there
                gone = nodes - living
                for key in [key for key in self.remote_pages if key[0] in gone]:
                    page = self.remote_pages.pop(key)
                    room = self.rooms.get(page.game_id)
                    if room is not None:
                        await room.disconnect(page)
            except (redis.RedisError, OSError) as error:
                # Redis is away: the forwarded pages keep their connections (their requests
                # are answered `reconnecting`) until it is back and the rooms go on
                log.warning("cannot check the other processes: %s", error)

    # ----------------------------------------------------------------- finding rooms

    def unavailable(self) -> ProtocolError | None:
        if self.draining:
            return ProtocolError("reconnecting", RESTARTING)
        if self.cluster.cut_off():
            return ProtocolError("reconnecting", UNAVAILABLE)
        return None

    async def for_page(self, game_id: str) -> RoomLike:
        """The room itself when this process owns it (taking it when nobody live does),
        else a stand-in that forwards to its owner."""
        if self.draining:
            raise ProtocolError("reconnecting", RESTARTING)
        if self.cluster.cut_off():
            raise ProtocolError("reconnecting", UNAVAILABLE)
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
                    await self._owner_died(owner)
                    return await self._own(game_id)
            except (redis.RedisError, OSError):
                raise ProtocolError("reconnecting", UNAVAILABLE) from None
            await asyncio.sleep(0.1)  # another process took it meanwhile: look again
        raise ProtocolError("reconnecting", UNAVAILABLE)

    async def _owner_died(self, dead: str) -> None:
        """The dead process's rooms that pages here watch move here now (not at the next check)."""
        for remote in [remote for remote in self.remote.values() if remote.owner == dead]:
            self.take_over_from(remote)

    def take_over_from(self, remote: RemoteRoom) -> bool:
        """The owner of a room pages here watch is gone: take the lease (unless a third
        process has, or the owner turns out to be alive), load the room here and move the
        pages to it. False when that room is not this process's to take."""
        if self.remote.get(remote.id) is not remote:
            return False  # being taken over already, or lost
        del self.remote[remote.id]
        remote.begin_move()

        async def taking() -> Room | None:
            cluster = self.cluster
            owner = await cluster.owner_of(remote.id)
            ours = (
                owner == cluster.node
                or (owner is None and await cluster.acquire(remote.id))
                or (
                    owner == remote.owner
                    and not await cluster.alive(owner)
                    and await cluster.take_over(remote.id, remote.owner)
                )
            )
            if not ours:
                return None
            metrics.takeovers.inc()
            return await self._own(remote.id)

        task = asyncio.get_running_loop().create_task(remote.move_to(taking()), name=f"take over {remote.id}")
        task.add_done_callback(log_failure)
        return True

    async def _own(self, game_id: str) -> Room:
        """This process now holds the lease: claim the game (fencing any previous owner)
        and load it, once however many pages ask at the same moment."""
        room = self.rooms.get(game_id)
        if room is not None and not room.lost:  # loaded while the caller awaited Redis
            return room
        pending = self.loading.get(game_id)
        if pending is None:
            pending = self.loading[game_id] = asyncio.ensure_future(self._load_owned(game_id))

            def loaded(_: object) -> None:
                self.loading.pop(game_id, None)
                self.deleted_while_loading.discard(game_id)

            pending.add_done_callback(loaded)
        return await asyncio.shield(pending)

    async def _load_owned(self, game_id: str) -> Room:
        try:
            epoch = await self.store.claim(game_id)
            stored = await self.store.load(game_id) if epoch is not None else None
        except StoreError:
            await self.cluster.release(game_id)
            raise
        if stored is None:
            await self.cluster.release(game_id)
            raise ProtocolError("unknown-game", "no game with that id")
        state = await asyncio.to_thread(rebuild, stored)
        room = Room(
            self.store,
            stored,
            state,
            self.dice_factory(),
            self.limits,
            self.grace,
            epoch=epoch,
            holds=functools.partial(self.cluster.holds, game_id),
        )
        room.on_lost = self._room_lost
        room.on_paused = self._room_paused
        await room.chat.load()
        if game_id in self.deleted_while_loading:
            await self.cluster.release(game_id)
            raise ProtocolError("unknown-game", "no game with that id")
        return self._keep(room)

    def _room_paused(self, room: Room) -> None:
        """Its lease ran out on this process's clock (Room.pause): set aside with its pages
        until Redis answers again (`_resume`)."""
        if self.rooms.get(room.id) is room:
            log.warning("room %s: lease ran out before it was renewed; pausing it", room.id)
            self.rooms.pop(room.id, None)
            earlier = self.suspended.get(room.id)
            if earlier is None:
                self.suspended[room.id] = room
            else:  # paused again before it came back: one entry, with every page of both
                earlier.presence.watchers.update(room.presence.watchers)
                room.presence.watchers = {}
            self.paused_at = time.monotonic()

    async def _room_lost(self, room: Room) -> None:
        if self.rooms.get(room.id) is room:
            self.rooms.pop(room.id, None)
            await self.cluster.release(room.id)
        for key in [key for key, page in self.remote_pages.items() if page.game_id == room.id]:
            self.remote_pages.pop(key, None)

    def _drop(self, game_id: str) -> None:
        room = self.rooms.pop(game_id, None)
        if room is not None and room.epoch is not None:
            asyncio.get_running_loop().create_task(self.cluster.release(game_id))

    async def view(self, game_id: str) -> Room:
        """The owned room, else the game as stored (to read: snapshot, record, replay)."""
        room = self.rooms.get(game_id)
        if room is not None and not room.lost and self.cluster.holds(game_id):
            return room
        stored = await self.store.load(game_id)
        if stored is None:
            raise ProtocolError("unknown-game", "no game with that id")
        state = await asyncio.to_thread(rebuild, stored)
        return Room(self.store, stored, state, self.dice_factory(), self.limits, self.grace)

    def _adopt_new(self, room: Room) -> Room:
        return room  # its first page decides which process owns it

    async def announce_rematch(self, old_id: str, new_id: str) -> None:
        room = self.rooms.get(old_id)
        if room is not None and not room.lost:
            await super().announce_rematch(old_id, new_id)
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
        state = await asyncio.to_thread(rebuild, stored)
        room = Room(self.store, stored, state, self.dice_factory(), self.limits, self.grace, epoch)
        await room.gathering.reveal_dice()

    async def forget(self, game_id: str) -> bool:
        gone = await super().forget(game_id)
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

    # ----------------------------------------------------------------- at the owner

    def _in_order(self, key: str, job: Callable[[], Awaitable[None]]) -> None:
        """Run jobs for one room one after another (a page's messages stay in order),
        jobs for different rooms side by side."""
        previous = self.queues.get(key)

        async def run() -> None:
            if previous is not None:
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await previous
            try:
                await job()
            except (redis.RedisError, OSError) as error:  # the page is told when it next acts
                log.warning("room %s: cannot reach the other processes: %s", key, error)
            except Exception:
                log.exception("room %s: a forwarded request failed", key)

        task = asyncio.get_running_loop().create_task(run())
        self.queues[key] = task

        def finished(done: asyncio.Task[None]) -> None:
            if self.queues.get(key) is done:
                del self.queues[key]

        task.add_done_callback(finished)

    def _link(self, node: str) -> NodeLink:
        link = self.links.get(node)
        if link is None:
            link = self.links[node] = NodeLink(self.cluster, node)
        return link

    async def _attach(self, message: dict[str, Any]) -> None:
        game_id, node, conn = str(message["room"]), str(message["node"]), str(message["conn"])

        async def job() -> None:
            room = self.rooms.get(game_id)
            if room is None and (game_id in self.loading or await self.cluster.owner_of(game_id) == self.cluster.node):
                # The lease is ours but the room is still loading (or about to: this
                # message can arrive before the taking of the lease has returned here).
                try:
                    room = await self._own(game_id)
                except (ProtocolError, StoreError) as error:  # deleted, or the database is away
                    log.warning("room %s: cannot load it for a page of another process: %s", game_id, error)
            page = RemotePage(self._link(node), conn, game_id)
            if room is None or room.lost:
                await page.close(code=1012)  # not ours (any more): reconnect to the owner
                return
            if room.watcher_count() >= self.limits.watchers_per_room:
                await page.send_text(
                    encode_message(ProtocolError("room-full", "too many pages watch this game").to_json())
                )
                await page.close(code=1013)
                return
            self.remote_pages[node, conn] = page
            await room.connect(page, Control(host=bool(message.get("host"))))

        self._in_order(game_id, job)

    async def _message(self, message: dict[str, Any]) -> None:
        game_id, node, conn = str(message["room"]), str(message["node"]), str(message["conn"])
        text, address = str(message.get("text", "")), str(message.get("address", ""))

        async def job() -> None:
            page = self.remote_pages.get((node, conn))
            room = self.rooms.get(game_id)
            if page is None or room is None or room.lost:
                await RemotePage(self._link(node), conn, game_id).close(code=1012)
                return
            before = room.control_of(page)
            try:
                await room.receive(page, address, parse_message(text), text)
            except ProtocolError as error:
                await page.send_text(encode_message(error.to_json()))
            except StoreError as error:
                log.warning("room %s: %s", game_id, error)
                await page.send_text(encode_message(ProtocolError("storage-unavailable", str(error)).to_json()))
            control = room.control_of(page)
            if control != before:  # after a hello or a join: the page's process keeps it, should it take over
                await self.cluster.send(
                    node, {"op": "control", "room": game_id, "conn": conn, **control_to_json(control)}
                )

        self._in_order(game_id, job)

    async def _detach(self, message: dict[str, Any]) -> None:
        game_id, node, conn = str(message["room"]), str(message["node"]), str(message["conn"])

        async def job() -> None:
            page = self.remote_pages.pop((node, conn), None)
            room = self.rooms.get(game_id)
            if page is not None and room is not None:
                await room.disconnect(page)

        self._in_order(game_id, job)

    async def _rematch_here(self, message: dict[str, Any]) -> None:
        await super().announce_rematch(str(message["room"]), str(message["new"]))

    async def _forget_here(self, message: dict[str, Any]) -> None:
        await self.forget_in_memory(str(message["room"]))

    # ----------------------------------------------------------------- at a forwarding process

    async def _deliver_here(self, message: dict[str, Any]) -> None:
        text = str(message.get("text", ""))
        for conn in message.get("conns", []):
            page = self.edge_pages.get(conn)
            if page is not None:
                with contextlib.suppress(Exception):
                    await page.send_text(text)

    async def _owner_leaving(self, message: dict[str, Any]) -> None:
        """The owner of a room pages here watch is shutting down and has given its lease
        up: take the room over now and move those pages to it, without a reconnection."""
        remote = self.remote.get(str(message["room"]))
        if remote is not None and remote.owner == str(message.get("node")):
            self.take_over_from(remote)

    async def _control_here(self, message: dict[str, Any]) -> None:
        remote = self.remote.get(str(message["room"]))
        if remote is not None:
            remote.controlled(str(message["conn"]), control_from_json(message))

    async def _close_here(self, message: dict[str, Any]) -> None:
        code = int(message.get("code", 1012))
        for conn in message.get("conns", []):
            page = self.edge_pages.pop(conn, None)
            if page is not None:
                for remote in self.remote.values():
                    remote.conns.pop(page, None)
                asyncio.get_running_loop().create_task(page.close(code=code))
