"""The messages a page may send, declared once each (protocol.py `@message`: wire name,
fields and checks together) and handled once each (rooms/commands.py `@handles`)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("starlette")
from flyingchess.server.protocol import MESSAGE_TYPES, ProtocolError, message, parse_message
from flyingchess.server.rooms.commands import HANDLERS

EXAMPLES: dict[str, dict[str, Any]] = {
    "roll": {"at": 3},
    "move": {"plane": 2, "at": 4},
    "speed": {"speed": "fast"},
    "sync": {},
    "hello": {"token": "t0k3n"},
    "join": {"colour": "blue", "name": "Ana"},
    "seat": {"colour": "red", "kind": "bot", "bot": "heuristic"},
    "kick": {"colour": "green"},
    "chat": {"text": "hi"},
    "react": {"emoji": "🎉"},
    "start": {},
    "contribute": {"value": "abcdefgh12"},
}


def test_every_message_parses_to_its_class_and_has_a_handler() -> None:
    assert set(EXAMPLES) == set(MESSAGE_TYPES), "a new message needs an example here"
    for wire, fields in EXAMPLES.items():
        parsed = parse_message(json.dumps({"type": wire, **fields}))
        assert type(parsed) is MESSAGE_TYPES[wire]
        assert type(parsed) in HANDLERS
    assert set(HANDLERS) == set(MESSAGE_TYPES.values())


def test_a_field_a_message_does_not_have_is_refused() -> None:
    for wire, fields in EXAMPLES.items():
        with pytest.raises(ProtocolError, match="unexpected field 'colour2'"):
            parse_message(json.dumps({"type": wire, **fields, "colour2": "red"}))


def test_two_messages_cannot_share_a_wire_name() -> None:
    with pytest.raises(ValueError, match="two messages are named 'roll'"):

        @message("roll")
        @dataclass(frozen=True)
        class AnotherRoll:
            @classmethod
            def parse(cls, data: Any) -> AnotherRoll:
                return cls()

    assert MESSAGE_TYPES["roll"].__name__ == "Roll"


def test_a_message_without_a_handler_stops_the_server_at_import() -> None:
    """CONTRIBUTING's promise, in a process of its own: a message declared in protocol.py
    that rooms/commands.py does not handle makes importing the rooms fail, naming it."""
    script = (
        "from dataclasses import dataclass\n"
        "from flyingchess.server.protocol import message\n"
        "@message('wave')\n"
        "@dataclass(frozen=True)\n"
        "class Wave:\n"
        "    @classmethod\n"
        "    def parse(cls, data):\n"
        "        return cls()\n"
        "import flyingchess.server.rooms.room\n"
    )
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert finished.returncode != 0
    assert "ImportError: no handler for Wave" in finished.stderr


def test_every_domain_error_reaches_a_page_as_one_wire_code() -> None:
    """server/errors.py is the one table from what went wrong to what a page is told
    (docs/protocol.md, Errors): the code, the message (never the database's own words)
    and how a refused WebSocket closes."""
    from flyingchess.engine.game import IllegalMoveError
    from flyingchess.server.errors import (
        MOVED_AWAY,
        UNAVAILABLE,
        DamagedGame,
        LostGame,
        NoSuchGame,
        RoomAway,
        StoreError,
        close_code,
        refusal,
        refused,
    )
    from flyingchess.server.protocol import ProtocolError

    cases: list[tuple[Exception, str, int]] = [
        (RoomAway(UNAVAILABLE), "reconnecting", 1012),
        (LostGame("game x: claimed by another process"), "reconnecting", 1012),
        (StoreError("/var/db/games.sqlite3: disk I/O error"), "storage-unavailable", 1012),
        (NoSuchGame("no game with that id"), "unknown-game", 4404),
        (DamagedGame("game x: row does not parse"), "damaged-game", 1011),
        (IllegalMoveError("plane 3 cannot move"), "illegal-move", 1011),
        (ProtocolError("room-full", "too many pages"), "room-full", 1013),
    ]
    for error, code, closing in cases:
        told = refusal(error)
        assert told is not None and (told.code, close_code(told)) == (code, closing), error
    assert refused(LostGame("x")).message == MOVED_AWAY
    assert "I/O" not in refused(StoreError("/var/db/games.sqlite3: disk I/O error")).message
    assert refusal(KeyError("a fault of ours")) is None
    fault = refused(ZeroDivisionError("division by zero"))
    assert fault.code == "internal-error" and "division" not in fault.message
