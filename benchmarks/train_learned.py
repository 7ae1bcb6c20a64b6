"""Train the learned bot's weights by TD(0) self-play on the batch simulator.

    python benchmarks/train_learned.py                 # the recorded run (prints figures)
    python benchmarks/train_learned.py --write         # ... and rewrite bots/learned_weights.py

Model: a logistic value V(x) = 1 / (1 + exp(-w . x)) over the afterstate features of
bots/learned.py (the same `features` function the bot calls), for the player who has just
moved: the chance that it finishes first. Every seat of every game is played by the current
weights, epsilon-greedy (1 ply over the legal moves, `batch_afterstates`). After each move
the mover's previous afterstate x' learns towards its new one: w += alpha * (V(x) - V(x')) x'
(the logistic-regression form of the TD(0) step, averaged over the batch; alpha decays linearly to a tenth); when a player
finishes first every player's last afterstate learns towards 1 (the winner) or 0, and the game
restarts. Each round plays one (preset, player count) configuration drawn from CONFIGS
(classic twice as often), so the weights serve every preset and 2-4 players.

Recorded run (the defaults: --rounds 150 --steps 200 --batch 512 --alpha 3 decaying linearly to
0.3, --epsilon 0.1 --seed 2024; 87,464 training games, 3.3 minutes on one busy core):
    batch check, 2p classic, 2000 games: 85.8% against random, 65.7% against heuristic
    flyingchess simulate --bots learned,heuristic --games 2000 --rules classic --seed 1 --jobs 1
        learned 66.1% (95% interval 63.9-68.1%)
    flyingchess simulate --bots learned,random --games 2000 --rules classic --seed 1 --jobs 1
        learned 85.4% (83.8-86.9%)
    flyingchess simulate --bots learned,greedy --games 2000 --rules classic --seed 1 --jobs 1
        learned 45.8% (43.6-47.9%): weaker than greedy, hence listed below it
    4p classic, learned against three heuristic (1000 games): 37.3% (34.4-40.3%; 25% is par)
    2p traditional against heuristic (1000 games): 72.8% (70.0-75.5%)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from flyingchess import PRESETS, Rules
from flyingchess.bots.learned import FEATURE_NAMES, FEATURES, win_chance
from flyingchess.envs.batch import PASS_ACTION, BatchGame, heuristic_actions, random_actions
from flyingchess.envs.training import batch_actions, batch_afterstates, batch_features, batch_winner

CONFIGS = [("classic", 2), ("classic", 2), ("classic", 3), ("classic", 4)] + [
    (preset, players) for preset in PRESETS if preset != "classic" for players in (2, 3, 4)
]
WEIGHTS_MODULE = Path(__file__).resolve().parent.parent / "src/flyingchess/bots/learned_weights.py"


def train_round(
    game: BatchGame, weights: np.ndarray, steps: int, alpha: float, epsilon: float, rng: np.random.Generator
) -> int:
    """`steps` rolls of self-play in every game of `game`, learning as it goes; returns the
    number of games finished."""
    batch, count = game.batch, len(game.players)
    rows = np.arange(batch)
    previous = np.zeros((batch, count, FEATURES))
    has_previous = np.zeros((batch, count), np.bool_)
    finished = 0
    for _ in range(steps):
        rolls = game.roll(rng)
        mask = game.move_mask(rolls)
        me = game.turn.astype(np.intp)
        found, _ = batch_afterstates(game, rolls, mask, weights)
        actions = np.where(mask.any(axis=1), np.argmax(found, axis=1), PASS_ACTION)
        explore = rng.random(batch) < epsilon
        actions = np.where(explore, random_actions(mask, rng), actions)
        game.step_unchecked(rolls, actions)
        winner = batch_winner(game)
        done = winner >= 0
        after = batch_features(game, me)
        # TD(0) for the mover: its previous afterstate towards the new one
        learn = has_previous[rows, me] & ~done
        before = previous[rows, me]
        delta = (win_chance(weights, after) - win_chance(weights, before)) * learn
        gradient = delta @ before
        updates = int(learn.sum())
        previous[rows, me] = after
        has_previous[rows, me] = True
        # end of game: every player's last afterstate towards 1 (the winner) or 0
        ended = np.flatnonzero(done)
        if len(ended):
            outcome = (winner[ended, None] == np.arange(count)).astype(np.float64)
            last = previous[ended]
            delta_end = outcome - win_chance(weights, last.reshape(-1, FEATURES)).reshape(len(ended), count)
            delta_end *= has_previous[ended]
            gradient += np.einsum("gp,gpf->f", delta_end, last)
            updates += int(has_previous[ended].sum())
            game.reset_games(ended)
            has_previous[ended] = False
            finished += len(ended)
        weights += alpha * gradient / max(updates, 1)
    return finished


def play_against(
    rules: Rules, players: int, weights: np.ndarray, opponent: str, games: int, rng: np.random.Generator
) -> float:
    """The learned policy's win rate in seat s of game i (s = i mod players) against
    `opponent` ("random" or "heuristic") in every other seat, in one batch."""
    game = BatchGame(rules, players, games)
    seat = np.arange(games) % players
    while not (batch_winner(game) >= 0).all():
        rolls = game.roll(rng)
        mask = game.move_mask(rolls)
        mine = batch_actions(game, rolls, weights)
        theirs = random_actions(mask, rng) if opponent == "random" else heuristic_actions(game, rolls, mask)
        decided = batch_winner(game) >= 0
        actions = np.where(decided, PASS_ACTION, np.where(game.turn == seat, mine, theirs))
        rolls = np.where(decided, 1, rolls)
        game.step_unchecked(rolls, np.where(mask.any(axis=1) & ~decided, actions, PASS_ACTION))
    return float((batch_winner(game) == seat).mean())


def write_weights(weights: np.ndarray) -> None:
    text = WEIGHTS_MODULE.read_text()
    head = text[: text.index("LEARNED_WEIGHTS")]
    lines = "".join(f"    {value:.4f},  # {name}\n" for name, value in zip(FEATURE_NAMES, weights))
    WEIGHTS_MODULE.write_text(f"{head}LEARNED_WEIGHTS: Final[tuple[float, ...]] = (\n{lines})\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--steps", type=int, default=200, help="rolls per round")
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--alpha", type=float, default=3.0)
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--eval-games", type=int, default=2000)
    parser.add_argument("--write", action="store_true", help="rewrite bots/learned_weights.py")
    arguments = parser.parse_args()
    rng = np.random.default_rng(arguments.seed)
    weights = np.zeros(FEATURES)
    games: dict[tuple[str, int], BatchGame] = {}
    start = time.perf_counter()
    finished = 0
    for round_ in range(arguments.rounds):
        preset, players = CONFIGS[int(rng.integers(len(CONFIGS)))]
        key = (preset, players)
        if key not in games:
            games[key] = BatchGame(Rules.preset(preset), players, arguments.batch)
        alpha = arguments.alpha * (1 - 0.9 * round_ / arguments.rounds)  # linear decay to a tenth
        finished += train_round(games[key], weights, arguments.steps, alpha, arguments.epsilon, rng)
        if (round_ + 1) % 10 == 0:
            print(
                f"round {round_ + 1}: {finished} games, {time.perf_counter() - start:.0f} s, "
                f"weights {np.round(weights, 2).tolist()}",
                flush=True,
            )
    classic = Rules.preset("classic")
    for opponent in ("random", "heuristic"):
        rate = play_against(classic, 2, weights, opponent, arguments.eval_games, rng)
        print(f"2p classic vs {opponent}: learned wins {rate:.3f} of {arguments.eval_games} (batch check)")
    for name, value in zip(FEATURE_NAMES, weights):
        print(f"  {name:24s} {value:+.4f}")
    print(f"trained in {time.perf_counter() - start:.0f} s")
    if arguments.write:
        write_weights(weights)
        print(f"wrote {WEIGHTS_MODULE}")


if __name__ == "__main__":
    main()
