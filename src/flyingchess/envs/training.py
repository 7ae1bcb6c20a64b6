"""Training the learned bot and the value network on the batch simulator: features,
afterstates and choices for a whole batch of games at once.

The bot (`flyingchess.bots.learned`) judges the k afterstates of one decision; these do
the same for B games, with the same feature function, so a position scores the same in
training and in play. They live here, beside the batch simulator, because bots never
depend on the environments.
"""

from __future__ import annotations

import copy

import numpy as np
import numpy.typing as npt

from ..bots.learned import FEATURES, Floats, feature_tables, features, scores
from ..bots.value import Floats as Inputs
from ..bots.value import ValueNet, encode, value_tables
from ..engine.board import PLANES_PER_COLOUR
from .batch import PASS_ACTION, BatchGame, best_afterstates


def batch_features(game: BatchGame, me: npt.ArrayLike) -> Floats:
    """`features` of every game of a batch as it stands, for players `me` [B]."""
    return features(feature_tables(game.rules, game.players), game.positions, game.turn, me)


def batch_winner(game: BatchGame) -> npt.NDArray[np.int8]:
    """[B]: the first player to finish in each game, -1 while nobody has."""
    winner: npt.NDArray[np.int8] = np.where(game.ranked > 0, game.ranking[:, 0], -1).astype(np.int8)
    return winner


def batch_afterstates(
    game: BatchGame, rolls: npt.ArrayLike, mask: npt.NDArray[np.bool_], weights: Floats
) -> tuple[Floats, Floats]:
    """Score every legal move of every game: (scores [B, 4], -inf where illegal; features
    [B, 4, FEATURES]). `mask` is `game.move_mask(rolls)`; each afterstate is made by the
    batch simulator on a copy of the game (the trainer's counterpart of `apply_unchecked`)."""
    me = game.turn.copy()
    everything = np.arange(game.batch)
    all_scores = np.full((game.batch, PLANES_PER_COLOUR), -np.inf)
    all_features = np.zeros((game.batch, PLANES_PER_COLOUR, FEATURES))
    for plane in range(PLANES_PER_COLOUR):
        legal = mask[:, plane]
        if not legal.any():
            continue
        after = copy.copy(game)
        after.keep(everything)  # fresh arrays: the original game is untouched
        after.step_unchecked(rolls, np.where(legal, plane, PLANES_PER_COLOUR))
        found = batch_features(after, me)
        all_features[:, plane] = found
        all_scores[:, plane] = np.where(legal, scores(weights, found, batch_winner(after), me), -np.inf)
    return all_scores, all_features


def batch_actions(game: BatchGame, rolls: npt.ArrayLike, weights: Floats) -> npt.NDArray[np.intp]:
    """The learned bot's choice in every game of a batch (PASS_ACTION, 4, where nothing is legal);
    ties go to the lowest plane, as in `LearnedBot`."""
    mask = game.move_mask(rolls)
    found, _ = batch_afterstates(game, rolls, mask, weights)
    actions: npt.NDArray[np.intp] = np.where(mask.any(axis=1), np.argmax(found, axis=1), PLANES_PER_COLOUR)
    return actions


def game_inputs(game: BatchGame, learner: npt.ArrayLike | None = None) -> Inputs:
    """`encode`'s inputs of every game of a batch as it stands (with `learner`, for a
    best-response network)."""
    return encode(value_tables(game.rules, game.players), game.positions, game.turn, game.sixes, learner)


def mover_chances(game: BatchGame, me: npt.ArrayLike, net: ValueNet) -> Floats:
    """[B]: the value network's chance that player `me` [B] finishes first in each game
    as it stands (1 or 0 once someone has)."""
    count = len(game.players)
    inputs = game_inputs(game)
    offsets = net.position_offsets(game.rules, game.players, game.positions, game.turn)
    chances = net.chances(inputs, count, offsets)
    me = np.asarray(me, np.intp)
    slot = (me - game.turn) % count
    mine = chances[np.arange(game.batch), slot].astype(np.float64)
    winner = batch_winner(game)
    result: Floats = np.where(winner >= 0, (winner == me).astype(np.float64), mine)
    return result


def value_actions(game: BatchGame, rolls: npt.ArrayLike, net: ValueNet) -> npt.NDArray[np.intp]:
    """The value network's 1-ply choice in every game: the legal move after which the
    mover's chance to finish first is highest (ties to the lowest plane; PASS_ACTION where
    nothing is legal)."""
    return best_afterstates(game, rolls, game.move_mask(rolls), lambda after, movers: mover_chances(after, movers, net))


def learner_chances(game: BatchGame, learner: npt.NDArray[np.intp], net: ValueNet) -> Floats:
    """[B]: a best-response network's chance that its learner (player indices [B])
    finishes first in each game as it stands (1 or 0 once someone has)."""
    count = len(game.players)
    chances = net.chances(game_inputs(game, learner), count)
    mine = chances[np.arange(game.batch), (learner - game.turn) % count].astype(np.float64)
    winner = batch_winner(game)
    result: Floats = np.where(winner >= 0, (winner == learner).astype(np.float64), mine)
    return result


def response_actions(
    game: BatchGame, rolls: npt.NDArray[np.int8], mask: npt.NDArray[np.bool_], net: ValueNet, rows: npt.NDArray[np.intp]
) -> npt.NDArray[np.intp]:
    """A best-response network's 1-ply choice in games `rows` (their mover is its
    learner): [len(rows)] actions, the first legal move where there is no choice; the
    batched twin of AceBot at depth 1 against a known opponent (benchmarks/train_response.py)."""
    legal = mask[rows]
    actions: npt.NDArray[np.intp] = np.where(legal.any(axis=1), np.argmax(legal, axis=1), PASS_ACTION)
    choose = np.flatnonzero(legal.sum(axis=1) >= 2)
    if not len(choose):
        return actions
    sub = game.take(rows[choose])
    me = sub.turn.astype(np.intp)
    everything = np.arange(len(choose))
    values = np.full((len(choose), PLANES_PER_COLOUR), -np.inf)
    for plane in range(PLANES_PER_COLOUR):
        can = legal[choose, plane]
        if not can.any():
            continue
        after = copy.copy(sub)
        after.keep(everything)
        after.step_unchecked(rolls[rows[choose]], np.where(can, plane, PASS_ACTION))
        values[:, plane] = np.where(can, learner_chances(after, me, net), -np.inf)
    actions[choose] = np.argmax(values, axis=1)
    return actions


__all__ = [
    "batch_actions",
    "batch_afterstates",
    "batch_features",
    "batch_winner",
    "game_inputs",
    "learner_chances",
    "mover_chances",
    "response_actions",
    "value_actions",
]
