"""The `flyingchess` command: replay and check records, ask a bot, watch a demo, benchmark.

Every failure a user can cause prints one line on standard error and exits with status 2;
no traceback reaches the terminal (RECORD.md's command-line contract).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence, TextIO

from . import __version__
from .bots import BOTS, bot_names, make_bot
from .events import Event
from .game import GameSetupError, State, apply, new_game, random_playout, roll
from .record import ActionError, Record, RecordError, canonical_state, loads_record
from .rules import PRESETS, Rules, RulesError

EXIT_USAGE = 2


class CommandError(Exception):
    """A user error: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, as for every other user error (argparse would print the usage too).
        sys.stderr.write(f"{self.prog}: {message}\n")
        raise SystemExit(EXIT_USAGE)


def _read_record(path: str) -> Record:
    try:
        if path == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                text = handle.read()
    except OSError as error:
        raise CommandError(f"record: cannot read {path}: {error.strerror}") from None
    try:
        return loads_record(text)
    except RecordError as error:
        raise CommandError(f"record: {error}") from None


def _print_json(data: Any, out: TextIO) -> None:
    out.write(json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n")


def command_replay(args: argparse.Namespace) -> int:
    record = _read_record(args.record)
    state = record.start()
    try:
        for state in record.replay():
            if args.trace:
                _print_json(canonical_state(state), sys.stdout)
    except ActionError as error:
        sys.stdout.flush()
        raise CommandError(str(error)) from None
    if not args.trace:
        _print_json(canonical_state(state), sys.stdout)
    return 0


def _die_value(text: str) -> int:
    if text.strip() not in {"1", "2", "3", "4", "5", "6"}:
        raise CommandError(f"roll {text!r} is not a die value 1..6")
    return int(text)


def command_choose(args: argparse.Namespace) -> int:
    value = _die_value(args.roll)
    if args.bot not in BOTS:
        raise CommandError(f"unknown bot {args.bot!r} (known: {', '.join(bot_names())})")
    record = _read_record(args.record)
    try:
        state = record.final_state()
    except ActionError as error:
        raise CommandError(str(error)) from None
    if state.over:
        raise CommandError("the game is over: there is no move to choose")
    rolled, _ = roll(state, value)
    plane = make_bot(args.bot, args.seed).choose(rolled)
    print("pass" if plane is None else plane)
    return 0


def _parse_rules(text: str) -> Rules:
    try:
        if text.lstrip().startswith("{"):
            return Rules.from_json(json.loads(text))
        return Rules.preset(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"--rules: not valid JSON: {error}") from None
    except RulesError as error:
        raise CommandError(f"--rules: {error}") from None


def _players(text: str | None, count: int) -> tuple[str, ...] | int:
    return tuple(part.strip() for part in text.split(",")) if text else count


ANSI = {"red": "\033[31m", "yellow": "\033[33m", "blue": "\033[34m", "green": "\033[32m"}


def command_demo(args: argparse.Namespace) -> int:
    rules = _parse_rules(args.rules)
    bots = [name.strip() for name in args.bots.split(",")]
    for name in bots:
        if name not in BOTS:
            raise CommandError(f"unknown bot {name!r} (known: {', '.join(bot_names())})")
    try:
        state = new_game(_players(args.players, len(bots) if len(bots) > 1 else 4), rules)
    except GameSetupError as error:
        raise CommandError(str(error)) from None
    seats = {colour: make_bot(bots[i % len(bots)], args.seed + i)
             for i, colour in enumerate(state.players)}
    dice = random.Random(args.seed)
    paint = _painter(sys.stdout)
    print(f"flyingchess demo: {', '.join(f'{c} ({bots[i % len(bots)]})' for i, c in enumerate(state.players))}"
          f"; rules: {rules.describe()}")
    record = Record.for_game(rules, state.players, seed=args.seed)
    rolls = 0
    while not state.over:
        value = dice.randint(1, 6)
        state, events = roll(state, value)
        plane = seats[state.players[state.turn]].choose(state)
        state, more = apply(state, plane)
        record.add(value, plane)
        rolls += 1
        _print_events(events + more, paint, verbose=args.verbose)
        if args.delay:
            time.sleep(args.delay)
    print(f"{rolls} rolls. Final ranking: {', '.join(state.ranking)}")
    if args.save:
        with open(args.save, "w", encoding="utf-8") as handle:
            handle.write(record.dumps() + "\n")
        print(f"record saved to {args.save}")
    return 0


def _painter(out: TextIO) -> Callable[[str, str], str]:
    if not out.isatty():
        return lambda colour, text: text
    return lambda colour, text: f"{ANSI.get(colour, '')}{text}\033[0m"


def _print_events(events: Sequence[Event], paint: Callable[[str, str], str], verbose: bool) -> None:
    """One line per roll: the roll, then what it caused (steps only with --verbose)."""
    parts: list[str] = []
    colour = ""
    for event in events:
        if event.kind == "roll":
            colour = getattr(event, "colour")
        if event.kind == "step" and not verbose:
            continue
        parts.append(event.describe())
    print(paint(colour, "; ".join(parts)))


def command_bench(args: argparse.Namespace) -> int:
    rules = _parse_rules(args.rules)
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
        "games": args.games, "players": args.players, "rules": rules.describe(),
        "seconds": round(seconds, 3), "games_per_second": round(args.games / seconds, 1),
        "rolls_per_second": round(rolls / seconds), "rolls_per_game": round(rolls / args.games, 1),
    }
    if args.json:
        _print_json(figures, sys.stdout)
    else:
        print(f"{args.games} random {args.players}-player {figures['rules']} games in {seconds:.2f} s "
              f"on one core: {figures['games_per_second']} games/s, "
              f"{figures['rolls_per_second']} rolls/s ({figures['rolls_per_game']} rolls a game)")
    return 0


