"""What every command shares: the user error, the exit statuses, the one-line parser, and
the checks of the arguments several commands take (counts, files, records, rules, bots)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn, TextIO

from ..bots import BOTS, bot_names
from ..bots.levels import resolve
from ..engine.rules import Rules, RulesError
from ..records.record import Record, RecordError, loads_record

EXIT_USAGE = 2
EXIT_PARTIAL = 3
"""`verify`: the rolls the commitment covers match, but it covers only the later ones."""


class CommandError(Exception):
    """A user error: printed as one line, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, as for every other user error (argparse would print the usage too).
        sys.stderr.write(f"{self.prog}: {message}\n")
        raise SystemExit(EXIT_USAGE)


def whole_number(text: str) -> int:
    """argparse's type for a count from 0 (its error reads "argument --from: ...")."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number 0 or more, not {text[:20]!r}")
    return value


def read_record(path: str) -> Record:
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


def print_json(data: Any, out: TextIO) -> None:
    out.write(json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n")


def at_least(value: int, minimum: int, option: str, hint: str = "") -> int:
    if value < minimum:
        raise CommandError(f"{option} must be at least {minimum}, not {value}{hint}")
    return value


def job_count(value: int | None) -> int:
    """--jobs: None (left out) is every core; an explicit count must be at least 1."""
    if value is None:
        return os.cpu_count() or 1
    return at_least(value, 1, "--jobs", " (leave it out to use every core)")


def check_writable(path: str, option: str) -> None:
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


def parse_rules(text: str) -> Rules:
    try:
        if text.lstrip().startswith("{"):
            return Rules.from_json(json.loads(text))
        return Rules.preset(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"--rules: not valid JSON: {error}") from None
    except RulesError as error:
        raise CommandError(f"--rules: {error}") from None


def check_bots(names: list[str]) -> None:
    for name in map(resolve, names):
        if name not in BOTS:
            raise CommandError(f"unknown bot {name!r} (known: {', '.join(bot_names())})")
        missing = BOTS[name].missing()
        if missing is not None:
            raise CommandError(missing)


def bot_list(text: str) -> list[str]:
    """--bots: comma-separated registered names, none empty."""
    names = [name.strip() for name in text.split(",")]
    if "" in names:
        raise CommandError(f"--bots: an empty bot name in {text!r} (comma-separated names expected)")
    check_bots(names)
    return [resolve(name) for name in names]


def seat_bots(bots: list[str], seats: int | None = None) -> list[str]:
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
