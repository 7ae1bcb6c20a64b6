"""The greedy bot's batched twin: the evaluation of bots/evaluation.py over a whole batch
of games, and greedy's 1-ply choice in every game at once.

Why a twin: a best response to `greedy` is trained over millions of games
(benchmarks/train_response.py), and the vector environment and the ceiling's playouts
seat it; asking the engine's bot game by game would take most of the time. The values
come from the same tables as the Evaluator's (`Evaluator.tables`, the compiled captures
through `learned.feature_tables`), and every sum and product is taken in the Evaluator's
own order, so the twin picks exactly greedy's move (tests/test_greedy_twin.py holds the
two equal on random games of every preset).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..bots.evaluation import PLACE_STEP, WIN, Evaluator, default_evaluator
from ..bots.learned import feature_tables
from ..engine.board import CENTRE, LANE_LAST, PLANES_PER_COLOUR
from .batch import PASS_ACTION, BatchGame, Bools, Indices, best_afterstates

Floats = npt.NDArray[np.float64]


def _hit_masks(game: BatchGame) -> npt.NDArray[np.intp]:
    """[B, attacker, victim, plane]: the faces (bit f for face f, as the Evaluator's hit
    maps) with which any plane of the attacker, as it stands, sends that plane home."""
    tables = feature_tables(game.rules, game.players)
    count = len(game.players)
    cells = game.positions.astype(np.intp) + 1
    keys = np.arange(count)[:, None] * (CENTRE + 2) + cells  # [B, P, 4]
    index = keys[:, :, :, None, None] * (count * (CENTRE + 2)) + keys[:, None, None, :, :]
    faces = np.bitwise_or.reduce(tables.hit_faces[index], axis=2).astype(np.intp)  # face f: bit f - 1
    masks: npt.NDArray[np.intp] = faces << 1
    return masks


def equities(game: BatchGame, evaluator: Evaluator) -> Floats:
    """[B, players]: `Evaluator.equities` of every game as it stands (waiting for the die)."""
    tables = evaluator.tables(game.rules)
    weights = evaluator.weights
    values, losses = np.array(tables.values), np.array(tables.losses)
    hit_chance = np.array(tables.hit_chance)
    count = len(game.players)
    positions = game.positions.astype(np.intp)
    masks = _hit_masks(game)
    turn = game.turn.astype(np.intp)
    order = (np.arange(count)[None, :] - turn[:, None]) % count  # [B, P]
    danger, late = weights["danger"], weights["late_danger"]
    playing = (positions >= 0) & (positions < CENTRE)  # [B, P, 4]
    survive = np.ones(positions.shape)
    victims = np.arange(count)[None, :, None]
    for other in range(count):  # in the Evaluator's order: the same product to the last bit
        mask = masks[:, other]  # [B, victim, plane]
        chance = hit_chance[mask]  # not 0 for no face where every face rolls again
        early = (order[:, other, None] < order)[:, :, None]
        hit = (mask != 0) & (victims != other)
        survive = np.where(hit, survive * (1.0 - np.where(early, chance, late * chance)), survive)
    loss = danger * (1.0 - survive) * losses[positions + 1]
    plane_values = values[positions + 1]
    out = np.zeros((game.batch, count))
    for plane in range(PLANES_PER_COLOUR):  # the Evaluator's sum, plane after plane
        out = out + plane_values[:, :, plane]
        out = np.where(playing[:, :, plane], out - loss[:, :, plane], out)
    active = playing.sum(axis=2)
    out = np.where(active >= 1, out + weights["one_active"], out)
    out = np.where(active >= 2, out + weights["two_active"], out)
    if weights["stacked"]:
        on_ring = (positions >= 1) & (positions <= LANE_LAST)
        shared = (on_ring & ((positions[..., :, None] == positions[..., None, :]).sum(axis=3) > 1)).sum(axis=2)
        out = out + weights["stacked"] * shared
    if tables.three_sixes:
        _three_sixes(game, out, losses, weights["three_sixes"])
    return out


def _three_sixes(game: BatchGame, out: Floats, losses: Floats, weight: float) -> None:
    """Where a six would be the roller's third: minus what the penalty would send home, / 6."""
    rows = np.flatnonzero((game.sixes >= 2) & ~game.over)
    if not len(rows):
        return
    punished = game.take(rows)
    roller = punished.turn.astype(np.intp)
    before = punished.positions[np.arange(len(rows)), roller].astype(np.intp)
    punished.step_unchecked(np.full(len(rows), 6, np.intp), np.full(len(rows), PASS_ACTION, np.intp))
    after = punished.positions[np.arange(len(rows)), roller]
    lost = np.zeros(len(rows))
    for plane in range(PLANES_PER_COLOUR):
        lost = np.where(before[:, plane] != after[:, plane], lost + losses[before[:, plane] + 1], lost)
    out[rows, roller] -= weight * lost / 6


def values(game: BatchGame, me: npt.ArrayLike, evaluator: Evaluator) -> Floats:
    """[B]: `Evaluator.value` of every game as it stands for player `me` [B]."""
    me = np.asarray(me, np.intp)
    rows = np.arange(game.batch)
    count = len(game.players)
    equity = equities(game, evaluator)
    ranked = game.ranked.astype(np.intp)
    placed = (game.ranking == me[:, None]) & (np.arange(count) < ranked[:, None])
    leader, opponents = evaluator.weights["leader"], evaluator.weights["opponents"]
    total, best, others = np.zeros(game.batch), np.full(game.batch, -np.inf), np.zeros(game.batch, np.intp)
    finished = (game.ranking[:, :, None] == np.arange(count)).any(axis=1)  # [B, P]: ranked already
    for other in range(count):
        counted = (other != me) & ~finished[:, other]
        total = np.where(counted, total + equity[:, other], total)
        best = np.where(counted, np.maximum(best, equity[:, other]), best)
        others += counted
    rival = (1.0 - leader) * total / np.maximum(others, 1) + leader * best
    playing = np.where(others > 0, equity[rows, me] - opponents * rival - PLACE_STEP * ranked, equity[rows, me])
    result: Floats = np.where(
        placed.any(axis=1), WIN - PLACE_STEP * placed.argmax(axis=1), np.where(game.over, -WIN, playing)
    )
    return result


def greedy_actions(
    game: BatchGame, rolls: npt.ArrayLike, mask: Bools | None = None, evaluator: Evaluator | None = None
) -> Indices:
    """The greedy bot's choice in every game (bots/greedy.py): the legal move whose
    resulting position the evaluation values best for the mover, ties to the lowest
    plane; PASS_ACTION where nothing is legal. `mask` ([B, 4] or [B, 5]) defaults to
    `game.move_mask(rolls)`."""
    chosen = evaluator or default_evaluator()
    legal = game.move_mask(rolls) if mask is None else mask[:, :PLANES_PER_COLOUR]
    return best_afterstates(game, rolls, legal, lambda after, movers: values(after, movers, chosen))
