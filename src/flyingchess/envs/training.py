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

from ..board import CENTRE, PLANES_PER_COLOUR
from ..bots.learned import FEATURES, Floats, feature_tables, features, scores
from ..bots.value import PREVIEW_FEATURES, ValueNet, encode, value_tables
from ..bots.value import Floats as Inputs
from ..rules import Rules
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


def roll_previews(game: BatchGame) -> Inputs:
    """float32 [B, 6 * PREVIEW_FEATURES]: for each face of the roll to come, what the
    player to roll could do with it (its legal moves as the compiled tables play them: the
    environments' move previews, summed up over the planes so that no plane's number
    matters): whether it may move at all, the most progress one move gains (/56), and
    whether some move captures, jumps or flies, and reaches the centre. The inputs a
    network with previews adds (bots/value.py, PREVIEW_INPUTS)."""
    out = np.zeros((game.batch, 6, PREVIEW_FEATURES), np.float32)
    for face in range(1, 7):
        rolls = np.full(game.batch, face, np.intp)
        legal = game.move_mask(rolls)
        start, captures, special = game.move_facts(rolls)
        paths = start.view(np.uint8).astype(np.intp) * 7 + face
        lands = (game.arrays.end_words[paths] & np.uint32(0xFF)).astype(np.uint8).view(np.int8)
        gain = (np.maximum(lands, 0).astype(np.float32) - np.maximum(start, 0)) / CENTRE
        row = out[:, face - 1]
        row[:, 0] = legal.any(axis=1)
        row[:, 1] = np.where(legal.any(axis=1), np.where(legal, gain, -np.inf).max(axis=1), 0)  # < 0: a bounce
        row[:, 2] = (captures & legal).any(axis=1)
        row[:, 3] = (special & legal).any(axis=1)
        row[:, 4] = ((lands == CENTRE) & legal).any(axis=1)
    previews: Inputs = out.reshape(game.batch, -1)
    return previews


def game_inputs(net: ValueNet, game: BatchGame, learner: npt.ArrayLike | None = None) -> Inputs:
    """`encode`'s inputs for `net` of every game as it stands, with the roll previews
    appended for a network that takes them."""
    inputs = encode(value_tables(game.rules, game.players), game.positions, game.turn, game.sixes, learner)
    if not net.previews:
        return inputs
    with_previews: Inputs = np.concatenate([inputs, roll_previews(game)], axis=1)
    return with_previews


def network_inputs(
    net: ValueNet,
    rules: Rules,
    players: tuple[str, ...],
    positions: npt.NDArray[np.int8],
    turn: npt.ArrayLike,
    sixes: npt.ArrayLike,
    learner: npt.ArrayLike | None = None,
) -> Inputs:
    """`game_inputs` for positions kept apart from their games (the trainer's samples)."""
    if not net.previews:
        return encode(value_tables(rules, players), positions, turn, sixes, learner)
    return game_inputs(net, games_at(rules, players, positions, turn, sixes), learner)


def games_at(
    rules: Rules, players: tuple[str, ...], positions: npt.NDArray[np.int8], turn: npt.ArrayLike, sixes: npt.ArrayLike
) -> BatchGame:
    """A batch of games standing at positions kept apart from their games (the trainer's
    samples: before a roll, nobody finished yet)."""
    game = BatchGame(rules, players, len(positions))
    game.positions[:] = positions
    game.turn[:] = np.asarray(turn).reshape(-1)
    game.sixes[:] = np.asarray(sixes).reshape(-1)
    return game


def mover_chances(game: BatchGame, me: npt.ArrayLike, net: ValueNet) -> Floats:
    """[B]: the value network's chance that player `me` [B] finishes first in each game
    as it stands (1 or 0 once someone has)."""
    count = len(game.players)
    inputs = game_inputs(net, game)
    offsets = net.position_offsets(game.rules, game.players, game.positions, game.turn)
    chances = net.chances(inputs, count, offsets)
    me = np.asarray(me, np.intp)
    slot = (me - game.turn) % count
    mine = chances[np.arange(game.batch), slot].astype(np.float64)
    winner = batch_winner(game)
    result: Floats = np.where(winner >= 0, (winner == me).astype(np.float64), mine)
    return result


def player_chances(game: BatchGame, net: ValueNet) -> Floats:
    """[B, players]: every player's chance to finish first in each game as it stands, by
    player (not slot, as `win_chances` gives them): the network's, with its seat
    calibration if it has one, or 1 for whoever finished first once someone has."""
    count = len(game.players)
    turn = game.turn.astype(np.intp)
    offsets = net.position_offsets(game.rules, game.players, game.positions, turn)
    slots = net.chances(game_inputs(net, game), count, offsets)[:, :count]
    chances = np.empty((game.batch, count))
    np.put_along_axis(chances, (turn[:, None] + np.arange(count)) % count, slots, axis=1)
    winner = batch_winner(game)
    decided = winner >= 0
    chances[decided] = np.eye(count)[winner[decided]]
    return chances


def searched_chances(game: BatchGame, net: ValueNet, depth: int) -> Floats:
    """[B, players]: `player_chances` searched `depth` rolls deep, in games waiting for
    the die: every face of the roll, the roller making the move (or the pass) whose
    position, itself searched a roll less, is best for it (ties to the lowest plane); the
    network at the leaves. The targets of expert iteration (benchmarks/train_value.py
    --expert): a search's values are what `ace` plays by, and they are far less noisy
    than the outcome of one game."""
    chances = player_chances(game, net)
    open_games = np.flatnonzero(batch_winner(game) < 0)
    if depth == 0 or not len(open_games):
        return chances
    count = len(game.players)
    faces = np.tile(np.arange(1, 7, dtype=np.int8), len(open_games))
    rolled = game.take(np.repeat(open_games, 6))
    rollers = rolled.turn.astype(np.intp)
    legal = rolled.move_mask(faces)
    best = np.full(len(faces), -np.inf)
    chosen = np.zeros((len(faces), count))
    for action in range(PASS_ACTION + 1):
        movable = legal[:, action] if action < PASS_ACTION else ~legal.any(axis=1)
        rows = np.flatnonzero(movable)
        if not len(rows):
            continue
        after = rolled.take(rows)
        after.step_unchecked(faces[rows], np.full(len(rows), action))
        values = searched_chances(after, net, depth - 1)
        mine = values[np.arange(len(rows)), rollers[rows]]
        better = mine > best[rows]
        best[rows[better]] = mine[better]
        chosen[rows[better]] = values[better]
    chances[open_games] = chosen.reshape(len(open_games), 6, count).mean(axis=1)
    return chances


def value_actions(game: BatchGame, rolls: npt.ArrayLike, net: ValueNet) -> npt.NDArray[np.intp]:
    """The value network's 1-ply choice in every game: the legal move after which the
    mover's chance to finish first is highest (ties to the lowest plane; PASS_ACTION where
    nothing is legal)."""
    return best_afterstates(game, rolls, game.move_mask(rolls), lambda after, movers: mover_chances(after, movers, net))


def learner_chances(game: BatchGame, learner: npt.NDArray[np.intp], net: ValueNet) -> Floats:
    """[B]: a best-response network's chance that its learner (player indices [B])
    finishes first in each game as it stands (1 or 0 once someone has)."""
    count = len(game.players)
    inputs = encode(value_tables(game.rules, game.players), game.positions, game.turn, game.sixes, learner)
    chances = net.chances(inputs, count)
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
    "games_at",
    "learner_chances",
    "mover_chances",
    "player_chances",
    "response_actions",
    "searched_chances",
    "value_actions",
]
