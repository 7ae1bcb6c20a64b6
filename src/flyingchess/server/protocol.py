"""The messages pages send and what is checked before any of them reaches a game.

Every incoming message is parsed here into a small typed value or refused with a
`ProtocolError` whose `code` the page can act on (docs/protocol.md lists them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Mapping

from ..board import COLOURS, PLANES_PER_COLOUR
from ..bots import BOTS

MAX_MESSAGE_BYTES: Final = 4096
SPEEDS: Final = ("slow", "normal", "fast", "instant")
RATE_PER_SECOND: Final = 30.0
RATE_BURST: Final = 60.0
FLOOD_LIMIT: Final = 300
"""Messages refused for rate before the connection is closed as a flood."""


class ProtocolError(Exception):
    """A request refused before it changed anything; `code` names the kind of refusal."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, Any]:
        return {"type": "error", "code": self.code, "message": self.message}


@dataclass(frozen=True)
class Roll:
    pass


@dataclass(frozen=True)
class Move:
    plane: int


@dataclass(frozen=True)
class Speed:
    speed: str


@dataclass(frozen=True)
class Sync:
    pass


@dataclass(frozen=True)
class Hello:
    token: str


@dataclass(frozen=True)
class Join:
    colour: str
    name: str


@dataclass(frozen=True)
class SetSeat:
    colour: str
    kind: str
    bot: str | None


@dataclass(frozen=True)
class Start:
    pass


@dataclass(frozen=True)
class Kick:
    colour: str


@dataclass(frozen=True)
class Chat:
    text: str


@dataclass(frozen=True)
class React:
    emoji: str


Message = Roll | Move | Speed | Sync | Hello | Join | SetSeat | Kick | Chat | React | Start

NAME_LIMIT: Final = 24
CHAT_LIMIT: Final = 200
TOKEN_LIMIT: Final = 100
REACTIONS: Final = ("👍", "😂", "😮", "😢", "🎉", "✈️")
SEAT_KINDS: Final = ("human", "bot", "open")
"""Seat kinds a host may set: played on the host's device, by a bot, or open to join."""


def clean_text(value: Any, what: str, limit: int) -> str:
    """Text without control characters or surrounding space, 1..limit characters.

    The text stays data: pages must insert it as text, never as markup."""
    if not isinstance(value, str):
        raise ProtocolError("bad-message", f"{what} must be a string")
    text = " ".join("".join(c for c in value if c.isprintable() or c == " ").split())
    if not text:
        raise ProtocolError("bad-message", f"{what} is empty")
    if len(text) > limit:
        raise ProtocolError("bad-message", f"{what} is longer than {limit} characters")
    return text


def _colour(data: Mapping[str, Any]) -> str:
    colour = data.get("colour")
    if colour not in COLOURS:
        raise ProtocolError("bad-message", "colour must be red, yellow, blue or green")
    return str(colour)


def _hello(data: Mapping[str, Any]) -> Message:
    _expect_only(data, {"token"})
    token = data.get("token")
    if not isinstance(token, str) or not 0 < len(token) <= TOKEN_LIMIT:
        raise ProtocolError("bad-message", "token must be a string")
    return Hello(token)


def _join(data: Mapping[str, Any]) -> Message:
    _expect_only(data, {"colour", "name"})
    return Join(_colour(data), clean_text(data.get("name"), "name", NAME_LIMIT))


def _set_seat(data: Mapping[str, Any]) -> Message:
    _expect_only(data, {"colour", "kind", "bot"})
    kind = data.get("kind")
    if kind not in SEAT_KINDS:
        raise ProtocolError("bad-message", f"kind must be one of {', '.join(SEAT_KINDS)}")
    bot = data.get("bot")
    if kind == "bot" and bot not in BOTS:
        raise ProtocolError("bad-message", f"unknown bot {json.dumps(bot)[:40]}")
    return SetSeat(_colour(data), str(kind), str(bot) if kind == "bot" else None)


def _start(data: Mapping[str, Any]) -> Message:
    _expect_only(data, set())
    return Start()


def _kick(data: Mapping[str, Any]) -> Message:
    _expect_only(data, {"colour"})
    return Kick(_colour(data))


def _chat(data: Mapping[str, Any]) -> Message:
    _expect_only(data, {"text"})
    return Chat(clean_text(data.get("text"), "text", CHAT_LIMIT))


