"""Clients of a flyingchess server: the Python client, a bot in a seat, the terminal game.

`game_client` speaks the protocol and reads the game into the engine's own values
(docs/clients.md); `seat_bot` puts a bot or a policy in a seat through it; `terminal/`
draws the game in a terminal (docs/terminal.md). `GameClient` and `Game` are here too.
"""

from .game_client import Game, GameClient

__all__ = ["Game", "GameClient"]
