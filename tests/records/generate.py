"""Regenerate the golden records: `python tests/records/generate.py` (from the repo root).

Each scenario plays seeded bot games until one shows the wanted rule features, then
writes NAME.json (the record) and NAME.trace (the expected `replay --trace` output,
computed by the independent oracle in tests/oracle.py, not by the engine). Illegal
records get NAME.error: the expected first word pair of the error line.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from flyingchess import Rules, apply, new_game, roll
from flyingchess.bots import make_bot
from flyingchess.record import Record

from golden import features_of_record, golden_record_json
from oracle import oracle_replay

SCENARIOS: list[tuple[str, Any, tuple[str, ...], set[str]]] = [
    (
        "classic-4p",
        "classic",
        ("red", "yellow", "blue", "green"),
        {"launch", "jump", "flight", "capture", "pass", "game-over-first", "exact-finish", "three-sixes-last-moved"},
    ),
    (
        "traditional-4p",
        "traditional",
        ("red", "yellow", "blue", "green"),
        {
            "bounce",
            "jump-then-flight",
            "flight-then-jump",
            "capture-flight-line",
            "capture-mid-move",
            "player-finished-ranking",
            "game-over-ranking",
        },
    ),
    (
        "house-3p",
        "house",
        ("yellow", "blue", "green"),
        {"stack-moves", "capture-stack", "three-sixes-moved-by-sixes", "game-over-ranking"},
    ),
    ("even-2p", "even", ("blue", "red"), {"stack-moves", "game-over-ranking", "pass-on-six"}),
    (
        "all-sixes-2p",
        {"preset": "classic", "three_sixes": "all"},
        ("green", "yellow"),
        {"three-sixes-all", "game-over-first"},
    ),
    (
        "custom-full-options-3p",
        {
            "launch": [1, 6],
            "extra_roll": [1, 6],
            "three_sixes": "last-moved",
            "finish": "bounce",
            "chain": "jump-fly",
            "capture": "final",
            "flight_capture": True,
            "stacking": "together",
            "end": "first",
        },
        ("red", "blue", "green"),
        {"bounce", "jump-then-flight", "stack-moves", "game-over-first"},
    ),
]


def play_game(rules: Rules, players: tuple[str, ...], seed: int) -> Record:
    rng = random.Random(seed)
    bots = [make_bot("heuristic" if i % 2 == 0 else "random", seed + i) for i in range(len(players))]
    state = new_game(players, rules)
    record = Record.for_game(rules, players)
    while not state.over:
        value = rng.randint(1, 6)
        rolled, _ = roll(state, value)
        plane = bots[rolled.turn].choose(rolled)
        state, _ = apply(rolled, plane)
        record.add(value, plane)
    return record


def write(name: str, data: dict[str, Any]) -> None:
    (HERE / f"{name}.json").write_text(json.dumps(data, indent=None) + "\n")
    states, error = oracle_replay(data)
    (HERE / f"{name}.trace").write_text("".join(json.dumps(s) + "\n" for s in states))
    if error is not None:
        (HERE / f"{name}.error").write_text(f"action {error[0]}\n")


def main() -> None:
    for name, rules_json, players, wanted in SCENARIOS:
        rules = Rules.from_json(rules_json)
        for seed in range(5000):
            record = play_game(rules, players, seed)
            if wanted <= features_of_record(record):
                break
        else:
            raise SystemExit(f"{name}: no seed shows {wanted}")
        record.rules_json = rules_json
        write(name, golden_record_json(record, f"seed {seed}: shows {', '.join(sorted(wanted))}"))
        print(name, "seed", seed, len(record.actions), "actions")
        if name == "classic-4p":
            illegal = record.to_json()
            moves = illegal["actions"][:40]
            # the first roll that allows a move, answered with a pass: illegal
            for index, action in enumerate(moves):
                if action["plane"] is not None:
                    illegal["actions"] = moves[:index] + [{"roll": action["roll"], "plane": None}]
                    break
            write("illegal-pass", golden_record_json(Record(**_fields(illegal)), "a pass while a move exists"))
            after = record.to_json()
            after["actions"] = after["actions"] + [{"roll": 3, "plane": 0}]
            write("illegal-after-end", golden_record_json(Record(**_fields(after)), "an action after the end"))


def _fields(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "rules": Rules.from_json(data["rules"]),
        "players": tuple(data["players"]),
        "actions": data["actions"],
        "rules_json": data["rules"],
    }


if __name__ == "__main__":
    main()
