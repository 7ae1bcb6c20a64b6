"""The ASGI app: the page, the JSON API and one WebSocket per game (docs/protocol.md).

Handlers only translate between HTTP/WebSocket and rooms; every rule question goes to
the engine through `rooms/room.py`, and every failure becomes a typed JSON error (never a
traceback). Endpoints live at module level and find the server's parts in
`app.state`; `guard.py` checks Host, Origin and sizes before any of them runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import io
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.endpoints import WebSocketEndpoint
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketDisconnected

from ... import __version__
from ...bots import bot_listing, bot_names
from ...engine.board import COLOURS
from ...engine.game import DEFAULT_PLAYERS
from ...engine.layout import board_layout
from ...engine.rules import OPTIONS, PRESETS, Rules, RulesError
from ...records.record import ActionError, RecordError, parse_record
from .. import metrics
from ..errors import REFUSED_KINDS, DamagedGame, NoSuchGame, StoreError, close_code, refusal, refused
from ..limits import KeyedBuckets, Limits, TokenBucket
from ..protocol import (
    CHAT_LIMIT,
    HTTP_STATUS,
    MAX_MESSAGE_BYTES,
    NAME_LIMIT,
    REACTIONS,
    SPEEDS,
    ProtocolError,
    iso_time,
    parse_message,
    parse_new_game,
)
from ..rooms.dice import EntropyDice
from ..rooms.registry import RoomDirectory, Rooms, import_parts, new_game
from ..rooms.room import GRACE_SECONDS, Room, RoomLike
from ..rooms.seats import Control, token_hash, without_secrets
from ..storage.async_store import AsyncStore, LoopStore
from ..storage.store import SqlStore
from .guard import LOOPBACK_NAMES, Guard, HostPolicy
from .handshakes import client_gone
from .health import check_health
from .insight import Insight
from .insight import available as analysis_available
from .outbox import Outbox
from .stats import tally

WEB = Path(__file__).resolve().parents[2] / "web"
SWEEP_SECONDS = 15.0
STATS_GAMES = 10_000
"""The statistics count at most this many finished games, the newest."""
"""How often rooms nobody watches are dropped from memory."""
log = logging.getLogger("flyingchess.server")


@dataclass
class Settings:
    """How this server was started. `local`: only this machine can reach it, so every
    page is the host's own (`flyingchess play`); on a network (`serve`, `play --lan`) a
    page proves its seat with a token. `invite_base`: the address other devices reach the
    server at, for invite links made on a page opened through 127.0.0.1."""

    local: bool = True
    invite_base: str | None = None
    limits: Limits = field(default_factory=Limits)
    public_url: str | None = None
    """The address players reach the server at through a proxy: every invite uses it."""


# ---------------------------------------------------------------- helpers


def _error(status: int, code: str, message: str, retry_after: float | None = None) -> JSONResponse:
    headers = {"Retry-After": str(max(1, round(retry_after)))} if retry_after else None
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def _options() -> dict[str, Any]:
    return {spec.name: {"kind": spec.kind, "values": list(spec.values), "help": spec.help} for spec in OPTIONS}


def _meta() -> dict[str, Any]:
    return {
        "version": __version__,
        "bots": [bot_listing(name) for name in bot_names()],
        "presets": {name: rules.to_json() for name, rules in PRESETS.items()},
        "options": _options(),
        "colours": list(COLOURS),
        "layout": board_layout(),
        # what the page would otherwise copy from here: the engine's default colours for
        # 2-4 players, the paces, the reactions and the lengths the server accepts
        "default_players": {str(count): list(colours) for count, colours in DEFAULT_PLAYERS.items()},
        "speeds": list(SPEEDS),
        "reactions": list(REACTIONS),
        "limits": {"name": NAME_LIMIT, "chat": CHAT_LIMIT},
        "analysis": analysis_available(),  # win chances, hints and reviews (the ace bot's network)
    }


def _rooms(request: Request | WebSocket) -> RoomDirectory:
    rooms: RoomDirectory = request.app.state.rooms
    return rooms


def _settings(request: Request | WebSocket) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _address(request: Request | WebSocket) -> str:
    return request.client.host if request.client else "unknown"


def _count(request: Request, name: str, default: int, most: int, least: int = 0) -> int:
    """A whole-number query parameter in least..most (ASCII digits only: no '²')."""
    text = request.query_params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit() and len(text) <= 10) or not least <= int(text) <= most:
        raise ProtocolError("bad-request", f"{name} must be a whole number {least}..{most}")
    return int(text)


async def _read_body(request: Request, limit: int, seconds: float) -> bytes:
    """The body, refused (413) as soon as it is longer than `limit` whatever the client
    declared, or (408) when it does not arrive within `seconds`."""
    chunks: list[bytes] = []
    size = 0

    async def read() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ProtocolError("too-large", f"request larger than {limit} bytes")
            chunks.append(chunk)

    try:
        await asyncio.wait_for(read(), seconds)
    except TimeoutError:
        raise ProtocolError("bad-request", "the request body did not arrive in time") from None
    except ClientDisconnect:
        raise ProtocolError("bad-request", "the request body was cut short") from None
    return b"".join(chunks)


async def _json_body(request: Request, limit: int) -> Any:
    limits = _settings(request).limits
    body = await _read_body(request, limit, limits.body_seconds)
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise ProtocolError("bad-request", "request body is not valid JSON") from None


def _no_constants(name: str) -> Any:
    raise ProtocolError("bad-record", f"{name} is not a JSON number")


def _may_create(request: Request) -> None:
    """New games, imports and rematches are limited per client address."""
    wait = request.app.state.creations.allow(_address(request), time.monotonic())
    if wait:
        raise ProtocolError(
            "rate-limited", f"too many new games from your address: try again in {wait:.0f} s", retry_after=wait
        )


def _require_host(request: Request, host_token: str | None) -> None:
    """On a network server, changing or forgetting a game needs its host token."""
    if _settings(request).local:
        return
    token = request.headers.get("x-host-token", "")
    if not token or host_token is None or not hmac.compare_digest(token_hash(token), host_token):
        raise ProtocolError("not-host", "only the host may do that")


def _summary(summary: dict[str, Any]) -> dict[str, Any]:
    summary["created"], summary["updated"] = iso_time(summary["created"]), iso_time(summary["updated"])
    summary["seats"] = without_secrets(summary["seats"])
    rules = summary.pop("rules")
    try:
        summary["rules_name"] = Rules.from_json(rules).preset_name()
    except RulesError:
        summary["rules_name"] = None
    return summary


def _created(room: Room, host_token: str) -> JSONResponse:
    return JSONResponse({"id": room.id, "host_token": host_token, "game": room.snapshot()})


# ---------------------------------------------------------------- HTTP endpoints


async def index(request: Request) -> Response:
    return FileResponse(WEB / "index.html", headers={"Cache-Control": "no-cache"})


async def get_meta(request: Request) -> Response:
    settings = _settings(request)
    return JSONResponse(
        {
            **request.app.state.meta,
            "local": settings.local,
            "invite_base": settings.invite_base,
            "public_url": settings.public_url,
        }
    )


async def get_health(request: Request) -> Response:
    """Ready (200) or not (503), with each dependency's word: for load balancers."""
    state = request.app.state
    cluster = getattr(state.rooms, "cluster", None)
    health = await check_health(
        lambda: state.store.ping(), cluster.ping if cluster is not None else None, state.shutting_down
    )
    return JSONResponse(
        health.to_json(), status_code=200 if health.ready else 503, headers={"Cache-Control": "no-store"}
    )


