"""The commands about one game and the catalogues: `demo` (bots play a game on screen),
`bench` (random games per second), `bots` and `rules` (what there is to choose from)."""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from ..bots import bot_listing, bot_names, introduce, make_bot, seat_chooser
from ..bots.levels import LEVELS
from ..engine.events import Event, Rolled, Stepped
from ..engine.game import GameSetupError, Turn, new_game, play_out, random_playout
from ..engine.rules import PRESETS
from ..engine.text import counted
from ..records.record import Record
from .common import CommandError, at_least, bot_list, check_writable, parse_rules, print_json, seat_bots

ANSI = {"red": "\033[31m", "yellow": "\033[33m", "blue": "\033[34m", "green": "\033[32m"}


def _players(text: str | None, count: int) -> tuple[str, ...] | int:
    return tuple(part.strip() for part in text.split(",")) if text else count


def command_demo(args: argparse.Namespace) -> int:
    rules = parse_rules(args.rules)
    named = seat_bots(bot_list(args.bots))
    if not math.isfinite(args.delay) or args.delay < 0:
        raise CommandError(f"--delay must be a number of seconds, 0 or more, not {args.delay}")
    if args.save:
        check_writable(args.save, "--save")
    try:
        state = new_game(_players(args.players, len(named)), rules)
    except GameSetupError as error:
        raise CommandError(f"--players: {error}") from None
    bots = seat_bots(bot_list(args.bots), len(state.players))
    seats = {colour: make_bot(bots[i], args.seed + i) for i, colour in enumerate(state.players)}
    introduce(seats)
    dice = random.Random(args.seed)
    paint = _painter(sys.stdout)
    print(
        f"flyingchess demo: {', '.join(f'{c} ({bots[i]})' for i, c in enumerate(state.players))}"
        f"; rules: {rules.describe()}"
    )
    record = Record.for_game(rules, state.players, seed=args.seed)

    def show(turn: Turn) -> None:
        record.add(turn.roll, turn.plane)
        _print_events(turn.events, paint, verbose=args.verbose)
        if args.delay:
            time.sleep(args.delay)

    state, rolls = play_out(state, seat_chooser(seats), lambda: dice.randint(1, 6), checked=True, watch=show)
    print(f"{counted(rolls, 'roll')}. Final ranking: {', '.join(state.ranking)}")
    if args.save:
        try:
            with open(args.save, "w", encoding="utf-8") as handle:
                handle.write(record.dumps() + "\n")
        except OSError as error:
            sys.stdout.flush()
            raise CommandError(f"--save: cannot write {args.save}: {error.strerror}") from None
        print(f"record saved to {args.save}")
    return 0


def _painter(out: TextIO) -> Callable[[str, str], str]:
    if not out.isatty():
        return lambda colour, text: text
    return lambda colour, text: f"{ANSI.get(colour, '')}{text}\033[0m"


def _print_events(events: Sequence[Event], paint: Callable[[str, str], str], verbose: bool) -> None:
    """One line per roll: the roll, then what it caused; a run of steps is told as the
    move it makes ("red plane 0 moves to 5"), each step only with --verbose."""
    parts: list[str] = []
    colour = ""
    steps: Stepped | None = None
    for event in events:
        if isinstance(event, Rolled):
            colour = event.colour
        if isinstance(event, Stepped) and not verbose:
            steps = event
            continue
        if steps is not None:
            parts.append(steps.describe_move())
            steps = None
        parts.append(event.describe())
    if steps is not None:
        parts.append(steps.describe_move())
    print(paint(colour, "; ".join(parts)))


def command_bench(args: argparse.Namespace) -> int:
    at_least(args.games, 1, "--games")
    rules = parse_rules(args.rules)
    try:
        start = new_game(args.players, rules)
    except GameSetupError as error:
        raise CommandError(str(error)) from None
    rng = random.Random(args.seed)
    rolls = 0
    began = time.perf_counter()
    for _ in range(args.games):
        _, count = random_playout(start, rng)
        rolls += count
    seconds = time.perf_counter() - began
    figures = {
        "games": args.games,
        "players": args.players,
        "rules": rules.describe(),
        "seconds": round(seconds, 3),
        "games_per_second": round(args.games / seconds, 1),
        "rolls_per_second": round(rolls / seconds),
        "rolls_per_game": round(rolls / args.games, 1),
    }
    if args.json:
        print_json(figures, sys.stdout)
    else:
        print(
            f"{counted(args.games, f'random {args.players}-player ' + str(figures['rules']) + ' game')} in {seconds:.2f} s "
            f"on one core: {figures['games_per_second']} games/s, "
            f"{figures['rolls_per_second']} rolls/s ({figures['rolls_per_game']} rolls a game)"
        )
    return 0


def command_bots(args: argparse.Namespace) -> int:
    listing = [bot_listing(name) for name in bot_names()]
    if args.json:
        print_json(listing, sys.stdout)
    else:
        for entry in listing:
            needs = "" if entry["available"] else f"  (needs: pip install 'flyingchess[{entry['extra']}]')"
            level = entry["level_name"] or "-"
            print(f"{entry['name']:<12} {level:<9} {entry['description']}{needs}")
        print("levels, weakest first: " + " < ".join(f"{level.name} ({level.bot})" for level in LEVELS))
        print("a level's name works wherever a bot's does: --bots master,casual")
    return 0


def command_rules(args: argparse.Namespace) -> int:
    names = [args.preset] if args.preset else list(PRESETS)
    for name in names:
        if name not in PRESETS:
            raise CommandError(f"unknown preset {name!r} (expected one of {', '.join(PRESETS)})")
        print(f"{name}: {json.dumps(PRESETS[name].to_json())}")
    return 0
