"""The `flyingchess` command: replay and check records, ask a bot, watch a demo, benchmark.

Every failure a user can cause prints one line on standard error and exits with status 2;
no traceback reaches the terminal (docs/records.md's command-line contract).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from . import __version__
from .bots import BOTS, bot_listing, bot_names, introduce, make_bot, seat_chooser
from .bots.levels import LEVELS, resolve
from .engine.board import COLOURS
from .engine.events import Event, Rolled, Stepped
from .engine.game import GameSetupError, Turn, new_game, play_out, random_playout, roll
from .engine.rules import DIE_FACES, PRESETS, Rules, RulesError
from .engine.text import counted
from .records.record import ActionError, Record, RecordError, canonical_state, loads_record

EXIT_USAGE = 2
EXIT_PARTIAL = 3
"""`verify`: the rolls the commitment covers match, but it covers only the later ones."""


class CommandError(Exception):
    """A user error: printed as one line, exit status 2."""


def _whole_number(text: str) -> int:
    """argparse's type for a count from 0 (its error reads "argument --from: ...")."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number 0 or more, not {text[:20]!r}")
    return value


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


def _at_least(value: int, minimum: int, option: str, hint: str = "") -> int:
    if value < minimum:
        raise CommandError(f"{option} must be at least {minimum}, not {value}{hint}")
    return value


def _jobs(value: int | None) -> int:
    """--jobs: None (left out) is every core; an explicit count must be at least 1."""
    if value is None:
        return os.cpu_count() or 1
    return _at_least(value, 1, "--jobs", " (leave it out to use every core)")


def _check_writable(path: str, option: str) -> None:
    """Fail now, not after the games, if `path` cannot be written; leave no file behind.

    An existing file is opened for appending (its content is untouched); a new one is
    created exclusively and removed again."""
    target = Path(path)
    if not target.parent.is_dir():
        raise CommandError(f"{option}: cannot write {path}: folder {target.parent} does not exist")
    if target.is_dir():
        raise CommandError(f"{option}: cannot write {path}: it is a folder")
    existed = target.exists()
    try:
        with open(target, "a" if existed else "x", encoding="utf-8"):
            pass
    except OSError as error:
        raise CommandError(f"{option}: cannot write {path}: {error.strerror}") from None
    if not existed:
        with contextlib.suppress(OSError):
            target.unlink()


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


def command_verify(args: argparse.Namespace) -> int:
    """Recompute every committed roll of a network game's record (docs/records.md §6).
    Exit 0: every roll is covered and matches; 2: refused; 3: the rolls covered match,
    but part of the record is only its own word (a warning line says what)."""
    from .records.fair_dice import HOST, ProofError, Shown, valid_contribution, verify_rolls

    shown = args.commitment
    if shown is not None and not (16 <= len(shown) <= 64 and all(c in "0123456789abcdefABCDEF" for c in shown)):
        raise CommandError("--commitment: give the commitment's 64 hexadecimal digits (or at least the first 16)")
    if args.share is not None and not valid_contribution(args.share):
        raise CommandError("--share: give your page's share as it showed it (8 to 64 letters, digits, '-' or '_')")
    if args.share_by is not None and (args.share is None or args.share_by not in (HOST, *COLOURS)):
        raise CommandError("--as: give host or your colour (red, yellow, blue, green), with --share")
    seated = None
    if args.seated is not None:
        seated = tuple(colour.strip() for colour in args.seated.split(",") if colour.strip())
        if any(colour not in COLOURS for colour in seated):
            raise CommandError("--seated: give the colours you saw held by players, comma-separated (blue,green)")
    record = _read_record(args.record)
    try:
        rolls = [step.roll for step in record.steps()]
    except ActionError as error:
        raise CommandError(str(error)) from None
    try:
        verified = verify_rolls(
            record.extra.get("dice"),
            rolls,
            record.players,
            seats=record.extra.get("seats"),
            shown=Shown(shown, args.first, args.share, args.share_by, seated),
        )
    except ProofError as error:
        raise CommandError(str(error)) from None
    print(verified.summary())
    for line in verified.details():
        print(line)
    if verified.complete:
        return 0
    sys.stdout.flush()
    for warning in verified.warnings():
        sys.stderr.write(f"warning: {warning}\n")
    return EXIT_PARTIAL


