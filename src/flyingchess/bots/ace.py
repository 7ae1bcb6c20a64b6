"""The ace bot: a search over the next two rolls, with the value network at the leaves.

For each distinct position its legal moves lead to, every face of the next roll is
considered; the player who rolls it (an opponent, or the bot itself after an extra
roll) plays the reply that the value network says is best *for that player*; then
every face of the roll after that, answered the same way; the bot's own chance to
finish first is averaged over the faces (depth 3, the default; depth 2 stops after one
roll, depth 1 values each move's position as it stands). Each opponent is thus modelled
as playing for itself (max-n with a value that knows all players), not as one
adversary minimising the bot's chances. The leaves of one level are valued in one
batch (bots/value.py), which keeps a decision to a few milliseconds.

Once a player has finished first the network has nothing left to predict (it values
finishing first); in games that play on for places the bot then plays as `greedy`,
whose evaluation values places.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from ..compiled import FACES
from ..game import State, apply_unchecked, legal_moves, moves_unchecked, play_unchecked
from .greedy import GreedyBot
from .value import ValueNet, shipped_net, win_chances

DEPTHS: Final = (1, 2, 3)
"""1: each move's position valued as it stands; 2: over the next roll and its reply;
3: over the next two rolls, each roller replying with its best move by the network."""


class AceBot:
    def __init__(self, seed: int | None = None, depth: int = 3, net: ValueNet | None = None) -> None:
        del seed  # deterministic: nothing to seed
        if depth not in DEPTHS:
            raise ValueError(f"depth must be one of {DEPTHS}")
        self.depth = depth
        self.net = net or shipped_net()
        self.places = GreedyBot()

    def choose(self, state: State) -> int | None:
        moves = legal_moves(state)
        if len(moves) <= 1:
            return moves[0] if moves else None
        if state.ranking:
            return self.places.choose(state)
        return moves[best_index(self.move_values(state, moves))]

    def move_values(self, state: State, moves: tuple[int, ...]) -> list[float]:
        """The bot's chance to finish first after each of `moves` (state waits for a move)."""
        me = state.turn
        afters = [apply_unchecked(state, plane) for plane in moves]
        distinct = list(dict.fromkeys(afters))
        if self.depth == 1:
            chances = win_chances(distinct, self.net)
            value_of = {after: float(chances[k, me]) for k, after in enumerate(distinct)}
            return [value_of[after] for after in afters]
        plan = self._expand(distinct)
        chances = win_chances(_leaves(plan), self.net)
        if self.depth == 2:
            values = self._average(plan, chances, me)
        else:
            # the reply each roller picks at the first roll, then one more roll over those
            chosen = self._chosen(plan, chances)
            second = self._expand(chosen)
            later = win_chances(_leaves(second), self.net)
            means = self._average(second, later, me)
            values, k = [], 0
            for faces in plan:
                total = 0.0
                for _ in faces:
                    total += means[k]
                    k += 1
                values.append(total / len(faces))
        value_of = dict(zip(distinct, values))
        return [value_of[after] for after in afters]

    @staticmethod
    def _expand(states: list[State]) -> list[list[tuple[int, list[State]]]]:
        """For each state waiting for the die: per face, (roller, the distinct positions its
        legal replies lead to); a decided game is one leaf with roller -1."""
        plan = []
        for state in states:
            if state.ranking or state.over:
                plan.append([(-1, [state])])
                continue
            faces = []
            for face in FACES:
                replies = moves_unchecked(state, face)
                children = [play_unchecked(state, face, reply) for reply in replies]
                children = children or [play_unchecked(state, face, None)]  # a pass
                faces.append((state.turn, list(dict.fromkeys(children))))
            plan.append(faces)
        return plan

    @staticmethod
    def _picks(plan: list[list[tuple[int, list[State]]]], chances: Any) -> Iterator[tuple[int, int]]:
        """(row of the face's first leaf, row of the leaf its roller picks) per face, in order."""
        row = 0
        for faces in plan:
            for roller, leaves in faces:
                block = chances[row : row + len(leaves)]
                yield row, row + (0 if roller < 0 else int(block[:, roller].argmax()))
                row += len(leaves)

    def _average(self, plan: list[list[tuple[int, list[State]]]], chances: Any, me: int) -> list[float]:
        """Per planned state: `me`'s chance averaged over the faces, each roller picking its best."""
        picks = iter(self._picks(plan, chances))
        means = []
        for faces in plan:
            total = sum(float(chances[next(picks)[1], me]) for _ in faces)
            means.append(total / len(faces))
        return means

    def _chosen(self, plan: list[list[tuple[int, list[State]]]], chances: Any) -> list[State]:
        """The position each face's roller picks, in plan order."""
        leaves = _leaves(plan)
        return [leaves[pick] for _, pick in self._picks(plan, chances)]


def best_index(values: list[float]) -> int:
    """The index of the highest value; ties go to the first (the lowest plane)."""
    return max(range(len(values)), key=lambda k: (values[k], -k))


def _leaves(plan: list[list[tuple[int, list[State]]]]) -> list[State]:
    """Every leaf of a plan, in order (one batch for the network)."""
    return [leaf for faces in plan for _, found in faces for leaf in found]
