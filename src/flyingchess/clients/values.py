"""What a client reads of a game: where it is, who this connection is, the legal moves,
a snapshot as the engine's values, an update."""

from __future__ import annotations

import contextlib
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine.events import Event, event_from_json
from ..engine.game import State
from ..records.record import RecordError, state_from_json
from .errors import ClientError


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


def _readable_events(data: Any) -> tuple[Event, ...]:
    """The events of an update; one this client does not know (a newer server) is left out."""
    events = []
    for event in data or ():
        with contextlib.suppress(ValueError, TypeError):
            events.append(event_from_json(event))
    return tuple(events)
