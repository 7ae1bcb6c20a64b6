"""What a golden record shows: the rule features its events exercise (shared by the
golden-record generator and the test that checks the set covers every special rule)."""

from __future__ import annotations

from typing import Any

from flyingchess.engine.events import (
    Bounced,
    Captured,
    Event,
    Flew,
    GameOver,
    Jumped,
    Launched,
    Passed,
    PlayerFinished,
    Stepped,
    ThreeSixes,
)
from flyingchess.engine.game import play
from flyingchess.records.record import Record

FEATURES = (
    "launch",
    "jump",
    "flight",
    "bounce",
    "capture",
    "capture-flight-line",
    "capture-mid-move",
    "capture-stack",
    "jump-then-flight",
    "flight-then-jump",
    "stack-moves",
    "pass",
    "pass-on-six",
    "three-sixes-last-moved",
    "three-sixes-moved-by-sixes",
    "three-sixes-all",
    "player-finished-ranking",
    "game-over-first",
    "game-over-ranking",
    "exact-finish",
)


def features_of_move(events: list[Event], record: Record) -> set[str]:
    found: set[str] = set()
    kinds = [type(event) for event in events]
    for position, event in enumerate(events):
        if isinstance(event, Launched):
            found.add("launch")
        if isinstance(event, Jumped):
            found.add("jump")
            if Flew in kinds[position + 1 :]:
                found.add("jump-then-flight")
        if isinstance(event, Flew):
            found.add("flight")
            if Jumped in kinds[position + 1 :]:
                found.add("flight-then-jump")
        if isinstance(event, Bounced):
            found.add("bounce")
        if isinstance(event, Captured):
            found.add("capture" if event.cause == "landing" else "capture-flight-line")
            if len(event.planes) > 1:
                found.add("capture-stack")
            if event.cause == "landing" and any(k in (Jumped, Flew) for k in kinds[position + 1 :]):
                found.add("capture-mid-move")
        if isinstance(event, Stepped) and len(event.planes) > 1:
            found.add("stack-moves")
        if isinstance(event, Passed):
            found.add("pass")
            if getattr(events[0], "value", None) == 6:
                found.add("pass-on-six")
        if isinstance(event, ThreeSixes) and event.planes:
            found.add(f"three-sixes-{record.rules.three_sixes}")
        if isinstance(event, PlayerFinished) and record.rules.end == "ranking":
            found.add("player-finished-ranking")
        if isinstance(event, GameOver):
            found.add(f"game-over-{record.rules.end}")
            if record.rules.finish == "exact":
                found.add("exact-finish")
    return found


def features_of_record(record: Record) -> set[str]:
    state = record.start()
    found: set[str] = set()
    for action in record.actions:
        state, events = play(state, action["roll"], action["plane"])
        found |= features_of_move(events, record)
    return found


def golden_record_json(record: Record, note: str) -> dict[str, Any]:
    data = record.to_json()
    data["note"] = note
    return data
