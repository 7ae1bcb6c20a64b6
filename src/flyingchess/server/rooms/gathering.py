"""Gathering a game: players take open seats, the host sets seats and starts, the
seated pages contribute their shares of committed dice, and a game given up for a
rematch reveals its seed. Every change under the room's lock, stored before anyone
hears of it."""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from ...records.fair_dice import MAX_CONTRIBUTIONS, ProofError
from ..limits import KeyedBuckets
from ..protocol import ProtocolError
from .presence import Watcher
from .seats import AUTOPILOT_BOT, Control, Seat, SeatKind, token_hash
from .session import REVEALED_MESSAGE

if TYPE_CHECKING:
    from .room import Room


class Gathering:
    """A room's seats before and around play (docs/protocol.md: join, seat, start, contribute)."""

    def __init__(self, room: Room) -> None:
        self.room = room
        limits = room.limits
        self.joins = KeyedBuckets(limits.join_rate, limits.join_burst, capacity=1_000)

    async def join(self, watcher: Watcher, colour: str, name: str, address: str) -> str:
        """Take an open seat: returns the new secret token (shown to that page only)."""
        room = self.room
        async with room.lock:
            if colour not in room.seats:
                raise ProtocolError("bad-message", f"{colour} does not play in this game")
            if room.seats[colour].kind != "open":
                raise ProtocolError("seat-taken", f"the {colour} seat is not free")
            held = room.presence.control_of(watcher)
            if any(room.seats.controls(held, c) for c in held.colours):
                raise ProtocolError("already-seated", "this page already plays a seat here")
            wait = self.joins.allow(address, time.monotonic())
            if wait:
                raise ProtocolError(
                    "rate-limited",
                    f"too many seats taken from your address in this room: try again in {wait:.0f} s",
                    retry_after=wait,
                )
            token = secrets.token_urlsafe(24)
            digest = token_hash(token)
            await room.session.write_seats(
                room.seats.with_seat(colour, Seat("player", name=name, token=digest)), room.session.started
            )
            room.presence.watchers[watcher] = Control(colours=frozenset({colour}), token=digest)
            await room.broadcast([])
        room.bot_runner.wake()
        return token

    async def set_seat(self, control: Control, colour: str, kind: str, bot: str | None) -> None:
        """The host gives a seat to a bot, to its own device, or opens it (removing a player)."""
        room = self.room
        async with room.lock:
            if not control.host:
                raise ProtocolError("not-host", "only the host may change seats")
            seat = Seat("bot", bot=bot or AUTOPILOT_BOT) if kind == "bot" else Seat(cast(SeatKind, kind))
            before = {watcher: room.seats.controlled_by(held) for watcher, held in room.presence.watchers.items()}
            await room.session.write_seats(room.seats.with_seat(colour, seat), room.session.started)
            room.presence.seat_changed(colour)
            for watcher, lost in room.presence.revoked(room.seats):
                await room.send(watcher, {"type": "seat-lost", "colours": sorted(lost.colours)})
            await room.tell_authority(lambda watcher, held: room.seats.controlled_by(held) != before.get(watcher))
            await room.broadcast([])
        room.bot_runner.wake()

    async def start(self, control: Control) -> None:
        """The host starts a gathered game; seats still open go to the heuristic bot.
        With committed dice, the pages' contributions close now: a seated page that has
        not sent one yet gets a moment (`Limits.contribution_wait`), never more."""
        room = self.room
        if not control.host:
            raise ProtocolError("not-host", "only the host starts the game")
        await self._await_contributions(time.monotonic() + room.limits.contribution_wait)
        async with room.lock:
            if room.session.started:
                raise ProtocolError("wrong-phase", "the game has already started")
            if room.session.dice_revealed:
                raise ProtocolError("dice-revealed", REVEALED_MESSAGE)
            await room.session.write_seats(room.seats.started(), True)
            room.presence.new_turn()
            await room.broadcast([])
        room.bot_runner.wake()

    async def _await_contributions(self, deadline: float) -> None:
        room = self.room
        while room.session.proof is not None and time.monotonic() < deadline:
            sent = set(room.session.proof.contributors)
            waiting = {
                key for control in room.presence.watchers.values() if (key := self.contributor(control)) is not None
            }
            if waiting <= sent:
                return
            await asyncio.sleep(0.05)

    def contributor(self, control: Control) -> str | None:
        """Who a page contributes as: "host", its colour, or None (a spectator)."""
        room = self.room
        if control.host:
            return "host"
        colours = sorted(room.seats.controlled_by(control))
        return colours[0] if colours else None

    async def contribute(self, control: Control, value: str) -> None:
        """A seated page's random share in the dice, before the game starts."""
        room = self.room
        async with room.lock:
            proof = room.session.proof
            if proof is None:
                raise ProtocolError("no-commitment", "this game's dice are not committed (a game on one device)")
            if room.session.dice_revealed:
                raise ProtocolError("dice-revealed", REVEALED_MESSAGE)
            if room.session.started:
                raise ProtocolError("wrong-phase", "contributions close when the game starts")
            who = self.contributor(control)
            if who is None:
                raise ProtocolError("not-your-seat", "only the host and seated players contribute to the dice")
            if who in proof.contributors:
                raise ProtocolError("already-contributed", "this seat has already contributed to the dice")
            if len(proof.contributions) >= MAX_CONTRIBUTIONS:
                raise ProtocolError("already-contributed", "the dice have all the contributions they take")
            try:  # the proof checks it once more: only the host and the seats players hold now
                updated = proof.with_seated(room.seats.held_by_players()).with_contribution(who, value)
            except ProofError as refused:
                raise ProtocolError("not-your-seat", str(refused)) from None
            await room.session.write_proof(updated)
            await room.broadcast([])

    async def reveal_dice(self) -> None:
        """Show the seed of a game given up for a rematch; it can roll no more."""
        room = self.room
        async with room.lock:
            proof = room.session.proof
            if proof is None or proof.revealed or room.state.over:
                return
            await room.session.write_proof(replace(proof, revealed=True))
            await room.broadcast([])

    async def announce_rematch(self, new_id: str) -> None:
        """The game is given up for a rematch: its dice seed is revealed, and every page
        in the room learns where the rematch is, so guests can follow."""
        room = self.room
        await self.reveal_dice()
        await room.send_all({"type": "rematch", "id": new_id})