def command_build_site(args: argparse.Namespace) -> int:
    """The static site (docs/static-site.md): the whole game as files a static host serves."""
    from .server.site import SiteError, build_site

    try:
        site = build_site(Path(args.folder), Path(args.pyodide) if args.pyodide else None, args.server)
    except SiteError as error:
        raise CommandError(f"build-site: {error}") from None
    print(
        f"static site written to {site.folder}: {counted(site.files, 'file')}, {site.size / 1e6:.1f} MB"
        f" (version {site.version}, Pyodide {site.pyodide})"
    )
    print("serve that folder from any static host (for a try: python -m http.server -d FOLDER), then open it")
    return 0


def command_analyse(args: argparse.Namespace) -> int:
    record = _read_record(args.record)
    missing = BOTS["ace"].missing()
    if missing is not None:
        raise CommandError(f"analyse uses the ace bot's network: {missing}")
    from .bots.analysis import analyse

    try:
        review = analyse(record)
    except ActionError as error:
        raise CommandError(str(error)) from None
    if args.json:
        _print_json(review.to_json(), sys.stdout)
        return 0
    final = review.chances[-1]
    start = review.chances[0]
    print(f"{counted(len(record.actions), 'action')}, {counted(len(review.decisions), 'decision')} with a real choice")
    for colour in record.players:
        made = [d for d in review.decisions if d.colour == colour]
        lost = sum(d.cost for d in made)
        print(
            f"  {colour:<7} chance to finish first {start[colour]:6.1%} at the start, {final[colour]:6.1%} at the end;"
            f" {counted(len(made), 'decision')}, {sum(d.cost == 0 for d in made)} best, chance given away {lost:.1%}"
        )
    mistakes = review.mistakes()
    print("worst mistakes:" if mistakes else "no mistake costs 2% or more")
    for d in mistakes:
        played = "pass" if d.played is None else f"plane {d.played}"
        print(
            f"  action {d.index:>4}  {d.colour:<7} rolled {d.roll}: played {played}, best plane {d.best}"
            f" ({', '.join(d.reasons)}): {d.chance_played:.1%} instead of {d.chance_best:.1%}, cost {d.cost:.1%}"
        )
    if review.swings:
        print("big swings:")
    for swing in review.swings:
        changes = ", ".join(f"{colour} {delta:+.1%}" for colour, delta in swing.change.items() if abs(delta) >= 0.005)
        print(f"  action {swing.index:>4}  {swing.colour:<7} {'+'.join(swing.kinds)}: {changes}")
    return 0


def _die_value(text: str) -> int:
    if text.strip() not in {str(face) for face in DIE_FACES}:
        raise CommandError(f"roll {text!r} is not a die value 1..6")
    return int(text)


def command_choose(args: argparse.Namespace) -> int:
    value = _die_value(args.roll)
    _check_bots([args.bot])
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
    named = _seat_bots(_bot_list(args.bots))
    if not math.isfinite(args.delay) or args.delay < 0:
        raise CommandError(f"--delay must be a number of seconds, 0 or more, not {args.delay}")
    if args.save:
        _check_writable(args.save, "--save")
    try:
        state = new_game(_players(args.players, len(named)), rules)
    except GameSetupError as error:
        raise CommandError(f"--players: {error}") from None
    bots = _seat_bots(_bot_list(args.bots), len(state.players))
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
    _at_least(args.games, 1, "--games")
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
        "games": args.games,
        "players": args.players,
        "rules": rules.describe(),
        "seconds": round(seconds, 3),
        "games_per_second": round(args.games / seconds, 1),
        "rolls_per_second": round(rolls / seconds),
        "rolls_per_game": round(rolls / args.games, 1),
    }
    if args.json:
        _print_json(figures, sys.stdout)
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
        _print_json(listing, sys.stdout)
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


def _terminal_words(args: argparse.Namespace) -> Any:
    """The terminal game's modules and its words, or one line saying what to install."""
    try:
        from .clients.terminal import run
        from .clients.terminal.words import Words, language_from_environment
    except ImportError as error:
        raise CommandError(
            f"the terminal game needs its extra packages ({error.name} is missing): pip install 'flyingchess[terminal]'"
        ) from None
    return run, Words(args.lang or language_from_environment())


