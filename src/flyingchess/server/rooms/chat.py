"""A room's chat and reactions: rate-limited by speaker, chat kept in the store and the
last lines in every snapshot, so a page that reloads sees the conversation."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Final

from ..limits import KeyedBuckets
from ..protocol import ProtocolError, iso_time
from .seats import Control

if TYPE_CHECKING:
    from .room import Room

CHAT_SHOWN: Final = 30
"""Chat lines a snapshot carries, so a page that reloads sees the conversation."""


class RoomChat:
    def __init__(self, room: Room) -> None:
        self.room = room
        limits = room.limits
        self.recent: list[dict[str, Any]] = []
        self.lines = KeyedBuckets(limits.chat_rate, limits.chat_burst, capacity=16)
        self.reactions = KeyedBuckets(limits.react_rate, limits.react_burst, capacity=16)

    async def load(self) -> None:
        room = self.room
        lines = await room.session.store.chat(room.id, CHAT_SHOWN)
        self.recent = [dict(line, at=iso_time(line["at"])) for line in lines]

    async def say(self, control: Control, text: str | None = None, emoji: str | None = None) -> None:
        """Chat or a reaction, from the host or a player, to everyone in the room."""
        room = self.room
        colour, name = room.seats.speaker(control)
        buckets = self.lines if text is not None else self.reactions
        wait = buckets.allow(colour or "host", time.monotonic())
        if wait:
            what = "chat lines" if text is not None else "reactions"
            raise ProtocolError("rate-limited", f"too many {what}: wait {wait:.0f} s", retry_after=wait)
        if text is not None:
            now = time.time()
            await room.session.add_chat(now, colour, name, text, keep=room.limits.chat_history)
            message = {"type": "chat", "colour": colour, "name": name, "text": text, "at": iso_time(now)}
            line = {k: v for k, v in message.items() if k != "type"}
            self.recent = (self.recent + [line])[-CHAT_SHOWN:]
        else:
            message = {"type": "react", "colour": colour, "name": name, "emoji": emoji}
        await room.send_all(message)
