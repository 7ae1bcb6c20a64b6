"""Train the value network (bots/value.py) by self-play on the batch simulator.

    python benchmarks/train_value.py                   # the recorded run (prints figures)
    python benchmarks/train_value.py --write           # ... and rewrite bots/value_weights.npz

Fitted value iteration with TD(lambda) targets: each round plays games with the current
network's 1-ply choice (the first round with the heuristic bot), a share `--explore` of
the moves at random, and labels the positions where someone is about to roll with the
lambda-return of the network's own predictions, ending in who finished first (see
`self_play`). The network then learns those chances (softmax cross entropy, Adam) from
the positions of the last `--keep` rounds. Every configuration of
CONFIGS (each preset; 2, 3 and 4 players; two seatings of two players) is played every
round, classic twice as much, so one network serves them all. Each round ends with a
check: the network's 1-ply choice against three heuristic bots (4 players, classic,
seats rotated).

New weights need a seat calibration of their own (`python benchmarks/calibrate_seats.py
--write`, docs/bots.md): the package refuses weights whose calibration was fitted for
others.

Everything is drawn from one seed; the same seed gives the same weights on the same
NumPy with one BLAS thread (`OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`, as recorded).

Recorded run (the defaults; 26 minutes on the 2-core development machine, which was
busy with other work; the check against three heuristic bots is the network alone, one
ply, 2,000 games a round):

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/train_value.py --write
    round  1: heuristic games, 1.0 M positions; check 27.3% [25.4%, 29.3%]
    round  6: network games, 4.0 M positions; check 38.9% [36.7%, 41.0%]
    round 12: network games, 3.8 M positions; check 43.6% [41.5%, 45.8%]

Ten more rounds from those weights (`--start`) and a run with half the seats played by
the heuristic bot (`--mix 0.5`) gave no better network on common dice (41.9% against
41.8% over 4,000 games). The recorded run, made again on 2026-12-04 (`--out
/tmp/baseline.npz --final-games 4000`, 15 minutes beside another run), wrote the shipped
weights byte for byte; paired with the shipped network (which adds the seat calibration)
on 4,000 games: 43.2% against 43.1%. Other inputs and targets that were tried (roll
previews, expert iteration) and why they do not ship: docs/bots.md, "Tried and not
shipped".
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from flyingchess import PRESETS, Rules
from flyingchess.bots.value import INPUTS, SLOTS, ValueNet, encode, read_net, shipped_net, value_tables
from flyingchess.envs.batch import BatchGame, heuristic_actions, random_actions
from flyingchess.envs.training import value_actions
from flyingchess.simulation.statistics import wilson_interval

WEIGHTS = Path(__file__).resolve().parents[1] / "src/flyingchess/bots/value_weights.npz"

CONFIGS: list[tuple[str, tuple[str, ...], int]] = [
    (preset, players, 2 if preset == "classic" else 1)
    for preset in PRESETS
    for players in (
        ("red", "blue"),
        ("red", "yellow"),
        ("red", "yellow", "blue"),
        ("red", "yellow", "blue", "green"),
    )
]
"""(preset, players, share): every preset with 2 (facing and side by side), 3 and 4 players."""


class Samples(NamedTuple):
    """Positions of one configuration where someone is about to roll, each with its
    target: every player's chance to finish first (players in turn order, not slots)."""

    positions: npt.NDArray[np.int8]
    turn: npt.NDArray[np.int8]
    sixes: npt.NDArray[np.int8]
    target: npt.NDArray[np.float32]


