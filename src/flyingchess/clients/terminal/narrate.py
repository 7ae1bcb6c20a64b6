"""The engine's events as log lines and a legal move as a preview, in the player's
language: the page's messages (log.*), with planes named as the board draws them
("R2": the colour's letter and the plane's number)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ...engine.board import CENTRE
from ...engine.events import (
    Bounced,
    Captured,
    Event,
    ExtraRoll,
    Flew,
    GameOver,
    Jumped,
    Launched,
    Passed,
    PlaneFinished,
    PlayerFinished,
    Rolled,
    Stepped,
    ThreeSixes,
    TurnPassed,
)
from .words import LETTERS, Words


class Line(NamedTuple):
    """One line of the move log: whose it is (None: nobody's), its text, and whether it
    matters more than a step (a capture, a finish, the end)."""

    colour: str | None
    text: str
    strong: bool = False


def planes_text(colour: str, planes: Sequence[int]) -> str:
    return "+".join(f"{LETTERS[colour]}{plane + 1}" for plane in planes)


def _player(words: Words, colour: str) -> str:
    return f"{words.colour(colour)} ({LETTERS[colour]})"


def _one(words: Words, event: Event) -> Line | None:
    """The line of one event (steps are merged by `log_lines`)."""
    colour: str | None = getattr(event, "colour", None)
    player = _player(words, colour) if colour is not None else ""
    planes = planes_text(colour, event.planes) if colour is not None and hasattr(event, "planes") else ""
    said: dict[type[Event], Callable[[Any], Line]] = {
        Rolled: lambda e: Line(colour, words("log.roll", player=player, value=e.value)),
        Launched: lambda e: Line(colour, words("log.launch", player=player, planes=planes_text(e.colour, [e.plane]))),
        Bounced: lambda e: Line(colour, words("log.bounce", player=player, planes=planes)),
        Jumped: lambda e: Line(colour, words("log.jump", player=player, planes=planes)),
        Flew: lambda e: Line(colour, words("log.flight", player=player, planes=planes)),
        Captured: lambda e: Line(
            e.by,
            words(
                "log.capture-flight" if e.cause == "flight" else "log.capture",
                by=_player(words, e.by),
                player=player,
                planes=planes,
            ),
            True,
        ),
        PlaneFinished: lambda e: Line(
            colour, words("log.plane-finished", player=player, planes=planes_text(e.colour, [e.plane]))
        ),
        PlayerFinished: lambda e: Line(colour, words("log.player-finished", player=player, place=e.place), True),
        ThreeSixes: lambda e: Line(
            colour,
            words("log.three-sixes" if e.planes else "log.three-sixes-none", player=player, planes=planes),
            True,
        ),
        Passed: lambda e: Line(colour, words("log.pass", player=player)),
        ExtraRoll: lambda e: Line(colour, words("log.extra-roll", player=player)),
        TurnPassed: lambda e: Line(colour, words("log.turn", player=player)),
        GameOver: lambda e: Line(e.winner, words("log.game-over", player=_player(words, e.winner)), True),
    }
    tell = said.get(type(event))
    return tell(event) if tell is not None else None


def log_lines(words: Words, events: Sequence[Event]) -> list[Line]:
    """The log of a batch of events; the steps of one move are one line ("moved 5")."""
    lines: list[Line] = []
    index = 0
    while index < len(events):
        event = events[index]
        if isinstance(event, Stepped):
            count = 0
            while (
                index < len(events)
                and isinstance(events[index], Stepped)
                and events[index].colour == event.colour  # type: ignore[attr-defined]
                and events[index].planes == event.planes  # type: ignore[attr-defined]
            ):
                count += 1
                index += 1
            planes = planes_text(event.colour, event.planes)
            lines.append(
                Line(event.colour, words("log.step", player=_player(words, event.colour), planes=planes, count=count))
            )
            continue
        line = _one(words, event)
        if line is not None:
            lines.append(line)
        index += 1
    return lines


def preview_text(words: Words, colour: str, move: Any) -> str:
    """What a legal move (`flyingchess.clients.game_client.Move`) does, in a few words: "R1+R3: moves 5,
    jumps ahead, sends B2 home"."""
    parts = []
    if move.launch:
        parts.append(words("preview.launch"))
    else:
        steps = sum(1 for event in move.events if isinstance(event, Stepped))
        parts.append(words("preview.steps", count=steps))
    if move.bounce:
        parts.append(words("preview.bounce"))
    if move.jump:
        parts.append(words("preview.jump"))
    if move.flight:
        parts.append(words("preview.flight"))
    for hit in move.captures:
        parts.append(words("preview.capture", planes=planes_text(hit["colour"], hit["planes"])))
    if move.end == CENTRE:
        parts.append(words("preview.finish"))
    return words("term.preview", planes=planes_text(colour, move.planes), what=words("list-separator").join(parts))
