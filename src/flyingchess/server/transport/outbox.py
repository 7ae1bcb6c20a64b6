"""A page's outgoing messages: queued at once, written by the page's own task.

A room broadcasts while it holds its lock; were it to wait for each page's network, one
page that stops reading would stall the whole room. So a room only queues: each page
has an `Outbox` whose writer task sends in order, and a page that falls more than
`limit` characters behind is hung up on ("try again later", 1013). Its page reconnects
and starts again from a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Any, Final, Protocol

from ..protocol import encode_message

HANG_UP_SECONDS: Final = 5.0
"""How long closing a connection that stopped reading may take before it is left to
the server's keep-alive pings to end."""


class Connection(Protocol):
    """What an outbox writes to (a Starlette WebSocket)."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class Backlog(ConnectionError):
    """The page has not read what it was sent: it was hung up on."""


class Outbox:
    def __init__(self, connection: Connection, limit: int) -> None:
        self.connection = connection
        self.limit = limit
        self.queue: deque[str] = deque()
        self.waiting = 0
        """Characters queued and not yet written."""
        self.ready = asyncio.Event()
        self.closed = False
        self.writer: asyncio.Task[None] | None = asyncio.get_running_loop().create_task(self._write())

    async def send_text(self, data: str) -> None:
        """Queue a message; never waits for the network."""
        if self.closed:
            raise ConnectionError("the page has gone")
        self.waiting += len(data)
        if self.waiting > self.limit:
            self.hang_up(1013)
            raise Backlog("the page stopped reading")
        self.queue.append(data)
        self.ready.set()

    async def send_json(self, data: Any) -> None:
        await self.send_text(encode_message(data))

    async def _write(self) -> None:
        while True:
            while not self.queue:
                self.ready.clear()
                await self.ready.wait()
            data = self.queue.popleft()
            try:
                await self.connection.send_text(data)
            except Exception:  # the page went away: nothing more to write
                self.closed = True
                return
            self.waiting -= len(data)

    def hang_up(self, code: int) -> None:
        """Stop writing and close the connection, without waiting for it."""
        if self.closed:
            return
        self.stop()
        asyncio.get_running_loop().create_task(self._close(code))

    async def _close(self, code: int) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(HANG_UP_SECONDS):
                await self.connection.close(code=code)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close after the messages already queued have been written."""
        if self.closed:
            return
        with contextlib.suppress(Exception):
            async with asyncio.timeout(HANG_UP_SECONDS):
                while self.waiting > 0 and self.writer is not None and not self.writer.done():
                    await asyncio.sleep(0.01)
        self.hang_up(code)

    def stop(self) -> None:
        self.closed = True
        if self.writer is not None:
            self.writer.cancel()
            self.writer.add_done_callback(self._let_go)

    def _let_go(self, writer: asyncio.Task[None]) -> None:
        """Forget the stopped writer. A cancelled task keeps its CancelledError, whose
        traceback holds the writer's frame, which holds this outbox: a cycle through the
        page's whole connection (about ninety objects) that only the garbage collector
        could free. A reconnection storm left thousands of them, and the collections
        that freed them held up the event loop; without the cycle a connection is freed
        the moment it is done with."""
        self.writer = None
