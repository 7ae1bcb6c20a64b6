"""The games database in PostgreSQL (`--database postgresql://...`), for several server
processes or machines: the same SQL as SQLite (`store.SqlStore`) over a psycopg 3
connection pool, one transaction per change. Needs the `cluster` extra.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any, Final

import psycopg
import psycopg_pool

from ..errors import StoreError
from .sql import Sql, _first_line
from .store import SCHEMA_VERSION, SqlStore

POSTGRES_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    rules TEXT NOT NULL,
    players TEXT NOT NULL,
    seats TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    pending_roll INTEGER,
    speed TEXT NOT NULL DEFAULT 'normal',
    over INTEGER NOT NULL DEFAULT 0,
    winner TEXT,
    ranking TEXT NOT NULL DEFAULT '[]',
    host_token TEXT,
    started INTEGER NOT NULL DEFAULT 1,
    shared INTEGER NOT NULL DEFAULT 0,
    open_seats INTEGER NOT NULL DEFAULT 0,
    action_count INTEGER,
    epoch INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS chat (
    id BIGSERIAL PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    at DOUBLE PRECISION NOT NULL,
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
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE INDEX IF NOT EXISTS games_by_update ON games (updated);
CREATE INDEX IF NOT EXISTS games_in_lobby ON games (over, shared, updated);
"""


TRANSACTION_IDLE_MS: Final = 2000
"""A transaction left idle this long is ended by PostgreSQL: a process frozen (SIGSTOP,
swapped out, a VM paused) inside one cannot hold its games' rows past it, and the commit
it sends when it wakes fails. Far above what a healthy process leaves between the
statements of one transaction (they are sent back to back by one thread)."""
LOCK_WAIT_MS: Final = 2500
"""The longest any statement waits for a row another session holds (a takeover's claim
behind a frozen owner's transaction): failover never waits on the database longer."""
STATEMENT_MS: Final = 15000
"""The longest any one statement may run: a worker thread is never held indefinitely."""

SESSION: Final = (
    f"-c idle_in_transaction_session_timeout={TRANSACTION_IDLE_MS} -c lock_timeout={LOCK_WAIT_MS}"
    f" -c statement_timeout={STATEMENT_MS}"
)
"""The settings of every session a server opens (libpq's `options`)."""


class PostgresStore(SqlStore):
    """PostgreSQL through a pool of connections (one per worker thread). Every wait on
    the database is bounded (the session settings above), so a frozen or stuck process
    can hold up the others for a few seconds at most."""

    errors = (psycopg.Error, psycopg_pool.PoolTimeout)
    unavailable = (psycopg.OperationalError, psycopg.InterfaceError, psycopg_pool.PoolTimeout)
    placeholder = "%s"
    row_id = "id"
    workers = 8

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.url = url
        self.name = _without_password(url)
        try:  # one plain connection first: an unreachable server is one clear line, not a pool's retries
            psycopg.connect(url, connect_timeout=max(1, int(timeout))).close()
        except psycopg.Error as error:
            raise StoreError(f"cannot reach the games database {self.name}: {_first_line(error)}") from None
        try:
            self.pool = psycopg_pool.ConnectionPool(
                url,
                min_size=1,
                max_size=self.workers,
                timeout=timeout,
                open=False,
                kwargs={"autocommit": True, "application_name": f"flyingchess {os.getpid()}", "options": SESSION},
            )
            self.pool.open(wait=True, timeout=timeout)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as error:
            raise StoreError(f"cannot reach the games database {self.name}: {error}") from None
        try:
            with self.pool.connection() as connection:
                connection.execute("SELECT pg_advisory_lock(7373)")  # one process sets the schema up at a time
                try:
                    connection.execute(POSTGRES_SCHEMA)
                    version = connection.execute("SELECT max(version) FROM schema_version").fetchone()
                    if version is None or version[0] is None:
                        connection.execute("INSERT INTO schema_version VALUES (%s)", (SCHEMA_VERSION,))
                    elif version[0] > SCHEMA_VERSION:
                        raise StoreError(
                            f"the games database {self.name} was written by a newer flyingchess"
                            f" (schema {version[0]}); upgrade flyingchess"
                        )
                finally:
                    connection.execute("SELECT pg_advisory_unlock(7373)")
        except psycopg.Error as error:
            self.pool.close()
            raise StoreError(f"cannot use the games database {self.name}: {error}") from None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Sql]:
        with self.pool.connection() as connection, connection.transaction():
            yield Sql(connection, "%s")

    def close(self) -> None:
        self.pool.close()


def _without_password(url: str) -> str:
    """The URL to show in messages, its password hidden."""
    info: Any = psycopg.conninfo.conninfo_to_dict(url)
    host = info.get("host", "localhost")
    return f"postgresql://{info.get('user', '')}@{host}:{info.get('port', 5432)}/{info.get('dbname', '')}"
