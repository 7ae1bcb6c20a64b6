"""Tune the evaluation weights (src/flyingchess/bots/weights.py) by simulation.

    python benchmarks/tune_evaluation.py --games 600 --sweeps 2

Coordinate ascent: the score of a weight set is the mean win rate of the greedy bot with
those weights against `heuristic` bots over four fixed settings (classic 2 and 4 players,
traditional 2 players, house 4 players), seats rotated, on the same dice seeds for every
candidate (common random numbers, so differences are far less noisy than the rates).
Each sweep tries every weight (but `rolls`, the unit) one step up and one step down and
keeps a change when it raises the score; steps halve after each sweep. The result is
printed as a dict to paste into weights.py; check it on fresh seeds with bot_strength.py.

Record of the run that produced the shipped weights (2 cores, one process, nice 10):
    python benchmarks/tune_evaluation.py --games 800 --sweeps 2   (seed 1000; stopped after sweep 1)
Start (hand-set): rolls 1, linear 0, takeoff 1, lane 1, centre 1, danger 1, late_danger 0.3,
opponents 1, leader 0.5, one_active 3, two_active 1, stacked 0, three_sixes 1; score 0.5472.
Sweep 1 (22 candidates x 3,200 games, about 8 minutes) kept, in order: linear 0.05 (0.5534),
centre 0 (0.5581), one_active 1 (0.5600), two_active 2 (0.5603), stacked 0.5 (0.5616),
three_sixes 1.5 (0.5625). Every other step lowered the score (takeoff +-1 by up to 0.03,
danger and late_danger +-, opponents and leader +- by 0.000-0.01). The second sweep's first
three candidates did not improve either (0.5622, 0.5522, 0.5244) and the run was stopped for
time. Final score 0.5625 (mean of the four win rates; parity would be 0.375).
Held-out check on other seeds (20000): see bot_strength.py figures in the issue report.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from bot_strength import win_count
from flyingchess import Rules
from flyingchess.bots import make_bot
from flyingchess.bots.evaluation import Evaluator
from flyingchess.bots.greedy import GreedyBot
from flyingchess.bots.weights import TUNED_WEIGHTS

SETTINGS = (("classic", 2), ("classic", 4), ("traditional", 2), ("house", 4))

STEPS: Mapping[str, float] = {
    "linear": 0.05,
    "takeoff": 1.0,
    "lane": 1.0,
    "centre": 1.0,
    "danger": 0.3,
    "late_danger": 0.2,
    "opponents": 0.2,
    "leader": 0.25,
    "one_active": 2.0,
    "two_active": 1.0,
    "stacked": 0.5,
    "three_sixes": 0.5,
}
"""The first step of each weight (`rolls` is the unit and stays 1)."""

BOUNDS: Mapping[str, tuple[float, float]] = {
    "late_danger": (0.0, 1.0),
    "leader": (0.0, 1.0),
    "danger": (0.0, 5.0),
    "opponents": (0.0, 3.0),
}


def score(weights: Mapping[str, float], games: int, seed: int) -> float:
    evaluator = Evaluator(weights)
    rates = []
    for preset, players in SETTINGS:
        wins = win_count(
            Rules.preset(preset),
            players,
            lambda _: GreedyBot(evaluator=evaluator),
            lambda s: make_bot("heuristic", s),
            games,
            seed,
        )
        rates.append(wins / games)
    return sum(rates) / len(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="games per setting per candidate")
    parser.add_argument("--sweeps", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1_000)
    args = parser.parse_args()
    weights = dict(TUNED_WEIGHTS)
    steps = dict(STEPS)
    started = time.perf_counter()
    best = score(weights, args.games, args.seed)
    print(f"start {best:.4f} {weights}", flush=True)
    for sweep in range(args.sweeps):
        for name, step in steps.items():
            low, high = BOUNDS.get(name, (-50.0, 50.0))
            for candidate_value in (weights[name] + step, weights[name] - step):
                candidate_value = round(min(high, max(low, candidate_value)), 4)
                if candidate_value == weights[name]:
                    continue
                candidate = {**weights, name: candidate_value}
                result = score(candidate, args.games, args.seed)
                kept = result > best
                print(
                    f"sweep {sweep} {name:12} {candidate_value:8.3f}: {result:.4f}"
                    f"{'  kept' if kept else ''}  ({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
                if kept:
                    weights, best = candidate, result
                    break
        steps = {name: step / 2 for name, step in steps.items()}
    print(f"final {best:.4f}")
    print("TUNED_WEIGHTS = {" + ", ".join(f'"{k}": {v!r}' for k, v in weights.items()) + "}")


if __name__ == "__main__":
    main()
