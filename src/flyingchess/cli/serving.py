"""The commands that run or join a game server: `play` (in the browser or this terminal),
`serve`, `join`, `seat-bot`, `build-site`, and the data folder's `migrate`, `backup`, `restore`."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from ..engine.text import counted
from .common import CommandError


def _terminal_words(args: argparse.Namespace) -> Any:
    """The terminal game's modules and its words, or one line saying what to install."""
    try:
        from ..clients.terminal import run
        from ..clients.terminal.words import Words, language_from_environment
    except ImportError as error:
        raise CommandError(
            f"the terminal game needs its extra packages ({error.name} is missing): pip install 'flyingchess[terminal]'"
        ) from None
    return run, Words(args.lang or language_from_environment())


def command_play_terminal(args: argparse.Namespace) -> int:
    """The game in this terminal, over the data folder's local server (docs/terminal.md)."""
    from ..clients.terminal.app import monochrome

    run, words = _terminal_words(args)
    folder = args.data
    if folder is None:
        from ..server.transport.run import default_data_dir

        folder = default_data_dir()
    try:
        run.play_local(folder, words, monochrome(args.mono), args.speed)
    except run.TerminalError as error:
        raise CommandError(f"play --terminal: {error}") from None
    return 0


def command_join(args: argparse.Namespace) -> int:
    """A seat of a network game, played in this terminal."""
    from ..clients.terminal.app import monochrome

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
        from ..server.transport.run import OptionError, ServeOptions, parse_metrics_address, serve, serve_static_site
    except ImportError as error:
        raise CommandError(
            f"the web app needs its extra packages ({error.name} is missing): pip install 'flyingchess[web]'"
        ) from None
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port {args.port} is not a port number")
    if getattr(args, "static", False):  # the static site: the same page, the game in the browser itself
        from ..server.site import SiteError, build_site, site_cache

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


def command_build_site(args: argparse.Namespace) -> int:
    """The static site (docs/static-site.md): the whole game as files a static host serves."""
    from ..server.site import SiteError, build_site

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


def command_seat_bot(args: argparse.Namespace) -> int:
    """A bot or a user's policy in a seat of a network game, until the game ends."""
    import asyncio
    import importlib.util

    from ..clients.game_client import ClientError
    from ..clients.seat_bot import SeatError, bot_chooser, policy_chooser, sit

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


def command_migrate(args: argparse.Namespace) -> int:
    try:
        from ..server.storage.migrate import MigrationError, migrate
        from ..server.transport.run import default_data_dir
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


def _backup_module() -> Any:
    try:
        from ..server.storage import backup
        from ..server.transport.run import default_data_dir
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
