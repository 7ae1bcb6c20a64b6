"""How long win chances and reviews take: one position's chances, one whole record's review.

    python benchmarks/analysis_speed.py --games 10

Plays `--games` seeded 4-player classic games of heuristic bots as records, then times
`flyingchess.bots.analysis.chances` on every position of them and `analyse` on each whole
record (what the page's chance bars, hint button and review ask the server for).
Milliseconds for positions, seconds for records, on this machine; single process.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from flyingchess import Rules
from flyingchess.bots import make_bot
from flyingchess.bots.analysis import analyse, chances
from flyingchess.engine.game import apply_unchecked
from flyingchess.records.record import Record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    if args.games < 1:
        raise SystemExit("--games must be at least 1")
    records = []
    for game in range(args.games):
        dice = random.Random(args.seed + game)
        bot = make_bot("heuristic")
        record = Record.for_game(Rules.preset("classic"), ("red", "yellow", "blue", "green"))
        state = record.start()
        while not state.over:
            value = dice.randint(1, 6)
            rolled = state._replace(roll=value)
            plane = bot.choose(rolled)
            record.add(value, plane)
            state = apply_unchecked(rolled, plane)
        records.append(record)
    chances(records[0].start())  # load the network once, outside the timings
    position_ms = []
    for record in records:
        for state in record.replay():
            started = time.perf_counter()
            chances(state)
            position_ms.append((time.perf_counter() - started) * 1000)
    review_s, actions = [], []
    for record in records:
        started = time.perf_counter()
        analyse(record)
        review_s.append(time.perf_counter() - started)
        actions.append(len(record.actions))
    position_ms.sort()
    print(
        f"chances of one position: median {statistics.median(position_ms):.2f} ms,"
        f" p99 {position_ms[int(len(position_ms) * 0.99)]:.2f} ms ({len(position_ms):,} positions)"
    )
    print(
        f"review of a whole record: median {statistics.median(review_s):.2f} s, max {max(review_s):.2f} s"
        f" ({len(records)} records of {min(actions)}-{max(actions)} actions)"
    )


if __name__ == "__main__":
    main()
