"""The heuristic ("sensible plays") bot of docs/rules.md §9.

Each candidate is judged by what the engine says the move really does (its events), so
the bot follows every rule option without knowing any rule itself.
"""

from __future__ import annotations

from ..board import HANGAR
from ..events import Captured, Flew, Jumped
from ..game import State, apply, legal_moves


class HeuristicBot:
    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic: nothing to seed

    def choose(self, state: State) -> int | None:
        moves = legal_moves(state)
        if not moves:
            return None
        mine = state.planes[state.turn]
        captures, specials, launches = [], [], []
        for plane in moves:
            _, events = apply(state, plane)
            if any(isinstance(event, Captured) for event in events):
                captures.append(plane)
            if any(isinstance(event, (Jumped, Flew)) for event in events):
                specials.append(plane)
            if mine[plane] == HANGAR:
                launches.append(plane)
        for group in (captures, specials, launches, list(moves)):
            if group:
                # Furthest-along plane first (progress before the move), then lowest index.
                return min(group, key=lambda plane: (-mine[plane], plane))
        return None
