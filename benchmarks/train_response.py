"""Train a best-response value network: every player's chance to finish first when one
player (the learner, flagged in the inputs) plays the network's own choice and every
other seat plays one known bot.

    python benchmarks/train_response.py                       # against heuristic (prints figures)
    python benchmarks/train_response.py --write               # ... and write bots/response_heuristic.npz

The self-play network (benchmarks/train_value.py) answers "who wins if everyone plays
like me"; against three `heuristic` bots that is the wrong question, and the
measurements behind docs/bots.md ("How close to perfect play") say the strength left is
in a value aimed at the opponents actually at the table. So: the same inputs plus the
learner's slot (bots/value.py, RESPONSE_INPUTS), warm-started from the shipped network,
fitted value iteration with TD(lambda) targets as train_value.py does, on games where a
random seat is the learner (the network's 1-ply choice, `--explore` of its moves at
random) and the others play the opponent's batched twin. Every configuration of
train_value.CONFIGS is played every round. Each round ends with a paired check: the
response network's 1-ply choice against three opponents (4 players, classic, seats
rotated) on the same dice as the shipped network's 1-ply choice.

Everything is drawn from one seed; the same seed gives the same weights on the same
NumPy with one BLAS thread (`OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`).

Recorded run (the defaults but eight rounds; 8 minutes on the 2-core development
machine, shared with CI): the response network's one-move choice against three
heuristic bots, paired with the shipped network's on the same 2,000 games each round:

    python benchmarks/train_response.py --rounds 8 --write --out /tmp/response.npz
    round  1: response 43.0%, shipped network 43.0%
    round  3: response 44.4%, shipped network 42.2%
    round  5: response 41.0%, shipped network 42.0%
    round  8: response 42.2%, shipped network 44.0%

No better than the self-play network (+0.05 points on average over the eight rounds),
so no response network ships against `heuristic` (docs/bots.md, "Tried and not
shipped"); with `--lam 1` (Monte-Carlo targets) it fell to 29-39%.

Against `greedy` (its batched twin, envs/evaluation.py), 2026-12-04, 12.5 minutes beside
another run; this is the shipped bots/response_greedy.npz:

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/train_response.py --opponent greedy --rounds 8 --write
    round  1: response 27.1%, shipped network 28.0%
    round  4: response 27.4%, shipped network 25.9%
    round  8: response 27.5%, shipped network 26.2%

and paired on 8,000 games of dice of their own (`--rounds 0 --start
src/flyingchess/bots/response_greedy.npz --final-games 8000 --seed 3000`): one move
ahead, 27.9% against 27.1% with 4 players (+0.8%, -0.5 .. +2.0) and 51.9% against 51.1%
with 2 (+0.8%, -0.4 .. +2.0). In `ace`'s search, see docs/bots.md ("The response
networks").

Responses to mixed tables were tried too and do not ship: docs/bots.md, "Tried and not
shipped".
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from flyingchess import Rules
from flyingchess.bots.value import RESPONSE_INPUTS, ValueNet, read_net, shipped_net
from flyingchess.envs.batch import BatchGame, heuristic_actions, random_actions
from flyingchess.envs.evaluation import greedy_actions
from flyingchess.envs.training import response_actions, value_actions
from flyingchess.simulation.statistics import wilson_interval
from train_value import CONFIGS, Adam, Samples, lambda_returns, predictions, train

Policy = Callable[[BatchGame, npt.NDArray[np.int8], npt.NDArray[np.bool_]], npt.NDArray[np.intp]]


TWINS: dict[str, Policy] = {"heuristic": heuristic_actions, "greedy": greedy_actions}
"""The bots a response can be trained against (every other seat of every game): those
with a batched twin, by registry name."""

WEIGHTS_DIR = Path(__file__).resolve().parents[1] / "src/flyingchess/bots"


def respond(
    rules: Rules,
    players: tuple[str, ...],
    games: int,
    net: ValueNet,
    opponent: Policy,
    explore: float,
    keep: float,
    lam: float,
    rng: np.random.Generator,
    batch: int = 2048,
) -> tuple[Samples, npt.NDArray[np.intp]]:
    """Play `games` games, a random seat of each the learner and every other seat the
    `opponent` (a batched twin), and label every position before a roll with TD(lambda)
    targets of the response network (as train_value.self_play). Returns the samples and
    each sample's learner."""
    game = BatchGame(rules, players, min(batch, games))
    count = len(players)
    positions, turns, sixes, owners, learners = [], [], [], [], []
    winners = np.full(games, -1, np.int8)
    learner_of = rng.integers(0, count, games)
    started = game.batch
    game_of = np.arange(game.batch)
    while True:
        live = np.flatnonzero(game_of >= 0)
        if not len(live):
            break
        positions.append(game.positions[live].copy())
        turns.append(game.turn[live].copy())
        sixes.append(game.sixes[live].copy())
        owners.append(game_of[live].copy())
        learners.append(learner_of[game_of[live]])
        rolls = game.roll(rng)
        mask = game.move_mask(rolls)
        actions = opponent(game, rolls, mask)
        mine = np.flatnonzero((game_of >= 0) & (game.turn == learner_of[np.maximum(game_of, 0)]))
        if len(mine):
            chosen = response_actions(game, rolls, mask, net, mine)
            wander = rng.random(len(mine)) < explore
            actions[mine] = np.where(wander, random_actions(mask[mine], rng), chosen)
        game.step_unchecked(rolls, actions)
        decided = np.flatnonzero((game_of >= 0) & (game.winner >= 0))
        if len(decided):
            winners[game_of[decided]] = game.winner[decided]
            fresh = min(len(decided), games - started)
            game.reset_games(decided[:fresh])
            game_of[decided[:fresh]] = np.arange(started, started + fresh)
            game_of[decided[fresh:]] = -1
            started += fresh
            running = np.flatnonzero(game_of >= 0)
            if 0 < len(running) <= game.batch // 2:
                game.keep(running)
                game_of = game_of[running]
    all_positions, all_turns = np.concatenate(positions), np.concatenate(turns)
    all_sixes, owner, all_learners = np.concatenate(sixes), np.concatenate(owners), np.concatenate(learners)
    outcome = np.eye(count, dtype=np.float32)[winners]
    predicted = predictions(net, rules, players, all_positions, all_turns, all_sixes, all_learners)
    target = lambda_returns(predicted, outcome, owners, lam)
    kept = rng.random(len(owner)) < keep
    samples = Samples(all_positions[kept], all_turns[kept], all_sixes[kept], target[kept])
    return samples, all_learners[kept].astype(np.intp)


