"""The heuristic ("sensible plays") bot of docs/rules.md §9.

Each candidate is judged by what the engine says the move really does (moves.py), so
the bot follows every rule option without knowing any rule itself.
"""

from __future__ import annotations

from typing import ClassVar

from ..engine.game import State
from ..engine.moves import move_infos


class HeuristicBot:
    name: ClassVar[str] = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic: nothing to seed

    def choose(self, state: State) -> int | None:
        moves = move_infos(state)
        if not moves:
            return None
        captures = [move for move in moves if move.captures]
        specials = [move for move in moves if move.special]
        launches = [move for move in moves if move.launch]
        for group in (captures, specials, launches, moves):
            if group:
                # Furthest-along plane first (progress before the move), then lowest index.
                return min(group, key=lambda move: (-move.start, move.plane)).plane
        return None
