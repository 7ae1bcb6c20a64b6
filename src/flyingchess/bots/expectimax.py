"""The expectimax bot: looks one roll past its own move, over the six faces of the die.

After each candidate move the die is rolled again (the engine's chance step, faces
equally likely). If the roll is the bot's own (an extra roll) it plays its best reply;
if it is the next opponent's, that opponent is assumed to play the reply that is best
for it by the same evaluation (max-n). The leaves are valued by bots/evaluation.py.
"""

from __future__ import annotations

from typing import ClassVar, Final

from ..engine.compiled import CHANCE_OUTCOMES
from ..engine.game import State, apply_unchecked, legal_moves, moves_unchecked, play_unchecked
from .greedy import GreedyBot

FACES: Final = tuple(face for face, _ in CHANCE_OUTCOMES)
if {chance for _, chance in CHANCE_OUTCOMES} != {1 / len(FACES)}:
    raise AssertionError("expectimax averages over equally likely faces")


class ExpectimaxBot(GreedyBot):
    """The greedy bot's evaluation, one chance layer deeper."""

    name: ClassVar[str] = "expectimax"

    def choose(self, state: State) -> int | None:
        moves = legal_moves(state)
        if len(moves) <= 1:
            return moves[0] if moves else None
        player = state.turn
        best, best_value = moves[0], float("-inf")
        outcomes: dict[State, float] = {}  # planes on one cell give one outcome
        for plane in moves:  # ties go to the lowest plane index
            after = apply_unchecked(state, plane)
            if after not in outcomes:
                outcomes[after] = self.expected_value(after, player)
            if outcomes[after] > best_value:
                best, best_value = plane, outcomes[after]
        return best

    def expected_value(self, state: State, player: int) -> float:
        """The value for `player` of a state waiting for the die, averaged over the roll,
        with the roller's reply chosen by the evaluation from the roller's point of view."""
        evaluator = self.evaluator
        if state.over:
            return evaluator.value(state, player)
        roller = state.turn
        total = 0.0
        for face in FACES:
            replies = moves_unchecked(state, face)
            if not replies:
                total += evaluator.value(play_unchecked(state, face, None), player)
                continue
            best_for_roller, value_for_player = float("-inf"), 0.0
            for reply in replies:
                child = play_unchecked(state, face, reply)
                if child.over:
                    for_roller = evaluator.value(child, roller)
                    for_player = evaluator.value(child, player)
                else:
                    equities = evaluator.equities(child)
                    for_roller = evaluator.value(child, roller, equities)
                    for_player = for_roller if roller == player else evaluator.value(child, player, equities)
                if for_roller > best_for_roller:
                    best_for_roller, value_for_player = for_roller, for_player
            total += value_for_player
        return total / len(FACES)
