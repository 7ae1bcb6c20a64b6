"""Bots in company: 4-player tables of different bots, each bot's win rate over its games.

    python benchmarks/mixed_table.py --games 1200

Every table of four out of `--bots` (by default the five that are not `random`: five
tables) plays `--games` games, the seats rotating so each bot sits in every seat equally
often and every rotation shares its dice. A bot's win rate counts every game it sat in,
with a 95% Wilson interval; parity is 25%. Unlike a duel against one bot, this shows how
a bot does when more than one opponent plays well. Single process.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from flyingchess import Rules
from flyingchess.bots import make_bot
from flyingchess.simulation.games import play_bots
from flyingchess.simulation.statistics import wilson_interval


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="ace,expectimax,greedy,learned,heuristic")
    parser.add_argument("--games", type=int, default=1200, help="games per table (a multiple of 4 rotates evenly)")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    names = [name.strip() for name in args.bots.split(",")]
    if len(names) < 4 or args.games < 4:
        raise SystemExit("four bots or more, and four games or more per table")
    rules = Rules.preset(args.preset)
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    began = time.perf_counter()
    tables = list(itertools.combinations(names, 4))
    for number, table in enumerate(tables):
        started = time.perf_counter()
        for game in range(args.games):
            shift = game % 4
            seated = table[shift:] + table[:shift]
            bots = [make_bot(name, game * 4 + seat) for seat, name in enumerate(seated)]
            final, _ = play_bots(rules, bots, random.Random(args.seed * 1_000_003 + number * 100_000 + game // 4))
            for seat, name in enumerate(seated):
                played[name] += 1
                won[name] += final.winner == final.players[seat]
        print(f"table {number + 1}/{len(tables)} {', '.join(table)}: {time.perf_counter() - started:.0f} s", flush=True)
    if sum(played.values()) == 0:
        raise SystemExit("no game was played")
    print(f"\n{args.preset}, 4 players, {len(tables)} tables x {args.games} games, seed {args.seed} (parity 25.0%)")
    for name in sorted(names, key=lambda n: -won[n] / played[n]):
        low, high = wilson_interval(won[name], played[name])
        print(
            f"  {name:<11} {won[name] / played[name]:6.1%}  95% interval [{low:.1%}, {high:.1%}]  ({won[name]}/{played[name]})"
        )
    print(f"({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
