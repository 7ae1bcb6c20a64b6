"""`flyingchess backup` and `flyingchess restore`: a data folder's games database (SQLite)
copied to one file and back.

A backup uses SQLite's online backup API: it copies a consistent snapshot of the whole
database while a server goes on playing (in WAL mode readers and the writer never wait
for each other). A restore never runs under a server (it takes the database's exclusive
lock first, so a server that has it open makes it stop with one line), never loses what
it replaces (the games there are copied aside first), and accepts only a file that is a
flyingchess games database this version can read. PostgreSQL has its own tools:
`pg_dump` and `pg_restore` (docs/deploy.md, Backups).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from .store import SCHEMA_VERSION

DATABASE_NAME = "games.sqlite3"
REQUIRED_TABLES = frozenset({"games", "actions", "chat"})


class BackupError(Exception):
    """The backup or restore cannot be done: one line saying why. Nothing was changed."""


def backup(folder: Path, target: Path) -> dict[str, int]:
    """Copy `folder`'s games database to `target` (a new file). Returns its row counts."""
    source_path = folder / DATABASE_NAME
    if not source_path.is_file():
        raise BackupError(f"no games database in {folder} (expected {source_path})")
    if target.exists():
        raise BackupError(f"{target} exists already: name a new file (nothing is overwritten)")
    if not target.parent.is_dir():
        raise BackupError(f"no folder {target.parent} to write {target.name} in")
    partial = target.with_name(target.name + ".partial")
    try:
        # A read-only connection may not see what the server committed to the write-ahead
        # log since the last checkpoint (the newest moves); a plain one always does.
        with _connection(source_path) as source, _connection(partial) as copy:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, whatever the source used
            counts = _counts(copy)
        partial.replace(target)  # whole or nothing: a failed copy never passes for a backup
    except sqlite3.Error as error:
        partial.unlink(missing_ok=True)
        raise BackupError(f"cannot back up {source_path}: {error}") from None
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise BackupError(f"cannot write {target}: {error.strerror or error}") from None
    return counts


def restore(source: Path, folder: Path) -> tuple[dict[str, int], Path | None]:
    """Make `source` (a backup) the games database of `folder`. Returns its row counts and
    where the database it replaced was kept (None when there was none)."""
    counts = check_backup(source)
    target_path = folder / DATABASE_NAME
    if folder.exists() and not folder.is_dir():
        raise BackupError(f"{folder} is a file, not a data folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with _connection(target_path, timeout=0.2) as target:
            try:
                target.execute("PRAGMA locking_mode=EXCLUSIVE")
                target.execute("BEGIN EXCLUSIVE")  # kept until closed: no server can open it meanwhile
                target.execute("COMMIT")
            except sqlite3.OperationalError:
                raise BackupError(f"{target_path} is in use (a server is running on {folder}): stop it first") from None
            kept = None
            if _counts_or_none(target):
                kept = folder / f"{DATABASE_NAME}.before-restore-{time.strftime('%Y%m%d-%H%M%S')}"
                with _connection(kept) as aside:
                    target.backup(aside)
            with _connection(f"file:{source}?mode=ro", uri=True) as backup_file:
                backup_file.backup(target)
    except sqlite3.Error as error:
        raise BackupError(f"cannot restore into {target_path}: {error}") from None
    except OSError as error:
        raise BackupError(f"cannot restore into {folder}: {error.strerror or error}") from None
    return counts, kept


def check_backup(source: Path) -> dict[str, int]:
    """The row counts of a backup file, or BackupError saying why it is not one."""
    if not source.is_file():
        raise BackupError(f"no file {source}")
    try:
        with _connection(f"file:{source}?mode=ro", uri=True) as backup_file:
            problems = [str(row[0]) for row in backup_file.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise BackupError(f"{source} is damaged ({' '.join(problems[0].split())[:200]})")
            tables = {row[0] for row in backup_file.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables >= REQUIRED_TABLES:
                raise BackupError(
                    f"{source} is not a flyingchess games database (no {', '.join(sorted(REQUIRED_TABLES - tables))} table)"
                )
            version = int(backup_file.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise BackupError(
                    f"{source} was written by a newer flyingchess (schema {version}, this one reads up to"
                    f" {SCHEMA_VERSION}); upgrade flyingchess"
                )
            return _counts(backup_file)
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{source} is not a SQLite database ({error})") from None


@contextlib.contextmanager
def _connection(where: str | Path, uri: bool = False, timeout: float = 5.0) -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(where, uri=uri, timeout=timeout, isolation_level=None)
    try:
        yield connection
    finally:
        connection.close()


def _counts(connection: sqlite3.Connection) -> dict[str, int]:
    return {
        table: int(connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
        for table in sorted(REQUIRED_TABLES)
    }


def _counts_or_none(connection: sqlite3.Connection) -> dict[str, int] | None:
    """The row counts of a database that holds games tables, None for an empty file."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return _counts(connection) if tables >= REQUIRED_TABLES else None