def _react(data: Mapping[str, Any]) -> Message:
    _expect_only(data, {"emoji"})
    if data.get("emoji") not in REACTIONS:
        raise ProtocolError("bad-message", f"emoji must be one of {' '.join(REACTIONS)}")
    return React(str(data["emoji"]))


def _expect_only(data: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(data) - allowed - {"type"})
    if extra:
        raise ProtocolError("bad-message", f"unexpected field {extra[0]!r}")


def _roll(data: Mapping[str, Any]) -> Message:
    _expect_only(data, set())
    return Roll()


def _move(data: Mapping[str, Any]) -> Message:
    _expect_only(data, {"plane"})
    plane = data.get("plane")
    if isinstance(plane, bool) or not isinstance(plane, int) or not 0 <= plane < PLANES_PER_COLOUR:
        raise ProtocolError("bad-message", f"plane must be an integer 0..3, not {json.dumps(plane)}")
    return Move(plane)


def _speed(data: Mapping[str, Any]) -> Message:
    _expect_only(data, {"speed"})
    speed = data.get("speed")
    if speed not in SPEEDS:
        raise ProtocolError("bad-message", f"speed must be one of {', '.join(SPEEDS)}")
    return Speed(speed)


def _sync(data: Mapping[str, Any]) -> Message:
    _expect_only(data, set())
    return Sync()


PARSERS: Final = {"roll": _roll, "move": _move, "speed": _speed, "sync": _sync, "hello": _hello,
                  "join": _join, "seat": _set_seat, "kick": _kick, "chat": _chat, "react": _react,
                  "start": _start}


def parse_message(text: str | bytes) -> Message:
    """A page's WebSocket message, checked for size, JSON, type and field values."""
    if len(text) > MAX_MESSAGE_BYTES:
        raise ProtocolError("bad-message", f"message larger than {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError("bad-json", "message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad-message", "message must be a JSON object")
    kind = data.get("type")
    parser = PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise ProtocolError("bad-message", f"unknown message type {json.dumps(kind)}")
    return parser(data)


def parse_seats(players: tuple[str, ...], seats: Any) -> dict[str, dict[str, str]]:
    """Seats for a new game: each colour human, or a registered bot."""
    if seats is None:
        return {colour: {"kind": "human"} for colour in players}
    if not isinstance(seats, dict):
        raise ProtocolError("bad-request", "seats must be an object by colour")
    out: dict[str, dict[str, str]] = {}
    for colour in players:
        seat = seats.get(colour, {"kind": "human"})
        if not isinstance(seat, dict) or seat.get("kind") not in SEAT_KINDS:
            raise ProtocolError("bad-request", f"seat {colour}: kind must be human, bot or open")
        if seat["kind"] == "bot":
            if seat.get("bot") not in BOTS:
                raise ProtocolError("bad-request",
                                    f"seat {colour}: unknown bot {json.dumps(seat.get('bot'))}")
            out[colour] = {"kind": "bot", "bot": str(seat["bot"])}
        else:
            out[colour] = {"kind": str(seat["kind"])}
    unknown = [colour for colour in seats if colour not in players]
    if unknown:
        raise ProtocolError("bad-request", f"seat {str(unknown[0])[:20]!r} is not a playing colour"
                            if unknown[0] in COLOURS else "seats name an unknown colour")
    return out


class RateLimit:
    """A token bucket per connection: a burst of RATE_BURST messages, then RATE_PER_SECOND.

    `allow` says whether a message may be handled; `flooding` whether the sender has
    ignored so many refusals that the connection should be closed."""

    def __init__(self, now: float, rate: float = RATE_PER_SECOND, burst: float = RATE_BURST) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = now
        self.refused = 0

    def allow(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 1
        return False

    @property
    def flooding(self) -> bool:
        return self.refused > FLOOD_LIMIT


def same_origin(origin: str | None, host: str | None) -> bool:
    """Whether a WebSocket's Origin header names the host it connected to.

    Browsers always send Origin; a page on another site must not drive a game here.
    Clients that send no Origin (scripts, tests) are not browsers and are let in."""
    if origin is None:
        return True
    if origin == "null" or host is None:
        return False
    from urllib.parse import urlsplit
    return urlsplit(origin).netloc.lower() == host.lower()