def command_bots(args: argparse.Namespace) -> int:
    listing = [{"name": name, "level": BOTS[name].level, "description": BOTS[name].description}
               for name in bot_names()]
    if args.json:
        _print_json(listing, sys.stdout)
    else:
        for entry in listing:
            print(f"{entry['name']:<12} level {entry['level']}  {entry['description']}")
    return 0


def command_rules(args: argparse.Namespace) -> int:
    names = [args.preset] if args.preset else list(PRESETS)
    for name in names:
        if name not in PRESETS:
            raise CommandError(f"unknown preset {name!r} (expected one of {', '.join(PRESETS)})")
        print(f"{name}: {json.dumps(PRESETS[name].to_json())}")
    return 0


def command_play(args: argparse.Namespace) -> int:
    try:
        from .server.run import serve
    except ImportError as error:
        raise CommandError(
            f"the web app needs its extra packages ({error.name} is missing): "
            "pip install 'flyingchess[web]'") from None
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port {args.port} is not a port number")
    return serve(args.host, args.port, args.data, open_browser=not args.no_browser)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="flyingchess", description="Aeroplane Chess (Flying Chess, 飞行棋).")
    parser.add_argument("--version", action="version", version=f"flyingchess {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    play = commands.add_parser("play", help="play in the browser (starts a local server)")
    play.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    play.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    play.add_argument("--no-browser", action="store_true", help="do not open a browser")
    play.add_argument("--data", type=Path, default=None,
                      help="folder for the games database (default: your user data folder)")
    play.set_defaults(handler=command_play)

    demo = commands.add_parser("demo", help="watch bots play a full game in the terminal")
    demo.add_argument("--bots", default="heuristic,random,heuristic,random",
                      help="comma-separated bot names, one per seat (default: %(default)s)")
    demo.add_argument("--players", help="comma-separated colours in turn order (default: by count)")
    demo.add_argument("--rules", default="classic", help="preset name or rules JSON (default: classic)")
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each roll")
    demo.add_argument("--verbose", action="store_true", help="print every step of every move")
    demo.add_argument("--save", metavar="FILE", help="write the game record to FILE")
    demo.set_defaults(handler=command_demo)

    replay = commands.add_parser("replay", help="check a record and print the canonical state")
    replay.add_argument("--trace", action="store_true", help="print the state after every action")
    replay.add_argument("record", help="record file, or - for standard input")
    replay.set_defaults(handler=command_replay)

    choose = commands.add_parser("choose", help="print the move a bot picks after a record")
    choose.add_argument("--bot", required=True)
    choose.add_argument("--roll", required=True)
    choose.add_argument("--seed", type=int, default=None)
    choose.add_argument("record", help="record file, or - for standard input")
    choose.set_defaults(handler=command_choose)

    bench = commands.add_parser("bench", help="random games per second through the fast path")
    bench.add_argument("--games", type=int, default=2000)
    bench.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    bench.add_argument("--rules", default="classic")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    bench.set_defaults(handler=command_bench)

    bots = commands.add_parser("bots", help="list the bots, weakest first")
    bots.add_argument("--json", action="store_true")
    bots.set_defaults(handler=command_bots)

    rules = commands.add_parser("rules", help="print the rule presets and their options")
    rules.add_argument("preset", nargs="?")
    rules.set_defaults(handler=command_rules)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        result: int = args.handler(args)
        return result
    except CommandError as error:
        sys.stdout.flush()
        sys.stderr.write(f"{error}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
