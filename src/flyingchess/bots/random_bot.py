"""The random bot: any legal move, uniformly, from its own seeded generator."""

from __future__ import annotations

import random
from typing import ClassVar

from ..engine.game import State, legal_moves


class RandomBot:
    name: ClassVar[str] = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int | None:
        moves = legal_moves(state)
        return self.choose_among(state, moves) if moves else None

    def choose_among(self, state: State, moves: tuple[int, ...]) -> int:
        """The simulator's shortcut: pick from moves it already computed (state not rolled)."""
        return moves[int(self.rng.random() * len(moves))]
