"""What can go wrong for a request, and the one table that says what a page is told.

The rooms, the store and the cluster raise what happened in their own words (a game that
is not there, a room this process may no longer act for, a database that failed, a row
that does not read back); `refusal` turns any of them into the wire's error
(docs/protocol.md, Errors), and `close_code` says how a WebSocket refused with it closes.
Nothing else decides a wire code for a domain error, so the page, the HTTP answers and
the forwarded pages of other processes are always told the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from ..engine.game import IllegalMoveError
from .protocol import ProtocolError

STORAGE_MESSAGE: Final = "the server cannot save games right now; nothing was changed: try again soon"
MOVED_AWAY: Final = "this game has moved to another server: reconnecting"
INTERNAL_MESSAGE: Final = "something went wrong on the server; nothing was changed"
RESTARTING: Final = "this server is restarting: reconnecting"
UNAVAILABLE: Final = "the game servers cannot reach each other right now: reconnecting"


class StoreError(Exception):
    """The database cannot be opened or used (damaged, disk full, I/O error, gone): the
    message says which database and why. Nothing was written when this is raised."""


class NewerDatabase(StoreError):
    """The database was written by a newer version of flyingchess: it is left untouched."""


class DamagedGame(Exception):
    """One stored game cannot be read back (its row does not parse or replay). The rest
    of the database is fine, and the game can still be deleted."""


class LostGame(StoreError):
    """A write for a game this process no longer owns (or that was deleted): another
    process has claimed it. Nothing was written; the room must stop acting."""


class RoomAway(Exception):
    """This process cannot act for the room now: another owns it (MOVED_AWAY), this one
    is shutting down (RESTARTING), or it cannot reach the others (UNAVAILABLE). Nothing
    changed; the page reconnects and finds the room where it is."""


class NoSuchGame(Exception):
    """No game with that id (never created, or deleted)."""


_REFUSALS: Final[dict[type[BaseException], Callable[[BaseException], ProtocolError]]] = {
    ProtocolError: lambda error: cast(ProtocolError, error),  # a refused request says so itself
    RoomAway: lambda error: ProtocolError("reconnecting", str(error)),
    LostGame: lambda error: ProtocolError("reconnecting", MOVED_AWAY),
    StoreError: lambda error: ProtocolError(
        "storage-unavailable", STORAGE_MESSAGE
    ),  # the database's words stay in the log
    NoSuchGame: lambda error: ProtocolError("unknown-game", str(error)),
    DamagedGame: lambda error: ProtocolError("damaged-game", f"{error}; it can still be deleted"),
    IllegalMoveError: lambda error: ProtocolError("illegal-move", str(error)),
}

REFUSED_KINDS: Final = tuple(_REFUSALS)
"""Every kind of error that has a wire code (an app's exception handlers)."""

_CLOSE_CODES: Final = {
    "unknown-game": 4404,
    "reconnecting": 1012,  # service restart: try again shortly
    "storage-unavailable": 1012,
    "room-full": 1013,  # try again later
}


def refusal(error: BaseException) -> ProtocolError | None:
    """What a page is told of `error`, or None for a fault of the server's own (which
    is logged and answered `internal-error`)."""
    for kind in type(error).__mro__:
        told = _REFUSALS.get(kind)
        if told is not None:
            return told(error)
    return None


def refused(error: BaseException) -> ProtocolError:
    """`refusal`, with a fault of the server's own as `internal-error` (its details stay
    in the log: never a traceback to a page)."""
    return refusal(error) or ProtocolError("internal-error", INTERNAL_MESSAGE)


def told(error: BaseException) -> dict[str, Any]:
    """The error message a page is sent for `error`."""
    return refused(error).to_json()


def close_code(error: ProtocolError) -> int:
    """The code a WebSocket refused with `error` closes with (docs/protocol.md)."""
    return _CLOSE_CODES.get(error.code, 1011)
