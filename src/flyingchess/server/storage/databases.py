"""Which database `--database` names: a URL whose scheme is registered here, else the
path of a SQLite file. An engine's module is imported only when it is asked for, so
PostgreSQL's driver (the `cluster` extra) is needed only by those who use it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

from ..errors import StoreError
from .store import SqliteStore, SqlStore


def _postgres(url: str) -> SqlStore:
    from .store_postgres import PostgresStore

    return PostgresStore(url)


ENGINES: Final[dict[str, Callable[[str], SqlStore]]] = {"postgresql": _postgres, "postgres": _postgres}
"""Database engines by URL scheme."""


def open_database(where: str | Path) -> SqlStore:
    """A database from `--database`: a URL of a registered engine, else a SQLite file path."""
    if isinstance(where, str) and "://" in where:
        scheme = where.split("://", 1)[0].lower()
        opener = ENGINES.get(scheme)
        if opener is None:
            known = ", ".join(f"{name}://" for name in ENGINES)
            raise StoreError(f"{scheme}:// is not a database this server can use ({known}, or a SQLite file)")
        return opener(where)
    return SqliteStore(Path(where))
