"""The turns people play: a roll and a move asked for by a page, checked against the
seats and the phase, stored, then told to everyone; and the pace of the bots."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.game import IllegalMoveError, legal_moves, step
from ..protocol import ProtocolError
from .seats import HOST, Control
from .session import REVEALED_MESSAGE

if TYPE_CHECKING:
    from .room import Room


class Turns:
    def __init__(self, room: Room) -> None:
        self.room = room

    def _check_still_at(self, at: int | None) -> None:
        """A request meant for the game at `at` actions is refused once it has moved on (a
        page that sends its roll again after reconnecting must not roll twice)."""
        room = self.room
        if at is not None and at != len(room.session.actions):
            raise ProtocolError("moved-on", "the game has moved on since: look at the board again")

    async def human_roll(self, control: Control = HOST, at: int | None = None) -> None:
        room = self.room
        async with room.lock:
            self._check_still_at(at)
            self._check_human_turn("roll", control)
            value = room.next_roll()
            rolled, events = step(room.state, value)
            if legal_moves(rolled):
                await room.session.hold_roll(value, rolled)
            else:
                events += await room.session.commit(rolled, value, None)
            room.presence.new_turn()
            await room.broadcast(events)
        room.bot_runner.wake()

    async def human_move(self, plane: int, control: Control = HOST, at: int | None = None) -> None:
        room = self.room
        async with room.lock:
            self._check_still_at(at)
            self._check_human_turn("move", control)
            assert room.state.roll is not None
            try:
                events = await room.session.commit(room.state, room.state.roll, plane)
            except IllegalMoveError as error:
                raise ProtocolError("illegal-move", str(error)) from None
            room.presence.new_turn()
            await room.broadcast(events)
        room.bot_runner.wake()

    async def set_speed(self, control: Control, speed: str) -> None:
        room = self.room
        async with room.lock:
            if not control.host:
                raise ProtocolError("not-host", "only the host sets the pace of the bots")
            await room.session.set_speed(speed)
            await room.broadcast([])
        room.bot_runner.wake()

    def _check_human_turn(self, phase: str, control: Control) -> None:
        room = self.room
        state = room.state
        if state.over:
            raise ProtocolError("game-over", "the game is over")
        if room.session.dice_revealed:
            raise ProtocolError("dice-revealed", REVEALED_MESSAGE)
        if not room.session.started:
            raise ProtocolError("not-started", "the host has not started the game yet")
        colour = state.colour
        assert colour is not None
        seat = room.seats[colour]
        if seat.kind == "bot":
            raise ProtocolError("not-your-turn", f"{colour} is played by a bot")
        if seat.kind == "open":
            raise ProtocolError("waiting-for-players", f"the {colour} seat is waiting for a player")
        if not room.seats.controls(control, colour):
            raise ProtocolError("not-your-seat", f"you do not play {colour}")
        if state.phase != phase:
            wanted = "choose a plane" if state.phase == "move" else "roll the die"
            raise ProtocolError("wrong-phase", f"{colour} must {wanted} first")
