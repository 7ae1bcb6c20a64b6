"""The random bot: any legal move, uniformly, from its own seeded generator."""

from __future__ import annotations

import random

from ..game import State, legal_moves


class RandomBot:
    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int | None:
        moves = legal_moves(state)
        return moves[self.rng.randrange(len(moves))] if moves else None
