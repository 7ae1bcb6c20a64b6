"""The app through Starlette's test client, addressed as a page on this machine would
address it: the server refuses any Host it was not told to answer to (DNS rebinding),
and the test client's own default name, `testserver`, is not one of them."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from starlette.testclient import TestClient, WebSocketTestSession

from flyingchess.server.limits import Limits
from flyingchess.server.storage.store import SqliteStore
from flyingchess.server.transport.app import create_app

LOCAL = "http://localhost"
JSON = {"content-type": "application/json"}


class LocalClient(TestClient):
    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, base_url=kwargs.pop("base_url", LOCAL), **kwargs)

    def websocket_connect(self, url: str, subprotocols: Any = None, **kwargs: Any) -> WebSocketTestSession:
        return super().websocket_connect(
            urljoin(self.base_url.copy_with(scheme="ws").__str__(), url), subprotocols, **kwargs
        )


def app_over(
    path: Path, *, seed: int | None = None, local: bool = True, limits: Limits | None = None, **options: Any
) -> Any:
    """The app over the SQLite file at `path`. Each room's dice are `Random(seed)`, or
    Random(0), Random(1), ... in the order the rooms are made when `seed` is None; the
    limits are lifted unless `limits` says otherwise (scripted pages send far faster than
    people); `local=False` is `flyingchess serve` (pages prove their seats with tokens)."""
    seeds = itertools.count() if seed is None else itertools.repeat(seed)
    return create_app(
        SqliteStore(path),
        dice=lambda: random.Random(next(seeds)),
        limits=limits or Limits.unlimited(),
        local=local,
        **options,
    )


def app_client(path: Path, **options: Any) -> LocalClient:
    """`app_over(path, **options)` spoken to in-process, as a page on this machine would
    (use it in a `with` block: that runs the app's start and shutdown)."""
    return LocalClient(app_over(path, **options))


def expect(socket: Any, kind: str) -> dict[str, Any]:
    """The next message of type `kind`, skipping updates (broadcasts may interleave)."""
    while True:
        message: dict[str, Any] = socket.receive_json()
        if message["type"] == kind:
            return message
        assert message["type"] in ("update", "snapshot", "welcome", "chat", "react", "seat-lost"), message


def latest(socket: Any) -> dict[str, Any]:
    """The game as it is now: everything queued for this socket is read up to a fresh snapshot."""
    socket.send_json({"type": "sync"})
    game: dict[str, Any] = expect(socket, "snapshot")["game"]
    return game


def error(socket: Any, message: dict[str, Any]) -> str:
    """Send a message that must be refused; returns the error's code."""
    socket.send_json(message)
    code: str = expect(socket, "error")["code"]
    return code


def hello(socket: Any, token: str) -> dict[str, Any]:
    """Prove a seat (or the host's rights) on a connection; returns the welcome."""
    socket.send_json({"type": "hello", "token": token})
    return expect(socket, "welcome")
