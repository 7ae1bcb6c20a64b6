"""A Python client of a flyingchess server (docs/protocol.md; guide: docs/clients.md).

Open a game by its invite link (or a server's address and a game id), take a seat or
watch, and read the game as the engine's own values: each snapshot is a `Game` whose
`state` is a `flyingchess.State` (exact, three-sixes memory included), whose `moves` are
the legal moves with what each does, and updates carry the engine's `Event`s. Rolling
and moving wait for the server's answer; a refusal raises `Refused` with the protocol's
error code. The connection comes back by itself as the page's does (a growing, jittered
delay; a fresh snapshot, the seat proven again with its token, a roll or move lost with
the connection sent once more if the game still waits for it; a missing update asks for
the whole game). `SyncGameClient` wraps it for code without an event loop.

Needs the `web` extra's `websockets` and nothing else; HTTP goes through the standard
library.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Self, TypeVar

from .events import Event, event_from_json
from .fair_dice import Shown, Verified, verify_rolls
from .game import State
from .record import RecordError, loads_record, state_from_json

RETRY_FIRST_SECONDS: Final = 0.3
RETRY_BASE_SECONDS: Final = 0.5
RETRY_CAP_SECONDS: Final = 5.0
"""The page's back-off (web/net.js): the first retry soon, then doubling to 5 s, jittered."""
SEND_RATE: Final = 25.0
SEND_BURST: Final = 50.0
"""The client keeps under the server's limit of 30 messages a second after a burst of 60
(docs/protocol.md): a message over it is dropped unanswered, and a flood is hung up on."""
ANSWER_SECONDS: Final = 30.0
"""How long a roll or move waits for the server's answer."""
T = TypeVar("T")


class ClientError(Exception):
    """What went wrong, in one line."""


class Refused(ClientError):
    """The server refused a request (docs/protocol.md, Errors); nothing changed."""

    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_after = retry_after


class Unreachable(ClientError):
    """The server cannot be reached (down, a wrong address, no answer in time)."""


class TimedOut(ClientError):
    """What was waited for did not happen in the time given."""


def retry_delay(attempt: int, rng: Callable[[], float] = random.random) -> float:
    """Seconds before reconnection attempt `attempt` (0: the first), as the page waits."""
    if attempt <= 0:
        return 0.1 + rng() * (RETRY_FIRST_SECONDS - 0.1)
    base: float = min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2 ** (attempt - 1))
    return base * (0.6 + 0.4 * rng())


# ----------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Invite:
    """Where a game is: the server's address and the game's id."""

    base: str
    """The server's address, such as http://192.168.1.20:8000 (no trailing slash)."""
    game_id: str

    @classmethod
    def parse(cls, link: str, base: str | None = None) -> Invite:
        """An invite link (http://host:port/#/join/ID, or a game page's #/game/ID), or a
        bare game id with the server's `base` address. ClientError for anything else."""
        parts = urllib.parse.urlsplit(link.strip())
        if parts.scheme in ("http", "https") and parts.netloc:
            route = parts.fragment.strip("/").split("/")
            if len(route) == 2 and route[0] in ("join", "game", "replay") and route[1]:
                return cls(f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}", urllib.parse.unquote(route[1]))
            raise ClientError(f"{link}: not a game's link (it should end with #/join/GAME or #/game/GAME)")
        if base is not None and link and all(c.isalnum() or c in "-_" for c in link):
            return cls.parse(f"{base.rstrip('/')}/#/game/{link}")
        raise ClientError(f"{link!r}: give a game's invite link (http://HOST:PORT/#/join/GAME)")

    @property
    def socket_url(self) -> str:
        scheme = "wss" if self.base.startswith("https:") else "ws"
        return f"{scheme}:{self.base.split(':', 1)[1]}/ws/{urllib.parse.quote(self.game_id)}"

    @property
    def link(self) -> str:
        return f"{self.base}/#/join/{urllib.parse.quote(self.game_id)}"


