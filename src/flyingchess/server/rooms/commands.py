"""What each message a page may send does: one handler per message type of
protocol.py, each handing the request to the part of the room it concerns. Adding a
message: its class with `@message` in protocol.py (wire name, fields and checks
together), its handler here with `@handles`, and the page's side; a message without a
handler stops the server at import."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from ..protocol import (
    MESSAGE_TYPES,
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


Handler = Callable[["Room", Watcher, str, Any], Awaitable[None]]
HANDLERS: Final[dict[type, Handler]] = {}
"""What each message a page may send does, by its type (filled by `@handles`)."""


def handles(kind: type) -> Callable[[Handler], Handler]:
    """Declare what a room does with one message type of protocol.py (`@message`)."""

    def register(handler: Handler) -> Handler:
        if kind in HANDLERS:
            raise ValueError(f"two handlers for {kind.__name__}")
        HANDLERS[kind] = handler
        return handler

    return register


@handles(Roll)
async def _roll(room: Room, page: Watcher, address: str, request: Roll) -> None:
    await room.turns.human_roll(room.control_of(page), request.at)


@handles(Move)
async def _move(room: Room, page: Watcher, address: str, request: Move) -> None:
    await room.turns.human_move(request.plane, room.control_of(page), request.at)


@handles(Speed)
async def _speed(room: Room, page: Watcher, address: str, request: Speed) -> None:
    await room.turns.set_speed(room.control_of(page), request.speed)


@handles(Sync)
async def _sync(room: Room, page: Watcher, address: str, request: Sync) -> None:
    await _reply(page, room.snapshot_for(page))


@handles(Hello)
async def _hello(room: Room, page: Watcher, address: str, request: Hello) -> None:
    control = room.authenticate(request.token)
    await room.attach(page, control)
    await _reply(page, {"type": "welcome", **room.authority(control)})


@handles(Join)
async def _join(room: Room, page: Watcher, address: str, request: Join) -> None:
    token = await room.gathering.join(page, request.colour, request.name, address)
    await _reply(page, {"type": "joined", "colour": request.colour, "token": token})
    await _reply(page, {"type": "welcome", **room.authority(room.control_of(page))})


@handles(SetSeat)
async def _set_seat(room: Room, page: Watcher, address: str, request: SetSeat) -> None:
    await room.gathering.set_seat(room.control_of(page), request.colour, request.kind, request.bot)


@handles(Start)
async def _start(room: Room, page: Watcher, address: str, request: Start) -> None:
    await room.gathering.start(room.control_of(page))


@handles(Kick)
async def _kick(room: Room, page: Watcher, address: str, request: Kick) -> None:
    await room.gathering.set_seat(room.control_of(page), request.colour, "open", None)


@handles(Chat)
async def _chat(room: Room, page: Watcher, address: str, request: Chat) -> None:
    await room.chat.say(room.control_of(page), text=request.text)


@handles(React)
async def _react(room: Room, page: Watcher, address: str, request: React) -> None:
    await room.chat.say(room.control_of(page), emoji=request.emoji)


@handles(Contribute)
async def _contribute(room: Room, page: Watcher, address: str, request: Contribute) -> None:
    await room.gathering.contribute(room.control_of(page), request.value)


async def _reply(page: Watcher, message: dict[str, Any]) -> None:
    await page.send_text(encode_message(message))


_unhandled = sorted(set(MESSAGE_TYPES.values()) - set(HANDLERS), key=lambda kind: kind.__name__)
if _unhandled:  # a message declared in protocol.py that a room would not know what to do with
    raise ImportError(f"no handler for {', '.join(kind.__name__ for kind in _unhandled)}")
