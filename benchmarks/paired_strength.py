"""Two bots against the same table on the same dice: each one's win rate and the paired
difference, with 95% intervals.

    python benchmarks/paired_strength.py --bot ace --baseline ace:self-play --players 4 --games 4000

Game i seats the bot at i % players against `players - 1` copies of the opponent, with
dice seed `seed + i // players` (benchmarks/bot_strength.py's games); the baseline plays
the very same games. The difference is taken game by game (won by one, by the other, or
by both or neither), so its interval is much narrower than the two rates' own.
`ace:self-play` is the ace bot that never plays a best response (its search and
network as before the response networks); see `build` for the other variants.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rich.console import Console
from rich.progress import Progress

from flyingchess import PRESETS, Rules
from flyingchess.bots import Bot, make_bot
from flyingchess.bots.value import ValueNet, WrongCalibration, calibrated_net, read_net
from flyingchess.simulation.games import play_bots
from flyingchess.simulation.statistics import wilson_interval


@cache
def network(weights: str, offsets: str = "") -> ValueNet:
    """The network in the .npz file `weights`, with the seat calibration in `offsets`
    if given; read once for every game of a run."""
    data = Path(weights).read_bytes()
    if not offsets:
        return read_net(data)
    try:
        return calibrated_net(data, Path(offsets).read_text(encoding="utf-8"))
    except WrongCalibration as error:
        raise SystemExit(f"{offsets}: not fitted for {weights} ({error})") from error


def build(name: str, seed: int) -> Bot:
    """A registered bot or level, or a variant of ace: `ace:self-play` (never a best
    response), `ace:model` (the opponent's replies modelled, the self-play network's
    values), `ace:net=FILE` (modelled, the response network in FILE), `ace:value=FILE` (ace
    as it ships, with the self-play network in FILE and no seat calibration: give the
    other side the shipped bots/value_weights.npz to compare the networks alone),
    `ace:value=FILE+OFFSETS` (the same with the seat calibration in OFFSETS, as
    benchmarks/calibrate_seats.py --weights FILE --out OFFSETS writes it); each
    may end in `@DEPTH` (bots/ace.py's DEPTHS), and `ace:model` in `~MARGIN` too: close
    calls within MARGIN searched a roll deeper (without it, none: `ace` itself has
    CLOSE_CALL)."""
    if not name.startswith("ace:"):
        return make_bot(name, seed)
    from flyingchess.bots.ace import AceBot

    variant, _, depth_text = name.removeprefix("ace:").partition("@")
    depth_text, _, close_text = depth_text.partition("~")
    depth = int(depth_text or 3)
    close = float(close_text or 0)
    if variant == "self-play":
        return AceBot(seed, depth, respond=False)
    if variant == "model":
        return AceBot(seed, depth, responses=lambda opponent: None, close=close)
    if variant.startswith("net="):
        net = network(variant.removeprefix("net="))
        return AceBot(seed, depth, responses=lambda opponent: net)
    if variant.startswith("value="):
        weights, _, offsets = variant.removeprefix("value=").partition("+")
        return AceBot(seed, depth, net=network(weights, offsets))
    raise SystemExit(
        f"unknown variant {name!r}: ace:self-play, ace:model, ace:net=FILE or ace:value=FILE[+OFFSETS] "
        "(each maybe @DEPTH)"
    )


def outcomes(
    name: str, opponent: str, rules: Rules, players: int, games: int, seed: int, progress: Progress
) -> list[int]:
    """1 or 0 per game: whether `name` finished first."""
    task = progress.add_task(name, total=games)
    won = []
    for index in range(games):
        seat = index % players
        bots = [build(name, index) if s == seat else make_bot(opponent, index * 4 + s) for s in range(players)]
        final, _ = play_bots(rules, bots, random.Random(seed + index // players))
        won.append(int(final.winner == final.players[seat]))
        progress.advance(task)
    return won


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--bot", default="ace", help="the bot, or several separated by commas (each against the baseline)"
    )
    parser.add_argument("--baseline", default="ace:self-play")
    parser.add_argument("--opponent", default="heuristic", help="the bot in every other seat")
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--preset", default="classic", choices=list(PRESETS))
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=40_000)
    args = parser.parse_args()
    if args.games < 2:
        raise SystemExit("--games: at least 2")
    rules = Rules.preset(args.preset)
    bots = args.bot.split(",")
    console = Console()
    console.print(
        f"{', '.join(bots)} and {args.baseline}, each against "
        f"{args.players - 1} x {args.opponent}, {args.preset}, "
        f"{args.games} games on the same dice, seats rotated, seed {args.seed} (parity {1 / args.players:.1%})"
    )
    started = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        theirs = outcomes(args.baseline, args.opponent, rules, args.players, args.games, args.seed, progress)
        results = {
            name: outcomes(name, args.opponent, rules, args.players, args.games, args.seed, progress) for name in bots
        }
    if sum(theirs) + sum(sum(won) for won in results.values()) == 0:
        raise SystemExit("no game was won by any of the bots: nothing was measured")
    width = max(len(name) for name in [args.baseline, *bots])
    for name, won in ((args.baseline, theirs), *results.items()):
        low, high = wilson_interval(sum(won), len(won))
        console.print(f"  {name:>{width}}: {sum(won) / len(won):6.1%}  ({low:.1%} .. {high:.1%})")
    for name, mine in results.items():
        differences = [a - b for a, b in zip(mine, theirs)]
        mean = sum(differences) / len(differences)
        spread = math.sqrt(sum((d - mean) ** 2 for d in differences) / (len(differences) - 1))
        half = 1.96 * spread / math.sqrt(len(differences))
        console.print(
            f"  {name} - {args.baseline}: {mean:+.1%} ({mean - half:+.1%} .. {mean + half:+.1%}); "
            f"won by it alone {differences.count(1)}, by {args.baseline} alone {differences.count(-1)}"
        )
    console.print(f"  {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
