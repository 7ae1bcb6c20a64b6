"""The messages pages send and what is checked before any of them reaches a game.

Every incoming message is parsed here into a small typed value or refused with a
`ProtocolError` whose `code` the page can act on (docs/protocol.md lists them).
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TypeVar, get_args

from ..bots import BOTS, playable
from ..bots.levels import resolve
from ..engine.board import COLOURS, PLANES_PER_COLOUR
from ..engine.game import GameSetupError, validate_players
from ..engine.rules import Rules, RulesError
from ..records.fair_dice import CONTRIBUTION, valid_contribution


def _standard_encoder(message: Any) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def _orjson_encoder() -> Callable[[Any], str]:
    """orjson (the `web` extra) encodes a game update several times faster than the
    standard library: at full load encoding was a tenth of the server's time."""
    import orjson

    def encode(message: Any) -> str:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()

    return encode


try:
    encode_message: Callable[[Any], str] = _orjson_encoder()
    """A message for the pages as compact JSON text (the same text either way)."""
except ImportError:  # pragma: no cover - the web extra installs orjson
    encode_message = _standard_encoder


def _decoder() -> Callable[[str | bytes], Any]:
    try:
        import orjson
    except ImportError:  # pragma: no cover - the web extra installs orjson
        return json.loads
    return orjson.loads


decode_message: Callable[[str | bytes], Any] = _decoder()
"""JSON text (or bytes) to a value: what the server processes send each other."""


MAX_MESSAGE_BYTES: Final = 4096
"""The largest WebSocket message; a larger frame closes the connection (1009)."""
SPEEDS: Final = ("slow", "normal", "fast", "instant")
MAX_TIMER: Final = 600


class ProtocolError(Exception):
    """A request refused before it changed anything; `code` names the kind of refusal
    and `retry_after` (seconds) says when a rate-limited request may be tried again."""

    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.retry_after is not None:
            out["retry_after"] = round(self.retry_after, 1)
        return out


HTTP_STATUS: Final = {
    "bad-request": 400,
    "bad-record": 400,
    "bad-host": 400,
    "not-host": 403,
    "bad-token": 403,
    "bad-origin": 403,
    "unknown-game": 404,
    "damaged-game": 409,
    "no-move": 409,
    "not-over": 409,
    "hints-off": 403,
    "no-analysis": 501,
    "too-large": 413,
    "bad-content-type": 415,
    "rate-limited": 429,
    "server-busy": 503,
    "reconnecting": 503,
    "storage-unavailable": 503,
}
"""The HTTP status of each error code an HTTP request can get (anything else: 400)."""


MessageParser = Callable[[Mapping[str, Any]], "Message"]
PARSERS: Final[dict[str, MessageParser]] = {}
"""Each wire type's parser: filled by `@message`, so a message is declared once, its
wire name, fields and checks together (its handler is rooms/commands.py's `@handles`)."""
MESSAGE_TYPES: Final[dict[str, type]] = {}


class _Parsed(Protocol):
    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Any: ...


P = TypeVar("P", bound=_Parsed)


def message(wire: str) -> Callable[[type[P]], type[P]]:
    """Declare a message a page may send, named `wire` on the wire (its `type`)."""

    def register(cls: type[P]) -> type[P]:
        if wire in PARSERS:
            raise ValueError(f"two messages are named {wire!r}")
        PARSERS[wire] = cls.parse
        MESSAGE_TYPES[wire] = cls
        return cls

    return register


@message("roll")
@dataclass(frozen=True)
class Roll:
    at: int | None = None
    """The action count of the game the page rolled in (optional): refused `moved-on` if
    the game has moved on since, so a roll sent again after a reconnection applies once."""

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Roll:
        _expect_only(data, {"at"})
        return cls(_at(data))


@message("move")
@dataclass(frozen=True)
class Move:
    plane: int
    at: int | None = None
    """As `Roll.at`."""

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Move:
        _expect_only(data, {"plane", "at"})
        plane = data.get("plane")
        if isinstance(plane, bool) or not isinstance(plane, int) or not 0 <= plane < PLANES_PER_COLOUR:
            raise ProtocolError("bad-message", f"plane must be an integer 0..3, not {json.dumps(plane)}")
        return cls(plane, _at(data))