def command_play_terminal(args: argparse.Namespace) -> int:
    """The game in this terminal, over the data folder's local server (docs/terminal.md)."""
    from .clients.terminal.app import monochrome

    run, words = _terminal_words(args)
    folder = args.data
    if folder is None:
        from .server.transport.run import default_data_dir

        folder = default_data_dir()
    try:
        run.play_local(folder, words, monochrome(args.mono), args.speed)
    except run.TerminalError as error:
        raise CommandError(f"play --terminal: {error}") from None
    return 0


def command_join(args: argparse.Namespace) -> int:
    """A seat of a network game, played in this terminal."""
    from .clients.terminal.app import monochrome

    run, words = _terminal_words(args)
    try:
        token = run.join(
            args.link, words, colour=args.colour, name=args.name, token=args.token, mono=monochrome(args.mono)
        )
    except run.TerminalError as error:
        raise CommandError(f"join: {error}") from None
    if token:
        print(f"your seat stays yours: flyingchess join '{args.link}' --token {token}")
    return 0


def command_play(args: argparse.Namespace) -> int:
    if getattr(args, "terminal", False):
        if args.static or args.lan or args.port:
            raise CommandError("play --terminal plays on this computer: it takes no --static, --lan or --port")
        return command_play_terminal(args)
    try:
        from .server.transport.run import OptionError, ServeOptions, parse_metrics_address, serve, serve_static_site
    except ImportError as error:
        raise CommandError(
            f"the web app needs its extra packages ({error.name} is missing): pip install 'flyingchess[web]'"
        ) from None
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port {args.port} is not a port number")
    if getattr(args, "static", False):  # the static site: the same page, the game in the browser itself
        from .server.site import SiteError, build_site, site_cache

        try:
            site = build_site(site_cache())
        except SiteError as error:
            raise CommandError(f"play --static: {error}") from None
        host = "0.0.0.0" if args.lan else args.host
        return serve_static_site(site.folder, host, args.port, open_browser=not args.no_browser)
    lease = getattr(args, "lease_seconds", None)
    if lease is not None and not (math.isfinite(lease) and 1 <= lease <= 600):
        raise CommandError(f"--lease-seconds must be 1..600, not {lease}")
    if lease is not None and not getattr(args, "redis", None):
        raise CommandError("--lease-seconds is the lease on a room held in Redis: it needs --redis")
    serving = args.command == "serve"
    lan = getattr(args, "lan", False)
    metrics_address = None
    if getattr(args, "metrics", None) is not None:
        try:
            metrics_address = parse_metrics_address(args.metrics)
        except OptionError as error:
            raise CommandError(str(error)) from None
    return serve(
        ServeOptions(
            host="0.0.0.0" if lan else args.host,
            port=args.port,
            data=args.data,
            open_browser=not args.no_browser,
            # `serve` always asks pages for tokens, even on loopback: behind a reverse proxy every
            # visitor arrives from 127.0.0.1, and none of them may become every game's host
            network=serving or lan,
            database=getattr(args, "database", None),
            redis=getattr(args, "redis", None),
            lease_seconds=getattr(args, "lease_seconds", None),
            allowed_hosts=list(args.allowed_host or []),
            public_url=args.public_url,
            trusted_proxies=list(getattr(args, "trusted_proxy", None) or []),
            metrics=metrics_address,
            json_logs=getattr(args, "log_format", "text") == "json",
        )
    )


def command_migrate(args: argparse.Namespace) -> int:
    try:
        from .server.storage.migrate import MigrationError, migrate
        from .server.transport.run import default_data_dir
    except ImportError as error:
        raise CommandError(
            f"migrate needs the web and cluster extras ({error.name} is missing): pip install 'flyingchess[web,cluster]'"
        ) from None
    folder = args.data if args.data is not None else default_data_dir()
    try:
        result = migrate(folder, args.to)
    except MigrationError as error:
        raise CommandError(f"migrate: {error}") from None
    print(
        f"{counted(result['copied'], 'game')} copied, {result['skipped']} already there; the target now holds"
        f" {counted(result['target_games'], 'game')}, {counted(result['target_actions'], 'action')},"
        f" {counted(result['target_chat'], 'chat line')}"
    )
    return 0


def _data_folder_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=None, help="the data folder (default: your user data folder)")


