"""The web app inside the browser: Python in the page's Web Worker plays the server.

The static site (docs/static-site.md) runs this same app, rooms, bots and records in the
page's own Web Worker, with the page's requests and WebSocket messages passed in as
function calls instead of over a network: one server, two transports. Nothing here
knows a rule of the game; it only turns calls into ASGI events and back.

The worker's event loop cannot start threads, so the games database is reached inline
(`InlineStore`); every write that succeeds is announced (`saved`), so the worker can copy
the database file into the browser's storage (IndexedDB).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..limits import Limits
from ..storage.async_store import InlineStore
from ..storage.store import SqliteStore
from .app import create_app

log = logging.getLogger(__name__)

HOST = "localhost"
"""The name the app is asked under: a loopback name, so the page is the host of every
game, as with `flyingchess play` on one machine."""

Message = MutableMapping[str, Any]


class InBrowser:
    """The app over a SQLite file in `data` (the worker mounts the browser's storage
    there). `to_page(socket, event, data)` carries what the app does with a page's
    socket: ("open", ""), ("message", text) or ("close", code); `saved()` is called after
    every stored change."""

    def __init__(
        self,
        data: str | Path,
        to_page: Callable[[int, str, Any], None],
        saved: Callable[[], None] | None = None,
    ) -> None:
        self.database = SqliteStore(Path(data) / "games.sqlite3")
        # the message rates guard a server against other people's pages: here there are none
        store = InlineStore(self.database, saved)
        self.app = create_app(self.database, store=store, local=True, limits=Limits.unlimited())
        self.to_page = to_page
        self.sockets: dict[int, asyncio.Queue[Message]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.ports = itertools.count(40000)
        self._lifespan: asyncio.Queue[Message] = asyncio.Queue()
        self._started: asyncio.Future[None] | None = None

    # ---------------------------------------------------------------- start and stop

    async def start(self) -> None:
        """Run the app's start-up (its lifespan) and keep it running."""
        loop = asyncio.get_running_loop()
        self._started = loop.create_future()
        started = self._started

        async def receive() -> Message:
            return await self._lifespan.get()

        async def send(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete" and not started.done():
                started.set_result(None)
            elif message["type"] == "lifespan.startup.failed" and not started.done():
                started.set_exception(RuntimeError(message.get("message", "the app did not start")))

        self._keep(self.app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send))
        await self._lifespan.put({"type": "lifespan.startup"})
        await started

    def _keep(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # ---------------------------------------------------------------- HTTP

    async def request(self, method: str, url: str, body: str | None = None, headers: str | None = None) -> Message:
        """One HTTP request (`headers` as a JSON object's text, as the page can send it):
        {"status", "headers", "body"} with the body as text."""
        parts = urlsplit(url)
        sent: list[tuple[bytes, bytes]] = [(b"host", HOST.encode())]
        for name, value in json.loads(headers or "{}").items():
            if name.lower() not in ("host", "origin"):  # a script's request, not another site's page
                sent.append((name.lower().encode("latin-1"), str(value).encode("latin-1")))
        payload = (body or "").encode()
        if body is not None:
            sent.append((b"content-length", str(len(payload)).encode()))
        scope = {**self._scope("http", parts.path, parts.query, sent), "method": method.upper()}
        arrived = False

        async def receive() -> Message:
            nonlocal arrived
            if not arrived:
                arrived = True
                return {"type": "http.request", "body": payload, "more_body": False}
            await asyncio.Event().wait()  # nothing more comes: the request is whole
            return {"type": "http.disconnect"}

        status, answer, chunks = 500, [], []

        async def send(message: Message) -> None:
            nonlocal status, answer
            if message["type"] == "http.response.start":
                status, answer = message["status"], message.get("headers", [])
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return {
            "status": status,
            "headers": {name.decode("latin-1"): value.decode("latin-1") for name, value in answer},
            "body": b"".join(chunks).decode("utf-8", "replace"),
        }

    def _scope(self, kind: str, path: str, query: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
        return {
            "type": kind,
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "scheme": "http" if kind == "http" else "ws",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", next(self.ports)),
            "server": (HOST, 80),
            "state": {},
        }

    # ---------------------------------------------------------------- WebSockets

    def open(self, socket: int, url: str) -> None:
        """A page opens a WebSocket (`socket` is its number, chosen by the page)."""
        parts = urlsplit(url)
        inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.sockets[socket] = inbox
        inbox.put_nowait({"type": "websocket.connect"})
        scope = {**self._scope("websocket", parts.path, parts.query, [(b"host", HOST.encode())]), "subprotocols": []}

        async def send(message: Message) -> None:
            if message["type"] == "websocket.accept":
                self.to_page(socket, "open", "")
            elif message["type"] == "websocket.send":
                self.to_page(socket, "message", message.get("text") or (message.get("bytes") or b"").decode())
            elif message["type"] == "websocket.close":
                self._forget(socket, int(message.get("code", 1000)))

        async def run() -> None:
            try:
                await self.app(scope, inbox.get, send)
            except Exception:  # a fault of ours: the page sees its socket close, and reconnects
                log.exception("the app failed on a socket")
                self._forget(socket, 1011)

        self._keep(run())

    def message(self, socket: int, text: str) -> None:
        inbox = self.sockets.get(socket)
        if inbox is not None:
            inbox.put_nowait({"type": "websocket.receive", "text": text})

    def close(self, socket: int) -> None:
        """The page closed its socket."""
        inbox = self.sockets.pop(socket, None)
        if inbox is not None:
            inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})

    def _forget(self, socket: int, code: int) -> None:
        inbox = self.sockets.pop(socket, None)
        if inbox is not None:
            inbox.put_nowait({"type": "websocket.disconnect", "code": code})
            with contextlib.suppress(Exception):
                self.to_page(socket, "close", code)
