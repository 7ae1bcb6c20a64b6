"""The commands that play many bot games and say what they show: `simulate` (each bot's
win rate, as a table, JSON or a plot) and `tournament` (a round robin's ratings)."""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from ..bots import bot_names
from ..engine.text import counted
from .common import CommandError, at_least, bot_list, check_writable, job_count, parse_rules, print_json, seat_bots


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


def command_simulate(args: argparse.Namespace) -> int:
    from ..simulation.games import run_games
    from ..simulation.statistics import summarise

    rules = parse_rules(args.rules)
    bots = seat_bots(bot_list(args.bots))
    at_least(args.games, 1, "--games")
    jobs = job_count(args.jobs)
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
        print_json(data, sys.stdout)
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
    check_writable(path, "--plot")


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


def command_tournament(args: argparse.Namespace) -> int:
    from ..simulation.games import run_games
    from ..simulation.statistics import bradley_terry

    rules = parse_rules(args.rules)
    names = bot_list(args.bots) if args.bots is not None else bot_names()
    for name in names:
        if names.count(name) > 1:
            raise CommandError(f"--bots: bot {name!r} is named twice (each bot plays every other once)")
    if len(names) < 2:
        raise CommandError("--bots: a tournament needs at least 2 bots")
    at_least(args.games, 1, "--games")
    at_least(args.bootstrap, 0, "--bootstrap", " (0 means no resampling)")
    jobs = job_count(args.jobs)
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
        print_json({"rules": rules.describe(), "games_per_pair": args.games, "ratings": listing}, sys.stdout)
    else:
        _print_table(
            f"Round robin, 2 players, {counted(args.games, 'game')} a pair, rules {rules.describe()}"
            " (Bradley-Terry ratings on the Elo scale)",
            ["bot", "games", "win rate", "rating", "rating interval"],
            rows,
        )
    return 0