def self_play(
    rules: Rules,
    players: tuple[str, ...],
    games: int,
    net: ValueNet | None,
    explore: float,
    keep: float,
    lam: float,
    rng: np.random.Generator,
    batch: int = 2048,
    mix: float = 0.0,
) -> Samples:
    """Play `games` games (the heuristic bot when `net` is None) and label the positions
    before each roll of an undecided game with TD(lambda) targets: working back from the
    end, G(t) = (1 - lam) V(t + 1) + lam G(t + 1), with G = who finished first at the end
    and V the network's prediction (lam = 1, or no network: the outcome itself). A share
    `keep` of the labelled positions is kept. With `mix`, each seat of each game is played
    by the heuristic bot with that chance instead of the network, so the values also
    learn what the opponents the bots meet most do (capture whenever they can)."""
    game = BatchGame(rules, players, min(batch, games))
    count = len(players)
    positions, turns, sixes, owners = [], [], [], []
    winners = np.full(games, -1, np.int8)
    started = game.batch
    game_of = np.arange(game.batch)  # the game each slot plays, -1 once none is left
    # who the heuristic bot plays (drawn only with --mix: without it the dice stay those of the recorded run)
    heuristic_seat = rng.random((game.batch, count)) < mix if mix else np.zeros((game.batch, count), np.bool_)
    while True:
        live = np.flatnonzero(game_of >= 0)
        if not len(live):
            break
        positions.append(game.positions[live].copy())
        turns.append(game.turn[live].copy())
        sixes.append(game.sixes[live].copy())
        owners.append(game_of[live].copy())
        rolls = game.roll(rng)
        mask = game.move_mask(rolls)
        if net is None:
            actions = heuristic_actions(game, rolls, mask)
        else:
            actions = value_actions(game, rolls, net)
            if mix:
                by_heuristic = heuristic_seat[np.arange(game.batch), game.turn]
                actions = np.where(by_heuristic, heuristic_actions(game, rolls, mask), actions)
        wander = rng.random(game.batch) < explore
        actions = np.where(wander, random_actions(mask, rng), actions)
        game.step_unchecked(rolls, actions)
        decided = np.flatnonzero((game_of >= 0) & (game.winner >= 0))
        if len(decided):
            winners[game_of[decided]] = game.winner[decided]
            fresh = min(len(decided), games - started)
            game.reset_games(decided[:fresh])
            if mix:
                heuristic_seat[decided[:fresh]] = rng.random((fresh, count)) < mix
            game_of[decided[:fresh]] = np.arange(started, started + fresh)
            game_of[decided[fresh:]] = -1
            started += fresh
            running = np.flatnonzero(game_of >= 0)
            if 0 < len(running) <= game.batch // 2:  # the last games: compact the batch
                game.keep(running)
                game_of = game_of[running]
                heuristic_seat = heuristic_seat[running]
    all_positions, all_turns = np.concatenate(positions), np.concatenate(turns)
    all_sixes, owner = np.concatenate(sixes), np.concatenate(owners)
    outcome = np.eye(count, dtype=np.float32)[winners]  # [games, P]
    if net is None or lam >= 1:
        target = outcome[owner]
    else:
        predicted = predictions(net, rules, players, all_positions, all_turns, all_sixes)
        target = lambda_returns(predicted, outcome, owners, lam)
    kept = rng.random(len(owner)) < keep
    return Samples(all_positions[kept], all_turns[kept], all_sixes[kept], target[kept])


def predictions(
    net: ValueNet,
    rules: Rules,
    players: tuple[str, ...],
    positions: npt.NDArray[np.int8],
    turns: npt.NDArray[np.int8],
    sixes: npt.NDArray[np.int8],
    learners: npt.NDArray[np.intp] | None = None,
) -> npt.NDArray[np.float32]:
    """[N, players]: the network's chances for each position, by player (not slot)."""
    count = len(players)
    predicted = np.empty((len(turns), count), np.float32)
    for start in range(0, len(turns), 8192):
        part = slice(start, start + 8192)
        turn = turns[part].astype(np.intp)
        learner = None if learners is None else learners[part]
        inputs = encode(value_tables(rules, players), positions[part], turn, sixes[part], learner)
        slots = net.chances(inputs, count)[:, :count]
        order = (turn[:, None] + np.arange(count)) % count
        np.put_along_axis(predicted[part], order, slots, axis=1)
    return predicted


def lambda_returns(
    predicted: npt.NDArray[np.float32], outcome: npt.NDArray[np.float32], owners: list[npt.NDArray[np.intp]], lam: float
) -> npt.NDArray[np.float32]:
    """TD(lambda) targets, working back from the end: G(t) = (1 - lam) V(t + 1) + lam G(t + 1),
    with G = who finished first at the end. `owners`: per step of play, the game of each
    position recorded then (the rows of `predicted`, in that order)."""
    ends = np.cumsum([len(owner) for owner in owners])
    owner = np.concatenate(owners)
    target = np.empty_like(predicted)
    running_return = outcome.copy()
    for stop, start in zip(ends[::-1], np.concatenate([[0], ends[:-1]])[::-1]):
        ids = owner[start:stop]
        target[start:stop] = running_return[ids]
        running_return[ids] = (1 - lam) * predicted[start:stop] + lam * running_return[ids]
    return target


