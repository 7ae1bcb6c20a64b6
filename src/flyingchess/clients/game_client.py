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
import secrets
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping
from typing import Any, Final, Self, TypeVar

from ..engine.events import Event
from ..records.fair_dice import Shown, Verified, verify_rolls
from ..records.record import loads_record
from .connection import Connection, create_game, request_json, retry_delay, server_json
from .errors import ClientError, Refused, TimedOut, Unreachable
from .values import Game, Invite, Move, Update, You, _readable_events

ANSWER_SECONDS: Final = 30.0
"""How long a roll or move waits for the server's answer."""
T = TypeVar("T")


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
        data = await asyncio.to_thread(request_json, "GET", url)
        return json.dumps(data)

    async def verify_dice(self, share: str | None = None) -> Verified:
        """Check every roll of the finished game against the dice commitment it showed
        before the start (and, given, that this seat's `share` is in it). ProofError
        (from flyingchess.records.fair_dice) names the first roll or field that does not hold."""
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


def _on_snapshot(client: GameFollower, message: dict[str, Any]) -> None:
    if "you" in message and client.token is None:  # with a token, the welcome says
        client.you = You.from_json(message["you"])
    client._took_game(message["game"], (), snapshot=True)


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
