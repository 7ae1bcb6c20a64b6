"""The events a roll or a move produces, in order: what a board animates and a log prints.

Each event is a small frozen value with a `kind` and a JSON form, so the web page, the
terminal demo and tests all read the same stream instead of diffing states.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = "event"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind}
        for key in self.__dataclass_fields__:  # flat fields: no deep copy as asdict makes
            value = getattr(self, key)
            out[key] = list(value) if isinstance(value, tuple) else value
        return out

    def describe(self) -> str:
        """A short English sentence for logs and the terminal demo."""
        raise NotImplementedError


def _planes(planes: tuple[int, ...]) -> str:
    if len(planes) == 1:
        return f"plane {planes[0]}"
    return "planes " + "+".join(str(plane) for plane in planes)


def _verb(planes: tuple[int, ...], one: str, several: str) -> str:
    """The verb for a plane or a stack: "steps" / "step"."""
    return one if len(planes) == 1 else several


@dataclass(frozen=True)
class Rolled(Event):
    kind: ClassVar[str] = "roll"
    colour: str
    value: int

    def describe(self) -> str:
        return f"{self.colour} rolls {self.value}"


@dataclass(frozen=True)
class Launched(Event):
    """A plane left the hangar for its takeoff point (progress 0)."""

    kind: ClassVar[str] = "launch"
    colour: str
    plane: int

    def describe(self) -> str:
        return f"{self.colour} launches plane {self.plane}"


@dataclass(frozen=True)
class Stepped(Event):
    """One step of a plain move (forward, or backward after a bounce) to `progress`."""

    kind: ClassVar[str] = "step"
    colour: str
    planes: tuple[int, ...]
    progress: int

    def describe(self) -> str:
        return f"{self.colour} {_planes(self.planes)} {_verb(self.planes, 'steps', 'step')} to {self.progress}"

    def describe_move(self) -> str:
        """The last step of a run, told as the whole move (a summary without each step)."""
        return f"{self.colour} {_planes(self.planes)} {_verb(self.planes, 'moves', 'move')} to {self.progress}"


@dataclass(frozen=True)
class Bounced(Event):
    """The plain move overshot the centre and turns back from it."""

    kind: ClassVar[str] = "bounce"
    colour: str
    planes: tuple[int, ...]

    def describe(self) -> str:
        return f"{self.colour} {_planes(self.planes)} {_verb(self.planes, 'bounces', 'bounce')} off the centre"


@dataclass(frozen=True)
class Jumped(Event):
    kind: ClassVar[str] = "jump"
    colour: str
    planes: tuple[int, ...]
    start: int
    end: int

    def describe(self) -> str:
        return f"{self.colour} {_planes(self.planes)} {_verb(self.planes, 'jumps', 'jump')} from {self.start} to {self.end}"


@dataclass(frozen=True)
class Flew(Event):
    kind: ClassVar[str] = "flight"
    colour: str
    planes: tuple[int, ...]
    start: int
    end: int

    def describe(self) -> str:
        return (
            f"{self.colour} {_planes(self.planes)} {_verb(self.planes, 'flies', 'fly')} from {self.start} to {self.end}"
        )


@dataclass(frozen=True)
class Captured(Event):
    """Planes of `colour` at `progress` went back to their hangar.

    `cause` is "landing" (the mover stopped on their ring cell) or "flight" (the flight
    line crossed them on their crossing cell)."""

    kind: ClassVar[str] = "capture"
    colour: str
    planes: tuple[int, ...]
    progress: int
    by: str
    cause: str

    def describe(self) -> str:
        # no cell number: `progress` counts from the captured colour's own start, which the
        # mover's numbers (its own progress) would contradict on the same line
        how = "landing on" if self.cause == "landing" else "flying over"
        return f"{self.by} captures {self.colour} {_planes(self.planes)} by {how} {_verb(self.planes, 'it', 'them')}"


@dataclass(frozen=True)
class PlaneFinished(Event):
    kind: ClassVar[str] = "plane-finished"
    colour: str
    plane: int

    def describe(self) -> str:
        return f"{self.colour} plane {self.plane} reaches the centre"


@dataclass(frozen=True)
class PlayerFinished(Event):
    kind: ClassVar[str] = "player-finished"
    colour: str
    place: int

    def describe(self) -> str:
        return f"{self.colour} has all four planes home (place {self.place})"


@dataclass(frozen=True)
class ThreeSixes(Event):
    """The third six in a row: no move, and `planes` went back to the hangar."""

    kind: ClassVar[str] = "three-sixes"
    colour: str
    planes: tuple[int, ...]

    def describe(self) -> str:
        if not self.planes:
            return f"{self.colour} rolled a third six: the turn ends"
        return f"{self.colour} rolled a third six: {_planes(self.planes)} back to the hangar"


@dataclass(frozen=True)
class Passed(Event):
    """No legal move for the roll."""

    kind: ClassVar[str] = "pass"
    colour: str

    def describe(self) -> str:
        return f"{self.colour} cannot move"


@dataclass(frozen=True)
class ExtraRoll(Event):
    kind: ClassVar[str] = "extra-roll"
    colour: str

    def describe(self) -> str:
        return f"{self.colour} rolls again"


@dataclass(frozen=True)
class TurnPassed(Event):
    kind: ClassVar[str] = "turn"
    colour: str
    """The colour whose turn begins."""

    def describe(self) -> str:
        return f"{self.colour} to play"


@dataclass(frozen=True)
class GameOver(Event):
    kind: ClassVar[str] = "game-over"
    winner: str
    ranking: tuple[str, ...]

    def describe(self) -> str:
        return f"game over: {self.winner} wins (ranking {', '.join(self.ranking)})"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        Rolled,
        Launched,
        Stepped,
        Bounced,
        Jumped,
        Flew,
        Captured,
        PlaneFinished,
        PlayerFinished,
        ThreeSixes,
        Passed,
        ExtraRoll,
        TurnPassed,
        GameOver,
    )
}
"""Event classes by their `kind`, for readers of the JSON form."""


def event_from_json(data: Any) -> Event:
    """The inverse of `Event.to_json`: the event a page or a client reads off the wire.
    ValueError for anything that is not one."""
    kind = EVENT_TYPES.get(str(data.get("type"))) if isinstance(data, dict) else None
    if kind is None:
        raise ValueError(f"not an event: {str(data)[:80]}")
    fields = {}
    for name in (spec.name for spec in dataclasses.fields(kind)):
        if name not in data:
            raise ValueError(f"a {kind.kind} event without {name}")
        value = data[name]
        fields[name] = tuple(value) if isinstance(value, list) else value
    return kind(**fields)