@message("speed")
@dataclass(frozen=True)
class Speed:
    speed: str

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Speed:
        _expect_only(data, {"speed"})
        speed = data.get("speed")
        if speed not in SPEEDS:
            raise ProtocolError("bad-message", f"speed must be one of {', '.join(SPEEDS)}")
        return cls(speed)


@message("sync")
@dataclass(frozen=True)
class Sync:
    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Sync:
        _expect_only(data, set())
        return cls()


@message("hello")
@dataclass(frozen=True)
class Hello:
    token: str

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Hello:
        _expect_only(data, {"token"})
        token = data.get("token")
        if not isinstance(token, str) or not 0 < len(token) <= TOKEN_LIMIT:
            raise ProtocolError("bad-message", "token must be a string")
        return cls(token)


@message("join")
@dataclass(frozen=True)
class Join:
    colour: str
    name: str

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Join:
        _expect_only(data, {"colour", "name"})
        return cls(_colour(data), clean_text(data.get("name"), "name", NAME_LIMIT))


HostSeatKind = Literal["human", "bot", "open"]
"""Seat kinds a host may set: played on the host's device, by a bot, or open to join."""
HOST_SEAT_KINDS: Final = get_args(HostSeatKind)


@message("seat")
@dataclass(frozen=True)
class SetSeat:
    colour: str
    kind: HostSeatKind
    bot: str | None

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> SetSeat:
        _expect_only(data, {"colour", "kind", "bot"})
        kind = data.get("kind")
        if kind not in HOST_SEAT_KINDS:
            raise ProtocolError("bad-message", f"kind must be one of {', '.join(HOST_SEAT_KINDS)}")
        bot = _bot_name(data.get("bot"))
        if kind == "bot" and not playable(bot):
            raise ProtocolError("bad-message", _not_playable(bot))
        seat_kind = next(value for value in HOST_SEAT_KINDS if value == kind)
        return cls(_colour(data), seat_kind, str(bot) if kind == "bot" else None)


@message("start")
@dataclass(frozen=True)
class Start:
    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Start:
        _expect_only(data, set())
        return cls()


@message("kick")
@dataclass(frozen=True)
class Kick:
    colour: str

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Kick:
        _expect_only(data, {"colour"})
        return cls(_colour(data))


@message("chat")
@dataclass(frozen=True)
class Chat:
    text: str

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Chat:
        _expect_only(data, {"text"})
        return cls(clean_text(data.get("text"), "text", CHAT_LIMIT))


@message("react")
@dataclass(frozen=True)
class React:
    emoji: str

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> React:
        _expect_only(data, {"emoji"})
        if data.get("emoji") not in REACTIONS:
            raise ProtocolError("bad-message", f"emoji must be one of {' '.join(REACTIONS)}")
        return cls(str(data["emoji"]))


@message("contribute")
@dataclass(frozen=True)
class Contribute:
    """A seated page's share in the dice of a network game (docs/records.md §6)."""

    value: str

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Contribute:
        _expect_only(data, {"value"})
        value = data.get("value")
        if not valid_contribution(value):
            raise ProtocolError(
                "bad-contribution", f"value must be 8 to 64 letters, digits, '-' or '_' ({CONTRIBUTION.pattern})"
            )
        return cls(str(value))


Message = Roll | Move | Speed | Sync | Hello | Join | SetSeat | Kick | Chat | React | Start | Contribute

NAME_LIMIT: Final = 24
CHAT_LIMIT: Final = 200
TOKEN_LIMIT: Final = 100
REACTIONS: Final = ("👍", "😂", "😮", "😢", "🎉", "✈️")


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


def _expect_only(data: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(data) - allowed - {"type"})
    if extra:
        raise ProtocolError("bad-message", f"unexpected field {extra[0]!r}")


