"""Telling a room's pages who came and who left, a moment later and once for several.

When a process takes over rooms (another was stopped or killed, or Redis came back),
each room's pages reconnect one after another. Telling every page already back of each
arrival at once sent the game's whole state to them again and again: one update for
the second page, two for the third, three for the fourth, while the process was busiest.
An arrival or a departure is told `PRESENCE_DELAY` later, in one update for all the
changes meanwhile, and not at all if an update about the game went out first (every
update carries the seats and who is connected). A page that has just been sent the
whole game (its own snapshot on arrival) is not sent it again unless something changed
after.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Final

from ..logs import log_failure
from .presence import Watcher

if TYPE_CHECKING:
    from .room import Room

PRESENCE_DELAY: Final = 0.2
"""Seconds between a page arriving or leaving and the other pages hearing of it: short
enough that nobody notices, long enough to gather a room's pages coming back together."""


class PresenceUpdates:
    def __init__(self, room: Room) -> None:
        self.room = room
        self.due: asyncio.TimerHandle | None = None
        """The update on its way, if one is."""
        self.up_to_date: set[Watcher] = set()
        """Pages sent the whole game since the last change (they need no update)."""

    def changed(self, sent_the_game: Watcher | None = None) -> None:
        """Who is here changed; `sent_the_game`: the page that caused it and is sent the
        whole game now anyway (a page arriving, which gets its snapshot)."""
        self.up_to_date = {sent_the_game} if sent_the_game is not None else set()
        if self.due is None:
            self.due = asyncio.get_running_loop().call_later(PRESENCE_DELAY, self._send_soon)

    def cancel(self) -> None:
        if self.due is not None:
            self.due.cancel()
            self.due = None
        self.up_to_date = set()

    def _send_soon(self) -> None:
        task = asyncio.get_running_loop().create_task(self._send())
        task.add_done_callback(log_failure)

    async def _send(self) -> None:
        room = self.room
        async with room.lock:  # never between a change stored and its update
            if self.due is None:  # an update about the game went out meanwhile
                return
            self.due = None
            up_to_date, self.up_to_date = self.up_to_date, set()
            pages = [page for page in room.presence.watchers if page not in up_to_date]
            if pages and not room.lost:
                await room.send_update([], pages)
