"""Agent steps a second: the vector environment beside the raw batch simulator and the
single Gymnasium environment.

An agent step is one decision of the learner in one game, with its observation and
mask computed (for the vector environment: the batched observation of every game, the
opponents' moves in between, auto-reset). The learner plays uniformly random legal
moves, so only the environment is timed. The raw batch simulator's figure is rolls a
second of `step_random` (no observation, no opponents: an upper bound); the PettingZoo
environment's is steps a second, every step one seat's move (no bots). Runs on one
core (NumPy's BLAS held to one thread). Fails loudly if nothing was measured.

    python benchmarks/vector_speed.py [--batch 4096] [--seconds 8] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import gymnasium
import numpy as np
from rich.console import Console
from rich.table import Table
from threadpoolctl import threadpool_limits

import flyingchess.envs  # noqa: F401  (registers FlyingChess-v0)
from flyingchess import Rules
from flyingchess.envs import flyingchess_v0
from flyingchess.envs.batch import BatchGame
from flyingchess.envs.vector import VectorGames


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.argmax(np.where(mask, 1 + rng.random(mask.shape), 0), axis=1)


def vector_rate(batch: int, seconds: float, opponents: str, skip_forced: bool, players: int) -> dict[str, Any]:
    games = VectorGames(batch, players=players, opponents=opponents, skip_forced=skip_forced, seed=1)
    _, mask = games.reset()
    rng = np.random.default_rng(0)
    steps = episodes = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        _, mask, _, terminated, truncated, _ = games.step(random_legal(mask, rng))
        steps += batch
        episodes += int((terminated | truncated).sum())
    elapsed = time.perf_counter() - started
    if steps == 0 or episodes == 0:
        raise SystemExit(f"the vector environment measured nothing ({steps} steps, {episodes} episodes)")
    return {"steps_per_second": steps / elapsed, "episodes_per_second": episodes / elapsed}


def raw_rate(batch: int, seconds: float, players: int) -> float:
    game = BatchGame(Rules.preset("classic"), players, batch)
    rng = np.random.default_rng(0)
    rolls = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        game.step_random(rng)
        rolls += batch
        if game.over.mean() > 0.5:
            game.reset()
    elapsed = time.perf_counter() - started
    if rolls == 0:
        raise SystemExit("the batch simulator measured nothing")
    return rolls / elapsed


def single_rate(seconds: float, players: int) -> float:
    env = gymnasium.make("FlyingChess-v0", opponents=["heuristic"] * (players - 1), seat=None)
    observation, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        legal = np.flatnonzero(observation["action_mask"])
        observation, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        steps += 1
        if terminated or truncated:
            observation, _ = env.reset()
    if steps == 0:
        raise SystemExit("the single environment measured nothing")
    return steps / (time.perf_counter() - started)


def pettingzoo_rate(seconds: float, players: int) -> float:
    env = flyingchess_v0.env(players=players)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
    if steps == 0:
        raise SystemExit("the PettingZoo environment measured nothing")
    return steps / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with threadpool_limits(1):
        for opponents in ("random", "heuristic", "greedy"):
            for skip in (False, True):
                key = f"vector {opponents}{' skip_forced' if skip else ''}"
                results[key] = vector_rate(args.batch, args.seconds, opponents, skip, args.players)
        results["raw batch rolls"] = raw_rate(args.batch, args.seconds, args.players)
        results["single env (heuristic)"] = single_rate(args.seconds, args.players)
        results["PettingZoo env (every seat)"] = pettingzoo_rate(args.seconds, args.players)
    if args.json:
        print(json.dumps(results))
        return
    table = Table(title=f"{args.players} players, classic, batch {args.batch:,}, one core")
    table.add_column("what")
    table.add_column("per second", justify="right")
    for key, value in results.items():
        if isinstance(value, dict):
            table.add_row(
                key + " (agent steps)",
                f"{value['steps_per_second']:,.0f} ({value['episodes_per_second']:,.0f} games)",
            )
        else:
            table.add_row(key, f"{value:,.0f}")
    Console().print(table)


if __name__ == "__main__":
    main()
