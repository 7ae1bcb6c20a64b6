"""Win chances, hints and a game's review, from the value network and the ace bot's search.

- `chances(state)`: each player's chance to finish first from a position.
- `hint(state)`: for a rolled state, the move the ace bot would play, each move's chance
  and why the best one is good, in a few reason codes (the page words them).
- `analyse(record)`: every player's chance before each action; for every decision with a
  real choice the best move, the move played and the chance it cost; the big swings
  (captures, flights, three sixes) and the game's worst mistakes.

Needs NumPy (the `rl` extra), as the network does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from ..engine.events import Captured, Event, Flew, ThreeSixes
from ..engine.game import State, legal_moves
from ..engine.moves import choices, move_info
from ..records.record import Record

MISTAKE: Final = 0.02
"""A move that costs at least this much chance to finish first counts as a mistake."""
SWING: Final = 0.08
"""A change of at least this much in some player's chance, by a capture, flight or three sixes, is a swing."""
REASONS: Final = ("finish", "capture", "flight", "jump", "launch", "safety", "progress")
"""Why a move is good, most telling first (the page translates each)."""


def _bot(depth: int | None = None) -> Any:
    """The ace bot (its own depth unless one is asked for)."""
    from .ace import AceBot  # NumPy, on first use

    return AceBot() if depth is None else AceBot(depth=depth)


def chances(state: State) -> dict[str, float]:
    """Each player's chance to finish first (by colour), for a state of any phase."""
    from .value import win_chances

    row = win_chances([state])[0]
    return {colour: round(float(row[k]), 4) for k, colour in enumerate(state.players)}


def _danger(state: State, player: int) -> float:
    """The progress `player` stands to lose before it rolls again (the network's input)."""
    import numpy as np

    from .learned import danger_and_threat, feature_tables

    _, danger, _ = danger_and_threat(feature_tables(state.rules, state.players), np.array([state.planes], np.int8))
    return float(danger[0, player])


def reasons(state: State, plane: int | None) -> list[str]:
    """What the move does that matters, in REASONS order: it finishes a plane, captures,
    flies, jumps, launches, leaves the mover less exposed, or simply advances."""
    if plane is None:
        return []
    move = move_info(state, plane)
    facts = {"finish": move.finish, "capture": move.captures, "flight": move.flight, "jump": move.jumps > 0}
    found: list[str] = [reason for reason, holds in facts.items() if holds]
    if move.launch:
        found.append("launch")
    if _danger(move.after, state.turn) < _danger(state, state.turn) - 0.01:
        found.append("safety")
    return found or ["progress"]


def _happenings(events: Sequence[Event], colour: str) -> list[str]:
    """What a played action did that can swing the chances: captures by the mover, the
    flight, a third six (read from what happened, which a candidate move's MoveInfo is not)."""
    kinds = set()
    for event in events:
        if isinstance(event, Captured) and event.by == colour:
            kinds.add("capture")
        elif isinstance(event, Flew):
            kinds.add("flight")
        elif isinstance(event, ThreeSixes):
            kinds.add("three-sixes")
    return sorted(kinds)


@dataclass(frozen=True)
class Hint:
    """The best move for a rolled state, with each move's chance for the mover."""

    colour: str
    roll: int
    best: int | None
    moves: dict[int, float]
    """plane -> the mover's chance to finish first after that move."""
    reasons: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "colour": self.colour,
            "roll": self.roll,
            "best": self.best,
            "moves": {str(plane): chance for plane, chance in self.moves.items()},
            "reasons": self.reasons,
        }


def hint(state: State, depth: int | None = None) -> Hint:
    """The move the ace bot plays in a state waiting for a move, and why."""
    from .ace import best_index  # NumPy, on first use

    moves = legal_moves(state)
    colour = state.colour
    assert colour is not None and state.roll is not None
    if not moves:
        return Hint(colour, state.roll, None, {}, [])
    values = _bot(depth).move_values(state, moves)
    best = best_index(values)
    return Hint(
        colour,
        state.roll,
        moves[best],
        {plane: round(value, 4) for plane, value in zip(moves, values)},
        reasons(state, moves[best]),
    )


@dataclass(frozen=True)
class Decision:
    """One action with a real choice: what was played against what was best."""

    index: int
    colour: str
    roll: int
    played: int | None
    best: int
    chance_played: float
    chance_best: float
    reasons: list[str]

    @property
    def cost(self) -> float:
        """The chance to finish first the played move gave away (0 for the best move)."""
        return round(max(0.0, self.chance_best - self.chance_played), 4)


@dataclass(frozen=True)
class Swing:
    """An action whose capture, flight or three sixes moved someone's chance a lot."""

    index: int
    colour: str
    kinds: list[str]
    change: dict[str, float]


@dataclass(frozen=True)
class Analysis:
    players: tuple[str, ...]
    chances: list[dict[str, float]]
    """Before each action, then after the last: each player's chance to finish first."""
    decisions: list[Decision]
    swings: list[Swing]

    def mistakes(self, count: int = 5) -> list[Decision]:
        """The costliest decisions (cost at least MISTAKE), worst first."""
        costly = [decision for decision in self.decisions if decision.cost >= MISTAKE]
        return sorted(costly, key=lambda decision: (-decision.cost, decision.index))[:count]

    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "chances": self.chances,
            "decisions": [{**asdict(decision), "cost": decision.cost} for decision in self.decisions],
            "swings": [asdict(swing) for swing in self.swings],
            "mistakes": [decision.index for decision in self.mistakes()],
        }


def analyse(record: Record) -> Analysis:
    """The whole game's review. Raises the record's own errors (ActionError) for an
    illegal action, before any work on the network."""
    from .ace import best_index
    from .value import win_chances

    steps = list(record.steps())
    states = [step.before for step in steps] + ([steps[-1].after] if steps else [record.start()])
    table = win_chances(states)
    players = record.players
    chances = [{colour: round(float(row[k]), 4) for k, colour in enumerate(players)} for row in table]
    bot = _bot()
    decisions = []
    swings = []
    for step in steps:
        rolled = step.before._replace(roll=step.roll)
        colour = players[step.before.turn]
        if not step.before.ranking:
            moves = legal_moves(rolled)
            if choices(rolled) >= 2:
                values = bot.move_values(rolled, moves)
                best = best_index(values)
                played = values[moves.index(step.plane)] if step.plane in moves else values[best]
                decisions.append(
                    Decision(
                        step.number,
                        colour,
                        step.roll,
                        step.plane,
                        moves[best],
                        round(played, 4),
                        round(values[best], 4),
                        reasons(rolled, moves[best]),
                    )
                )
        kinds = _happenings(step.events, colour)
        if kinds:
            before, after = chances[step.number], chances[step.number + 1]
            change = {c: round(after[c] - before[c], 4) for c in players}
            if max(abs(delta) for delta in change.values()) >= SWING:
                swings.append(Swing(step.number, colour, kinds, change))
    return Analysis(players, chances, decisions, swings)


__all__ = ["MISTAKE", "REASONS", "SWING", "Analysis", "Decision", "Hint", "Swing", "analyse", "chances", "hint"]
