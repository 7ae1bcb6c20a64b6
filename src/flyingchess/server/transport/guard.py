"""The checks every request passes before it reaches a route, and the headers every
answer carries.

- **Host** (DNS rebinding): a page on another site that makes its own name resolve to
  this machine still sends its own name as Host; only the names this server was told
  to answer to pass (`HostPolicy`).
- **Origin** (cross-site requests): a WebSocket, or a request that changes something,
  must come from a page of this server; a browser always says where it comes from.
- **Content-Type**: a state-changing request with a body must be `application/json`,
  which a plain HTML form on another site cannot send.
- **Size**: a declared body larger than the largest any route takes is refused before
  a byte of it is read (routes cap what they read themselves as well).
- **Headers**: a Content-Security-Policy allowing only the page's own scripts, styles
  and connections, no framing, no sniffing, no referrer.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import metrics

log = logging.getLogger("flyingchess.server")
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
HOST_SYNTAX = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:[0-9]{1,5})?")
"""A name or an IPv4 address, or an IPv6 address in brackets, then perhaps a port."""


def host_name(host: str | None) -> str | None:
    """The name in a Host header or an origin's netloc ('[::1]:8000' -> '::1'), lower
    case without a trailing dot; None when it is not a well-formed host[:port]."""
    if not host or not HOST_SYNTAX.fullmatch(host):
        return None
    try:
        parts = urlsplit("//" + host)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return None
    name = parts.hostname
    return name.rstrip(".") if name else None


@dataclass(frozen=True)
class HostPolicy:
    """The host names this server answers to. `*.example.com` allows every subdomain;
    `*` allows any name (only sensible behind a proxy that checks Host itself)."""

    names: frozenset[str]
    suffixes: tuple[str, ...] = ()
    any_name: bool = False

    @classmethod
    def of(cls, names: Iterable[str]) -> HostPolicy:
        exact: set[str] = set()
        suffixes: list[str] = []
        any_name = False
        for raw in names:
            name = raw.strip().lower().rstrip(".")
            if name == "*":
                any_name = True
            elif name.startswith("*."):
                suffixes.append(name[1:])
            elif name:
                exact.add(name.strip("[]"))
        return cls(frozenset(exact), tuple(suffixes), any_name)

    def allows(self, host: str | None) -> bool:
        name = host_name(host)
        if name is None:
            return False
        return self.any_name or name in self.names or name.endswith(self.suffixes)


def same_origin(origin: str | None, host: str | None) -> bool:
    """Whether an Origin header names the host (and port) the request was sent to.
    `null` (sandboxed frames, local files) is never this server's page."""
    if origin is None or origin == "null" or host is None:
        return False
    try:
        return urlsplit(origin).netloc.lower() == host.lower()
    except ValueError:
        return False


def security_headers(host: str) -> list[tuple[bytes, bytes]]:
    connect = f"'self' ws://{host} wss://{host}"
    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        f"connect-src {connect}; font-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    )
    return [
        (b"content-security-policy", policy.encode("latin-1")),
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"no-referrer"),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]


class Guard:
    """ASGI middleware applying the checks above to every HTTP request and WebSocket."""

    def __init__(self, app: ASGIApp, hosts: HostPolicy, max_body: int) -> None:
        self.app = app
        self.hosts = hosts
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host")
        origin = headers.get("origin")
        if scope["type"] == "websocket":
            foreign = (origin is not None and not same_origin(origin, host)) or headers.get(
                "sec-fetch-site"
            ) == "cross-site"
            if not self.hosts.allows(host) or foreign:
                await send({"type": "websocket.close", "code": 1008})  # during the handshake: 403
                return
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope["method"], headers, host, origin)
        if refusal is not None:
            await _refuse(send, *refusal, host=host if self.hosts.allows(host) else None)
            return
        extra = security_headers(host or "")
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                present = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    header for header in extra if header[0] not in present
                ]
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:  # a fault of ours: a typed 500 with the usual headers, never a traceback
            log.exception("unexpected error in %s %s", scope["method"], scope["path"])
            metrics.errors.inc()
            if started:
                raise  # the answer is under way: the server closes the connection
            await _refuse(send, 500, "internal-error", "something went wrong on the server; nothing was changed", host)

    def _refusal(
        self, method: str, headers: Headers, host: str | None, origin: str | None
    ) -> tuple[int, str, str] | None:
        if not self.hosts.allows(host):
            shown = (host or "")[:60]
            return (
                400,
                "bad-host",
                f"this server does not answer to the host name {shown!r}; "
                "start it with --allowed-host NAME (or --public-url) to allow it",
            )
        if method in SAFE_METHODS:
            return None
        cross_site = headers.get("sec-fetch-site") == "cross-site"
        if cross_site or (origin is not None and not same_origin(origin, host)):
            return 403, "bad-origin", "requests that change something must come from this server's own page"
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                return 400, "bad-request", "Content-Length is not a number"
            if int(length) > self.max_body:
                return 413, "too-large", f"request larger than {self.max_body} bytes"
        if method in BODY_METHODS:
            media_type = headers.get("content-type", "").split(";")[0].strip().lower()
            if media_type != "application/json":
                return 415, "bad-content-type", "send the request body as application/json"
        return None


async def _refuse(send: Send, status: int, code: str, message: str, host: str | None) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    if host is not None:
        headers += security_headers(host)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