def _backup_module() -> Any:
    try:
        from .server.storage import backup
        from .server.transport.run import default_data_dir
    except ImportError as error:
        raise CommandError(
            f"backup and restore need the web extra ({error.name} is missing): pip install 'flyingchess[web]'"
        ) from None
    return backup, default_data_dir


def _counts_text(counts: dict[str, int]) -> str:
    return (
        f"{counted(counts['games'], 'game')}, {counted(counts['actions'], 'action')},"
        f" {counted(counts['chat'], 'chat line')}"
    )


def command_backup(args: argparse.Namespace) -> int:
    backup, default_data_dir = _backup_module()
    folder = args.data if args.data is not None else default_data_dir()
    try:
        counts = backup.backup(folder, args.file)
    except backup.BackupError as error:
        raise CommandError(f"backup: {error}") from None
    print(f"backed up {_counts_text(counts)} from {folder} to {args.file}")
    return 0


def command_restore(args: argparse.Namespace) -> int:
    backup, default_data_dir = _backup_module()
    folder = args.data if args.data is not None else default_data_dir()
    try:
        counts, kept = backup.restore(args.file, folder)
    except backup.BackupError as error:
        raise CommandError(f"restore: {error}") from None
    print(f"restored {_counts_text(counts)} from {args.file} into {folder / backup.DATABASE_NAME}")
    if kept is not None:
        print(f"  the games that were there are kept in {kept}")
    return 0


def _progress(total: int, label: str) -> Any:
    """A rich progress bar with games per second and time left (plain text without rich)."""
    try:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    except ImportError:
        return None
    progress = Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} games/s"),
        TimeRemainingColumn(),
        transient=True,
        stderr=True,
    )  # type: ignore[call-arg]
    return progress


def _check_bots(names: list[str]) -> None:
    for name in map(resolve, names):
        if name not in BOTS:
            raise CommandError(f"unknown bot {name!r} (known: {', '.join(bot_names())})")
        missing = BOTS[name].missing()
        if missing is not None:
            raise CommandError(missing)


def _bot_list(text: str) -> list[str]:
    """--bots: comma-separated registered names, none empty."""
    names = [name.strip() for name in text.split(",")]
    if "" in names:
        raise CommandError(f"--bots: an empty bot name in {text!r} (comma-separated names expected)")
    _check_bots(names)
    return [resolve(name) for name in names]


def _seat_bots(bots: list[str], seats: int | None = None) -> list[str]:
    """--bots for `demo` and `simulate`: one name per seat, or one name for every seat
    (`seats` of them; as many as names, or 4 for one name, when the command does not
    say). A name per seat for 2 to 4 seats."""
    if not 1 <= len(bots) <= 4:
        raise CommandError(f"--bots: name one bot for every seat, or 2 to 4 bots (one per seat), not {len(bots)}")
    count = seats if seats is not None else len(bots) if len(bots) > 1 else 4
    if len(bots) == 1:
        return bots * count
    if len(bots) != count:
        raise CommandError(f"--bots: {len(bots)} bots for {count} seats (name one per seat, or one for all)")
    return bots


def command_simulate(args: argparse.Namespace) -> int:
    from .simulation.games import run_games
    from .simulation.statistics import summarise

    rules = _parse_rules(args.rules)
    bots = _seat_bots(_bot_list(args.bots))
    _at_least(args.games, 1, "--games")
    jobs = _jobs(args.jobs)
    if args.plot:
        _check_plot(args.plot)
    began = time.perf_counter()
    results = run_games(rules, bots, args.games, args.seed, jobs)
    progress = None if args.json or not sys.stderr.isatty() else _progress(args.games, "simulating")
    if progress is not None:
        with progress:
            task = progress.add_task("games", total=args.games, rate="-")

            def advance(_: Any) -> None:
                done = progress.tasks[0].completed + 1
                rate = done / max(time.perf_counter() - began, 1e-9)
                progress.update(task, advance=1, rate=f"{rate:,.0f}")

            summary = summarise(results, advance)
    else:
        summary = summarise(results)
    seconds = time.perf_counter() - began
    data = summary.to_json()
    data["games_per_second"] = round(summary.games / seconds, 1)
    data["rules"] = rules.describe()
    data["seed"] = args.seed
    if args.json:
        _print_json(data, sys.stdout)
    else:
        _print_table(
            f"{counted(summary.games, 'game')}, {len(bots)} players, rules {rules.describe()}, seed {args.seed}"
            f" ({data['games_per_second']} games/s on {counted(jobs, 'process', 'processes')})",
            ["bot", "games", "wins", "win rate", "95% interval", "mean place", "mean rolls"],
            [
                [
                    name,
                    str(s["games"]),
                    str(s["wins"]),
                    f"{s['win_rate']:.1%}",
                    f"{s['ci95'][0]:.1%}-{s['ci95'][1]:.1%}",
                    f"{s['mean_place']:.2f}",
                    f"{s['mean_rolls']:.0f}",
                ]
                for name, s in data["bots"].items()
            ],
        )
    if args.plot:
        _plot_win_rates(data, args.plot, len(bots), sys.stderr if args.json else sys.stdout)
    return 0


