"""Who sits where, and who may act for a seat: the room's authority, apart from the game.

A seat is played by the host's own device (`human`), a bot, a player who joined with a
secret token (`player`), or nobody yet (`open`). A player holds only the SHA-256 hash of
its token here; the token itself is shown once, to the page that took the seat. A
connection's `Control` says what it may do, and is checked against the seats as they
are now, so a player who was removed loses its rights at once.

Seats are immutable: a change makes new `Seats`, which the room stores before adopting.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final, Literal, cast, get_args

from ..protocol import ProtocolError

SeatKind = Literal["human", "bot", "open", "player"]
"""What a seat is: played on the host's device, by a bot, open to join, or held by a
player who joined from a device of their own (a host sets the first three:
protocol.HostSeatKind)."""
SEAT_KINDS: Final = frozenset(get_args(SeatKind))
PLAYED_BY_PEOPLE: Final = frozenset({"human", "player"})
AUTOPILOT_BOT: Final = "heuristic"
"""The bot that plays an absent player's seat, and a seat still open at the start."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def without_secrets(seats: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Stored seats with every token hash removed: the only form that may leave the server."""
    return {colour: {k: v for k, v in seat.items() if k != "token"} for colour, seat in seats.items()}


@dataclass(frozen=True)
class Control:
    """What one connection may do: the host plays the room's `human` seats and manages
    seats; a player plays the seat its token names; anyone else watches."""

    host: bool = False
    colours: frozenset[str] = frozenset()
    token: str | None = None
    """The hash of the player's token: a seat given away since then is no longer theirs."""

    @property
    def role(self) -> str:
        return "host" if self.host else "player" if self.colours else "spectator"


SPECTATOR: Final = Control()
HOST: Final = Control(host=True)


@dataclass(frozen=True)
class Seat:
    kind: SeatKind
    name: str | None = None
    """A player's chosen name."""
    bot: str | None = None
    """The registered bot that plays a `bot` seat."""
    token: str | None = None
    """The hash of a player's secret token (never sent to a page)."""

    @classmethod
    def from_json(cls, data: Any) -> Seat:
        """A seat as stored; ValueError when it is not one."""
        if not isinstance(data, Mapping) or data.get("kind") not in SEAT_KINDS:
            raise ValueError("a seat has no valid kind")
        fields = {key: data.get(key) for key in ("name", "bot", "token")}
        if any(value is not None and not isinstance(value, str) for value in fields.values()):
            raise ValueError("a seat's name, bot and token must be text")
        return cls(cast(SeatKind, data["kind"]), **fields)

    def to_json(self) -> dict[str, str]:
        """The stored form (with the token's hash)."""
        out: dict[str, str] = {"kind": self.kind}
        for key in ("name", "bot", "token"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    def public(self) -> dict[str, Any]:
        """What every page may see (a new dict each time: callers add to it)."""
        return dict(self._public)

    @cached_property
    def _public(self) -> dict[str, Any]:
        return {key: value for key, value in self.to_json().items() if key != "token"}

    @property
    def played_by_people(self) -> bool:
        return self.kind in PLAYED_BY_PEOPLE


OPEN: Final = Seat("open")


class Seats(Mapping[str, Seat]):
    """The seats of one game, by colour, in the players' order."""

    def __init__(self, seats: Mapping[str, Seat]) -> None:
        self._seats = dict(seats)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Seats:
        return cls({colour: Seat.from_json(seat) for colour, seat in data.items()})

    def to_json(self) -> dict[str, dict[str, str]]:
        return {colour: seat.to_json() for colour, seat in self._seats.items()}

    def __getitem__(self, colour: str) -> Seat:
        return self._seats[colour]

    def __iter__(self) -> Iterator[str]:
        return iter(self._seats)

    def __len__(self) -> int:
        return len(self._seats)

    def items(self) -> ItemsView[str, Seat]:
        return self._seats.items()  # the dict's own view: Mapping's looks up every key again

    def values(self) -> ValuesView[Seat]:
        return self._seats.values()

    def __repr__(self) -> str:
        return f"Seats({self._seats!r})"

    # ---------------------------------------------------------------- changes (new Seats)

    def with_seat(self, colour: str, seat: Seat) -> Seats:
        if colour not in self._seats:
            raise ProtocolError("bad-message", f"{colour} does not play in this game")
        return Seats({**self._seats, colour: seat})

    def started(self) -> Seats:
        """At the start, seats still open go to the autopilot's bot."""
        return Seats({c: Seat("bot", bot=AUTOPILOT_BOT) if s.kind == "open" else s for c, s in self._seats.items()})

    def for_rematch(self) -> Seats:
        """A rematch keeps the host's and the bots' seats and opens the players' again."""
        return Seats({c: OPEN if s.kind == "player" else s for c, s in self._seats.items()})

    def held_by_players(self) -> tuple[str, ...]:
        """The colours players hold from their own devices, in the players' order: the
        seats whose pages contribute to committed dice (with the host's)."""
        return tuple(colour for colour, seat in self._seats.items() if seat.kind == "player")

    @property
    def any_open(self) -> bool:
        return any(seat.kind == "open" for seat in self._seats.values())

    # ---------------------------------------------------------------- authority

    def controls(self, control: Control, colour: str) -> bool:
        """Whether this connection may act for the seat now."""
        seat = self._seats[colour]
        if control.host:
            return seat.kind == "human"
        # checked against the seat as it is now: a removed player's rights end at once
        return colour in control.colours and control.token is not None and seat.token == control.token

    def controlled_by(self, control: Control) -> set[str]:
        if control.host:
            return {colour for colour, seat in self._seats.items() if seat.kind == "human"}
        return {colour for colour in control.colours if colour in self._seats and self.controls(control, colour)}

    def authenticate(self, token: str, host_token: str | None) -> Control:
        """The control a secret token gives, compared in constant time."""
        digest = token_hash(token)
        if host_token is not None and hmac.compare_digest(digest, host_token):
            return HOST
        for colour, seat in self._seats.items():
            if seat.token is not None and hmac.compare_digest(digest, seat.token):
                return Control(colours=frozenset({colour}), token=seat.token)
        raise ProtocolError("bad-token", "that token opens no seat in this game")

    def speaker(self, control: Control) -> tuple[str | None, str]:
        """(colour, name) of whoever may speak with this control now: the host, or a
        player whose token still holds its seat; anyone else is refused."""
        if control.host:
            return None, "host"
        colour = next((c for c in sorted(control.colours) if self.controls(control, c)), None)
        if colour is None:
            raise ProtocolError("not-your-seat", "only players may chat")
        return colour, self._seats[colour].name or colour
