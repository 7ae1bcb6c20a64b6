"""Who is in a room now, and the clock that keeps a game moving without them.

A seat played by people is *connected* while a page that controls it watches. A seat
whose pages all left waits `grace` seconds, then the autopilot plays it; with a turn
timer, a seat that takes longer than `timer` seconds over one turn goes to the autopilot
too. A page that comes back (or acts) takes its seats back at once. This module keeps
that bookkeeping; the room runs the clock and the bots.
"""

from __future__ import annotations

import time
from typing import Protocol

from .seats import SPECTATOR, Control, Seats


class Watcher(Protocol):
    """A page watching a room: the app's `Outbox` over a WebSocket. `send_text` must not
    wait for the network (the outbox queues); `close` ends the connection."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class Presence:
    def __init__(self, timer: int, grace: float) -> None:
        self.timer = timer
        """Seconds a person may take for a turn before the autopilot moves (0: no limit)."""
        self.grace = grace
        """Seconds a seat whose pages left waits before the autopilot plays it."""
        self.watchers: dict[Watcher, Control] = {}
        self.absent_since: dict[str, float] = {}
        self.autopilot: set[str] = set()
        self.turn_started = time.monotonic()
        self.last_seen = time.monotonic()
        """When a page last watched the room (rooms nobody watches leave memory)."""

    def control_of(self, watcher: Watcher) -> Control:
        """What this connection may do now (a revoked seat has already been taken away)."""
        return self.watchers.get(watcher, SPECTATOR)

    def connected(self, seats: Seats) -> set[str]:
        """Bot seats, and the people's seats a watching page controls (`Seats.controls`
        for every page at once: this runs for every update the room sends)."""
        host_here = False
        held: set[tuple[str, str]] = set()  # not set[...](): calling the alias costs ten times more
        for control in self.watchers.values():
            if control.host:
                host_here = True
            elif control.token is not None:
                held.update((colour, control.token) for colour in control.colours)
        return {
            colour
            for colour, seat in seats.items()
            if seat.kind == "bot"
            or (host_here and seat.kind == "human")
            or (seat.played_by_people and (colour, seat.token) in held)
        }

    def public_seats(self, seats: Seats) -> dict[str, dict[str, object]]:
        """Seats as every page may see them (never a token or its hash), with presence."""
        present = self.connected(seats)
        return {
            colour: {**seat.public(), "connected": colour in present, "autopilot": colour in self.autopilot}
            for colour, seat in seats.items()
        }

    # ---------------------------------------------------------------- comings and goings

    def attach(self, watcher: Watcher, control: Control) -> None:
        self.watchers[watcher] = control
        self.last_seen = time.monotonic()

    def detach(self, watcher: Watcher, seats: Seats) -> None:
        """A page left: the seats nobody controls any more start their grace period."""
        self.watchers.pop(watcher, None)
        now = self.last_seen = time.monotonic()
        present = self.connected(seats)
        for colour, seat in seats.items():
            if seat.played_by_people and colour not in present:
                self.absent_since.setdefault(colour, now)

    def heard_from(self, control: Control, seats: Seats) -> bool:
        """A page that controls seats is here: its seats are present again and leave the
        autopilot. True when a seat left the autopilot (the pages should hear of it)."""
        back = seats.controlled_by(control)
        for colour in back:
            self.absent_since.pop(colour, None)
        if back & self.autopilot:
            self.autopilot -= back
            return True
        return False

    def seat_changed(self, colour: str) -> None:
        """A seat was given to someone else: its absence and autopilot start afresh."""
        self.autopilot.discard(colour)
        self.absent_since.pop(colour, None)

    def revoked(self, seats: Seats) -> list[tuple[Watcher, Control]]:
        """Connections whose seat was given away become spectators; returns them, with
        what they held, so they can be told."""
        lost = []
        for watcher, control in list(self.watchers.items()):
            if control.colours and not any(seats.controls(control, c) for c in control.colours):
                self.watchers[watcher] = SPECTATOR
                lost.append((watcher, control))
        return lost

    # ---------------------------------------------------------------- the clock

    def new_turn(self) -> None:
        self.turn_started = time.monotonic()

    def autopilot_due(self, now: float, seats: Seats, to_move: str | None) -> set[str]:
        """Seats the autopilot should take now: away past their grace, or (with a turn
        timer) the seat to move, over its time."""
        due = {c for c, since in self.absent_since.items() if now - since >= self.grace and seats[c].played_by_people}
        if (
            self.timer
            and to_move is not None
            and seats[to_move].played_by_people
            and now - self.turn_started >= self.timer
        ):
            due.add(to_move)
        return due - self.autopilot

    def next_due(self, now: float, seats: Seats, to_move: str | None) -> float | None:
        """Seconds from `now` until `autopilot_due` can next name a seat, as things stand
        (None: never, until someone leaves or a turn starts). The room's clock sleeps this
        long instead of looking several times a second in every room."""
        deadlines = [
            since + self.grace
            for colour, since in self.absent_since.items()
            if colour not in self.autopilot and seats[colour].played_by_people
        ]
        if self.timer and to_move is not None and to_move not in self.autopilot and seats[to_move].played_by_people:
            deadlines.append(self.turn_started + self.timer)
        return max(0.0, min(deadlines) - now) if deadlines else None

    def turn_left(self, seats: Seats, to_move: str | None) -> float | None:
        """Seconds before the turn timer hands the seat to move to the autopilot."""
        if not self.timer or to_move is None or not seats[to_move].played_by_people:
            return None
        return round(max(0.0, self.timer - (time.monotonic() - self.turn_started)), 1)
