"""A fingerprint of the engine's and the bots' behaviour, to show a refactor changed none.

    python benchmarks/fingerprint.py [--positions 3000] [--write FILE | --compare FILE]

Plays seeded random games over every preset and random option sets, 2-4 players. At
every position with more than one legal move it records every bot's choice; after every
action it records the canonical state and the events. `--write` saves them as JSON;
`--compare` says whether a saved fingerprint (from another commit) is the same, and
names the first position that differs. Prints one SHA-256 either way.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from flyingchess import Rules, apply, canonical_state, legal_moves, new_game, roll
from flyingchess.bots import bot_names, make_bot
from flyingchess.engine.rules import PRESETS


def random_rules(rng: random.Random) -> Rules:
    """Any combination of options, drawn from the presets' own values and their mixes."""
    base = Rules.preset(rng.choice(list(PRESETS)))
    other = Rules.preset(rng.choice(list(PRESETS))).to_json()
    overrides = {name: value for name, value in other.items() if rng.random() < 0.4}
    if rng.random() < 0.3:
        overrides["launch"] = sorted(rng.sample(range(1, 7), rng.randint(1, 3)))
    if rng.random() < 0.3:
        overrides["extra_roll"] = sorted(rng.sample(range(1, 7), rng.randint(0, 2)))
    return base.with_options(**overrides)


def fingerprint(positions: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    names = bot_names()
    bots = {name: make_bot(name, 7) for name in names}
    choices: list[list[Any]] = []
    states: list[str] = []
    while len(choices) < positions:
        rules = random_rules(rng) if rng.random() < 0.5 else Rules.preset(rng.choice(list(PRESETS)))
        state = new_game(rng.randint(2, 4), rules)
        while not state.over and len(choices) < positions:
            state, events = roll(state, rng.randint(1, 6))
            moves = legal_moves(state)
            if len(moves) > 1:
                choices.append(
                    [
                        rules.describe(),
                        canonical_state(state),
                        state.roll,
                        {name: bot.choose(state) for name, bot in bots.items()},
                    ]
                )
            plane = rng.choice(moves) if moves else None
            state, more = apply(state, plane)
            states.append(json.dumps([canonical_state(state), [e.to_json() for e in events + more]], sort_keys=True))
    return {
        "seed": seed,
        "bots": names,
        "choices": choices,
        "states_sha256": hashlib.sha256("\n".join(states).encode()).hexdigest(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    found = fingerprint(args.positions, args.seed)
    digest = hashlib.sha256(json.dumps(found, sort_keys=True).encode()).hexdigest()
    print(f"{len(found['choices'])} positions, bots {', '.join(found['bots'])}: {digest}")
    if args.write:
        args.write.write_text(json.dumps(found))
    if args.compare:
        saved = json.loads(args.compare.read_text())
        if saved["states_sha256"] != found["states_sha256"]:
            print("the states or events differ")
            return 1
        for index, (before, after) in enumerate(zip(saved["choices"], found["choices"])):
            if before != after:
                print(f"position {index} differs:\n  before {before}\n  after  {after}")
                return 1
        if len(saved["choices"]) != len(found["choices"]):
            print("a different number of positions")
            return 1
        print("the same: every state, event and bot choice")
    return 0


if __name__ == "__main__":
    sys.exit(main())
