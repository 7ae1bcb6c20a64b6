"""The command line's grammar: one function per command adds its subcommand, its options
and its handler (`set_defaults(handler=...)`), in the order `flyingchess --help` lists them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TypeAlias

from .. import __version__
from ..engine.board import COLOURS
from .common import OneLineParser, whole_number
from .games import command_bench, command_bots, command_demo, command_rules
from .many_games import command_simulate, command_tournament
from .records import command_analyse, command_choose, command_replay, command_verify
from .serving import (
    command_backup,
    command_build_site,
    command_join,
    command_migrate,
    command_play,
    command_restore,
    command_seat_bot,
)

Commands: TypeAlias = "argparse._SubParsersAction[OneLineParser]"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="flyingchess", description="Aeroplane Chess (Flying Chess, 飞行棋).")
    parser.add_argument("--version", action="version", version=f"flyingchess {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=OneLineParser, metavar="COMMAND")
    for add_command in COMMANDS:
        add_command(commands)
    return parser


def _add_play(commands: Commands) -> None:
    parser = commands.add_parser("play", help="play in the browser (starts a local server)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    parser.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    parser.add_argument(
        "--lan", action="store_true", help="listen on every network interface so phones on your Wi-Fi can join"
    )
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument(
        "--static",
        action="store_true",
        help="serve the static site instead (built by build-site): the game runs in the browser, offline too",
    )
    parser.add_argument(
        "--data", type=Path, default=None, help="folder for the games database (default: your user data folder)"
    )
    _host_options(parser)
    parser.add_argument("--terminal", action="store_true", help="play in this terminal instead of the browser")
    _terminal_options(parser)
    parser.add_argument(
        "--speed", choices=("slow", "normal", "fast", "instant"), default="normal", help="the bots' pace (--terminal)"
    )
    parser.set_defaults(handler=command_play)


def _add_serve(commands: Commands) -> None:
    parser = commands.add_parser("serve", help="run the game server for a network (no browser)")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--data", type=Path, default=None, help="folder for the games database (default: your user data folder)"
    )
    parser.add_argument(
        "--database", metavar="URL", help="keep games in PostgreSQL (postgresql://...) instead of SQLite in --data"
    )
    parser.add_argument(
        "--redis", metavar="URL", help="share rooms with other serve processes over this Redis (redis://...)"
    )
    parser.add_argument(
        "--lease-seconds",
        type=float,
        default=None,
        metavar="S",
        help="with --redis: how long a room's owner holds it without renewing (default 5); a killed "
        "process is replaced at once, a frozen one within this",
    )
    _host_options(parser)
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        metavar="ADDRESS",
        help="a reverse proxy's address whose X-Forwarded-For and X-Forwarded-Proto headers are believed (repeatable)",
    )
    parser.add_argument(
        "--metrics",
        metavar="ADDRESS:PORT",
        help="serve Prometheus metrics on this address of their own (PORT alone: 127.0.0.1); see SECURITY.md",
    )
    parser.add_argument(
        "--log-format", choices=("text", "json"), default="text", help="log lines as text (default) or JSON objects"
    )
    parser.add_argument("--network", action="store_true", help=argparse.SUPPRESS)
    # --network: kept for old scripts; `serve` always asks pages for seat tokens
    parser.set_defaults(handler=command_play, no_browser=True)


def _add_migrate(commands: Commands) -> None:
    parser = commands.add_parser("migrate", help="copy a data folder's games from SQLite into PostgreSQL")
    _data_folder_option(parser)
    parser.add_argument("--to", required=True, metavar="URL", help="postgresql://user:password@host/database")
    parser.set_defaults(handler=command_migrate)


def _add_backup(commands: Commands) -> None:
    parser = commands.add_parser(
        "backup", help="copy a data folder's games database to a file (safe while the server runs)"
    )
    parser.add_argument("file", type=Path, help="the backup file to write (a new file)")
    _data_folder_option(parser)
    parser.set_defaults(handler=command_backup)


def _add_restore(commands: Commands) -> None:
    parser = commands.add_parser(
        "restore", help="make a backup the data folder's games database (the server must be stopped)"
    )
    parser.add_argument("file", type=Path, help="a file written by flyingchess backup")
    _data_folder_option(parser)
    parser.set_defaults(handler=command_restore)


def _add_demo(commands: Commands) -> None:
    parser = commands.add_parser("demo", help="watch bots play a full game in the terminal")
    parser.add_argument(
        "--bots",
        default="heuristic,random,heuristic,random",
        help="comma-separated bot names, one per seat (default: %(default)s)",
    )
    parser.add_argument("--players", help="comma-separated colours in turn order (default: by count)")
    parser.add_argument("--rules", default="classic", help="preset name or rules JSON (default: classic)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each roll (0 or more)")
    parser.add_argument("--verbose", action="store_true", help="print every step of every move")
    parser.add_argument("--save", metavar="FILE", help="write the game record to FILE")
    parser.set_defaults(handler=command_demo)


def _add_replay(commands: Commands) -> None:
    parser = commands.add_parser("replay", help="check a record and print the canonical state")
    parser.add_argument("--trace", action="store_true", help="print the state after every action")
    parser.add_argument("record", help="record file, or - for standard input")
    parser.set_defaults(handler=command_replay)


def _add_analyse(commands: Commands) -> None:
    parser = commands.add_parser(
        "analyse", help="review a record: chances to win, each decision's best move and cost, the worst mistakes"
    )
    parser.add_argument("--json", action="store_true", help="print the whole review as one JSON object")
    parser.add_argument("record", help="record file, or - for standard input")
    parser.set_defaults(handler=command_analyse)


def _add_verify(commands: Commands) -> None:
    parser = commands.add_parser(
        "verify",
        help="check a network game's dice against the commitment it was played under",
        description="Recompute every roll of a network game's record from the revealed seed and the players'"
        " shares, and hold the record to what your page showed (docs/records.md §6).",
        epilog="Exit status: 0 every roll is covered and matches; 2 refused (one line says why); 3 the rolls"
        " covered match, but part of the record is only its own word (a warning line says what, and which"
        " option settles it).",
    )
    parser.add_argument(
        "--commitment", metavar="HEX", help="the commitment the page showed before the game (at least 16 digits)"
    )
    parser.add_argument(
        "--from",
        dest="first",
        metavar="N",
        type=whole_number,
        help="the action the commitment you were shown starts at (0 unless the page said otherwise)",
    )
    parser.add_argument("--share", metavar="VALUE", help="your page's share: it must be in the record")
    parser.add_argument(
        "--as", dest="share_by", metavar="NAME", help="host, or your colour: the name your share must be filed under"
    )
    parser.add_argument(
        "--seated",
        metavar="COLOURS",
        help="the colours you saw held by players (comma-separated; '' for none): no other colour may contribute",
    )
    parser.add_argument("record", help="record file, or - for standard input")
    parser.set_defaults(handler=command_verify)


def _add_build_site(commands: Commands) -> None:
    parser = commands.add_parser(
        "build-site",
        help="write the game as a static site: it plays in the browser with nothing installed, offline too",
        description="Write the page, the engine and the Python runtime into FOLDER: any static host serves it"
        " (docs/static-site.md).",
    )
    parser.add_argument("folder", help="where to write it (new, empty, or a site built before)")
    parser.add_argument("--pyodide", metavar="DIR", help="the pyodide npm package (default: node_modules/pyodide)")
    parser.add_argument("--server", metavar="URL", help="a flyingchess server the page names for games across devices")
    parser.set_defaults(handler=command_build_site)


def _add_choose(commands: Commands) -> None:
    parser = commands.add_parser("choose", help="print the move a bot picks after a record")
    parser.add_argument("--bot", required=True)
    parser.add_argument("--roll", required=True)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("record", help="record file, or - for standard input")
    parser.set_defaults(handler=command_choose)


def _add_bench(commands: Commands) -> None:
    parser = commands.add_parser("bench", help="random games per second through the fast path")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    parser.set_defaults(handler=command_bench)


def _add_simulate(commands: Commands) -> None:
    parser = commands.add_parser("simulate", help="play many bot games and print statistics")
    parser.add_argument(
        "--bots", required=True, help="comma-separated bot names, one per seat (2 to 4), or one name for all 4 seats"
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--rules", default="classic", help="preset name or rules JSON")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=None, help="processes, 1 or more (default: all cores)")
    parser.add_argument("--json", action="store_true", help="print the statistics as one JSON object")
    parser.add_argument("--plot", metavar="FILE", help="write a PNG of the win rates")
    parser.set_defaults(handler=command_simulate)


def _add_tournament(commands: Commands) -> None:
    parser = commands.add_parser("tournament", help="round robin of the bots with ratings")
    parser.add_argument("--bots", help="comma-separated bot names (default: every bot)")
    parser.add_argument("--games", type=int, default=400, help="games per pair, 1 or more")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=None, help="processes, 1 or more (default: all cores)")
    parser.add_argument(
        "--bootstrap", type=int, default=200, help="resamples for the intervals; 0 for none (default: %(default)s)"
    )
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=command_tournament)


def _add_bots(commands: Commands) -> None:
    parser = commands.add_parser("bots", help="list the bots, weakest first")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=command_bots)


def _add_seat_bot(commands: Commands) -> None:
    parser = commands.add_parser("seat-bot", help="play a bot or your own policy in a seat of a network game")
    parser.add_argument("link", help="the game's invite link (http://HOST:PORT/#/join/GAME)")
    parser.add_argument("--bot", help="a registered bot (flyingchess bots)")
    parser.add_argument("--policy", help="module:function taking (observation, mask), returning an action 0..4")
    parser.add_argument("--colour", choices=COLOURS, help="the seat to take (default: the first open one)")
    parser.add_argument("--name", help="the name the table sees")
    parser.add_argument("--token", help="a seat's token: play the seat it opens instead of joining")
    parser.set_defaults(handler=command_seat_bot)


def _add_join(commands: Commands) -> None:
    parser = commands.add_parser("join", help="take a seat of a network game and play it in this terminal")
    parser.add_argument("link", help="the game's invite link (http://HOST:PORT/#/join/GAME)")
    parser.add_argument("--colour", choices=COLOURS, help="the seat to take (default: the first open one)")
    parser.add_argument("--name", default="Terminal", help="the name the table sees")
    parser.add_argument("--token", help="your seat's token: come back to the seat it opens")
    _terminal_options(parser)
    parser.set_defaults(handler=command_join)


def _add_rules(commands: Commands) -> None:
    parser = commands.add_parser("rules", help="print the rule presets and their options")
    parser.add_argument("preset", nargs="?")
    parser.set_defaults(handler=command_rules)


COMMANDS = (
    _add_play,
    _add_serve,
    _add_migrate,
    _add_backup,
    _add_restore,
    _add_demo,
    _add_replay,
    _add_analyse,
    _add_verify,
    _add_build_site,
    _add_choose,
    _add_bench,
    _add_simulate,
    _add_tournament,
    _add_bots,
    _add_seat_bot,
    _add_join,
    _add_rules,
)
"""Every subcommand, in the order `flyingchess --help` lists them."""


def _data_folder_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=None, help="the data folder (default: your user data folder)")


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
    from ..clients.terminal.words import LANGUAGES

    parser.add_argument("--lang", choices=LANGUAGES, help="language (default: the terminal's locale)")
    parser.add_argument("--mono", action="store_true", help="no colour (also when NO_COLOR is set)")
