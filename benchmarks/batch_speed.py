"""Games per second of the NumPy batch simulator: full 4-player classic random games, one core.

    python benchmarks/batch_speed.py --games 100000 --batch 8192
    python benchmarks/batch_speed.py --json

Prints the rate (and, with --json, one line {"games_per_second": ..., "batch": ...,
"games": ...}). The figure is games per second of the process's CPU time (NumPy's
elementwise operations run on one core), so other processes sharing the machine do not
skew it; the wall-clock rate is printed beside it. A short warm-up run comes first.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np

from flyingchess import Rules
from flyingchess.envs.batch import play_random_games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rules", default="classic", help="preset name")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="also print one JSON figure line")
    args = parser.parse_args(argv)
    rules = Rules.preset(args.rules)
    rng = np.random.default_rng(args.seed)
    play_random_games(rules, args.players, min(args.games, 2000), rng, batch=args.batch)
    started, started_cpu = time.perf_counter(), time.process_time()
    summary = play_random_games(rules, args.players, args.games, rng, batch=args.batch)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    rate = args.games / cpu
    print(
        f"{args.games} {args.players}-player {args.rules} random games: {cpu:.2f} s of CPU "
        f"({elapsed:.2f} s wall), {rate:,.0f} games per CPU second "
        f"({args.games / elapsed:,.0f} per wall second); batch {args.batch}, "
        f"{summary.rolls.mean():.1f} rolls a game"
    )
    if args.json:
        print(json.dumps({"games_per_second": round(rate), "batch": args.batch, "games": args.games}))


if __name__ == "__main__":
    main()
