"""The ASGI app: the page, the JSON API and one WebSocket per game (docs/protocol.md).

Handlers only translate between HTTP/WebSocket and rooms; every rule question goes to
the engine through `rooms.py`, and every failure becomes a typed JSON error.
"""

from __future__ import annotations

import io
import json
import random
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import __version__
from ..board import COLOURS
from ..bots import BOTS, bot_names
from ..game import GameSetupError, validate_players
from ..layout import board_layout
from ..record import ActionError, RecordError, parse_record
from ..rules import CHOICES, OPTION_NAMES, PRESETS, SET_OPTIONS, Rules, RulesError
from .protocol import (
    MAX_MESSAGE_BYTES, RATE_BURST, RATE_PER_SECOND, Chat, Hello, Join, Kick, Message, Move,
    ProtocolError, RateLimit, React, Roll, SetSeat, Speed, Start, Sync, parse_message, same_origin,
)
from .rooms import GRACE_SECONDS, Control, Room, Rooms, iso_time, without_secrets
from .store import Store

WEB = Path(__file__).resolve().parent.parent / "web"
MAX_RECORD_BYTES = 5_000_000


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _options() -> dict[str, Any]:
    options: dict[str, Any] = {}
    for name in OPTION_NAMES:
        if name in SET_OPTIONS:
            options[name] = {"kind": "set", "values": [1, 2, 3, 4, 5, 6]}
        elif name in CHOICES:
            options[name] = {"kind": "choice", "values": list(CHOICES[name])}
        else:
            options[name] = {"kind": "bool", "values": [True, False]}
    return options


def _meta() -> dict[str, Any]:
    return {
        "version": __version__,
        "bots": [{"name": name, "level": BOTS[name].level, "description": BOTS[name].description}
                 for name in bot_names()],
        "presets": {name: rules.to_json() for name, rules in PRESETS.items()},
        "options": _options(),
        "colours": list(COLOURS),
        "layout": board_layout(),
    }


async def _json_body(request: Request, limit: int = 64_000) -> Any:
    body = await request.body()
    if len(body) > limit:
        raise ProtocolError("bad-request", f"request larger than {limit} bytes")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise ProtocolError("bad-request", "request body is not valid JSON") from None


Handler = Callable[[Request], Awaitable[Response]]