@dataclass(frozen=True)
class You:
    """What this connection may do, in the server's words (`you`, `welcome`)."""

    role: str = "spectator"
    colours: tuple[str, ...] = ()
    """The seat the token names (a player)."""
    controls: tuple[str, ...] = ()
    """The colours this connection rolls and moves for now."""
    dice_share: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> You:
        return cls(
            str(data.get("role", "spectator")),
            tuple(data.get("colours") or ()),
            tuple(data.get("controls") or ()),
            data.get("dice_share"),
        )


@dataclass(frozen=True)
class Move:
    """A legal move of the snapshot, as the server describes it (docs/protocol.md)."""

    plane: int
    planes: tuple[int, ...]
    start: int
    end: int
    choice: int
    """Moves with the same `choice` are one choice for the player."""
    launch: bool
    jump: bool
    flight: bool
    bounce: bool
    captures: tuple[Mapping[str, Any], ...]
    events: tuple[Event, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Move:
        return cls(
            int(data["plane"]),
            tuple(data["planes"]),
            int(data["from"]),
            int(data["to"]),
            int(data["choice"]),
            bool(data["launch"]),
            bool(data["jump"]),
            bool(data["flight"]),
            bool(data["bounce"]),
            tuple(data["captures"]),
            _readable_events(data["events"]),
        )


@dataclass(frozen=True)
class Game:
    """One snapshot of a game, read into the engine's values."""

    id: str
    state: State
    """The engine's exact state (what `legal_moves`, bots and observations take)."""
    phase: str
    """`roll`, `move` or `over`."""
    moves: tuple[Move, ...]
    choices: int
    actions: int
    seats: Mapping[str, Mapping[str, Any]]
    started: bool
    dice: Mapping[str, Any] | None
    speed: str
    raw: Mapping[str, Any] = field(repr=False)
    """The snapshot as the server sent it."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Game:
        """ClientError when the snapshot is not one (a server of another version)."""
        try:
            state = state_from_json(
                {
                    **data["state"],
                    "rules": data["rules"],
                    "roll": data["roll"],
                    "last_moved": data["last_moved"],
                    "six_moved": data["six_moved"],
                }
            )
            return cls(
                str(data["id"]),
                state,
                str(data["phase"]),
                tuple(Move.from_json(move) for move in data["moves"]),
                int(data["choices"]),
                int(data["actions"]),
                data["seats"],
                data["started"] is not False,
                data["dice"],
                str(data["speed"]),
                data,
            )
        except (KeyError, TypeError, ValueError, RecordError) as error:
            raise ClientError(f"the server sent a snapshot this client cannot read ({error})") from None

    @property
    def to_move(self) -> str | None:
        """The colour to roll or move (None once the game is over)."""
        return self.state.colour


@dataclass(frozen=True)
class Update:
    """What changed: the events (empty for a snapshot) and the game after them."""

    events: tuple[Event, ...]
    game: Game
    snapshot: bool = False
    """A whole snapshot (on connecting, after a reconnection or a sync), not a change."""


# ----------------------------------------------------------------------------- HTTP


def _request(method: str, url: str, body: Any = None, headers: Mapping[str, str] | None = None) -> Any:
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
    return await asyncio.to_thread(_request, "GET", f"{base.rstrip('/')}/{path.lstrip('/')}")


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
    created = await asyncio.to_thread(_request, "POST", f"{base.rstrip('/')}/api/games", body)
    return Invite(base.rstrip("/"), str(created["id"])), str(created["host_token"])


# ----------------------------------------------------------------------------- the connection


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


# ----------------------------------------------------------------------------- the client


class GameFollower:
    """One connection to one game, read into the engine's values: the snapshots and updates
    (`game`, `updates()`), who this connection is (`you`, proven with `token` on every
    (re)connection) and waits on the game. `GameClient` adds what it may ask; this part
    calls on it (`_took`, `_dropped`, `_proven`) to keep a request under way in step."""

    def __init__(self, invite: Invite | str, token: str | None = None, *, open_timeout: float = 10.0) -> None:
        self.invite = invite if isinstance(invite, Invite) else Invite.parse(invite)
        self.token = token
        self.open_timeout = open_timeout
        self.game: Game | None = None
        """The game as last sent (None before the first snapshot)."""
        self.you = You()
        self._link = Connection(
            self.invite.socket_url,
            open_timeout,
            opened=self._open_as_seat,
            take=self._take,
            dropped=self._dropped,
            ended=self._fail,
        )
        self._updates: asyncio.Queue[Update | ClientError] = asyncio.Queue()
        self._changed = asyncio.Condition()
        self._answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._failure: ClientError | None = None
        self._opening = False

    # ---------------------------------------------------------------- connecting

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Open the connection and wait for the game (and, with a token, the welcome)."""
        await self._link.start()

    @property
    def connected(self) -> bool:
        """Whether the connection is open now (False while it is being opened again)."""
        return self._link.connected

    @property
    def reconnections(self) -> int:
        return self._link.reconnections

    async def _open_as_seat(self, first: dict[str, Any]) -> None:
        self._opening = True  # a lost request goes again only once the seat is proven
        try:
            self._take(first)
            if self.token is not None:
                await self._send({"type": "hello", "token": self.token})
                while True:
                    said = await self._link.receive_now()
                    if said.get("type") == "error":
                        raise Refused(said.get("code", "error"), said.get("message", ""))
                    self._take(said)
                    if said.get("type") == "welcome":
                        break
        finally:
            self._opening = False
        self._proven()

    async def close(self) -> None:
        self._updates.put_nowait(ClientError("the client was closed"))
        await self._link.close()

    async def _fail(self, error: ClientError) -> None:
        self._failure = error
        await self._updates.put(error)
        await self._answers.put({"type": "error", "code": getattr(error, "code", "unreachable"), "message": str(error)})
        async with self._changed:
            self._changed.notify_all()

    # ---------------------------------------------------------------- what the server says

    def _take(self, message: dict[str, Any]) -> None:
        handle = _ON_MESSAGE.get(str(message.get("type")))
        if handle is not None:
            handle(self, message)

    def _took_game(self, data: Mapping[str, Any], events: tuple[Event, ...], snapshot: bool) -> None:
        game = Game.from_json(data)
        before = self.game
        if not snapshot and before is not None and game.actions > before.actions + 1:
            asyncio.get_running_loop().create_task(self._send({"type": "sync"}))  # an update went missing
        if before is not None and not snapshot and game.actions < before.actions:
            return  # an old update after a fresher snapshot
        self.game = game
        update = Update(events, game, snapshot)
        self._updates.put_nowait(update)
        self._took(update)
        asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def _took(self, update: Update) -> None:
        """An update read in and queued (`GameClient`: is it the answer it awaits?)."""

    def _dropped(self) -> None:
        """The connection dropped (`GameClient`: a request under way may be lost)."""

    def _proven(self) -> None:
        """A connection (opened again) is this seat's (`GameClient`: a lost request may go again)."""

    # ---------------------------------------------------------------- reading the game

    @property
    def pending(self) -> int:
        """Updates received and not yet read from `updates()` (a front end drawing them
        may draw only the last of a burst)."""
        return self._updates.qsize()

    async def updates(self) -> AsyncIterator[Update]:
        """Every snapshot and update since the client connected (they are kept until read),
        in order, until the game is over (and shown) or the client is closed. ClientError
        when the game can no longer be followed (deleted, the seat lost, unreadable)."""
        while True:
            item = await self._updates.get()
            if isinstance(item, ClientError):
                if self._link.closed and self._failure is None:
                    return
                raise item
            yield item
            if item.game.phase == "over":
                return

    async def wait_until(self, test: Callable[[Game], bool], timeout: float | None = None) -> Game:
        """The game, once `test(game)` holds (checked at every change)."""

        async def waiting() -> Game:
            async with self._changed:
                while self.game is None or not test(self.game):
                    if self._failure is not None:
                        raise self._failure
                    await self._changed.wait()
                return self.game

        try:
            return await asyncio.wait_for(waiting(), timeout)
        except TimeoutError:
            raise TimedOut(f"not within {timeout} s") from None

    async def my_turn(self, timeout: float | None = None) -> Game:
        """The game, once this connection is to roll or move (or the game is over)."""
        return await self.wait_until(
            lambda game: game.phase == "over" or (game.started and game.to_move in self.you.controls), timeout
        )

    async def _send(self, message: dict[str, Any]) -> bool:
        """Whether it went out (when not, the connection is being opened again)."""
        return await self._link.send(message)


class GameClient(GameFollower):
    """One connection to one game (asyncio). Use `async with GameClient(invite) as game:`.

    `token`: a seat's (or the host's) secret, proven on every (re)connection; `join`
    takes an open seat and keeps the token it is given (`token` afterwards). Reading the
    game is `GameFollower`'s; asking (a roll or move awaiting its answer) is here."""

    def __init__(self, invite: Invite | str, token: str | None = None, *, open_timeout: float = 10.0) -> None:
        super().__init__(invite, token, open_timeout=open_timeout)
        self._lost_request: dict[str, Any] | None = None
        self._asked_at: tuple[int, str | None, str] | None = None
        """Where the game stood when the roll or move under way was sent (`_act`)."""
        self._answer: Update | None = None
        """The first update since then that shows the game elsewhere: the answer, even
        when later ones (a bot's turn) arrive before the caller wakes."""

    # ---------------------------------------------------------------- a request under way

    def _took(self, update: Update) -> None:
        if self._answer is None and self._asked_at is not None and _where(update.game) != self._asked_at:
            self._answer = update
        if update.snapshot and self._lost_request is not None and not self._opening:
            self._resend_if_still_wanted(update.game)

    def _dropped(self) -> None:
        if self._lost_request is not None:
            self._lost_request = {**self._lost_request, "lost": True}

    def _proven(self) -> None:
        if self.game is not None and self._lost_request is not None:
            self._resend_if_still_wanted(self.game)

    def _resend_if_still_wanted(self, game: Game) -> None:
        """A roll or move sent on a connection that dropped before its answer: sent once
        more if the game still stands where it was sent (else it was played, or is moot)."""
        lost, self._lost_request = self._lost_request, None
        if lost is not None and lost.get("lost") and lost["at"] == _where(game):
            self._lost_request = {**lost, "lost": False}
            asyncio.get_running_loop().create_task(self._send(lost["request"]))

    # ---------------------------------------------------------------- acting

    async def join(self, colour: str, name: str) -> str:
        """Take an open seat; returns its secret token (kept: it proves the seat again
        after a reconnection). Refused: seat-taken, already-seated, rate-limited..."""
        answer = await self._ask({"type": "join", "colour": colour, "name": name}, ("joined",))
        self.token = str(answer["token"])
        await self.wait_until(lambda _: colour in self.you.controls, ANSWER_SECONDS)
        return self.token

    async def roll(self, seen: Game | None = None) -> Update:
        """Roll for the seat to move; returns the update that shows the roll. `seen`: the
        game as the caller last showed it (a front end drawing updates as they come):
        if the game has moved on since, nothing is sent and `Refused("moved-on")` says so."""
        return await self._act({"type": "roll"}, seen)

    async def move(self, plane: int, seen: Game | None = None) -> Update:
        """Move `plane` (any plane of a stack names it); returns the update that shows it.
        (No move is ever a pass to send: the server passes by itself when none is legal.)
        `seen` as for `roll`: a move is never played for a roll the player has not seen."""
        return await self._act({"type": "move", "plane": plane}, seen)

    async def _act(self, request: dict[str, Any], seen: Game | None = None) -> Update:
        game = self.game
        if game is None:
            raise ClientError("no game yet: connect first")
        if seen is not None and seen.actions != game.actions:
            raise Refused("moved-on", "the game has moved on since it was shown")
        sent = {**request, "at": game.actions}
        where = _where(game)
        self._lost_request = {"request": sent, "at": where, "lost": False}
        self._answers = asyncio.Queue()
        self._asked_at, self._answer = where, None
        if not await self._send(sent):  # the connection is down: it goes once the client is back
            self._lost_request = {**self._lost_request, "lost": True}

        async def answered() -> Update:
            async with self._changed:
                while True:
                    if self._answer is not None:
                        return self._answer
                    if self._failure is not None:
                        raise self._failure
                    said = self._answers.get_nowait() if not self._answers.empty() else None
                    # `reconnecting`: nothing changed, and the request goes again once the room is back
                    if said is not None and said.get("type") == "error" and said.get("code") != "reconnecting":
                        raise Refused(str(said.get("code")), str(said.get("message", "")))
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._changed.wait(), 1.0)

        try:
            return await asyncio.wait_for(answered(), ANSWER_SECONDS)
        except TimeoutError:
            raise Unreachable(f"no answer to {request['type']} in {ANSWER_SECONDS:.0f} s") from None
        finally:
            self._lost_request = None
            self._asked_at = self._answer = None

    async def start(self) -> Game:
        """The host starts a gathered game (seats still open go to a bot); returns it started."""
        await self._send({"type": "start"})
        return await self.wait_until(lambda game: game.started, ANSWER_SECONDS)

    async def chat(self, text: str) -> None:
        await self._send({"type": "chat", "text": text})

    async def react(self, emoji: str) -> None:
        await self._send({"type": "react", "emoji": emoji})

    async def contribute(self, value: str | None = None) -> str:
        """Add this seat's share to a network game's dice before it starts; returns it
        (keep it to check the record against: `verify_dice(share=...)`)."""
        share = value or secrets.token_urlsafe(24)
        await self._send({"type": "contribute", "value": share})
        return share

    async def sync(self) -> Game:
        """Ask for a fresh snapshot and return it."""
        before = self.game
        await self._send({"type": "sync"})
        return await self.wait_until(lambda game: game is not before, ANSWER_SECONDS)

    async def _ask(self, request: dict[str, Any], answers: tuple[str, ...]) -> dict[str, Any]:
        self._answers = asyncio.Queue()
        await self._send(request)
        while True:
            try:
                answer = await asyncio.wait_for(self._answers.get(), ANSWER_SECONDS)
            except TimeoutError:
                raise Unreachable(f"no answer to {request['type']} in {ANSWER_SECONDS:.0f} s") from None
            if answer.get("type") == "error":
                raise Refused(str(answer.get("code")), str(answer.get("message", "")))
            if answer.get("type") in answers:
                return answer

    # ---------------------------------------------------------------- the dice

    async def record(self) -> str:
        """The game's record as the server serves it (docs/records.md)."""
        url = f"{self.invite.base}/api/games/{urllib.parse.quote(self.invite.game_id)}/record"
        data = await asyncio.to_thread(_request, "GET", url)
        return json.dumps(data)

    async def verify_dice(self, share: str | None = None) -> Verified:
        """Check every roll of the finished game against the dice commitment it showed
        before the start (and, given, that this seat's `share` is in it). ProofError
        (from flyingchess.fair_dice) names the first roll or field that does not hold."""
        game = self.game
        if game is None or game.dice is None:
            raise ClientError("this game has no committed dice (a game on one device)")
        record = loads_record(await self.record())
        shown = Shown(
            commitment=str(game.dice.get("commitment")),
            first=int(game.dice.get("from", 0)),
            share=share,
            share_by=self.you.dice_share if share is not None else None,
        )
        rolls = [step.roll for step in record.steps()]
        return verify_rolls(
            record.extra.get("dice"), rolls, record.players, seats=record.extra.get("seats"), shown=shown
        )