def _print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(title)
        widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))
        return
    table = Table(title=title)
    for name in header:
        table.add_column(name, justify="left" if name in ("bot", "rating interval") else "right")
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def _import_pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CommandError("--plot needs matplotlib: pip install 'flyingchess[sim]'") from None
    return plt


def _check_plot(path: str) -> None:
    """Before any game: matplotlib is importable, `path` names a format it writes (by
    its extension: matplotlib would otherwise add .png or fail after the games), and it
    can be written."""
    plt = _import_pyplot()
    formats = sorted(plt.figure().canvas.get_supported_filetypes())
    plt.close("all")
    extension = Path(path).suffix.lower().lstrip(".")
    if not extension:
        raise CommandError(f"--plot: {path} has no extension to name its format ({', '.join(formats)})")
    if extension not in formats:
        raise CommandError(
            f"--plot: {path}: .{extension} is not an image format matplotlib writes ({', '.join(formats)})"
        )
    _check_writable(path, "--plot")


def _plot_win_rates(data: dict[str, Any], path: str, players: int, out: TextIO) -> None:
    """The win-rate chart; where it went is said on `out` (standard error under --json,
    whose standard output is the JSON alone)."""
    plt = _import_pyplot()
    names = list(data["bots"])
    rates = [data["bots"][n]["win_rate"] for n in names]
    low = [rate - data["bots"][n]["ci95"][0] for n, rate in zip(names, rates)]
    high = [data["bots"][n]["ci95"][1] - rate for n, rate in zip(names, rates)]
    figure, axes = plt.subplots(figsize=(6, 3.5), dpi=120)
    axes.bar(names, rates, yerr=[low, high], capsize=6, color="#3e63dd")
    axes.axhline(1 / players, color="#888", linestyle="--", label=f"parity ({1 / players:.0%})")
    axes.set_ylabel("win rate (95% interval)")
    axes.set_title(f"{counted(data['games'], 'game')}, rules {data['rules']}")
    axes.set_ylim(0, 1)
    axes.legend()
    figure.tight_layout()
    try:
        figure.savefig(path)
    except OSError as error:
        raise CommandError(f"--plot: cannot write {path}: {error.strerror}") from None
    print(f"plot written to {path}", file=out)


def command_seat_bot(args: argparse.Namespace) -> int:
    """A bot or a user's policy in a seat of a network game, until the game ends."""
    import asyncio
    import importlib.util

    from .clients.game_client import ClientError
    from .clients.seat_bot import SeatError, bot_chooser, policy_chooser, sit

    if (args.bot is None) == (args.policy is None):
        raise CommandError("seat-bot: give --bot NAME or --policy module:function (one of them)")
    if importlib.util.find_spec("websockets") is None:
        raise CommandError("seat-bot needs the web extra: pip install 'flyingchess[web]'")
    try:
        choose = bot_chooser(args.bot) if args.bot is not None else policy_chooser(args.policy)
        name = args.name or (f"{args.bot} bot" if args.bot else "policy")
        asyncio.run(sit(args.link, choose, colour=args.colour, name=name, token=args.token))
    except (ClientError, SeatError) as error:
        raise CommandError(f"seat-bot: {error}") from None
    return 0