class Adam:
    """Adam over the network's four arrays."""

    def __init__(self, net: ValueNet, rate: float) -> None:
        self.net, self.rate, self.step = net, rate, 0
        self.m = {name: np.zeros_like(array) for name, array in net.arrays().items()}
        self.v = {name: np.zeros_like(array) for name, array in net.arrays().items()}

    def update(self, grads: dict[str, np.ndarray]) -> None:
        self.step += 1
        correction = np.sqrt(1 - 0.999**self.step) / (1 - 0.9**self.step)
        for name, array in self.net.arrays().items():
            self.m[name] = 0.9 * self.m[name] + 0.1 * grads[name]
            self.v[name] = 0.999 * self.v[name] + 0.001 * grads[name] ** 2
            array -= (self.rate * correction * self.m[name] / (np.sqrt(self.v[name]) + 1e-8)).astype(np.float32)


def gradients(
    net: ValueNet, inputs: np.ndarray, target: np.ndarray, players: int
) -> tuple[float, dict[str, np.ndarray]]:
    """Mean softmax cross entropy against target chances by slot ([B, SLOTS]), and its gradients."""
    hidden = np.maximum(inputs @ net.w1 + net.b1, 0)
    logits = hidden @ net.w2 + net.b2
    logits[:, players:] = -np.inf
    logits -= logits.max(axis=1, keepdims=True)
    chances = np.exp(logits)
    chances /= chances.sum(axis=1, keepdims=True)
    loss = float(-(target * np.log(np.maximum(chances, 1e-12))).sum(axis=1).mean())
    d_logits = (chances - target) / len(target)
    d_hidden = (d_logits @ net.w2.T) * (hidden > 0)
    return loss, {
        "w1": inputs.T @ d_hidden,
        "b1": d_hidden.sum(axis=0),
        "w2": hidden.T @ d_logits,
        "b2": d_logits.sum(axis=0),
    }


def train(
    net: ValueNet,
    adam: Adam,
    data: list[tuple[int, Samples]],
    steps: int,
    size: int,
    rng: np.random.Generator,
    learners: list[npt.NDArray[np.intp]] | None = None,
) -> float:
    """`steps` minibatches of `size` positions, each from one configuration (drawn in
    proportion to its positions); returns the mean loss. `learners`: for a best-response
    network (benchmarks/train_response.py), each sample's learner, per item of `data`."""
    counts = np.array([len(samples.turn) for _, samples in data], np.float64)
    losses = []
    for _ in range(steps):
        which = rng.choice(len(data), p=counts / counts.sum())
        config, samples = data[which]
        preset, players, _ = CONFIGS[config]
        pick = rng.integers(0, len(samples.turn), size)
        turn = samples.turn[pick].astype(np.intp)
        learner = None if learners is None else learners[which][pick]
        tables = value_tables(Rules.preset(preset), players)
        inputs = encode(tables, samples.positions[pick], turn, samples.sixes[pick], learner)
        count = len(players)
        target = np.zeros((size, SLOTS), np.float32)
        order = (turn[:, None] + np.arange(count)) % count
        target[:, :count] = np.take_along_axis(samples.target[pick], order, axis=1)
        loss, grads = gradients(net, inputs, target, count)
        adam.update(grads)
        losses.append(loss)
    return float(np.mean(losses))


def against_heuristic(
    net: ValueNet, games: int, rng: np.random.Generator, players: int = 4, preset: str = "classic"
) -> tuple[int, int]:
    """(wins, games) of the network's 1-ply choice against heuristic bots, seats rotated."""
    game = BatchGame(Rules.preset(preset), players, games)
    seat = np.arange(games) % players
    while not game.over.all():
        rolls = game.roll(rng)
        mask = game.move_mask(rolls)
        mine = value_actions(game, rolls, net)
        theirs = heuristic_actions(game, rolls, mask)
        game.step(rolls, np.where(game.turn == seat, mine, theirs))
    return int((game.winner == seat).sum()), games


