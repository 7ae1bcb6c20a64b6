"""A room's bots: they play their seats (and the seats of absent players, on
autopilot) one action at a time at the room's pace, through the engine's play loop,
while anyone watches; and the clock that puts absent or timed-out seats on autopilot."""

from __future__ import annotations

import asyncio
import logging
import time
import zlib
from typing import TYPE_CHECKING, Final

from ...bots import Bot, make_bot, playable, seat_chooser
from ...engine.game import Turn, play_out
from ..errors import RoomAway, StoreError, told
from ..logs import log_failure
from .seats import AUTOPILOT_BOT

if TYPE_CHECKING:
    from .room import Room

BOT_DELAY: Final = {"slow": 1.2, "normal": 0.6, "fast": 0.25, "instant": 0.0}
"""Seconds a bot waits before each roll, by the room's speed."""
log = logging.getLogger("flyingchess.server")
STORE_RETRY_SECONDS: Final = 2.0
"""How long bots wait to try again after the store failed to take their move."""
CLOCK_LONGEST_SLEEP: Final = 5.0
"""The room's clock sleeps until the next deadline or until something changes (`poke`);
it also looks at least this often, in case a change that moves a deadline went unsaid."""
CLOCK_MARGIN: Final = 0.01
"""The clock wakes this much after a deadline: the event loop may ring a little early."""


class BotRunner:
    def __init__(self, room: Room) -> None:
        self.room = room
        self.bots: dict[str, Bot] = {}
        self.task: asyncio.Task[None] | None = None
        self.watchdog: asyncio.Task[None] | None = None
        self.alarm: asyncio.Future[None] | None = None
        """What the clock sleeps on: rung at its next deadline, or at once by `poke`."""

    def stop(self) -> None:
        """Cancel the bots' task and the clock (but not the task calling this)."""
        current = asyncio.current_task()
        for task in (self.task, self.watchdog):
            if task is not None and task is not current:
                task.cancel()

    def _bot_for(self, colour: str) -> Bot:
        room = self.room
        seat = room.seats[colour]
        name = seat.bot if seat.kind == "bot" and seat.bot is not None and playable(seat.bot) else AUTOPILOT_BOT
        key = f"{colour}:{name}"
        if key not in self.bots:
            seed = zlib.crc32(f"{room.id}:{colour}".encode())
            bot = self.bots[key] = make_bot(name, seed)
            meet = getattr(bot, "meet", None)
            if meet is not None:  # who sits at the table (bots.introduce): people are None
                meet(colour, {other: self._seated_bot(other) for other in room.seats})
        return self.bots[key]

    def _seated_bot(self, colour: str) -> str | None:
        seat = self.room.seats[colour]
        return seat.bot if seat.kind == "bot" else None

    def wake(self) -> None:
        """Let the bots (and the autopilot) play while a page watches, and keep the clock
        that puts absent players on autopilot running."""
        loop = asyncio.get_running_loop()
        if (self.task is None or self.task.done()) and self._to_move():  # no task per human action
            self.task = loop.create_task(self._run())
            self.task.add_done_callback(log_failure)
        if self.watchdog is None or self.watchdog.done():
            self.watchdog = loop.create_task(self._watch_clock())
            self.watchdog.add_done_callback(log_failure)
        else:
            self.poke()

    def poke(self) -> None:
        """Something the clock depends on changed (a page left, a turn began, the game
        started or the room emptied): it looks again now, not at its old deadline."""
        if self.alarm is not None and not self.alarm.done():
            self.alarm.set_result(None)

    def _to_move(self) -> bool:
        room = self.room
        colour = room.state.colour
        if room.lost or not room.presence.watchers or colour is None or not room.session.started:
            return False
        if room.session.dice_revealed:
            return False
        return room.seats[colour].kind == "bot" or colour in room.presence.autopilot

    async def _run(self) -> None:
        room = self.room
        while self._to_move():
            await asyncio.sleep(BOT_DELAY[room.session.speed])
            async with room.lock:
                if not self._to_move():
                    return
                colour = room.state.colour
                assert colour is not None
                # a die a person rolled before the autopilot took over is the die to play
                pending = room.state.roll

                def dice(pending: int | None = pending) -> int:
                    return room.next_roll() if pending is None else pending

                turns: list[Turn] = []
                play_out(
                    room.state._replace(roll=None),
                    seat_chooser({colour: self._bot_for(colour)}),
                    dice,
                    watch=turns.append,
                    checked=True,
                    actions=1,
                )
                turn = turns[0]
                events = turn.events[1:] if pending is not None else turn.events  # announced already
                try:
                    await room.session.store_action(turn.roll, turn.plane, turn.after)
                except RoomAway:  # the game has moved to another process: stop
                    return
                except StoreError as error:
                    # nothing changed and nobody saw the roll: say so, then try again
                    log.warning("room %s: %s", room.id, error)
                    await room.send_all(told(error))
                    await asyncio.sleep(STORE_RETRY_SECONDS)
                    continue
                room.presence.new_turn()
                self.poke()  # the next seat's turn timer starts
                await room.broadcast(events)

    async def _watch_clock(self) -> None:
        """Put absent or timed-out seats on autopilot, so a game never hangs. It sleeps
        until the next deadline (`Presence.next_due`) or a `poke`: a thousand rooms at
        rest cost nothing, where looking four times a second in each cost a busy
        process a few per cent of its time."""
        room = self.room
        loop = asyncio.get_running_loop()
        while room.presence.watchers and not room.state.over and not room.lost:
            now = time.monotonic()
            wait: float | None = None
            if room.session.started:
                if room.presence.autopilot_due(now, room.seats, room.state.colour):
                    async with room.lock:
                        # again under the lock: the player may have acted meanwhile (a
                        # roll stored while this waited for the lock starts a new turn)
                        due = room.presence.autopilot_due(time.monotonic(), room.seats, room.state.colour)
                        if due:
                            room.presence.autopilot |= due
                            await room.broadcast([])
                    if due:
                        self.wake()
                    continue
                wait = room.presence.next_due(now, room.seats, room.state.colour)
            sleep = CLOCK_LONGEST_SLEEP if wait is None else min(wait + CLOCK_MARGIN, CLOCK_LONGEST_SLEEP)
            alarm = self.alarm = loop.create_future()
            ring = loop.call_later(sleep, _ring, alarm)
            try:
                await alarm
            finally:
                ring.cancel()
                self.alarm = None


def _ring(alarm: asyncio.Future[None]) -> None:
    if not alarm.done():
        alarm.set_result(None)
