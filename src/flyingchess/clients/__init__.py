"""Clients of a flyingchess server: the Python client, a bot in a seat, the terminal game.

`game_client` speaks the protocol and reads the game into the engine's own values
(docs/clients.md), over `connection` (HTTP, a WebSocket that comes back by itself),
`values` (what it reads) and `errors`; `seat_bot` puts a bot or a policy in a seat
through it; `terminal/` draws the game in a terminal (docs/terminal.md). The client's
public names are here: `from flyingchess.clients import GameClient`.
"""

from .game_client import (
    ClientError,
    Game,
    GameClient,
    Invite,
    Move,
    Refused,
    SyncGameClient,
    TimedOut,
    Unreachable,
    Update,
    You,
    create_game,
    server_json,
)

__all__ = [
    "ClientError",
    "Game",
    "GameClient",
    "Invite",
    "Move",
    "Refused",
    "SyncGameClient",
    "TimedOut",
    "Unreachable",
    "Update",
    "You",
    "create_game",
    "server_json",
]