def paired_check(
    net: ValueNet, opponent: Policy, games: int, seed: int, players: int = 4, preset: str = "classic"
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per game, 1 or 0: whether the response network's 1-ply choice won, and whether the
    shipped network's did, each against `players - 1` copies of the `opponent` (a
    batched twin), seats rotated, on the same dice."""
    results = []
    for use_response in (True, False):
        rng = np.random.default_rng(seed)
        game = BatchGame(Rules.preset(preset), players, games)
        seat = np.arange(games) % players
        while not game.over.all():
            rolls = game.roll(rng)
            mask = game.move_mask(rolls)
            theirs = opponent(game, rolls, mask)
            if use_response:
                rows = np.flatnonzero(game.turn == seat)
                mine = theirs.copy()
                mine[rows] = response_actions(game, rolls, mask, net, rows)
            else:
                mine = value_actions(game, rolls, shipped_net())
            game.step(rolls, np.where(game.turn == seat, mine, theirs))
        results.append((game.winner == seat).astype(np.float64))
    return results[0], results[1]


def paired_line(mine: npt.NDArray[np.float64], shipped: npt.NDArray[np.float64]) -> str:
    """Both rates and their difference, taken game by game, with its 95% interval."""
    difference = mine - shipped
    half = 1.96 * float(difference.std(ddof=1)) / np.sqrt(len(difference))
    mean = float(difference.mean())
    return (
        f"response {mine.mean():.1%}, shipped network {shipped.mean():.1%} on the same {len(mine):,} games: "
        f"{mean:+.1%} ({mean - half:+.1%} .. {mean + half:+.1%})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="heuristic", choices=sorted(TWINS), help="the bot to answer")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--games", type=int, default=1000, help="games per configuration share and round")
    parser.add_argument("--keep", type=int, default=4, help="rounds of positions to learn from")
    parser.add_argument("--sample", type=float, default=0.25, help="share of positions kept")
    parser.add_argument("--explore", type=float, default=0.05)
    parser.add_argument("--lam", type=float, default=0.7, help="TD(lambda): 1 learns from outcomes alone")
    parser.add_argument("--steps", type=int, default=6000, help="minibatches per round")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--rate", type=float, default=5e-4)
    parser.add_argument("--check-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--start", type=Path, help="continue from these weights (else the shipped network)")
    parser.add_argument(
        "--final-games", type=int, default=0, help="at the end, this many games against the shipped network, paired"
    )
    parser.add_argument("--write", action="store_true", help="write the weights after each round")
    parser.add_argument("--out", type=Path, help="where --write writes (default bots/response_OPPONENT.npz)")
    args = parser.parse_args()
    out = args.out or WEIGHTS_DIR / f"response_{args.opponent}.npz"
    opponent = TWINS[args.opponent]
    rng = np.random.default_rng(args.seed)
    if args.start:
        net = read_net(args.start.read_bytes()).responding()
    else:
        net = shipped_net().responding()
    adam = Adam(net, args.rate)
    history: list[list[tuple[int, Samples, npt.NDArray[np.intp]]]] = []
    print(
        f"response to {args.opponent}: {RESPONSE_INPUTS} inputs, {net.b1.shape[0]} hidden; seed {args.seed}",
        flush=True,
    )
    began = time.perf_counter()
    for round_ in range(args.rounds):
        started = time.perf_counter()
        fresh = []
        for config, (preset, players, share) in enumerate(CONFIGS):
            samples, learners = respond(
                Rules.preset(preset),
                players,
                args.games * share,
                net,
                opponent,
                args.explore,
                args.sample,
                args.lam,
                rng,
            )
            fresh.append((config, samples, learners))
        history = [*history[-(args.keep - 1) :], fresh] if args.keep > 1 else [fresh]
        data = [item for round_data in history for item in round_data]
        positions = sum(len(samples.turn) for _, samples, _ in data)
        played = time.perf_counter() - started
        loss = train(
            net,
            adam,
            [(config, samples) for config, samples, _ in data],
            args.steps,
            args.batch_size,
            rng,
            learners=[learners for _, _, learners in data],
        )
        mine, shipped = paired_check(net, opponent, args.check_games, args.seed + 1000 + round_)
        low, high = wilson_interval(int(mine.sum()), len(mine))
        print(
            f"round {round_ + 1:2}: played {played:4.0f} s, {positions:,} positions, loss {loss:.4f}; "
            f"1-ply vs 3 {args.opponent}: response {mine.mean():.1%} [{low:.1%}, {high:.1%}], "
            f"shipped network {shipped.mean():.1%} on the same dice  ({time.perf_counter() - began:.0f} s)",
            flush=True,
        )
        if args.write:
            np.savez(out, **net.arrays())
    if args.write:
        print(f"wrote {out}")
    for players in (4, 2) if args.final_games else ():
        mine, shipped = paired_check(net, opponent, args.final_games, args.seed + 1, players=players)
        print(f"1-ply, {players} players against {args.opponent}: {paired_line(mine, shipped)}", flush=True)


if __name__ == "__main__":
    main()