def create_app(store: Store, dice_factory: Callable[[], random.Random] = random.Random,
               message_rate: tuple[float, float] = (RATE_PER_SECOND, RATE_BURST),
               local: bool = True, grace_seconds: float = GRACE_SECONDS,
               invite_base: str | None = None) -> Starlette:
    """The app over one store. Tests pass a seeded `dice_factory` (players get fresh dice)
    and may raise `message_rate` (per second, burst) to script games at full speed.

    `local`: the server listens on loopback only, so every page is the host's own. On a
    network (`serve`, `play --lan`) a page proves its seat with a token (hello).
    `invite_base`: the address other devices reach this server at (for invite links made
    on a page that was opened through 127.0.0.1)."""
    rooms = Rooms(store, dice_factory, grace_seconds)
    meta = _meta()

    def guarded(handler: Handler) -> Handler:
        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except ProtocolError as error:
                status = {"unknown-game": 404, "not-host": 403, "bad-token": 403}.get(error.code, 400)
                return _error(status, error.code, error.message)
        return run

    async def index(request: Request) -> Response:
        return FileResponse(WEB / "index.html", headers={"Cache-Control": "no-cache"})

    async def get_meta(request: Request) -> Response:
        return JSONResponse({**meta, "local": local, "invite_base": invite_base})

    async def list_games(request: Request) -> Response:
        games = []
        for summary in store.summaries():
            summary["created"], summary["updated"] = iso_time(summary["created"]), iso_time(summary["updated"])
            summary["seats"] = without_secrets(summary["seats"])
            rules = summary.pop("rules")
            try:
                summary["rules_name"] = Rules.from_json(rules).preset_name()
            except RulesError:
                summary["rules_name"] = None
            games.append(summary)
        return JSONResponse({"games": games})

    async def create_game(request: Request) -> Response:
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise ProtocolError("bad-request", "expected a JSON object")
        try:
            rules = Rules.from_json(body.get("rules", "classic"))
            players = validate_players(body.get("players", ["red", "blue"]))
        except (RulesError, GameSetupError) as error:
            raise ProtocolError("bad-request", str(error)) from None
        timer = body.get("timer", 0)
        if isinstance(timer, bool) or not isinstance(timer, int) or not 0 <= timer <= 600:
            raise ProtocolError("bad-request", "timer must be a whole number of seconds, 0..600")
        room, host_token = rooms.create(rules, players, body.get("seats"),
                                        extra={"timer": timer} if timer else None)
        return JSONResponse({"id": room.id, "host_token": host_token, "game": room.snapshot()})

    async def lobby(request: Request) -> Response:
        listing = []
        for summary in store.summaries():
            if summary["over"]:
                continue
            open_seats = [c for c, seat in summary["seats"].items() if seat.get("kind") == "open"]
            if not open_seats and not any(seat.get("kind") == "player" for seat in summary["seats"].values()):
                continue  # a game played on one device is not a room others join or watch
            loaded = rooms.rooms.get(summary["id"])
            try:
                rules_name = Rules.from_json(summary["rules"]).preset_name()
            except RulesError:
                rules_name = None
            listing.append({
                "id": summary["id"], "players": summary["players"],
                "seats": loaded.public_seats() if loaded else without_secrets(summary["seats"]),
                "rules_name": rules_name, "open_seats": open_seats, "actions": summary["actions"],
                "watchers": len(loaded.watchers) if loaded else 0, "updated": iso_time(summary["updated"]),
            })
        listing.sort(key=lambda room: room["updated"], reverse=True)
        listing.sort(key=lambda room: not room["open_seats"])  # stable: open rooms first
        return JSONResponse({"rooms": listing})

    async def invite_qr(request: Request) -> Response:
        room = rooms.get(request.path_params["game_id"])
        base = str(request.base_url).rstrip("/")
        if invite_base and request.url.hostname in ("127.0.0.1", "localhost", "::1"):
            base = invite_base
        try:
            import segno
        except ImportError:
            raise ProtocolError("bad-request", "QR codes need the segno package") from None
        buffer = io.BytesIO()
        segno.make(f"{base}/#/join/{room.id}", error="m").save(
            buffer, kind="svg", scale=6, border=2, xmldecl=False, svgns=True, omitsize=True)
        return Response(buffer.getvalue(), media_type="image/svg+xml",
                        headers={"Cache-Control": "no-store"})

    async def get_game(request: Request) -> Response:
        room = rooms.get(request.path_params["game_id"])
        return JSONResponse({"game": room.snapshot()})

    async def get_record(request: Request) -> Response:
        room = rooms.get(request.path_params["game_id"])
        return Response(room.record().dumps() + "\n", media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="flyingchess-{room.id}.json"'})

    async def get_replay(request: Request) -> Response:
        return JSONResponse(rooms.get(request.path_params["game_id"]).replay())

    def require_host(request: Request, room: Room) -> None:
        """On a network server, changing or forgetting a game needs its host token."""
        if local:
            return
        token = request.headers.get("x-host-token", "")
        if not token or room.authenticate(token).role != "host":
            raise ProtocolError("not-host", "only the host may do that")

    async def rematch(request: Request) -> Response:
        old = rooms.get(request.path_params["game_id"])
        require_host(request, old)
        seats = {colour: seat if seat["kind"] != "player" else {"kind": "open"}
                 for colour, seat in old.seats.items()}
        room, host_token = rooms.create(old.rules, old.players, seats)
        await old.announce_rematch(room.id)
        return JSONResponse({"id": room.id, "host_token": host_token, "game": room.snapshot()})

    async def import_record(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_RECORD_BYTES:
            return _error(400, "bad-record", "the record file is too large")
        try:
            record = parse_record(json.loads(body))
            room, host_token = rooms.import_record(record)
        except (ValueError, RecursionError) as error:
            if isinstance(error, (RecordError, ActionError)):
                message = str(error)
            else:
                message = "the file is not a JSON game record"
            return _error(400, "bad-record", message)
        return JSONResponse({"id": room.id, "host_token": host_token, "game": room.snapshot()})

    async def delete_game(request: Request) -> Response:
        require_host(request, rooms.get(request.path_params["game_id"]))
        if not rooms.forget(request.path_params["game_id"]):
            raise ProtocolError("unknown-game", "no game with that id")
        return JSONResponse({"deleted": True})

    async def handle(room: Room, websocket: WebSocket, control: Control, request: Message) -> Control:
        """Carry out one checked request; returns the connection's control afterwards."""
        if isinstance(request, Roll):
            await room.human_roll(control)
        elif isinstance(request, Move):
            await room.human_move(request.plane, control)
        elif isinstance(request, Speed):
            await room.set_speed(control, request.speed)
        elif isinstance(request, Sync):
            await websocket.send_json({"type": "snapshot", "game": room.snapshot()})
        elif isinstance(request, Hello):
            control = room.authenticate(request.token)
            await websocket.send_json({"type": "welcome", "role": control.role,
                                       "colours": sorted(control.colours)})
        elif isinstance(request, Join):
            token, control = await room.join(request.colour, request.name)
            await websocket.send_json({"type": "joined", "colour": request.colour, "token": token})
        elif isinstance(request, SetSeat):
            await room.set_seat(control, request.colour, request.kind, request.bot)
        elif isinstance(request, Start):
            await room.start(control)
        elif isinstance(request, Kick):
            await room.set_seat(control, request.colour, "open", None)
        elif isinstance(request, Chat):
            await room.say(control, text=request.text)
        elif isinstance(request, React):
            await room.say(control, emoji=request.emoji)
        return control

    async def game_socket(websocket: WebSocket) -> None:
        if not same_origin(websocket.headers.get("origin"), websocket.headers.get("host")):
            await websocket.close(code=1008)  # refused during the handshake: HTTP 403
            return
        await websocket.accept()
        limit = RateLimit(time.monotonic(), *message_rate)
        # On a server only this machine can reach, whoever opens the page is the host.
        control = Control(host=local)
        try:
            room = rooms.get(websocket.path_params["game_id"])
        except ProtocolError as error:
            await websocket.send_json(error.to_json())
            await websocket.close(code=4404)
            return
        await room.attach(websocket, control, first=True)
        try:
            await websocket.send_json({"type": "snapshot", "game": room.snapshot()})
            room.wake_bots()
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if not limit.allow(time.monotonic()):
                    if limit.flooding:
                        await websocket.close(code=1008)
                        break
                    if limit.refused % 20 == 1:  # say so now and then, not once per message
                        await websocket.send_json(ProtocolError(
                            "rate-limited", "too many messages: slow down").to_json())
                    continue
                text = message.get("text")
                if text is None:
                    text = (message.get("bytes") or b"")[:MAX_MESSAGE_BYTES + 1].decode(
                        "utf-8", "replace")
                try:
                    request = parse_message(text)
                    await room.heard_from(control)
                    updated = await handle(room, websocket, control, request)
                    if updated != control:
                        control = updated
                        await room.attach(websocket, control)
                except ProtocolError as error:
                    await websocket.send_json(error.to_json())
        except WebSocketDisconnect:
            pass
        finally:
            await room.detach(websocket)

    routes = [
        Route("/", index),
        Route("/api/meta", guarded(get_meta)),
        Route("/api/games", guarded(list_games), methods=["GET"]),
        Route("/api/games", guarded(create_game), methods=["POST"]),
        Route("/api/games/{game_id}", guarded(get_game), methods=["GET"]),
        Route("/api/games/{game_id}", guarded(delete_game), methods=["DELETE"]),
        Route("/api/games/{game_id}/record", guarded(get_record)),
        Route("/api/games/{game_id}/invite.svg", guarded(invite_qr)),
        Route("/api/rooms", guarded(lobby)),
        Route("/api/games/{game_id}/replay", guarded(get_replay)),
        Route("/api/games/{game_id}/rematch", guarded(rematch), methods=["POST"]),
        Route("/api/records", guarded(import_record), methods=["POST"]),
        WebSocketRoute("/ws/{game_id}", game_socket),
        Mount("/static", StaticFiles(directory=WEB), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.rooms = rooms
    return app