def _where(game: Game) -> tuple[int, str | None, str]:
    """Where a game stands for a roll or move: it was answered once this changes."""
    return game.actions, game.to_move, game.phase


def _denial(error: Any) -> tuple[str, str]:
    """The protocol's error in a refused handshake's body (503 with JSON), else the status."""
    response: Any = getattr(error, "response", None)
    try:
        said = json.loads(bytes(response.body)).get("error", {})
        return str(said["code"]), str(said.get("message", ""))
    except (AttributeError, KeyError, TypeError, ValueError):
        return "refused", f"the server answered {getattr(response, 'status_code', '?')}"


def _on_snapshot(client: GameFollower, message: dict[str, Any]) -> None:
    if "you" in message and client.token is None:  # with a token, the welcome says
        client.you = You.from_json(message["you"])
    client._took_game(message["game"], (), snapshot=True)


def _readable_events(data: Any) -> tuple[Event, ...]:
    """The events of an update; one this client does not know (a newer server) is left out."""
    events = []
    for event in data or ():
        with contextlib.suppress(ValueError, TypeError):
            events.append(event_from_json(event))
    return tuple(events)


def _on_update(client: GameFollower, message: dict[str, Any]) -> None:
    events = _readable_events(message.get("events"))
    client._took_game(message["game"], events, snapshot=False)


