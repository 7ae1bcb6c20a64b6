"""Decision times of the bots: median, 90th and 99th percentile and maximum, in milliseconds.

    python benchmarks/bot_speed.py --games 40

Each bot plays seeded games against `heuristic` bots (2 and 4 players, every preset) and
every call of its `choose` on a rolled state is timed. "all" counts every decision the bot
is asked for (including passes and forced moves); "choices" only those with two or more
legal moves, where the bot really searches. Single process. The bots are told the table
as every place that seats them tells them (`bots.introduce`), so `ace` plays (and is
timed) as it plays against `heuristic` bots: its search modelling their replies.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from flyingchess import PRESETS, Rules, legal_moves, new_game
from flyingchess.bots import bot_names, introduce, make_bot
from flyingchess.engine.game import DEFAULT_PLAYERS, apply_unchecked


def decision_times(name: str, games: int, seed: int) -> tuple[list[float], list[float]]:
    """Seconds per decision: (every decision, decisions with at least two legal moves)."""
    every: list[float] = []
    choices: list[float] = []
    clock = time.perf_counter
    index = 0
    for preset in PRESETS:
        rules = Rules.preset(preset)
        for players in (2, 4):
            for _ in range(games):
                seat = index % players
                bots = [make_bot(name if s == seat else "heuristic", index) for s in range(players)]
                introduce(dict(zip(DEFAULT_PLAYERS[players], bots)))
                uniform = random.Random(seed + index).random
                state = new_game(players, rules)
                while not state.over:
                    rolled = state._replace(roll=int(uniform() * 6) + 1)
                    if state.turn == seat:
                        started = clock()
                        plane = bots[seat].choose(rolled)
                        elapsed = clock() - started
                        every.append(elapsed)
                        if len(legal_moves(rolled)) >= 2:
                            choices.append(elapsed)
                    else:
                        plane = bots[state.turn].choose(rolled)
                    state = apply_unchecked(rolled, plane)
                index += 1
    return every, choices


def summary(times: Sequence[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    cuts = statistics.quantiles(ms, n=100)
    return (
        f"n={len(ms):6}  median {statistics.median(ms):6.2f}  p90 {cuts[89]:6.2f}  "
        f"p99 {cuts[98]:6.2f}  max {ms[-1]:7.2f}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default=",".join(bot_names()))
    parser.add_argument("--games", type=int, default=20, help="games per preset and player count")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"decision times in ms; {args.games} games per preset x (2, 4) players vs heuristic")
    for name in args.bots.split(","):
        every, choices = decision_times(name.strip(), args.games, args.seed)
        print(f"{name:11} all      {summary(every)}")
        print(f"{'':11} choices  {summary(choices)}", flush=True)


if __name__ == "__main__":
    main()
