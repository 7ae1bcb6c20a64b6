"""Why the observation and the heuristic policy have a batched twin (docs/ARCHITECTURE.md, Who derives what: Twins).

    python benchmarks/twins.py

One canonical form would make the other a wrapper: the single form a batch of one, or
the batch a loop over single games. This prints what each costs, per game, on positions
of random 4-player games: the single observation against a batch of one (without even
packing the State into the batch's bits) and against a game's share of a batch of 1,024;
the heuristic bot's decision against a game's share of the batched policy. Needs the
`rl` extra (NumPy).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np

from flyingchess import Rules
from flyingchess.bots import make_bot
from flyingchess.engine.game import State, legal_moves, new_game, play_out, roll
from flyingchess.envs.batch import BatchGame, heuristic_actions
from flyingchess.envs.observation import observe
from flyingchess.envs.vector import batch_observe

BATCH = 1024


def positions(count: int, seed: int) -> list[State]:
    """Rolled positions of random 4-player classic games, 0-120 actions in."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state, _ = play_out(
            new_game(4),
            lambda _, __, moves: moves[rng.randrange(len(moves))],
            lambda: rng.randint(1, 6),
            actions=rng.randint(0, 120),
        )
        if not state.over:
            found.append(roll(state, rng.randint(1, 6))[0])
    return found


def per_call(work: list[Any], call: Callable[[Any], object], repeat: int) -> float:
    """Seconds per call of `call(item)` over `work`, `repeat` times."""
    started = time.perf_counter()
    for _ in range(repeat):
        for item in work:
            call(item)
    return (time.perf_counter() - started) / (repeat * len(work))


def main() -> None:
    states = positions(200, seed=1)
    choices = [state for state in states if len(legal_moves(state)) > 1]
    if not states or not choices:
        raise SystemExit("no positions to measure: nothing was measured")
    one = BatchGame(Rules.preset("classic"), 4, 1)
    many = BatchGame(Rules.preset("classic"), 4, BATCH)
    generator = np.random.default_rng(1)
    for _ in range(30):
        many.step_random(generator)
    rolls = many.roll(generator)
    single = per_call(states, lambda s: observe(s, s.players[s.turn]), 5)
    batch_of_one = per_call(states, lambda s: batch_observe(one, [s.roll], [s.turn]), 5)
    in_batch = per_call([None] * 20, lambda _: batch_observe(many, rolls, many.turn), 1) / BATCH
    bot = make_bot("heuristic")
    decision = per_call(choices, bot.choose, 5)
    batched_policy = per_call([None] * 20, lambda _: heuristic_actions(many, rolls), 1) / BATCH
    print(f"observation, single form:            {single * 1e6:8.2f} us a game")
    print(f"observation, as a batch of one:      {batch_of_one * 1e6:8.2f} us a game (state packing not counted)")
    print(f"observation, in a batch of {BATCH}:    {in_batch * 1e6:8.2f} us a game")
    print(
        f"heuristic, the bot's decision:       {decision * 1e6:8.2f} us ({len(choices)} positions with a real choice)"
    )
    print(f"heuristic, in a batch of {BATCH}:      {batched_policy * 1e6:8.2f} us a game")


if __name__ == "__main__":
    main()