def command_tournament(args: argparse.Namespace) -> int:
    from .simulation.games import run_games
    from .simulation.statistics import bradley_terry

    rules = _parse_rules(args.rules)
    names = _bot_list(args.bots) if args.bots is not None else bot_names()
    for name in names:
        if names.count(name) > 1:
            raise CommandError(f"--bots: bot {name!r} is named twice (each bot plays every other once)")
    if len(names) < 2:
        raise CommandError("--bots: a tournament needs at least 2 bots")
    _at_least(args.games, 1, "--games")
    _at_least(args.bootstrap, 0, "--bootstrap", " (0 means no resampling)")
    jobs = _jobs(args.jobs)
    outcomes: dict[tuple[str, str], list[int]] = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            seed = args.seed * 1000 + len(outcomes)
            outcomes[(a, b)] = [
                int(result.places[result.lineup.index(a)] == 1.0)
                for result in run_games(rules, [a, b], args.games, seed, jobs)
            ]
    rng = random.Random(args.seed)

    def tally(samples: dict[tuple[str, str], list[int]]) -> dict[tuple[str, str], int]:
        wins: dict[tuple[str, str], int] = {}
        for (a, b), results in samples.items():
            wins[(a, b)] = sum(results)
            wins[(b, a)] = len(results) - sum(results)
        return wins

    ratings = bradley_terry(tally(outcomes), names)
    boots = [
        bradley_terry(
            tally({pair: rng.choices(results, k=len(results)) for pair, results in outcomes.items()}),
            names,
            iterations=100,
        )
        for _ in range(args.bootstrap)
    ]
    rows = []
    listing = []
    for name in sorted(names, key=lambda n: -ratings[n]):
        samples = sorted(boot[name] for boot in boots)
        low = samples[int(0.025 * len(samples))] if samples else ratings[name]
        high = samples[min(len(samples) - 1, int(0.975 * len(samples)))] if samples else ratings[name]
        games = sum(len(r) for pair, r in outcomes.items() if name in pair)
        wins = sum(sum(r) if pair[0] == name else len(r) - sum(r) for pair, r in outcomes.items() if name in pair)
        listing.append(
            {
                "bot": name,
                "rating": round(ratings[name], 1),
                "ci95": [round(low, 1), round(high, 1)],
                "games": games,
                "wins": wins,
            }
        )
        rows.append([name, str(games), f"{wins / games:.1%}", f"{ratings[name]:+.0f}", f"{low:+.0f} .. {high:+.0f}"])
    if args.json:
        _print_json({"rules": rules.describe(), "games_per_pair": args.games, "ratings": listing}, sys.stdout)
    else:
        _print_table(
            f"Round robin, 2 players, {counted(args.games, 'game')} a pair, rules {rules.describe()}"
            " (Bradley-Terry ratings on the Elo scale)",
            ["bot", "games", "win rate", "rating", "rating interval"],
            rows,
        )
    return 0


def _host_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        help="a host name the server answers to besides its own addresses"
        " (repeatable; *.example.org allows subdomains)",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="the address players reach the server at (e.g. behind a proxy):"
        " used in invite links and QR codes, and allowed as a host name",
    )


