"""How well the win chances are calibrated: predicted against observed, and Brier scores.

    python benchmarks/calibration.py --games 2000

Plays fresh games with the batch simulator (every seat the heuristic bot, or `--explore`
of its moves random), takes the position before every `--every`-th roll of each game,
and compares each player's predicted chance to finish first with whether it did:
- a reliability table: predictions in 10 bins, the mean prediction and the observed
  share of wins in each (a calibrated estimate has the two close in every bin);
- the Brier score (mean squared error of the chances, per player and position), for the
  value network and for a naive estimate: each player's share of 1 / (expected rolls it
  still needs), from the move table, the "pips to go" of Ludo players.
A run that collects no position fails: there would be nothing to compare.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from flyingchess import Rules
from flyingchess.bots.value import encode, shipped_net, value_tables
from flyingchess.engine.compiled import move_table
from flyingchess.envs.batch import BatchGame, heuristic_actions, random_actions

BINS = 10


def collect(preset: str, players: int, games: int, every: int, explore: float, seed: int) -> tuple[np.ndarray, ...]:
    """(network chances, naive chances, outcomes), each [positions, players]."""
    rng = np.random.default_rng(seed)
    rules = Rules.preset(preset)
    game = BatchGame(rules, players, games)
    tables = value_tables(rules, game.players)
    rolls_left = np.array(move_table(rules).expected_rolls, np.float64)  # by progress + 1
    net = shipped_net()
    predicted, naive, owner = [], [], []
    step = 0
    while not (game.winner >= 0).all():
        undecided = np.flatnonzero(game.winner < 0)
        if step % every == 0 and len(undecided):
            positions = game.positions[undecided]
            turn = game.turn[undecided].astype(np.intp)
            offsets = net.position_offsets(rules, game.players, positions, turn)  # the seat calibration
            slots = net.chances(encode(tables, positions, turn, game.sixes[undecided]), players, offsets)[:, :players]
            order = (turn[:, None] + np.arange(players)) % players
            by_player = np.zeros_like(slots)
            np.put_along_axis(by_player, order, slots, axis=1)
            predicted.append(by_player)
            need = rolls_left[positions.astype(np.intp) + 1].sum(axis=2)  # [n, players]
            inverse = 1 / np.maximum(need, 1e-9)
            naive.append(inverse / inverse.sum(axis=1, keepdims=True))
            owner.append(undecided)
        rolls = game.roll(rng)
        mask = game.move_mask(rolls)
        actions = heuristic_actions(game, rolls, mask)
        if explore:
            actions = np.where(rng.random(game.batch) < explore, random_actions(mask, rng), actions)
        game.step(rolls, actions)
        step += 1
    if not predicted:
        raise SystemExit("no position collected: nothing to compare")
    outcome = np.eye(players)[game.winner[np.concatenate(owner)]]
    return np.concatenate(predicted), np.concatenate(naive), outcome


def brier(chances: np.ndarray, outcome: np.ndarray) -> float:
    return float(((chances - outcome) ** 2).mean())


def reliability(chances: np.ndarray, outcome: np.ndarray) -> list[tuple[str, int, float, float]]:
    flat, won = chances.ravel(), outcome.ravel()
    bins = np.minimum((flat * BINS).astype(int), BINS - 1)
    rows = []
    for b in range(BINS):
        inside = bins == b
        if inside.any():
            rows.append(
                (
                    f"{b / BINS:.1f}-{(b + 1) / BINS:.1f}",
                    int(inside.sum()),
                    float(flat[inside].mean()),
                    float(won[inside].mean()),
                )
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, nargs="+", default=[4, 2])
    parser.add_argument("--every", type=int, default=8, help="take the position before every N-th roll")
    parser.add_argument("--explore", type=float, default=0.0, help="share of the bots' moves made at random")
    parser.add_argument("--seed", type=int, default=77)
    args = parser.parse_args()
    if args.games < 1:
        raise SystemExit("--games must be at least 1")
    for players in args.players:
        started = time.perf_counter()
        predicted, naive, outcome = collect(args.preset, players, args.games, args.every, args.explore, args.seed)
        print(
            f"\n{players} players, {args.preset}, {args.games} games of heuristic bots"
            f" ({args.explore:.0%} random moves), {len(outcome):,} positions, seed {args.seed}"
            f" ({time.perf_counter() - started:.0f} s)"
        )
        print(
            f"  Brier score: network {brier(predicted, outcome):.4f}, naive {brier(naive, outcome):.4f}"
            f" (always 1/{players}: {brier(np.full_like(outcome, 1 / players), outcome):.4f})"
        )
        print("  predicted   predictions  mean predicted  observed    (network)")
        for label, count, mean, observed in reliability(predicted, outcome):
            print(f"  {label:9} {count:13,}  {mean:14.3f}  {observed:8.3f}")
        print("  predicted   predictions  mean predicted  observed    (naive)")
        for label, count, mean, observed in reliability(naive, outcome):
            print(f"  {label:9} {count:13,}  {mean:14.3f}  {observed:8.3f}")


if __name__ == "__main__":
    main()
