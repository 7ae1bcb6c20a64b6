"""Clients of a flyingchess server: the Python client, a bot in a seat, the terminal game.

`game_client` speaks the protocol and reads the game into the engine's own values
(docs/clients.md), over `connection` (HTTP, a WebSocket that comes back by itself),
`values` (what it reads) and `errors`; `seat_bot` puts a bot or a policy in a seat
through it; `terminal/` draws the game in a terminal (docs/terminal.md). The client's
public names are here: `from flyingchess.clients import GameClient`.

They load on first use, not with the package: every `flyingchess` command imports the
terminal's words (for its `--lang` choices), and the client's asyncio machinery would add
a fifth to each command's start-up.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game_client import *  # noqa: F403 (the names __getattr__ gives, for type checkers)


def __getattr__(name: str) -> Any:
    client = import_module(".game_client", __name__)
    if name not in client.__all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(client, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *import_module(".game_client", __name__).__all__])
