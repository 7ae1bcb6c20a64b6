"""Win rates of a bot against copies of another, with 95% Wilson intervals.

    python benchmarks/bot_strength.py --bot expectimax --players 4 --preset classic --games 4000

One bot plays against `players - 1` copies of the opponent bot (default `heuristic`).
Seats rotate: games 4k..4k+n-1 share one dice seed and put the bot in each seat in turn,
so every seat and every dice sequence count alike. Single process (the machine is shared);
`--preset all` runs every preset. Parity is 1/players.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from flyingchess import PRESETS, Rules
from flyingchess.bots import Bot, make_bot
from flyingchess.simulation.games import play_bots
from flyingchess.simulation.statistics import wilson_interval


def win_count(
    rules: Rules, players: int, candidate: Callable[[int], Bot], opponent: Callable[[int], Bot], games: int, seed: int
) -> int:
    """Games won by the candidate; game i seats it at i % players with dice seed seed + i // players."""
    wins = 0
    for index in range(games):
        seat = index % players
        bots = [candidate(index) if s == seat else opponent(index * 4 + s) for s in range(players)]
        final, _ = play_bots(rules, bots, random.Random(seed + index // players))
        wins += final.winner == final.players[seat]
    return wins


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="expectimax")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--preset", default="classic", choices=[*PRESETS, "all"])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=20_000)
    args = parser.parse_args(argv)
    presets = list(PRESETS) if args.preset == "all" else [args.preset]
    print(
        f"{args.bot} vs {args.players - 1} x {args.opponent}, {args.games} games per row, "
        f"seats rotated, seed {args.seed} (parity {1 / args.players:.1%})"
    )
    for preset in presets:
        started = time.perf_counter()
        wins = win_count(
            Rules.preset(preset),
            args.players,
            lambda s: make_bot(args.bot, s),
            lambda s: make_bot(args.opponent, s),
            args.games,
            args.seed,
        )
        low, high = wilson_interval(wins, args.games)
        print(
            f"  {preset:12} {args.players}p  win rate {wins / args.games:6.1%}  "
            f"95% interval [{low:.1%}, {high:.1%}]  ({wins}/{args.games}, "
            f"{time.perf_counter() - started:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