def against_shipped(net: ValueNet, games: int, seed: int) -> tuple[int, int, float, float]:
    """The network's 1-ply choice and the shipped network's, each against three heuristic
    bots (4 players, classic, seats rotated) on the same dice: (its wins, the shipped
    network's wins, and the 95% interval of the difference, taken game by game)."""
    won = []
    for player in (net, shipped_net()):
        rng = np.random.default_rng(seed)
        game = BatchGame(Rules.preset("classic"), 4, games)
        seat = np.arange(games) % 4
        while not game.over.all():
            rolls = game.roll(rng)
            mask = game.move_mask(rolls)
            mine = value_actions(game, rolls, player)
            game.step(rolls, np.where(game.turn == seat, mine, heuristic_actions(game, rolls, mask)))
        won.append((game.winner == seat).astype(np.float64))
    difference = won[0] - won[1]
    half = 1.96 * float(difference.std(ddof=1)) / np.sqrt(games)
    mean = float(difference.mean())
    return int(won[0].sum()), int(won[1].sum()), mean - half, mean + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--games", type=int, default=1000, help="games per configuration share and round")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--keep", type=int, default=4, help="rounds of positions to learn from")
    parser.add_argument("--sample", type=float, default=0.25, help="share of positions kept")
    parser.add_argument("--explore", type=float, default=0.03)
    parser.add_argument("--lam", type=float, default=0.7, help="TD(lambda): 1 learns from outcomes alone")
    parser.add_argument("--steps", type=int, default=8000, help="minibatches per round")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--rate", type=float, default=1e-3)
    parser.add_argument("--check-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--start", type=Path, help="continue from these weights")
    parser.add_argument("--mix", type=float, default=0.0, help="chance that a seat is played by the heuristic bot")
    parser.add_argument(
        "--final-games", type=int, default=0, help="at the end, this many games against the shipped network, paired"
    )
    parser.add_argument("--write", action="store_true", help=f"write the weights to {WEIGHTS.name} after each round")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="where --write writes")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    net = ValueNet.random(args.hidden, rng)
    if args.start:
        net = read_net(args.start.read_bytes())
    adam = Adam(net, args.rate)
    history: list[list[tuple[int, Samples]]] = []
    print(f"value network: {INPUTS} inputs, {args.hidden} hidden, {SLOTS} outputs; seed {args.seed}", flush=True)
    began = time.perf_counter()
    for round_ in range(args.rounds):
        started = time.perf_counter()
        player = None if round_ == 0 and not args.start else net
        fresh = []
        for config, (preset, players, share) in enumerate(CONFIGS):
            samples = self_play(
                Rules.preset(preset),
                players,
                args.games * share,
                player,
                args.explore,
                args.sample,
                args.lam,
                rng,
                mix=args.mix,
            )
            fresh.append((config, samples))
        history = [*history[-(args.keep - 1) :], fresh] if args.keep > 1 else [fresh]
        data = [item for round_data in history for item in round_data]
        positions = sum(len(samples.turn) for _, samples in data)
        played = time.perf_counter() - started
        loss = train(net, adam, data, args.steps, args.batch_size, rng)
        wins, games = against_heuristic(net, args.check_games, rng)
        low, high = wilson_interval(wins, games)
        print(
            f"round {round_ + 1:2}: played {played:4.0f} s ({'heuristic' if player is None else 'network'}), "
            f"{positions:,} positions, loss {loss:.4f}; vs 3 heuristic {wins / games:.1%} [{low:.1%}, {high:.1%}]"
            f"  ({time.perf_counter() - began:.0f} s)",
            flush=True,
        )
        if args.write:
            np.savez(args.out, **net.arrays())
    if args.write:
        print(f"wrote {args.out}")
    if args.final_games:
        mine, shipped, low, high = against_shipped(net, args.final_games, args.seed + 1)
        print(
            f"1-ply vs 3 heuristic on the same {args.final_games:,} games: this network {mine / args.final_games:.1%}, "
            f"the shipped one {shipped / args.final_games:.1%}; difference {(mine - shipped) / args.final_games:+.1%} "
            f"({low:+.1%} .. {high:+.1%})",
            flush=True,
        )


if __name__ == "__main__":
    main()
