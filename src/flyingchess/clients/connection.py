"""How a client reaches a server: HTTP requests, and a WebSocket that comes back by itself.

The errors a client raises, the page's back-off (web/net.js) and the pacing under the
server's message limit live here; what is said on the socket is `game_client.py`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from .errors import ClientError, Refused, Unreachable
from .values import Invite

RETRY_FIRST_SECONDS: Final = 0.3
RETRY_BASE_SECONDS: Final = 0.5
RETRY_CAP_SECONDS: Final = 5.0
"""The page's back-off (web/net.js): the first retry soon, then doubling to 5 s, jittered."""
SEND_RATE: Final = 25.0
SEND_BURST: Final = 50.0
"""The client keeps under the server's limit of 30 messages a second after a burst of 60
(docs/protocol.md): a message over it is dropped unanswered, and a flood is hung up on."""


def retry_delay(attempt: int, rng: Callable[[], float] = random.random) -> float:
    """Seconds before reconnection attempt `attempt` (0: the first), as the page waits."""
    if attempt <= 0:
        return 0.1 + rng() * (RETRY_FIRST_SECONDS - 0.1)
    base: float = min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2 ** (attempt - 1))
    return base * (0.6 + 0.4 * rng())


def request_json(method: str, url: str, body: Any = None, headers: Mapping[str, str] | None = None) -> Any:
    """One HTTP request with a JSON body and answer (blocking: callers run it in a thread);
    the server's refusal as `Refused` in its own words, no answer as `Unreachable`."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        try:
            said = json.loads(error.read()).get("error", {})
        except (ValueError, AttributeError):
            said = {}
        raise Refused(str(said.get("code", f"http-{error.code}")), str(said.get("message", error.reason))) from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise Unreachable(f"{url}: {reason}") from None


async def server_json(base: str, path: str) -> Any:
    """GET one of the server's JSON resources (docs/protocol.md's HTTP table: `/api/meta`,
    `/api/games`, a game's `/chances`, ...); `Refused` or `Unreachable` as for a game."""
    return await asyncio.to_thread(request_json, "GET", f"{base.rstrip('/')}/{path.lstrip('/')}")


async def create_game(
    base: str,
    players: list[str],
    seats: Mapping[str, Mapping[str, str]],
    rules: str | Mapping[str, Any] = "classic",
    **options: Any,
) -> tuple[Invite, str]:
    """Create a game on the server at `base` (POST /api/games); returns where it is and
    the host's secret token (hello with it to act as the host)."""
    body = {"players": players, "seats": seats, "rules": rules, **options}
    created = await asyncio.to_thread(request_json, "POST", f"{base.rstrip('/')}/api/games", body)
    return Invite(base.rstrip("/"), str(created["id"])), str(created["host_token"])


class Connection:
    """The WebSocket under a `GameClient`, opened again by itself when it drops, as the
    page's is (`retry_delay`), every message paced under the server's limit. What is said
    on it is the client's: each message goes to `take`; `opened` is awaited once a socket
    is up (the seat proven on it), `dropped` told when one goes, `ended` when it is over."""

    def __init__(
        self,
        url: str,
        open_timeout: float,
        *,
        opened: Callable[[dict[str, Any]], Awaitable[None]],
        take: Callable[[dict[str, Any]], None],
        dropped: Callable[[], None],
        ended: Callable[[ClientError], Awaitable[None]],
    ) -> None:
        self.url = url
        self.open_timeout = open_timeout
        self.opened, self.take, self.dropped, self.ended = opened, take, dropped, ended
        self.connected = False
        """Whether the connection is open now (False while it is being opened again)."""
        self.reconnections = 0
        self.closed = False
        self._socket: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._allowance = SEND_BURST
        self._allowed_at = 0.0

    async def start(self) -> None:
        """Open the connection, then read it (opening it again when it drops) until closed."""
        await self._open()
        self._reader = asyncio.get_running_loop().create_task(self._read_forever())

    async def _open(self) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidHandshake, InvalidStatus

        try:
            self._socket = await connect(self.url, open_timeout=self.open_timeout, max_size=2**22)
        except InvalidStatus as error:
            raise Refused(*_denial(error)) from None
        except (OSError, InvalidHandshake, TimeoutError) as error:
            raise Unreachable(f"{self.url}: {error}") from None
        first = await self.receive_now()
        if first.get("type") == "error":
            raise Refused(first.get("code", "error"), first.get("message", ""))
        await self.opened(first)
        self.connected = True

    async def receive_now(self) -> dict[str, Any]:
        """The next message, read while opening (before the reader takes over)."""
        try:
            text = await asyncio.wait_for(self._socket.recv(), self.open_timeout)
        except Exception as error:  # closed, or no answer in time
            raise Unreachable(f"{self.url}: the server did not answer ({error})") from None
        message: dict[str, Any] = json.loads(text)
        return message

    async def close(self) -> None:
        self.closed = True
        self.connected = False
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._socket is not None:
            with contextlib.suppress(Exception):
                await self._socket.close()

    async def _read_forever(self) -> None:
        """Read until closed; a dropped connection is opened again, as the page does."""
        from websockets.exceptions import ConnectionClosed

        attempt = 0
        while not self.closed:
            try:
                async for text in self._socket:
                    attempt = 0
                    self.take(json.loads(text))
            except ConnectionClosed:
                pass
            except (ClientError, ValueError, KeyError, TypeError) as error:  # a message it cannot read
                self.connected = False
                unreadable = (
                    error
                    if isinstance(error, ClientError)
                    else ClientError(f"the server sent a message this client cannot read ({error})")
                )
                await self.ended(unreadable)
                with contextlib.suppress(Exception):
                    await self._socket.close()
                return
            self.connected = False
            if self.closed:
                return
            self.dropped()
            while not self.closed:
                await asyncio.sleep(retry_delay(attempt))
                attempt += 1
                try:
                    await self._open()
                    self.reconnections += 1
                    break
                except Refused as refused:
                    if refused.code in ("unknown-game", "bad-token"):  # nothing to come back to
                        await self.ended(refused)
                        return
                except Unreachable:
                    continue

    async def send(self, message: dict[str, Any]) -> bool:
        """Whether it went out (when not, the reader is reconnecting)."""
        from websockets.exceptions import ConnectionClosed

        await self._pace()
        try:
            await self._socket.send(json.dumps(message))
        except ConnectionClosed:
            return False
        return True

    async def _pace(self) -> None:
        """Wait until one more message keeps under SEND_RATE (a token bucket of SEND_BURST)."""
        now = asyncio.get_running_loop().time()
        self._allowance = min(SEND_BURST, self._allowance + (now - self._allowed_at) * SEND_RATE)
        self._allowed_at = now
        if self._allowance < 1:
            await asyncio.sleep((1 - self._allowance) / SEND_RATE)
            self._allowance, self._allowed_at = 1.0, asyncio.get_running_loop().time()
        self._allowance -= 1


def _denial(error: Any) -> tuple[str, str]:
    """The protocol's error in a refused handshake's body (503 with JSON), else the status."""
    response: Any = getattr(error, "response", None)
    try:
        said = json.loads(bytes(response.body)).get("error", {})
        return str(said["code"]), str(said.get("message", ""))
    except (AttributeError, KeyError, TypeError, ValueError):
        return "refused", f"the server answered {getattr(response, 'status_code', '?')}"
