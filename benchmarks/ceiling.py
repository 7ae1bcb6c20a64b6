"""How far each bot is from the best response to a table: per-decision regret against
playouts, and the win chance that leaves on the table per game.

    python benchmarks/ceiling.py --bots ace,expectimax --opponent heuristic --players 4
    python benchmarks/ceiling.py --bots ace --players 2 --decisions 300 --playouts 512

For each bot: games against `players - 1` copies of the opponent (seats rotated, the
bots introduced to the table as in play), and at sampled decisions of the bot (its moves
lead to two or more distinct positions) every distinct move is priced by playouts on
the batch simulator: the opponents go on playing as they do (their batched twin), the
bot's seat goes on playing the continuation (`--continuation network`: the value
network's 1-ply choice, the network trained against that opponent where one ships,
else the self-play network: the strongest policy cheap enough to play out;
`heuristic`: the opponent's own rule). With `--horizon H`, a playout stops after H rolls
and the same network values where it stands: far less noise, the network's own errors. Every move of a decision is played out on
the same dice. Two independent sets of playouts: the first picks the best move, the
second prices the bot's move against it (one set doing both would overstate the regret:
the largest of several noisy estimates is biased upward).

Printed per bot: the mean regret per decision with its 95% interval (the win chance its
move gives up against the best move found, continuing as above), how often its move is
the one the playouts pick, decisions per game, and their product: the win chance per
game left on the table, the distance to that best response. What it does not see: a
continuation better than the one played out (so it is a lower bound on the distance to
perfect play), and moves whose value differs by less than the playouts can resolve.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rich.console import Console
from rich.table import Table

from flyingchess import Rules
from flyingchess.bots import Bot, make_bot
from flyingchess.bots.value import ValueNet, response_net, shipped_net
from flyingchess.engine.game import State, apply_unchecked, legal_moves
from flyingchess.envs.batch import PASS_ACTION, BatchGame, heuristic_actions
from flyingchess.envs.evaluation import greedy_actions
from flyingchess.envs.training import batch_winner, learner_chances, mover_chances, response_actions, value_actions
from flyingchess.simulation.games import play_bots

BATCHED = {"heuristic": heuristic_actions, "greedy": greedy_actions}
"""Opponents with a batched twin (the playouts need one)."""


class Decision:
    """A state the bot had to choose in, the distinct positions its moves lead to, and
    which of them it chose."""

    def __init__(self, state: State, chosen: int) -> None:
        self.state = state
        afters = [apply_unchecked(state, plane) for plane in legal_moves(state)]
        self.positions = list(dict.fromkeys(afters))
        self.chosen = self.positions.index(apply_unchecked(state, chosen))


class Recorder:
    """Wraps a bot: records every decision with two or more distinct outcomes."""

    def __init__(self, bot: Bot, into: list[Decision]) -> None:
        self.bot, self.into = bot, into
        self.name = getattr(bot, "name", None)

    def meet(self, colour: str, table: dict[str, str | None]) -> None:
        meet = getattr(self.bot, "meet", None)
        if meet is not None:
            meet(colour, table)

    def choose(self, state: State) -> int | None:
        plane = self.bot.choose(state)
        if plane is not None:
            decision = Decision(state, plane)
            if len(decision.positions) >= 2:
                self.into.append(decision)
        return plane


def decisions_of(
    bot: str, opponent: str, players: int, rules: Rules, games: int, seed: int
) -> tuple[list[Decision], int]:
    """Every real decision of `bot` in `games` games (seats rotated), and the game count."""
    found: list[Decision] = []
    for index in range(games):
        seat = index % players
        seats: list[Bot] = [
            Recorder(make_bot(bot, index), found) if s == seat else make_bot(opponent, index * 4 + s)
            for s in range(players)
        ]
        play_bots(rules, seats, random.Random(seed + index // players))
    return found, games


Continuation = Callable[
    [BatchGame, npt.NDArray[np.int8], npt.NDArray[np.bool_], npt.NDArray[np.intp]], npt.NDArray[np.intp]
]


def table_net(opponent: str) -> ValueNet:
    """The network for this table: the one trained against the opponent, else the self-play one."""
    return response_net(opponent) or shipped_net()


def continuation(name: str, opponent: str) -> Continuation:
    if name == "heuristic":
        return lambda game, rolls, mask, rows: heuristic_actions(game, rolls, mask)[rows]
    net = table_net(opponent)
    if net.responds:
        return lambda game, rolls, mask, rows: response_actions(game, rolls, mask, net, rows)
    return lambda game, rolls, mask, rows: value_actions(game, rolls, net)[rows]


def leaf_values(game: BatchGame, me: int, net: ValueNet) -> npt.NDArray[np.float64]:
    """Player `me`'s chance in each game, by the network."""
    players = np.full(game.batch, me, np.intp)
    found: npt.NDArray[np.float64] = (learner_chances if net.responds else mover_chances)(game, players, net)
    return found


