"""The learned bot: 1 ply over its legal moves, each afterstate judged by a learned value.

The value is a logistic model over a few hand-made afterstate features (`features`),
trained by TD(0) self-play on the batch simulator (benchmarks/train_learned.py, with the
batch helpers of `flyingchess.envs.training`). The one feature function works on arrays
shaped [B, players, 4]: the trainer calls it on whole batches, the bot on the k
afterstates of one decision, so nothing is written twice.
Every rule fact comes from the engine (the move table's paths, their capture checks and
expected rolls), so the features, and the bot, follow every rule option.
Needs NumPy (the `rl` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from ..engine.board import CENTRE, HANGAR, PLANES_PER_COLOUR
from ..engine.compiled import compile_game
from ..engine.game import State, apply_unchecked, legal_moves
from ..engine.rules import Rules
from .learned_weights import LEARNED_WEIGHTS

Floats = npt.NDArray[np.float64]

FEATURE_NAMES: Final = (
    "two_players",
    "three_players",
    "four_players",
    "my_progress",
    "best_opponent_progress",
    "mean_opponent_progress",
    "my_hangar",
    "mean_opponent_hangar",
    "my_finished",
    "best_opponent_finished",
    "my_danger",
    "my_threat",
    "extra_roll",
    "extra_roll_threat",
    "extra_roll_danger",
    "one_active",
    "two_active",
)
"""The afterstate features, from the point of view of the player who has just moved."""
FEATURES: Final = len(FEATURE_NAMES)

WIN_SCORE: Final = 1e6
"""Added to the score of an afterstate in which the mover has finished first."""

_PROGRESS_CELLS: Final = CENTRE + 2
"""Progress values -1..56, indexed by progress + 1."""
_FACE_COUNTS: Final = np.array([bin(bits).count("1") / 6 for bits in range(64)])
"""_FACE_COUNTS[bits]: the share of die faces in a 6-bit face mask."""


class FeatureTables(NamedTuple):
    """What the features need from one rule set and player list, computed once."""

    progress: Floats
    """progress[p + 1]: how far a lone plane at p is from the hangar towards the centre,
    in expected rolls, scaled to 0 (hangar) .. 1 (centre)."""
    hit_faces: npt.NDArray[np.uint8]
    """Flat [attacker, p + 1, victim, q + 1]: the faces (bit f - 1 for face f) with which a
    plane of player `attacker` at p sends a plane of player `victim` at q home."""


@lru_cache(maxsize=64)
def feature_tables(rules: Rules, players: tuple[str, ...]) -> FeatureTables:
    """The tables for `rules` and `players` (colours in turn order; cached): the compiled
    game's expected rolls and its captures (every capture check of every path, and where
    flights capture, the flight line's crossing cell of the opposite colour)."""
    game = compile_game(rules, players)
    rolls = np.array(game.table.expected_rolls)
    progress = (rolls[0] - rolls) / rolls[0]
    count = len(players)
    hits = np.zeros((count, _PROGRESS_CELLS, count, _PROGRESS_CELLS), np.uint8)
    for attacker in range(count):
        for start in range(HANGAR, CENTRE + 1):
            for (victim, target), faces in game.hit_faces[attacker][start + 1]:
                hits[attacker, start + 1, victim, target + 1] = faces >> 1  # face f: bit f - 1
    return FeatureTables(progress, hits.reshape(-1))


def danger_and_threat(tables: FeatureTables, positions: npt.NDArray[np.int8]) -> tuple[Floats, Floats, Floats]:
    """For [B, players, 4] positions: (each plane's progress value [B, P, 4]; each player's
    expected loss of progress before it rolls again, were every other player to roll
    once [B, P]; the progress each player's next roll threatens to send home [B, P])."""
    value, chance = hit_chances(tables, positions)
    danger = (np.minimum(chance.sum(axis=1), 1) * value).sum(axis=2)  # [B, P]: expected loss
    threat = (chance * value[:, None]).sum(axis=(2, 3))  # [B, P]: by attacker
    return value, danger, threat


def hit_chances(tables: FeatureTables, positions: npt.NDArray[np.int8]) -> tuple[Floats, Floats]:
    """For [B, players, 4] positions: (each plane's progress value [B, P, 4]; the chance
    that one roll of each attacker hits each plane, [B, attacker, victim, plane])."""
    count = positions.shape[1]
    cells = positions.astype(np.intp) + 1  # [B, P, 4]
    value = tables.progress[cells]  # [B, P, 4]
    # faces[b, attacker, victim, plane]: faces with which any attacker plane hits that plane
    keys = np.arange(count)[:, None] * _PROGRESS_CELLS + cells  # [B, P, 4]
    index = keys[:, :, :, None, None] * (count * _PROGRESS_CELLS) + keys[:, None, None, :, :]
    faces = np.bitwise_or.reduce(tables.hit_faces[index], axis=2)  # [B, P, P, 4]
    return value, _FACE_COUNTS[faces]