def _named_games(request: Request) -> list[str] | None:
    """The games a request may see: those `?ids=` names (a page's own), else every game
    on a server only this machine reaches and none on a network server."""
    settings = _settings(request)
    ids_text = request.query_params.get("ids")
    if ids_text is None:
        return None if settings.local else []
    return [i for i in ids_text.split(",") if i][: settings.limits.list_page_max]


async def list_games(request: Request) -> Response:
    """A page of saved games, newest change first. On a network server a page sees only
    the games it names (`?ids=`: those it holds a token for), never everyone's."""
    limits = _settings(request).limits
    limit = _count(request, "limit", limits.list_page, limits.list_page_max, least=1)
    offset = _count(request, "offset", 0, 10**9)
    store: LoopStore = request.app.state.store
    summaries = await store.summaries(limit + 1, offset, _named_games(request))
    games = [_summary(summary) for summary in summaries[:limit]]
    return JSONResponse({"games": games, "next": offset + limit if len(summaries) > limit else None})


async def statistics(request: Request) -> Response:
    """Games played and won by player and by colour, over the finished games (the last
    10,000); on a network server only over the games the page names (`?ids=`)."""
    store: LoopStore = request.app.state.store
    return JSONResponse(tally(await store.summaries(STATS_GAMES, 0, _named_games(request), finished=True)))