def price(
    decision: Decision,
    playouts: int,
    opponent: Continuation,
    ours: Continuation,
    rng: np.random.Generator,
    horizon: int = 0,
    leaf: ValueNet | None = None,
) -> npt.NDArray[np.float64]:
    """The win chance of the bot's seat after each distinct move, from `playouts` games
    each, every move on the same dice; with `horizon`, games still going after that many
    rolls are valued by the network `leaf` (less noise, the network's own errors)."""
    me = decision.state.turn
    moves = len(decision.positions)
    game = BatchGame.from_states([position for position in decision.positions for _ in range(playouts)])
    row_of = np.arange(game.batch)  # each live game's row in the result
    won = np.zeros(game.batch, np.float64)
    rolled = 0
    while game.batch:
        if horizon and rolled == horizon:
            assert leaf is not None
            won[row_of] = leaf_values(game, me, leaf)
            break
        rolled += 1
        dice = rng.integers(1, 7, playouts, dtype=np.int8)
        rolls = np.tile(dice, moves)[row_of]  # playout k of every move sees the same dice
        mask = game.move_mask(rolls)
        actions = opponent(game, rolls, mask, np.arange(game.batch))
        mine = np.flatnonzero(game.turn == me)
        if len(mine):
            actions[mine] = ours(game, rolls, mask, mine)
        actions = np.where(mask.any(axis=1), actions, PASS_ACTION)
        game.step_unchecked(rolls, actions)
        winner = batch_winner(game)
        done = winner >= 0
        if done.any():
            won[row_of[done]] = winner[done] == me
            live = np.flatnonzero(~done)
            game.keep(live)
            row_of = row_of[live]
    means: npt.NDArray[np.float64] = won.reshape(moves, playouts).mean(axis=1)
    return means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="ace", help="comma-separated bots to measure")
    parser.add_argument("--opponent", default="heuristic", choices=sorted(BATCHED))
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--decisions", type=int, default=150, help="decisions priced per bot")
    parser.add_argument("--playouts", type=int, default=256, help="playouts per move and set")
    parser.add_argument("--continuation", default="network", choices=("network", "heuristic"))
    parser.add_argument(
        "--horizon",
        type=int,
        default=0,
        help="rolls played out before the response network values the game (0: to the end)",
    )
    parser.add_argument("--seed", type=int, default=60_000)
    args = parser.parse_args()
    rules = Rules.preset(args.preset)
    console = Console()
    console.print(
        f"regret against playouts: {args.players} players, {args.preset}, against {args.players - 1} x "
        f"{args.opponent}; {args.decisions} decisions a bot, 2 x {args.playouts} playouts a move, "
        f"continuing with {args.continuation}"
        f"{f', valued by the network after {args.horizon} rolls' if args.horizon else ', to the end'}; seed {args.seed}"
    )
    opponent = BATCHED[args.opponent]

    def theirs(
        game: BatchGame, rolls: npt.NDArray[np.int8], mask: npt.NDArray[np.bool_], rows: npt.NDArray[np.intp]
    ) -> npt.NDArray[np.intp]:
        return opponent(game, rolls, mask)[rows]

    ours = continuation(args.continuation, args.opponent)
    leaf = table_net(args.opponent)
    table = Table("bot", "regret a decision", "95% interval", "picks the best", "decisions a game", "left a game")
    for name in args.bots.split(","):
        started = time.perf_counter()
        games = max(4, math.ceil(args.decisions / 10))
        decisions, played = decisions_of(name, args.opponent, args.players, rules, games, args.seed)
        if len(decisions) < args.decisions:
            raise SystemExit(f"{name}: only {len(decisions)} decisions in {played} games")
        per_game = len(decisions) / played
        pick = random.Random(args.seed).sample(range(len(decisions)), args.decisions)
        rng = np.random.default_rng(args.seed)
        regrets, agreed = [], 0
        for index in pick:
            decision = decisions[index]
            first = price(decision, args.playouts, theirs, ours, rng, args.horizon, leaf)
            second = price(decision, args.playouts, theirs, ours, rng, args.horizon, leaf)
            best = int(np.argmax(first))
            agreed += best == decision.chosen
            regrets.append(float(second[best] - second[decision.chosen]))
        mean = float(np.mean(regrets))
        half = 1.96 * float(np.std(regrets, ddof=1)) / math.sqrt(len(regrets))
        table.add_row(
            name,
            f"{mean:+.4f}",
            f"{mean - half:+.4f} .. {mean + half:+.4f}",
            f"{agreed / len(regrets):.0%}",
            f"{per_game:.1f}",
            f"{mean * per_game:+.1%} ({(mean - half) * per_game:+.1%} .. {(mean + half) * per_game:+.1%})",
        )
        console.print(
            f"{name}: {len(decisions)} decisions in {played} games, priced in {time.perf_counter() - started:.0f} s"
        )
    console.print(table)


if __name__ == "__main__":
    main()
