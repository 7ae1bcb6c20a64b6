"""What a process does with the messages other processes send it over Redis: at a
room's owner, pages of other processes attach, send their requests and leave (each
room's in order); at a forwarding process, the owner's updates and hang-ups reach its
pages, and a leaving owner's rooms are taken over."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import redis

from ..errors import DamagedGame, NoSuchGame, RoomAway, StoreError, refusal, told
from ..protocol import ProtocolError, encode_message, parse_message
from ..rooms.seats import Control
from .forwarding import NodeLink, RemotePage, control_from_json, control_to_json
from .nodes import Cluster

if TYPE_CHECKING:
    from .rooms import ClusteredRooms

log = logging.getLogger("flyingchess.server")


class Inbox:
    """The handlers of one process's channel, registered on its `Cluster`."""

    def __init__(self, rooms: ClusteredRooms, cluster: Cluster) -> None:
        self.rooms = rooms
        self.queues: dict[str, asyncio.Task[None]] = {}
        self.links: dict[str, NodeLink] = {}
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

    def link(self, node: str) -> NodeLink:
        link = self.links.get(node)
        if link is None:
            link = self.links[node] = NodeLink(self.rooms.cluster, node)
        return link

    async def _attach(self, message: dict[str, Any]) -> None:
        game_id, node, conn = str(message["room"]), str(message["node"]), str(message["conn"])

        async def job() -> None:
            room = self.rooms.rooms.get(game_id)
            if room is None and (
                game_id in self.rooms.loading or await self.rooms.cluster.owner_of(game_id) == self.rooms.cluster.node
            ):
                # The lease is ours but the room is still loading (or about to: this
                # message can arrive before the taking of the lease has returned here).
                try:
                    room = await self.rooms._own(game_id)
                except (NoSuchGame, RoomAway, StoreError, DamagedGame) as error:  # deleted, or the database is away
                    log.warning("room %s: cannot load it for a page of another process: %s", game_id, error)
            page = RemotePage(self.link(node), conn, game_id)
            if room is None or room.lost:
                await page.close(code=1012)  # not ours (any more): reconnect to the owner
                return
            if room.watcher_count() >= self.rooms.limits.watchers_per_room:
                await page.send_text(
                    encode_message(ProtocolError("room-full", "too many pages watch this game").to_json())
                )
                await page.close(code=1013)
                return
            self.rooms.remote_pages[node, conn] = page
            await room.connect(page, Control(host=bool(message.get("host"))))

        self._in_order(game_id, job)

    async def _message(self, message: dict[str, Any]) -> None:
        game_id, node, conn = str(message["room"]), str(message["node"]), str(message["conn"])
        text, address = str(message.get("text", "")), str(message.get("address", ""))

        async def job() -> None:
            page = self.rooms.remote_pages.get((node, conn))
            room = self.rooms.rooms.get(game_id)
            if page is None or room is None or room.lost:
                await RemotePage(self.link(node), conn, game_id).close(code=1012)
                return
            before = room.control_of(page)
            try:
                await room.receive(page, address, parse_message(text), text)
            except Exception as error:
                if refusal(error) is None:
                    raise  # a fault of ours: the inbox logs it
                if isinstance(error, StoreError):
                    log.warning("room %s: %s", game_id, error)
                await page.send_text(encode_message(told(error)))
            control = room.control_of(page)
            if control != before:  # after a hello or a join: the page's process keeps it, should it take over
                await self.rooms.cluster.send(
                    node, {"op": "control", "room": game_id, "conn": conn, **control_to_json(control)}
                )

        self._in_order(game_id, job)

    async def _detach(self, message: dict[str, Any]) -> None:
        game_id, node, conn = str(message["room"]), str(message["node"]), str(message["conn"])

        async def job() -> None:
            page = self.rooms.remote_pages.pop((node, conn), None)
            room = self.rooms.rooms.get(game_id)
            if page is not None and room is not None:
                await room.disconnect(page)

        self._in_order(game_id, job)

    async def _rematch_here(self, message: dict[str, Any]) -> None:
        await self.rooms.announce_rematch_here(str(message["room"]), str(message["new"]))

    async def _forget_here(self, message: dict[str, Any]) -> None:
        await self.rooms.forget_in_memory(str(message["room"]))

    # ----------------------------------------------------------------- at a forwarding process

    async def _deliver_here(self, message: dict[str, Any]) -> None:
        text = str(message.get("text", ""))
        for conn in message.get("conns", []):
            page = self.rooms.edge_pages.get(conn)
            if page is not None:
                with contextlib.suppress(Exception):
                    await page.send_text(text)

    async def _owner_leaving(self, message: dict[str, Any]) -> None:
        """The owner of a room pages here watch is shutting down and has given its lease
        up: take the room over now and move those pages to it, without a reconnection."""
        remote = self.rooms.remote.get(str(message["room"]))
        if remote is not None and remote.owner == str(message.get("node")):
            self.rooms.takeovers.take_over_from(remote)

    async def _control_here(self, message: dict[str, Any]) -> None:
        remote = self.rooms.remote.get(str(message["room"]))
        if remote is not None:
            remote.controlled(str(message["conn"]), control_from_json(message))

    async def _close_here(self, message: dict[str, Any]) -> None:
        code = int(message.get("code", 1012))
        for conn in message.get("conns", []):
            page = self.rooms.edge_pages.pop(conn, None)
            if page is not None:
                for remote in self.rooms.remote.values():
                    remote.conns.pop(page, None)
                asyncio.get_running_loop().create_task(page.close(code=code))
