"""`flyingchess play --terminal` and `flyingchess join URL`: everything that can go wrong
before the app opens (a server that is down, a wrong link or token, a taken seat) is one
line and exit status 2; the app itself says what goes wrong inside it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from ..game_client import ClientError, GameClient, Invite
from .words import Words


class TerminalError(Exception):
    """What stops the terminal game from starting (printed as one line, exit status 2)."""


def _prepare_terminal(mono: bool) -> None:
    if mono:
        os.environ["NO_COLOR"] = "1"  # Textual draws its own parts without colour too


class LocalServers:
    """The data folder's server, for the terminal game: found (or started here) at the
    start, and found again when it goes away (a `flyingchess play` stopped, or started
    again on another port); the ones started here are stopped at the end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.started: list[Any] = []

    def find(self) -> str:
        """The folder's server's address (OSError when there can be none)."""
        from ...server.transport.local import local_server

        base, started = local_server(self.folder)
        if started is not None:
            self.started.append(started)
        return base

    def pages(self) -> int:
        """Pages (a browser's, another terminal's) on the servers started here."""
        return sum(server.pages() for server in self.started)

    def stop(self) -> None:
        for server in self.started:
            server.stop()


def play_local(folder: Path, words: Words, mono: bool, speed: str) -> None:
    """The terminal game over the data folder's local server: the one already running
    for it (a `flyingchess play` in the browser), else one started here until the end."""
    from ...server.errors import StoreError
    from .app import TerminalApp

    servers = LocalServers(folder)
    try:
        base = servers.find()
    except (OSError, StoreError) as error:
        raise TerminalError(f"cannot open the games in {folder}: {error}") from None
    try:
        _prepare_terminal(mono)
        app = TerminalApp(base, words, mono=mono, speed=speed, servers=servers)
        app.run()
        if app.failure is not None:
            raise TerminalError(app.failure)
    finally:
        servers.stop()


async def _seat(link: str, colour: str | None, name: str, token: str | None) -> GameClient:
    """A connection holding a seat: the one `token` opens, else `colour`'s (or the first
    open) seat, joined now."""
    client = GameClient(Invite.parse(link), token)
    try:
        await client.connect()
        if token is None:
            game = client.game
            seats = game.seats if game is not None else {}
            open_seats = [c for c in (game.state.players if game else ()) if seats.get(c, {}).get("kind") == "open"]
            wanted = colour or (open_seats[0] if open_seats else None)
            if wanted is None:
                raise TerminalError(f"{link}: no open seat in this game (ask the host to open one, or pass --token)")
            await client.join(wanted, name)
    except BaseException:
        await client.close()
        raise
    return client


def join(link: str, words: Words, *, colour: str | None, name: str, token: str | None, mono: bool) -> str | None:
    """A seat of a network game played in the terminal; returns the seat's token (to
    come back with `--token`)."""
    from .app import TerminalApp

    async def joined() -> GameClient:
        return await _seat(link, colour, name, token)

    loop = asyncio.new_event_loop()
    try:
        client = loop.run_until_complete(joined())
        loop.run_until_complete(client.close())  # the app opens its own connection, on its own loop
    except ClientError as error:
        raise TerminalError(str(error)) from None
    finally:
        loop.close()
    _prepare_terminal(mono)
    seat = GameClient(client.invite, client.token)
    app = TerminalApp(client.invite.base, words, mono=mono, joined=seat)
    app.run()
    if app.failure is not None:
        raise TerminalError(app.failure)
    over = seat.game is not None and seat.game.phase == "over"
    return None if over else client.token  # a seat to come back to, while the game goes on
