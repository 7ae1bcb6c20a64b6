"""The greedy bot: plays the legal move whose resulting position evaluates best (1 ply).

The engine makes each candidate move; the evaluation (bots/evaluation.py) judges the
result, so every rule option is followed without the bot knowing any rule.
"""

from __future__ import annotations

from typing import ClassVar

from ..engine.game import State, apply_unchecked, legal_moves
from .evaluation import Evaluator, default_evaluator


class GreedyBot:
    name: ClassVar[str] = "greedy"

    def __init__(self, seed: int | None = None, evaluator: Evaluator | None = None) -> None:
        del seed  # deterministic: nothing to seed
        self.evaluator = evaluator or default_evaluator()

    def choose(self, state: State) -> int | None:
        moves = legal_moves(state)
        if len(moves) <= 1:
            return moves[0] if moves else None
        player = state.turn
        value = self.evaluator.value
        best, best_value = moves[0], float("-inf")
        for plane in moves:  # ties go to the lowest plane index
            score = value(apply_unchecked(state, plane), player)
            if score > best_value:
                best, best_value = plane, score
        return best
