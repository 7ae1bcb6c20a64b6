"""Storage for games: every roll and action is committed before anyone is told.

One interface, two engines: SQLite (the default: one file in the user's data folder, in
WAL mode, for one process) and PostgreSQL (`store_postgres.py`, for several processes
and machines). A game is stored as its header plus its action list; the engine rebuilds
the state by replaying it, so nothing derived is ever stored twice. Both speak the same
SQL (`SqlStore`); only connecting, placeholders and column types differ.

The database is checked when it opens (a damaged one stops the server with one line),
and every failure later (disk full, I/O error, the server gone) is a `StoreError` raised
before anything in memory changes: callers write first and adopt the new state only
after the write. The methods are synchronous; `AsyncStore` (async_store.py) runs them
off the event loop, committing the writes that arrive together in one transaction.

Writes may carry an `epoch`: the owner's claim on a game (`claim`). A write whose epoch
is no longer the game's (another process has taken the game over) changes nothing and
raises `LostGame`, so two processes can never both apply a move.

`SqlStore` is one part per concern (`GameWrites`, `GameReads`, `ChatLines`,
`WholeDatabase`) over the engine they share (`sql.SqlEngine`: connecting, the engine's
errors, writes committed together); `StoredGame` is the game they write and read.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from ..errors import NewerDatabase, StoreError
from .chat_lines import ChatLines
from .game_reads import GameReads
from .game_writes import GameWrites
from .sql import Sql, WriteBody
from .stored_game import StoredGame, seat_counts
from .whole_database import WholeDatabase

SCHEMA_VERSION = 2
"""1: games, actions, chat (with the lobby columns); 2: `epoch`, the owner's claim."""

SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    rules TEXT NOT NULL,
    players TEXT NOT NULL,
    seats TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    pending_roll INTEGER,
    speed TEXT NOT NULL DEFAULT 'normal',
    over INTEGER NOT NULL DEFAULT 0,
    winner TEXT,
    ranking TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS chat (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    at REAL NOT NULL,
    colour TEXT,
    name TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_by_game ON chat (game_id, at);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    roll INTEGER NOT NULL,
    plane INTEGER,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""

COLUMNS_ADDED = (
    # (column, definition): databases written by older versions gain them on open
    ("host_token", "TEXT"),
    ("started", "INTEGER NOT NULL DEFAULT 1"),
    ("shared", "INTEGER NOT NULL DEFAULT 0"),
    ("open_seats", "INTEGER NOT NULL DEFAULT 0"),
    ("action_count", "INTEGER"),
    ("epoch", "INTEGER NOT NULL DEFAULT 0"),
)
INDEXES = """
CREATE INDEX IF NOT EXISTS games_by_update ON games (updated);
CREATE INDEX IF NOT EXISTS games_in_lobby ON games (over, shared, updated);
"""


class Database(Protocol):
    """What the server asks of a games database (`SqlStore` is the one implementation
    pattern; the methods commit before they return and may run in worker threads)."""

    name: str
    workers: int

    def close(self) -> None: ...


class SqlStore(GameWrites, GameReads, ChatLines, WholeDatabase):
    """The games database in SQL, one part per concern. Subclasses say how to connect
    (`_transaction`), which errors the engine raises, and its placeholder and row-id names."""


class SqliteStore(SqlStore):
    """SQLite in one file: the default, for one process. One connection, one lock."""

    errors = (sqlite3.Error,)
    unavailable = (sqlite3.OperationalError,)
    workers = 1

    def __init__(self, path: Path, check: bool = True) -> None:
        self.path = path
        self.name = str(path)
        self.lock = threading.RLock()
        blocking = next((folder for folder in (path.parent, *path.parent.parents) if folder.is_file()), None)
        if blocking is not None:
            raise StoreError(f"cannot open the games database {path}: {blocking} is a file, not a folder")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except (sqlite3.Error, OSError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            raise StoreError(f"cannot open the games database {path}: {reason}") from None
        try:
            self._refuse_newer()
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            if check:
                problems = [str(row[0]) for row in self.db.execute("PRAGMA quick_check(5)")]
                if problems != ["ok"]:
                    first = " ".join(problems[0].split())[:200]
                    raise sqlite3.DatabaseError(f"the file is damaged ({first}; and more)")
            self.db.executescript(SQLITE_SCHEMA)
            self._upgrade()
        except NewerDatabase:
            self.db.close()
            raise
        except (sqlite3.Error, OSError) as error:
            self.db.close()
            raise StoreError(
                f"cannot open the games database {path}: {error}; move it aside (or restore a backup) and start again"
            ) from None

    def _refuse_newer(self) -> None:
        """A database written by a newer version is refused before anything is written to
        it: this version would not know what it holds."""
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise NewerDatabase(
                f"the games database {self.path} was written by a newer flyingchess (schema {version}); upgrade"
                " flyingchess"
            )

    def _upgrade(self) -> None:
        """Bring a database written by an older version up to SCHEMA_VERSION."""
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(games)")}
        added = [name for name, _ in COLUMNS_ADDED if name not in columns]
        for name, definition in COLUMNS_ADDED:
            if name in added:
                self.db.execute(f"ALTER TABLE games ADD COLUMN {name} {definition}")
        if "shared" in added:  # fill the lobby columns of games stored before they existed
            with self.db:
                self.db.execute("BEGIN")
                for game_id, seats in self.db.execute("SELECT id, seats FROM games").fetchall():
                    try:
                        shared, open_seats = seat_counts(json.loads(seats))
                    except (ValueError, AttributeError):
                        continue
                    self.db.execute(
                        "UPDATE games SET shared = ?, open_seats = ? WHERE id = ?", (int(shared), open_seats, game_id)
                    )
        self.db.executescript(INDEXES)
        self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Sql]:
        with self.lock, self.db:
            self.db.execute("BEGIN")
            yield Sql(self.db, "?")

    def close(self) -> None:
        with self.lock:
            self.db.close()


__all__ = [
    "COLUMNS_ADDED",
    "INDEXES",
    "SCHEMA_VERSION",
    "SQLITE_SCHEMA",
    "Database",
    "SqlStore",
    "SqliteStore",
    "StoredGame",
    "WriteBody",
    "seat_counts",
]
