"""The ace bot: a search over the next roll, with the value network at the leaves.

For each distinct position its legal moves lead to, every face of the next roll is
considered; the player who rolls it (an opponent, or the bot itself after an extra
roll) plays the reply that the value network says is best *for that player*; the
bot's own chance to finish first is averaged over the faces. Each opponent is thus
modelled as playing for itself (max-n with a value that knows all players), not as
one adversary minimising the bot's chances. All leaves of one decision are valued in
one batch (bots/value.py), which keeps a decision to a few milliseconds.

Once a player has finished first the network has nothing left to predict (it values
finishing first); in games that play on for places the bot then plays as `greedy`,
whose evaluation values places.
"""

from __future__ import annotations

from typing import Final

from ..compiled import FACES
from ..game import State, apply_unchecked, legal_moves, moves_unchecked, play_unchecked
from .greedy import GreedyBot
from .value import ValueNet, shipped_net, win_chances

DEPTHS: Final = (1, 2)
"""1: each move's position valued as it stands; 2: over the next roll and its reply."""


class AceBot:
    def __init__(self, seed: int | None = None, depth: int = 2, net: ValueNet | None = None) -> None:
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
        values = self.move_values(state, moves)
        best = max(range(len(moves)), key=lambda k: (values[k], -k))  # ties: the first (lowest plane)
        return moves[best]

    def move_values(self, state: State, moves: tuple[int, ...]) -> list[float]:
        """The bot's chance to finish first after each of `moves` (state waits for a move)."""
        me = state.turn
        afters = [apply_unchecked(state, plane) for plane in moves]
        distinct = list(dict.fromkeys(afters))
        if self.depth == 1:
            chances = win_chances(distinct, self.net)
            value_of = {after: float(chances[k, me]) for k, after in enumerate(distinct)}
            return [value_of[after] for after in afters]
        # depth 2: gather every leaf of every (position, face), value them in one batch
        leaves: list[State] = []
        plan: list[tuple[State, list[tuple[int, int, int]]]] = []  # per position: (face's first leaf, count, roller)
        for after in distinct:
            faces = []
            if after.ranking or after.over:
                faces.append((len(leaves), 1, -1))
                leaves.append(after)
            else:
                for face in FACES:
                    replies = moves_unchecked(after, face)
                    children = [play_unchecked(after, face, reply) for reply in replies] or [
                        play_unchecked(after, face, None)
                    ]
                    unique = list(dict.fromkeys(children))
                    faces.append((len(leaves), len(unique), after.turn))
                    leaves.extend(unique)
            plan.append((after, faces))
        chances = win_chances(leaves, self.net)
        value_of = {}
        for after, faces in plan:
            total = 0.0
            for first, count, roller in faces:
                rows = chances[first : first + count]
                pick = 0 if roller < 0 else int(rows[:, roller].argmax())
                total += float(rows[pick, me])
            value_of[after] = total / len(faces)
        return [value_of[after] for after in afters]