def features(tables: FeatureTables, positions: npt.NDArray[np.int8], turn: npt.ArrayLike, me: npt.ArrayLike) -> Floats:
    """float [B, FEATURES]: the features of B afterstates for player `me` ([B] indices).

    `positions` is [B, players, 4] progress values (`State.planes` / `BatchGame.positions`),
    `turn` [B] the player to roll next."""
    count = positions.shape[1]
    mine = np.arange(count) == np.asarray(me)[:, None]  # [B, P]
    others = ~mine
    value, danger, threat = danger_and_threat(tables, positions)
    progress = value.sum(axis=2) / PLANES_PER_COLOUR
    hangar = (positions == HANGAR).sum(axis=2) / PLANES_PER_COLOUR
    finished = (positions == CENTRE).sum(axis=2) / PLANES_PER_COLOUR
    active = ((positions != HANGAR) & (positions != CENTRE)).sum(axis=2)
    my_danger = (danger * mine).sum(axis=1)
    my_threat = (threat * mine).sum(axis=1)
    my_active = (active * mine).sum(axis=1)
    extra = (np.asarray(turn) == np.asarray(me)).astype(np.float64)
    rows = len(positions)
    out = np.empty((rows, FEATURES))
    out[:, 0:3] = np.arange(2, 5) == count
    out[:, 3] = (progress * mine).sum(axis=1)
    out[:, 4] = np.where(others, progress, -1.0).max(axis=1)
    out[:, 5] = (progress * others).sum(axis=1) / (count - 1)
    out[:, 6] = (hangar * mine).sum(axis=1)
    out[:, 7] = (hangar * others).sum(axis=1) / (count - 1)
    out[:, 8] = (finished * mine).sum(axis=1)
    out[:, 9] = np.where(others, finished, -1.0).max(axis=1)
    out[:, 10] = my_danger
    out[:, 11] = my_threat
    out[:, 12] = extra
    out[:, 13] = extra * my_threat
    out[:, 14] = extra * my_danger
    out[:, 15] = my_active >= 1
    out[:, 16] = my_active >= 2
    return out


def scores(weights: Floats, features_: Floats, winner: npt.ArrayLike, me: npt.ArrayLike) -> Floats:
    """The learned logit of each afterstate, plus WIN_SCORE where `me` has finished first
    (`winner`: the first player to finish, -1 while nobody has)."""
    won = np.asarray(winner) == np.asarray(me)
    result: Floats = features_ @ weights + WIN_SCORE * won
    return result


def win_chance(weights: Floats, features_: Floats) -> Floats:
    """The model's chance that the mover finishes first (the logistic of the logit)."""
    result: Floats = 1 / (1 + np.exp(-(features_ @ weights)))
    return result


def _first_finisher(state: State) -> int:
    return state.players.index(state.ranking[0]) if state.ranking else -1


class LearnedBot:
    """Plays the legal move whose afterstate scores best; ties go to the lowest plane."""

    name: ClassVar[str] = "learned"

    def __init__(self, seed: int | None = None, weights: Sequence[float] | None = None) -> None:
        del seed  # deterministic: nothing to seed
        self.weights: Floats = np.array(LEARNED_WEIGHTS if weights is None else weights, np.float64)
        if self.weights.shape != (FEATURES,):
            raise ValueError(f"{FEATURES} weights expected, got {self.weights.shape}")

    def choose(self, state: State) -> int | None:
        moves = legal_moves(state)
        if len(moves) <= 1:
            return moves[0] if moves else None
        return moves[int(np.argmax(self.move_scores(state, moves)))]

    def move_scores(self, state: State, moves: Sequence[int]) -> Floats:
        """The score of each of `moves`' afterstates for the player to move."""
        afters = [apply_unchecked(state, plane) for plane in moves]
        tables = feature_tables(state.rules, state.players)
        positions = np.array([after.planes for after in afters], np.int8)
        me = np.full(len(afters), state.turn)
        turn = np.array([after.turn for after in afters])
        winner = np.array([_first_finisher(after) for after in afters])
        return scores(self.weights, features(tables, positions, turn, me), winner, me)


__all__ = [
    "FEATURES",
    "FEATURE_NAMES",
    "FeatureTables",
    "LearnedBot",
    "feature_tables",
    "features",
    "scores",
    "win_chance",
]