def _on_welcome(client: GameFollower, message: dict[str, Any]) -> None:
    client.you = You.from_json(message)
    client._answers.put_nowait(message)
    asyncio.get_running_loop().create_task(client._notify())


def _on_answer(client: GameFollower, message: dict[str, Any]) -> None:
    client._answers.put_nowait(message)
    asyncio.get_running_loop().create_task(client._notify())


def _on_seat_lost(client: GameFollower, message: dict[str, Any]) -> None:
    """The host gave this seat away: its token opens nothing any more; waits end."""
    client.token = None
    lost = Refused("seat-lost", f"the host gave {', '.join(message.get('colours') or ['this seat'])} away")
    asyncio.get_running_loop().create_task(client._fail(lost))


_ON_MESSAGE: Final[dict[str, Callable[[GameFollower, dict[str, Any]], None]]] = {
    "snapshot": _on_snapshot,
    "update": _on_update,
    "welcome": _on_welcome,
    "joined": _on_answer,
    "error": _on_answer,
    "seat-lost": _on_seat_lost,
}
"""What the client does with each message the server sends (others: chat, reactions and
rematches, are not kept)."""


# ----------------------------------------------------------------------------- without asyncio


class SyncGameClient:
    """`GameClient` for code without an event loop: each method blocks until its answer.
    The client runs on an event loop of its own, in a background thread."""

    def __init__(self, invite: Invite | str, token: str | None = None) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="flyingchess client", daemon=True)
        self._thread.start()
        self.client: GameClient = self._run(_make(invite, token))
        self._run(self.client.connect())

    def _run(self, work: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(timeout)

    @property
    def game(self) -> Game | None:
        return self.client.game

    @property
    def you(self) -> You:
        return self.client.you

    def join(self, colour: str, name: str) -> str:
        return self._run(self.client.join(colour, name))

    def roll(self) -> Update:
        return self._run(self.client.roll())

    def move(self, plane: int) -> Update:
        return self._run(self.client.move(plane))

    def my_turn(self, timeout: float | None = None) -> Game:
        return self._run(self.client.my_turn(timeout))

    def chat(self, text: str) -> None:
        self._run(self.client.chat(text))

    def contribute(self, value: str | None = None) -> str:
        return self._run(self.client.contribute(value))

    def verify_dice(self, share: str | None = None) -> Verified:
        return self._run(self.client.verify_dice(share))

    def updates(self) -> Iterator[Update]:
        stream = self.client.updates()

        async def following() -> Update | None:
            try:
                return await anext(stream)
            except StopAsyncIteration:
                return None

        while (update := self._run(following())) is not None:
            yield update

    def close(self) -> None:
        self._run(self.client.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    def __enter__(self) -> SyncGameClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


async def _make(invite: Invite | str, token: str | None) -> GameClient:
    return GameClient(invite, token)  # built on the client's own loop (its queues belong to it)


__all__ = [
    "ClientError",
    "Game",
    "GameClient",
    "Invite",
    "Move",
    "Refused",
    "SyncGameClient",
    "TimedOut",
    "Unreachable",
    "Update",
    "You",
    "create_game",
    "retry_delay",
    "server_json",
]