def _at(data: Mapping[str, Any]) -> int | None:
    at = data.get("at")
    if at is not None and (isinstance(at, bool) or not isinstance(at, int) or at < 0):
        raise ProtocolError("bad-message", f"at must be an action count (an integer from 0), not {json.dumps(at)}")
    return at


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


@dataclass(frozen=True)
class NewGame:
    """A checked request for a new game: what `POST /api/games` and an import both need."""

    rules: Rules
    players: tuple[str, ...]
    seats: dict[str, dict[str, str]]
    timer: int
    speed: str = "normal"
    hints: bool = False


def parse_timer(value: Any) -> int:
    """The turn timer in whole seconds, 0 (no timer) to MAX_TIMER."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TIMER:
        raise ProtocolError("bad-request", f"timer must be a whole number of seconds, 0..{MAX_TIMER}")
    return value


def parse_new_game(body: Any) -> NewGame:
    """`POST /api/games`: {"players", "seats", "rules", "timer", "speed", "hints"}, each optional."""
    if not isinstance(body, dict):
        raise ProtocolError("bad-request", "expected a JSON object")
    try:
        rules = Rules.from_json(body.get("rules", "classic"))
        players = validate_players(body.get("players", ["red", "blue"]))
    except (RulesError, GameSetupError) as error:
        raise ProtocolError("bad-request", str(error)) from None
    speed = body.get("speed", "normal")
    if speed not in SPEEDS:
        raise ProtocolError("bad-request", f"speed must be one of {', '.join(SPEEDS)}")
    hints = body.get("hints", False)
    if not isinstance(hints, bool):
        raise ProtocolError("bad-request", "hints must be true or false")
    return NewGame(
        rules, players, parse_seats(players, body.get("seats")), parse_timer(body.get("timer", 0)), speed, hints
    )


def _bot_name(bot: Any) -> Any:
    """A bot's registry name for a level's name (docs/bots.md: a level's name works
    wherever a bot's does); the seat keeps the bot's own name."""
    return resolve(bot) if isinstance(bot, str) else bot


def _not_playable(bot: Any) -> str:
    if isinstance(bot, str) and bot in BOTS:
        return BOTS[bot].missing() or f"bot {bot!r} cannot play here"
    return f"unknown bot {json.dumps(bot)[:40]}"


def parse_seats(players: tuple[str, ...], seats: Any) -> dict[str, dict[str, str]]:
    """Seats for a new game: each colour human (with a name, optionally), open, or a
    registered bot."""
    if seats is None:
        return {colour: {"kind": "human"} for colour in players}
    if not isinstance(seats, dict):
        raise ProtocolError("bad-request", "seats must be an object by colour")
    out: dict[str, dict[str, str]] = {}
    for colour in players:
        seat = seats.get(colour, {"kind": "human"})
        if not isinstance(seat, dict) or seat.get("kind") not in HOST_SEAT_KINDS:
            raise ProtocolError("bad-request", f"seat {colour}: kind must be human, bot or open")
        if seat["kind"] == "bot":
            bot = _bot_name(seat.get("bot"))
            if not playable(bot):
                raise ProtocolError("bad-request", f"seat {colour}: {_not_playable(bot)}")
            out[colour] = {"kind": "bot", "bot": str(bot)}
        else:
            out[colour] = {"kind": str(seat["kind"])}
            if seat["kind"] == "human" and seat.get("name") not in (None, ""):  # a local player's name
                out[colour]["name"] = clean_text(seat["name"], f"seat {colour}: name", NAME_LIMIT)
    unknown = [colour for colour in seats if colour not in players]
    if unknown:
        raise ProtocolError(
            "bad-request",
            f"seat {str(unknown[0])[:20]!r} is not a playing colour"
            if unknown[0] in COLOURS
            else "seats name an unknown colour",
        )
    return out


def iso_time(timestamp: float) -> str:
    """A moment as the protocol writes it (UTC, to the second: "2026-11-30T15:20:11Z")."""
    return _iso_second(int(timestamp))


@functools.lru_cache(maxsize=4096)
def _iso_second(second: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))