def _terminal_options(parser: argparse.ArgumentParser) -> None:
    from .clients.terminal.words import LANGUAGES

    parser.add_argument("--lang", choices=LANGUAGES, help="language (default: the terminal's locale)")
    parser.add_argument("--mono", action="store_true", help="no colour (also when NO_COLOR is set)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="flyingchess", description="Aeroplane Chess (Flying Chess, 飞行棋).")
    parser.add_argument("--version", action="version", version=f"flyingchess {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    play = commands.add_parser("play", help="play in the browser (starts a local server)")
    play.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    play.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    play.add_argument(
        "--lan", action="store_true", help="listen on every network interface so phones on your Wi-Fi can join"
    )
    play.add_argument("--no-browser", action="store_true", help="do not open a browser")
    play.add_argument(
        "--static",
        action="store_true",
        help="serve the static site instead (built by build-site): the game runs in the browser, offline too",
    )
    play.add_argument(
        "--data", type=Path, default=None, help="folder for the games database (default: your user data folder)"
    )
    _host_options(play)
    play.add_argument("--terminal", action="store_true", help="play in this terminal instead of the browser")
    _terminal_options(play)
    play.add_argument(
        "--speed", choices=("slow", "normal", "fast", "instant"), default="normal", help="the bots' pace (--terminal)"
    )
    play.set_defaults(handler=command_play)

    serve_parser = commands.add_parser("serve", help="run the game server for a network (no browser)")
    serve_parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    serve_parser.add_argument("--port", type=int, default=8000)
    serve_parser.add_argument(
        "--data", type=Path, default=None, help="folder for the games database (default: your user data folder)"
    )
    serve_parser.add_argument(
        "--database", metavar="URL", help="keep games in PostgreSQL (postgresql://...) instead of SQLite in --data"
    )
    serve_parser.add_argument(
        "--redis", metavar="URL", help="share rooms with other serve processes over this Redis (redis://...)"
    )
    serve_parser.add_argument(
        "--lease-seconds",
        type=float,
        default=None,
        metavar="S",
        help="with --redis: how long a room's owner holds it without renewing (default 5); a killed "
        "process is replaced at once, a frozen one within this",
    )
    _host_options(serve_parser)
    serve_parser.add_argument(
        "--trusted-proxy",
        action="append",
        metavar="ADDRESS",
        help="a reverse proxy's address whose X-Forwarded-For and X-Forwarded-Proto headers are believed (repeatable)",
    )
    serve_parser.add_argument(
        "--metrics",
        metavar="ADDRESS:PORT",
        help="serve Prometheus metrics on this address of their own (PORT alone: 127.0.0.1); see SECURITY.md",
    )
    serve_parser.add_argument(
        "--log-format", choices=("text", "json"), default="text", help="log lines as text (default) or JSON objects"
    )
    serve_parser.add_argument("--network", action="store_true", help=argparse.SUPPRESS)
    # --network: kept for old scripts; `serve` always asks pages for seat tokens
    serve_parser.set_defaults(handler=command_play, no_browser=True)

    migrate_parser = commands.add_parser("migrate", help="copy a data folder's games from SQLite into PostgreSQL")
    _data_folder_option(migrate_parser)
    migrate_parser.add_argument("--to", required=True, metavar="URL", help="postgresql://user:password@host/database")
    migrate_parser.set_defaults(handler=command_migrate)

    backup_parser = commands.add_parser(
        "backup", help="copy a data folder's games database to a file (safe while the server runs)"
    )
    backup_parser.add_argument("file", type=Path, help="the backup file to write (a new file)")
    _data_folder_option(backup_parser)
    backup_parser.set_defaults(handler=command_backup)
    restore_parser = commands.add_parser(
        "restore", help="make a backup the data folder's games database (the server must be stopped)"
    )
    restore_parser.add_argument("file", type=Path, help="a file written by flyingchess backup")
    _data_folder_option(restore_parser)
    restore_parser.set_defaults(handler=command_restore)

    demo = commands.add_parser("demo", help="watch bots play a full game in the terminal")
    demo.add_argument(
        "--bots",
        default="heuristic,random,heuristic,random",
        help="comma-separated bot names, one per seat (default: %(default)s)",
    )
    demo.add_argument("--players", help="comma-separated colours in turn order (default: by count)")
    demo.add_argument("--rules", default="classic", help="preset name or rules JSON (default: classic)")
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each roll (0 or more)")
    demo.add_argument("--verbose", action="store_true", help="print every step of every move")
    demo.add_argument("--save", metavar="FILE", help="write the game record to FILE")
    demo.set_defaults(handler=command_demo)

    replay = commands.add_parser("replay", help="check a record and print the canonical state")
    replay.add_argument("--trace", action="store_true", help="print the state after every action")
    replay.add_argument("record", help="record file, or - for standard input")
    replay.set_defaults(handler=command_replay)

    analyse = commands.add_parser(
        "analyse", help="review a record: chances to win, each decision's best move and cost, the worst mistakes"
    )
    analyse.add_argument("--json", action="store_true", help="print the whole review as one JSON object")
    analyse.add_argument("record", help="record file, or - for standard input")
    analyse.set_defaults(handler=command_analyse)

    verify = commands.add_parser(
        "verify",
        help="check a network game's dice against the commitment it was played under",
        description="Recompute every roll of a network game's record from the revealed seed and the players'"
        " shares, and hold the record to what your page showed (docs/records.md §6).",
        epilog="Exit status: 0 every roll is covered and matches; 2 refused (one line says why); 3 the rolls"
        " covered match, but part of the record is only its own word (a warning line says what, and which"
        " option settles it).",
    )
    verify.add_argument(
        "--commitment", metavar="HEX", help="the commitment the page showed before the game (at least 16 digits)"
    )
    verify.add_argument(
        "--from",
        dest="first",
        metavar="N",
        type=_whole_number,
        help="the action the commitment you were shown starts at (0 unless the page said otherwise)",
    )
    verify.add_argument("--share", metavar="VALUE", help="your page's share: it must be in the record")
    verify.add_argument(
        "--as", dest="share_by", metavar="NAME", help="host, or your colour: the name your share must be filed under"
    )
    verify.add_argument(
        "--seated",
        metavar="COLOURS",
        help="the colours you saw held by players (comma-separated; '' for none): no other colour may contribute",
    )
    verify.add_argument("record", help="record file, or - for standard input")
    verify.set_defaults(handler=command_verify)

    site = commands.add_parser(
        "build-site",
        help="write the game as a static site: it plays in the browser with nothing installed, offline too",
        description="Write the page, the engine and the Python runtime into FOLDER: any static host serves it"
        " (docs/static-site.md).",
    )
    site.add_argument("folder", help="where to write it (new, empty, or a site built before)")
    site.add_argument("--pyodide", metavar="DIR", help="the pyodide npm package (default: node_modules/pyodide)")
    site.add_argument("--server", metavar="URL", help="a flyingchess server the page names for games across devices")
    site.set_defaults(handler=command_build_site)

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

    simulate = commands.add_parser("simulate", help="play many bot games and print statistics")
    simulate.add_argument(
        "--bots", required=True, help="comma-separated bot names, one per seat (2 to 4), or one name for all 4 seats"
    )
    simulate.add_argument("--games", type=int, default=1000)
    simulate.add_argument("--rules", default="classic", help="preset name or rules JSON")
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument("--jobs", type=int, default=None, help="processes, 1 or more (default: all cores)")
    simulate.add_argument("--json", action="store_true", help="print the statistics as one JSON object")
    simulate.add_argument("--plot", metavar="FILE", help="write a PNG of the win rates")
    simulate.set_defaults(handler=command_simulate)

    tournament = commands.add_parser("tournament", help="round robin of the bots with ratings")
    tournament.add_argument("--bots", help="comma-separated bot names (default: every bot)")
    tournament.add_argument("--games", type=int, default=400, help="games per pair, 1 or more")
    tournament.add_argument("--rules", default="classic")
    tournament.add_argument("--seed", type=int, default=0)
    tournament.add_argument("--jobs", type=int, default=None, help="processes, 1 or more (default: all cores)")
    tournament.add_argument(
        "--bootstrap", type=int, default=200, help="resamples for the intervals; 0 for none (default: %(default)s)"
    )
    tournament.add_argument("--json", action="store_true")
    tournament.set_defaults(handler=command_tournament)

    bots = commands.add_parser("bots", help="list the bots, weakest first")
    bots.add_argument("--json", action="store_true")
    bots.set_defaults(handler=command_bots)

    seat_bot = commands.add_parser("seat-bot", help="play a bot or your own policy in a seat of a network game")
    seat_bot.add_argument("link", help="the game's invite link (http://HOST:PORT/#/join/GAME)")
    seat_bot.add_argument("--bot", help="a registered bot (flyingchess bots)")
    seat_bot.add_argument("--policy", help="module:function taking (observation, mask), returning an action 0..4")
    seat_bot.add_argument("--colour", choices=COLOURS, help="the seat to take (default: the first open one)")
    seat_bot.add_argument("--name", help="the name the table sees")
    seat_bot.add_argument("--token", help="a seat's token: play the seat it opens instead of joining")
    seat_bot.set_defaults(handler=command_seat_bot)

    join = commands.add_parser("join", help="take a seat of a network game and play it in this terminal")
    join.add_argument("link", help="the game's invite link (http://HOST:PORT/#/join/GAME)")
    join.add_argument("--colour", choices=COLOURS, help="the seat to take (default: the first open one)")
    join.add_argument("--name", default="Terminal", help="the name the table sees")
    join.add_argument("--token", help="your seat's token: come back to the seat it opens")
    _terminal_options(join)
    join.set_defaults(handler=command_join)

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