async def lobby(request: Request) -> Response:
    """Unfinished games other devices may join or watch, open seats first (paginated)."""
    limits = _settings(request).limits
    limit = _count(request, "limit", limits.list_page, limits.list_page_max, least=1)
    offset = _count(request, "offset", 0, 10**9)
    store: LoopStore = request.app.state.store
    summaries = await store.lobby(limit + 1, offset)
    rooms = _rooms(request)
    listing = []
    for summary in summaries[:limit]:
        loaded = rooms.rooms.get(summary["id"])
        listing.append(
            {
                "id": summary["id"],
                "players": summary["players"],
                "seats": loaded.public_seats() if loaded else without_secrets(summary["seats"]),
                "rules_name": _summary(dict(summary))["rules_name"],
                "open_seats": [c for c, seat in summary["seats"].items() if seat.get("kind") == "open"],
                "actions": summary["actions"],
                "watchers": loaded.watcher_count() if loaded else 0,
                "updated": iso_time(summary["updated"]),
            }
        )
    return JSONResponse({"rooms": listing, "next": offset + limit if len(summaries) > limit else None})


async def create_game(request: Request) -> Response:
    _may_create(request)
    new = parse_new_game(await _json_body(request, _settings(request).limits.json_body_bytes))
    extra: dict[str, Any] = {}
    if new.timer:
        extra["timer"] = new.timer
    if new.hints:
        extra["hints"] = True
    made = new_game(new.rules, new.players, new.seats, extra=extra or None, speed=new.speed)
    return _created(await _rooms(request).create(made), made.host_token)


async def _prepared_record(request: Request) -> tuple[Any, ...]:
    """The record in the request's body, checked as strictly as a new game and replayed
    once, in a worker thread: (record, seats, extra, actions, state)."""
    _may_create(request)
    limits = _settings(request).limits
    body = await _read_body(request, limits.record_bytes, limits.body_seconds)

    def prepare() -> tuple[Any, ...]:
        try:
            record = parse_record(json.loads(body, parse_constant=_no_constants))
            return (record, *import_parts(record, limits))
        except (RecordError, ActionError) as error:
            raise ProtocolError("bad-record", str(error)) from None
        except (ValueError, RecursionError):
            raise ProtocolError("bad-record", "the file is not a JSON game record") from None

    prepared: tuple[Any, ...] = await request.app.state.store.run_blocking(prepare)
    return prepared


async def import_record(request: Request) -> Response:
    """A record file becomes a stored game that continues from its end; nothing is
    stored unless the whole record is valid."""
    record, seats, extra, actions, state = await _prepared_record(request)
    made = new_game(record.rules, record.players, seats, extra, actions, state)
    return _created(await _rooms(request).create(made), made.host_token)


async def check_record(request: Request) -> Response:
    """Whether a record would load, answered 200 either way (a page asks before it
    loads one, so that a refused file is a message, not a failed request); stores
    nothing."""
    try:
        record, _seats, _extra, actions, state = await _prepared_record(request)
    except ProtocolError as error:
        if error.code != "bad-record":
            raise
        return JSONResponse({"valid": False, "error": {"code": error.code, "message": error.message}})
    return JSONResponse({"valid": True, "players": list(record.players), "actions": len(actions), "over": state.over})


async def get_game(request: Request) -> Response:
    room = await _rooms(request).view(request.path_params["game_id"])
    return JSONResponse({"game": room.snapshot()})


async def get_record(request: Request) -> Response:
    room = await _rooms(request).view(request.path_params["game_id"])
    return Response(
        room.record().dumps() + "\n",
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="flyingchess-{room.id}.json"'},
    )


async def get_replay(request: Request) -> Response:
    """Replay steps a page at a time (`?from=N&count=M`), worked out off the event loop,
    a few at a time, and limited per client address (each page is real work)."""
    limits = _settings(request).limits
    first = _count(request, "from", 0, 10**9)
    count = _count(request, "count", limits.replay_page, limits.replay_page, least=1)
    room = await _rooms(request).view(request.path_params["game_id"])
    wait = request.app.state.replays.allow(_address(request), time.monotonic())
    if wait:
        raise ProtocolError("rate-limited", f"too many replay pages: try again in {wait:.0f} s", retry_after=wait)
    async with request.app.state.heavy_jobs:
        steps = await request.app.state.store.run_blocking(room.replay_steps, first, count)
    return JSONResponse({"game": room.snapshot(), **steps})


