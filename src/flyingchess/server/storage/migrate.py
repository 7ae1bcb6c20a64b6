"""`flyingchess migrate`: move a data folder's games from SQLite into PostgreSQL.

Every game is copied as stored (header, every action, its chat) in one transaction per
game; a game whose id is already in the target is left as it is there and counted as
skipped, so running it twice copies nothing twice. The source is only read.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import StoreError
from .databases import open_database
from .store import SqliteStore


class MigrationError(Exception):
    """The migration cannot run or did not complete: one line saying why."""


def migrate(folder: Path, target_url: str) -> dict[str, int]:
    """Copy every game of `folder`/games.sqlite3 into the PostgreSQL at `target_url`.
    Returns how many games were copied and skipped, and the target's rows afterwards."""
    if not target_url.startswith(("postgresql://", "postgres://")):
        raise MigrationError(f"--to must be a postgresql:// URL, not {target_url!r}")
    source_path = folder / "games.sqlite3"
    if not source_path.is_file():
        raise MigrationError(f"no games database in {folder} (expected {source_path})")
    try:
        source = SqliteStore(source_path)
    except StoreError as error:
        raise MigrationError(str(error)) from None
    try:
        target = open_database(target_url)
    except StoreError as error:
        source.close()
        raise MigrationError(str(error)) from None
    except ImportError as error:  # PostgreSQL's driver comes with the cluster extra
        source.close()
        raise MigrationError(
            f"--to needs the cluster extra ({error.name} is missing): pip install 'flyingchess[cluster]'"
        ) from None
    copied = skipped = 0
    try:
        for _, row, actions, chat in source.dump():
            if target.restore(row, actions, chat):
                copied += 1
            else:
                skipped += 1
        counts = target.counts()
    except StoreError as error:
        raise MigrationError(f"{error} (after {copied} games copied; run it again to copy the rest)") from None
    finally:
        source.close()
        target.close()
    return {"copied": copied, "skipped": skipped, **{f"target_{name}": value for name, value in counts.items()}}
