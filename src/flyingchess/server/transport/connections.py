"""Defences below the ASGI app, where uvicorn owns the sockets: a cap on open
connections per client address, a deadline for a request's headers, a higher limit of
open files, logs that report a repeated failure once instead of once per attempt, and
the protocol's part of seeing that a WebSocket's client left before its handshake
was answered (handshakes.py).

A client that opens connections and never finishes a request would otherwise hold a
file descriptor each for as long as it likes; enough of them lock every player out.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
import weakref
from collections.abc import Callable
from typing import Any, Final

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .handshakes import CONNECTION_EXTENSION

log = logging.getLogger("flyingchess.server")


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class ConnectionGuard:
    """Counts open connections per remote address and refuses one more than `per_address`.

    `exempt(address)` names addresses without a cap: this machine (anything it runs can
    exhaust it anyway, and a reverse proxy on it carries every visitor) and trusted
    proxies, whose own limits apply in front of the server (SECURITY.md)."""

    def __init__(self, per_address: int, header_seconds: float, exempt: Callable[[str], bool] = is_loopback) -> None:
        self.per_address = per_address
        self.header_seconds = header_seconds
        self.exempt = exempt
        self.open: dict[str, set[Any]] = {}
        self.refused = 0

    def admit(self, transport: Any, address: str | None) -> bool:
        if address is None or self.exempt(address):
            return True
        held = self.open.setdefault(address, set())
        if len(held) >= self.per_address:
            self.refused += 1
            return False
        held.add(transport)
        return True

    def release(self, transport: Any, address: str | None) -> None:
        held = self.open.get(address or "")
        if held is not None:
            held.discard(transport)
            if not held:
                del self.open[address or ""]


PINGS_SKIPPED_AT_MOST: Final = 5
"""A busy connection is pinged at least every this many ping intervals all the same."""


def guarded_protocols(guard: ConnectionGuard) -> tuple[type[H11Protocol], type[WebSocketsSansIOProtocol]]:
    """uvicorn's HTTP/1.1 and WebSocket protocols, counting connections and timing headers.

    A WebSocket starts as an HTTP request and its transport moves to the WebSocket
    protocol on upgrade, so both release the same transport when it closes."""

    class GuardedHttp(H11Protocol):
        deadline: asyncio.TimerHandle | None = None
        admitted = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = self.client[0] if self.client else None
            if not guard.admit(transport, address):
                log.debug("refused a connection from %s: too many open", address)
                transport.abort()
                return
            self.admitted = True
            self._expect_headers()

        def _expect_headers(self) -> None:
            if self.deadline is None:
                self.deadline = self.loop.call_later(guard.header_seconds, self._headers_late)

        def _headers_late(self) -> None:
            self.deadline = None
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()  # no request under way: the headers never came

        def data_received(self, data: bytes) -> None:
            cycle = self.cycle
            if cycle is None or cycle.response_complete:
                self._expect_headers()  # a new request starts: its headers have a deadline
            super().data_received(data)
            if self.cycle is not cycle and self.deadline is not None:
                self.deadline.cancel()  # the headers arrived
                self.deadline = None

        def handle_websocket_upgrade(self, event: Any) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None
            super().handle_websocket_upgrade(event)

        def connection_lost(self, exc: Exception | None) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None
            if self.admitted:
                guard.release(self.transport, self.client[0] if self.client else None)
            super().connection_lost(exc)

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        last_sent = 0.0
        """When the app last sent on the connection (the loop's clock)."""

        async def send(self, message: Any) -> None:
            await super().send(message)
            self.last_sent = self.loop.time()
            if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
                # A handshake answered with a response of the app's own (503 before the
                # upgrade) is complete: uvicorn forgets to say so and logs a false error.
                self.handshake_complete = True

        def send_keepalive_ping(self) -> None:
            """Ping a connection that has been quiet for the ping interval (a balancer needs
            to hear from it that often: docs/deploy.md), and any other every few intervals
            (its pong says the page is still there: a vanished one is closed when none
            comes). A page of a game in play hears an update about every second anyway;
            pinging each of thousands every second took a seventh of a busy process's time."""
            interval, now = self.ping_interval, self.loop.time()
            quiet = now - self.last_sent
            if (
                interval
                and quiet < interval
                and now - self.ping_sent_at < interval * PINGS_SKIPPED_AT_MOST
                and not self.close_sent
                and not self.transport.is_closing()
            ):
                self.ping_timer = self.loop.call_later(interval - quiet, self.send_keepalive_ping)
                return
            super().send_keepalive_ping()

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)
            if scope is not None:  # an upgrade handed to the app: it may ask whether the client is still there
                scope["extensions"][CONNECTION_EXTENSION] = weakref.ref(self)

        def connection_lost(self, exc: Exception | None) -> None:
            guard.release(self.transport, self.client[0] if self.client else None)
            super().connection_lost(exc)

    return GuardedHttp, GuardedWebSocket


def raise_open_files_limit(wanted: int = 65_536) -> int:
    """Raise the soft limit of open files towards the hard limit; returns the new soft
    limit (0 where the platform has no such limit)."""
    try:
        import resource
    except ImportError:  # Windows
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return int(soft)


class OncePerMinute(logging.Filter):
    """Lets the first record of each kind through; repeats within a minute are counted
    and reported in one line when the next record of that kind arrives after it."""

    def __init__(self, window: float = 60.0) -> None:
        super().__init__()
        self.window = window
        self.seen: dict[tuple[str, str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        key = (record.name, str(record.msg)[:200], type(error).__name__ if error else "")
        now = time.monotonic()
        first, repeats = self.seen.get(key, (0.0, -1))
        if repeats >= 0 and now - first < self.window:
            self.seen[key] = (first, repeats + 1)
            return False
        if repeats > 0:
            record.msg = f"{record.msg} (and {repeats} more like it in the last minute)"
        if len(self.seen) > 1_000:
            self.seen.clear()
        self.seen[key] = (now, 0)
        return True


def quiet_repeated_logs() -> None:
    """Repeated failures (accept errors when files run out, malformed requests) are
    logged once a minute, with a count, instead of once per attempt."""
    for name in ("asyncio", "uvicorn.error", "flyingchess.server"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, OncePerMinute) for f in logger.filters):
            logger.addFilter(OncePerMinute())