async def get_chances(request: Request) -> Response:
    insight: Insight = request.app.state.insight
    return await insight.chances(request)


async def get_hint(request: Request) -> Response:
    insight: Insight = request.app.state.insight
    return await insight.hint(request)


async def get_analysis(request: Request) -> Response:
    insight: Insight = request.app.state.insight
    return await insight.analysis(request)


async def invite_qr(request: Request) -> Response:
    room = await _rooms(request).view(request.path_params["game_id"])
    settings = _settings(request)
    base = settings.public_url or str(request.base_url).rstrip("/")
    if not settings.public_url and settings.invite_base and request.url.hostname in LOOPBACK_NAMES:
        base = settings.invite_base  # a page opened through 127.0.0.1 invites with the LAN address
    try:
        import segno
    except ImportError:
        raise ProtocolError("bad-request", "QR codes need the segno package") from None
    buffer = io.BytesIO()
    segno.make(f"{base}/#/join/{room.id}", error="m").save(
        buffer, kind="svg", scale=6, border=2, xmldecl=False, svgns=True, omitsize=True
    )
    return Response(buffer.getvalue(), media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


async def rematch(request: Request) -> Response:
    _may_create(request)
    old = await _rooms(request).view(request.path_params["game_id"])
    game = old.session
    _require_host(request, game.host_token)
    extra = {"timer": old.presence.timer} if old.presence.timer else None
    made = new_game(game.rules, game.players, game.seats.for_rematch().to_json(), extra)
    room = await _rooms(request).create(made)
    await _rooms(request).announce_rematch(old.id, room.id)
    return _created(room, made.host_token)


async def delete_game(request: Request) -> Response:
    """Forget a game. Needs only its stored host token, not the game itself, so a game
    that cannot be loaded can still be deleted."""
    game_id = request.path_params["game_id"]
    store: LoopStore = request.app.state.store
    exists, host_token = await store.host_token(game_id)
    if not exists:
        raise NoSuchGame("no game with that id")
    _require_host(request, host_token)
    if not await _rooms(request).forget(game_id):
        raise NoSuchGame("no game with that id")
    return JSONResponse({"deleted": True})


# ---------------------------------------------------------------- errors


async def refused_request(request: Request, error: Exception) -> Response:
    """Any error with a wire code (server/errors.py), answered with its HTTP status."""
    refused = refusal(error)
    if refused is None:  # registered only for the kinds that have one
        raise error
    if isinstance(error, (StoreError, DamagedGame)):
        log.warning("%s", error)
    metrics.refusals.labels(refused.code).inc()
    return _error(HTTP_STATUS.get(refused.code, 400), refused.code, refused.message, refused.retry_after)


async def http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    code = {404: "not-found", 405: "method-not-allowed"}.get(error.status_code, "bad-request")
    return _error(error.status_code, code, str(error.detail))


# ---------------------------------------------------------------- the WebSocket


async def _refuse_socket(websocket: WebSocket, error: ProtocolError, code: int) -> None:
    metrics.refusals.labels(error.code).inc()
    with contextlib.suppress(WebSocketDisconnect, WebSocketDisconnected):
        await websocket.send_json(error.to_json())
        await websocket.close(code=code)


RETRY_SECONDS: Final = 2
"""The Retry-After of a handshake refused for want of Redis or the database."""


async def _deny_socket(websocket: WebSocket, error: ProtocolError) -> None:
    """Refuse the handshake itself: 503, Retry-After and the error as JSON, where the
    server can answer a handshake with a response of its own (uvicorn can); else close
    it with 1012 ("service restart": try again), as a connection that lost its room is."""
    metrics.refusals.labels(error.code).inc()
    response = _error(503, error.code, error.message, error.retry_after or RETRY_SECONDS)
    with contextlib.suppress(WebSocketDisconnect, WebSocketDisconnected):
        if "websocket.http.response" in websocket.scope.get("extensions", {}):
            await websocket.send_denial_response(response)
        else:
            await websocket.accept()
            await websocket.send_json(error.to_json())
            await websocket.close(code=1012)


def _given_up(websocket: WebSocket) -> bool:
    """Whether the handshake's client has gone (a balancer gave up on it); counted."""
    if client_gone(websocket.scope):
        metrics.abandoned.inc()
        return True
    return False


class GameSocket(WebSocketEndpoint):
    """One page's connection to one game. Everything the page is sent goes through its
    outbox, in order; what it sends is rate-limited, parsed and handed to the room."""

    encoding = None  # text or binary frames: both are read as UTF-8 text
    room: RoomLike | None = None
    page: Outbox | None = None

    async def on_connect(self, websocket: WebSocket) -> None:
        """A process that cannot serve pages now (cut off from the others, shutting down)
        refuses the handshake itself, 503 with Retry-After, so that a page backs off (or
        a balancer asks another process) instead of opening a connection only to be hung
        up on. Otherwise the handshake is answered at once, and the room is found after:
        finding it may take round trips to Redis and the database, and a handshake kept
        waiting for them is one a balancer gives up on (docs/protocol.md, Connections)."""
        settings = _settings(websocket)
        self.limits = settings.limits
        # A client that gave up has sent its request and its end together: one turn of the
        # loop reads the end (this task was started by reading the request, before it).
        await asyncio.sleep(0)
        if _given_up(websocket):  # nobody waits for this handshake any more
            return
        rooms = _rooms(websocket)
        away = rooms.unavailable()
        if away is not None:
            await _deny_socket(websocket, refused(away))
            return
        await websocket.accept()
        try:
            room = await rooms.for_page(websocket.path_params["game_id"])
        except Exception as error:
            told = refusal(error)
            if told is None:
                raise
            if isinstance(error, StoreError):
                log.warning("%s", error)
            await _refuse_socket(websocket, told, close_code(told))
            return
        if room.watcher_count() >= self.limits.watchers_per_room:
            full = ProtocolError("room-full", "too many pages watch this game")
            await _refuse_socket(websocket, full, close_code(full))
            return
        if _given_up(websocket):  # it left while its room was found
            return
        self.page = Outbox(websocket, self.limits.outbox_characters)
        self.address = _address(websocket)
        self.rate = TokenBucket(time.monotonic(), self.limits.message_rate, self.limits.message_burst)
        self.room = room
        metrics.pages.inc()
        # On a server only this machine can reach, whoever opens the page is the host.
        with contextlib.suppress(ConnectionError):
            await room.connect(self.page, Control(host=settings.local))

    async def on_receive(self, websocket: WebSocket, data: Any) -> None:
        page, room = self.page, self.room
        if page is None or room is None or page.closed:
            return
        if not self.rate.allow(time.monotonic()):
            if self.rate.refused > self.limits.flood_refusals:
                await page.close(code=1008)
            elif self.rate.refused % 20 == 1:  # say so now and then, not once per message
                await self._say(ProtocolError("rate-limited", "too many messages: slow down", self.rate.wait()))
            return
        text = data if isinstance(data, str) else bytes(data)[: MAX_MESSAGE_BYTES + 1].decode("utf-8", "replace")
        started = time.perf_counter()
        try:
            await room.receive(page, self.address, parse_message(text), text)
        except ConnectionError:
            pass  # the page went away or stopped reading
        except Exception as error:
            if isinstance(error, StoreError):
                log.warning("room %s: %s", room.id, error)
            elif refusal(error) is None:  # a fault of ours: say so, keep the connection and the game
                log.exception("room %s: unexpected error handling %r", room.id, text[:200])
                metrics.errors.inc()
            await self._say(refused(error))
        metrics.request_seconds.observe(time.perf_counter() - started)

    async def _say(self, error: ProtocolError) -> None:
        metrics.refusals.labels(error.code).inc()
        if self.page is not None:
            with contextlib.suppress(ConnectionError):
                await self.page.send_json(error.to_json())

    async def on_disconnect(self, websocket: WebSocket, close_code: int) -> None:
        if self.page is not None and self.room is not None:
            metrics.pages.dec()
            self.page.stop()
            await self.room.disconnect(self.page)


# ---------------------------------------------------------------- the app


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """Drop rooms nobody watches from memory every few seconds while the server runs;
    with several processes, join the others first and leave them last."""
    rooms = app.state.rooms
    start, stop = getattr(rooms, "start", None), getattr(rooms, "stop", None)
    if start is not None:
        await start()

    async def sweep() -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            rooms.sweep(time.monotonic())

    task = asyncio.create_task(sweep())
    try:
        yield
    finally:
        task.cancel()
        if stop is not None:
            await stop()


ROUTES = [
    Route("/", index),
    Route("/api/meta", get_meta),
    Route("/api/health", get_health),
    Route("/api/games", list_games, methods=["GET"]),
    Route("/api/games", create_game, methods=["POST"]),
    Route("/api/games/{game_id}", get_game, methods=["GET"]),
    Route("/api/games/{game_id}", delete_game, methods=["DELETE"]),
    Route("/api/games/{game_id}/record", get_record),
    Route("/api/games/{game_id}/invite.svg", invite_qr),
    Route("/api/rooms", lobby),
    Route("/api/games/{game_id}/replay", get_replay),
    Route("/api/games/{game_id}/rematch", rematch, methods=["POST"]),
    Route("/api/games/{game_id}/chances", get_chances),
    Route("/api/games/{game_id}/hint", get_hint),
    Route("/api/games/{game_id}/analysis", get_analysis),
    Route("/api/records", import_record, methods=["POST"]),
    Route("/api/records/check", check_record, methods=["POST"]),
    Route("/api/stats", statistics, methods=["GET"]),
    WebSocketRoute("/ws/{game_id}", GameSocket),
    # the page's own files compressed (a phone on a slow network loads a third of the
    # bytes); API answers are not: they are small, and some carry secrets
    # (check_dir off: Python in the browser imports the app without the page's files)
    Mount("/static", GZipMiddleware(StaticFiles(directory=WEB, check_dir=False), minimum_size=1024), name="static"),
]


def create_app(
    database: SqlStore,
    *,
    dice: Callable[[], random.Random] = EntropyDice,
    limits: Limits | None = None,
    local: bool = True,
    grace_seconds: float = GRACE_SECONDS,
    invite_base: str | None = None,
    public_url: str | None = None,
    hosts: HostPolicy | None = None,
    redis_url: str | None = None,
    lease_seconds: float | None = None,
    store: LoopStore | None = None,
) -> Starlette:
    """The app over one games database (SQLite or PostgreSQL; it runs in worker threads).

    `dice` makes each room's die: the operating system's generator (read in blocks) by default; tests
    pass seeded ones. `hosts`: the names the server answers to (loopback names by
    default). `limits`: rates and sizes (tests lift the rates to script fast games).
    `redis_url`: the Redis that several processes over one (PostgreSQL) database share.
    `store`: how the event loop reaches `database` (group-committed in threads by
    default; `InlineStore` where there are no threads, as in the browser)."""
    limits = limits or Limits()
    settings = Settings(local, invite_base, limits, public_url)
    app = Starlette(
        routes=ROUTES,
        lifespan=lifespan,
        middleware=[
            Middleware(
                Guard,
                hosts=hosts or HostPolicy.of(LOOPBACK_NAMES),
                max_body=max(limits.record_bytes, limits.json_body_bytes),
            )
        ],
        exception_handlers={
            **dict.fromkeys(REFUSED_KINDS, refused_request),
            HTTPException: http_error,
        },
    )
    store = store or AsyncStore(database)
    app.state.database = database
    app.state.store = store
    app.state.settings = settings
    rooms: RoomDirectory
    if redis_url is None:
        rooms = Rooms(store, dice, grace_seconds, limits)
    else:  # several processes share the database: rooms are owned one process at a time
        from ..cluster.nodes import LEASE_SECONDS, Cluster
        from ..cluster.rooms import ClusteredRooms

        cluster = Cluster(redis_url, lease_seconds or LEASE_SECONDS)
        rooms = ClusteredRooms(store, dice, grace_seconds, limits, cluster=cluster)
    app.state.rooms = rooms
    app.state.creations = KeyedBuckets(limits.create_rate, limits.create_burst, limits.address_keys)
    app.state.replays = KeyedBuckets(limits.replay_rate, limits.replay_burst, limits.address_keys)
    app.state.heavy_jobs = asyncio.Semaphore(limits.heavy_jobs)
    app.state.insight = Insight(app.state.rooms, app.state.heavy_jobs, app.state.replays)
    app.state.meta = _meta()
    app.state.shutting_down = False
    return app
