"""Learn to beat a random player in under a minute: TD(0) on the batch simulator.

    pip install -e ".[rl]"
    python examples/train_random_vs_learning.py            # under a minute on a laptop CPU
    python examples/train_random_vs_learning.py --games 256 --steps 1500 --seed 7

A learner (seat 0) plays 2-player classic games against a uniformly random player
(seat 1), thousands of games at once in one `BatchGame`. It picks, epsilon-greedily, the
legal move whose afterstate scores best under a logistic value over the learned bot's
features (`flyingchess.bots.learned.features`: race progress in expected rolls, capture
danger and threats, extra rolls, ...); after each of its moves its previous afterstate
learns towards the new one, and towards 1 or 0 when the game ends (TD(0)). It starts from
all-zero weights (it then plays its first legal move) and prints its win rate against
random before and after training. benchmarks/train_learned.py is the full version
(self-play, every preset, 2-4 players) that made the shipped "learned" bot.
"""

from __future__ import annotations

import argparse

import numpy as np

from flyingchess import Rules
from flyingchess.bots.learned import FEATURE_NAMES, FEATURES, win_chance
from flyingchess.envs.batch import PASS_ACTION, BatchGame, random_actions
from flyingchess.envs.training import batch_actions, batch_afterstates, batch_features, batch_winner

LEARNER = 0


def win_rate(weights: np.ndarray, games: int, rng: np.random.Generator) -> float:
    """The greedy learner's share of wins against random; it always takes seat 0 (the first
    move), the same before and after training."""
    game = BatchGame(Rules.preset("classic"), 2, games)
    while not game.over.all():
        rolls = game.roll(rng)
        mine = batch_actions(game, rolls, weights)
        theirs = random_actions(game.move_mask(rolls), rng)
        game.step_unchecked(rolls, np.where(game.turn == LEARNER, mine, theirs))
    return float((game.winner == LEARNER).mean())


def train(weights: np.ndarray, games: int, steps: int, alpha: float, epsilon: float, rng: np.random.Generator) -> None:
    game = BatchGame(Rules.preset("classic"), 2, games)
    previous = np.zeros((games, FEATURES))
    has_previous = np.zeros(games, np.bool_)
    for _ in range(steps):
        rolls = game.roll(rng)
        mask = game.move_mask(rolls)
        learner = game.turn == LEARNER
        found, _ = batch_afterstates(game, rolls, mask, weights)
        greedy = np.where(mask.any(axis=1), np.argmax(found, axis=1), PASS_ACTION)
        explore = rng.random(games) < epsilon
        mine = np.where(explore, random_actions(mask, rng), greedy)
        game.step_unchecked(rolls, np.where(learner, mine, random_actions(mask, rng)))
        done = batch_winner(game) >= 0
        # the target of the learner's previous afterstate: the result, or its new afterstate
        target = np.where(
            done, batch_winner(game) == LEARNER, win_chance(weights, batch_features(game, np.full(games, LEARNER)))
        )
        learn = has_previous & (learner | done)
        delta = (target - win_chance(weights, previous)) * learn
        weights += alpha * (delta @ previous) / max(int(learn.sum()), 1)
        previous = np.where((learner & ~done)[:, None], batch_features(game, np.full(games, LEARNER)), previous)
        has_previous = (has_previous | learner) & ~done
        game.reset_games(np.flatnonzero(done))


def main() -> None:
    parser = argparse.ArgumentParser(description="TD(0) learner against a random player")
    parser.add_argument("--games", type=int, default=512, help="games played at once")
    parser.add_argument("--steps", type=int, default=3000, help="rolls of training")
    parser.add_argument("--alpha", type=float, default=2.0)
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--eval-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    rng = np.random.default_rng(arguments.seed)
    weights = np.zeros(FEATURES)
    before = win_rate(weights, arguments.eval_games, rng)
    print(f"before training: the learner wins {before:.1%} of {arguments.eval_games} games against random")
    train(weights, arguments.games, arguments.steps, arguments.alpha, arguments.epsilon, rng)
    after = win_rate(weights, arguments.eval_games, rng)
    print(f"after training:  the learner wins {after:.1%} of {arguments.eval_games} games against random")
    for name, value in zip(FEATURE_NAMES, weights):
        print(f"  {name:24s} {value:+.3f}")
    print("improved" if after > before else "no improvement: train longer (--steps)")


if __name__ == "__main__":
    main()
