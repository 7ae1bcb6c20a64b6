"""The stand-ins that forward between processes: a `RemoteRoom` is a room another
process owns, as a page here sees it (what the page sends goes to the owner, what the
owner sends comes back); a `RemotePage` is a page of another process, as a room owned
here sees it; a `NodeLink` sends to one other process, once for all its pages."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import redis

from ..errors import UNAVAILABLE, RoomAway
from ..protocol import Hello, Message, Move, ProtocolError, Roll
from ..rooms.presence import Watcher
from ..rooms.room import Room
from ..rooms.seats import Control
from .nodes import Cluster

if TYPE_CHECKING:
    from .rooms import ClusteredRooms

log = logging.getLogger("flyingchess.server")

ASKED_AGAIN: Final = (Roll, Move)
"""Requests a room's dead owner never carried out that are dropped when the room moves:
the snapshot the move sends shows the page where the game stands, and it asks again
(carrying them out as well would answer twice). Anything else is carried out."""


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
            raise RoomAway(UNAVAILABLE) from None
        if not received and self.moving is None and not self.rooms.takeovers.take_over_from(self):
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
                    with contextlib.suppress(ConnectionError, ProtocolError, RoomAway):
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
