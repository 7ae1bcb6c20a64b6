"""What each message a page may send does: one handler per message type of
protocol.py, in one table (`HANDLERS`), each handing the request to the part of the
room it concerns. Adding a message: its type and parser in protocol.py, a handler
here, and the page's side."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from ..protocol import (
    Chat,
    Contribute,
    Hello,
    Join,
    Kick,
    Move,
    React,
    Roll,
    SetSeat,
    Speed,
    Start,
    Sync,
    encode_message,
)
from .presence import Watcher

if TYPE_CHECKING:
    from .room import Room


async def _roll(room: Room, page: Watcher, address: str, request: Roll) -> None:
    await room.turns.human_roll(room.control_of(page), request.at)


async def _move(room: Room, page: Watcher, address: str, request: Move) -> None:
    await room.turns.human_move(request.plane, room.control_of(page), request.at)


async def _speed(room: Room, page: Watcher, address: str, request: Speed) -> None:
    await room.turns.set_speed(room.control_of(page), request.speed)


async def _sync(room: Room, page: Watcher, address: str, request: Sync) -> None:
    await _reply(page, {"type": "snapshot", "game": room.snapshot()})


async def _hello(room: Room, page: Watcher, address: str, request: Hello) -> None:
    control = room.authenticate(request.token)
    await room.attach(page, control)
    await _reply(page, {"type": "welcome", "role": control.role, "colours": sorted(control.colours)})


async def _join(room: Room, page: Watcher, address: str, request: Join) -> None:
    token = await room.gathering.join(page, request.colour, request.name, address)
    await _reply(page, {"type": "joined", "colour": request.colour, "token": token})


async def _set_seat(room: Room, page: Watcher, address: str, request: SetSeat) -> None:
    await room.gathering.set_seat(room.control_of(page), request.colour, request.kind, request.bot)


async def _start(room: Room, page: Watcher, address: str, request: Start) -> None:
    await room.gathering.start(room.control_of(page))


async def _kick(room: Room, page: Watcher, address: str, request: Kick) -> None:
    await room.gathering.set_seat(room.control_of(page), request.colour, "open", None)


async def _chat(room: Room, page: Watcher, address: str, request: Chat) -> None:
    await room.chat.say(room.control_of(page), text=request.text)


async def _react(room: Room, page: Watcher, address: str, request: React) -> None:
    await room.chat.say(room.control_of(page), emoji=request.emoji)


async def _contribute(room: Room, page: Watcher, address: str, request: Contribute) -> None:
    await room.gathering.contribute(room.control_of(page), request.value)


async def _reply(page: Watcher, message: dict[str, Any]) -> None:
    await page.send_text(encode_message(message))


Handler = Callable[["Room", Watcher, str, Any], Awaitable[None]]
HANDLERS: Final[dict[type, Handler]] = {
    Roll: _roll,
    Move: _move,
    Speed: _speed,
    Sync: _sync,
    Hello: _hello,
    Join: _join,
    SetSeat: _set_seat,
    Start: _start,
    Kick: _kick,
    Chat: _chat,
    React: _react,
    Contribute: _contribute,
}
"""What each message a page may send does: one entry per message type of protocol.py."""
