"""What a legal move does, read once from the engine's own account of it.

The server's move previews, the learners' observation, the heuristic bot, the game
review's reasons and the page all want the same few facts about a candidate move: where
its planes start and end, whether it launches, jumps, flies, bounces, captures or
finishes, and which moves are alike. They are read here, from the events `apply`
reports, so that no caller re-reads the event stream (or re-derives a rule) itself; the
batch simulator has the same facts from its tables (`BatchGame.move_facts`), and a test
holds the two equal.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .board import CENTRE, HANGAR
from .events import Bounced, Captured, Event, Flew, Jumped, Stepped
from .game import State, apply, apply_narrated, carried_planes, legal_moves


class Hit(NamedTuple):
    """Planes of `colour` standing at `progress` sent home by the move (`cause`: the
    landing or the flight line)."""

    colour: str
    planes: tuple[int, ...]
    progress: int
    cause: str


class MoveInfo(NamedTuple):
    """One legal move of the rolled state it was read from. (A NamedTuple: the heuristic
    bot builds one per candidate, and a frozen dataclass was a sixth of its time.)"""

    plane: int
    """The plane it was asked for (`move_infos` names a stack by its lowest plane)."""
    planes: tuple[int, ...]
    """Every plane that moves (a stack under `stacking: together`)."""
    start: int
    end: int
    """Progress before the move and where the planes come to rest (after jumps and flight)."""
    jumps: int
    flight: bool
    bounce: bool
    hits: tuple[Hit, ...]
    after: State
    events: tuple[Event, ...]

    @property
    def launch(self) -> bool:
        return self.start == HANGAR

    @property
    def captures(self) -> bool:
        return bool(self.hits)

    @property
    def special(self) -> bool:
        """A jump or the flight: the moves the heuristic bot likes after captures."""
        return self.jumps > 0 or self.flight

    @property
    def finish(self) -> bool:
        return self.end == CENTRE

    @property
    def alike(self) -> int:
        """Moves with the same `alike` are one choice for the player."""
        return _alike(self.start)

    def to_json(self) -> dict[str, Any]:
        """The move as docs/protocol.md describes it (a page's preview of it)."""
        return {
            "plane": self.plane,
            "planes": list(self.planes),
            "from": self.start,
            "to": self.end,
            "choice": self.alike,
            "launch": self.launch,
            "jump": self.jumps > 0,
            "flight": self.flight,
            "bounce": self.bounce,
            "captures": [
                {"colour": hit.colour, "planes": list(hit.planes), "progress": hit.progress, "cause": hit.cause}
                for hit in self.hits
            ],
            "events": [event.to_json() for event in self.events],
        }


def move_info(state: State, plane: int) -> MoveInfo:
    """What moving `plane` does in the rolled `state` (IllegalMoveError if it cannot)."""
    return _read(state, plane, *apply(state, plane))


def move_infos(state: State) -> tuple[MoveInfo, ...]:
    """Every legal move of the rolled `state`, in `legal_moves` order."""
    return tuple(_read(state, plane, *apply_narrated(state, plane)) for plane in legal_moves(state))


def _read(state: State, plane: int, after: State, events: list[Event]) -> MoveInfo:
    jumps = 0
    flight = bounce = False
    hits = []
    for event in events:
        kind = type(event)  # event classes have no subclasses; steps are most of them
        if kind is Stepped:
            continue
        if kind is Jumped:
            jumps += 1
        elif kind is Flew:
            flight = True
        elif kind is Bounced:
            bounce = True
        elif kind is Captured:
            assert isinstance(event, Captured)
            hits.append(Hit(event.colour, event.planes, event.progress, event.cause))
    return MoveInfo(
        plane,
        carried_planes(state, plane),
        state.planes[state.turn][plane],
        after.planes[state.turn][plane],
        jumps,
        flight,
        bounce,
        tuple(hits),
        after,
        tuple(events),
    )


def choices(state: State) -> int:
    """How many different moves the player to move has (0: a pass), without playing them."""
    planes = state.planes[state.turn]
    return len({_alike(planes[plane]) for plane in legal_moves(state)})


def _alike(start: int) -> int:
    """Planes at the same progress make the same move (two planes in the hangar on a 6 are
    one launch; under `stacking: together` a stack is one move already): a move that
    differs only in which of them goes is no choice."""
    return start


__all__ = ["Hit", "MoveInfo", "choices", "move_info", "move_infos"]
