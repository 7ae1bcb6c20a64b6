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
"""

from __future__ import annotations

import contextlib
import functools
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Concatenate, Final, ParamSpec, Protocol, TypeVar

from ..errors import DamagedGame, LostGame, NewerDatabase, StoreError

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

GAME_COLUMNS = (
    "id, created, updated, rules, players, seats, extra, pending_roll, speed, over, winner, ranking,"
    " host_token, started, epoch"
)
SUMMARY_COLUMNS = (
    "g.id, g.created, g.updated, g.rules, g.players, g.seats, g.over, g.winner,"
    " g.ranking, g.open_seats, COALESCE(g.action_count,"
    " (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id))"
)


def seat_counts(seats: dict[str, Any]) -> tuple[bool, int]:
    """(shared, open seats): a game is shared when other devices play or may join it.
    Games played on one device alone are never listed for others."""
    kinds = [seat.get("kind") for seat in seats.values() if isinstance(seat, dict)]
    open_seats = kinds.count("open")
    return open_seats > 0 or "player" in kinds, open_seats


@dataclass(kw_only=True)
class StoredGame:
    """One game's row and its actions, as stored (built by keyword: it has many fields,
    several of one type). `StoredGame.new` is a game about to be created."""

    id: str
    created: float
    updated: float
    rules: Any
    players: list[str]
    seats: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)
    pending_roll: int | None = None
    speed: str = "normal"
    over: bool = False
    winner: str | None = None
    ranking: list[str] = field(default_factory=list)
    actions: list[tuple[int, int | None]] = field(default_factory=list)
    host_token: str | None = None
    """The SHA-256 of the host's secret token (the token itself is never stored)."""
    started: bool = True
    """False while the host gathers players: nobody rolls until the host starts."""
    epoch: int = 0
    """The latest claim on the game (see `SqlStore.claim`)."""

    @classmethod
    def new(cls, game_id: str, rules: Any, players: list[str], seats: dict[str, Any], **fields: Any) -> StoredGame:
        """A game not stored yet, created and updated now (one clock reading for both)."""
        now = time.time()
        return cls(id=game_id, created=now, updated=now, rules=rules, players=players, seats=seats, **fields)


class Database(Protocol):
    """What the server asks of a games database (`SqlStore` is the one implementation
    pattern; the methods commit before they return and may run in worker threads)."""

    name: str
    workers: int

    def close(self) -> None: ...


class Sql:
    """A connection inside one transaction, taking `?` placeholders whatever the engine."""

    def __init__(self, connection: Any, placeholder: str) -> None:
        self.connection = connection
        self.placeholder = placeholder

    def _sql(self, sql: str) -> str:
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        return self.connection.execute(self._sql(sql), params)

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            if self.placeholder == "?":
                self.connection.executemany(sql, rows)
            else:
                with self.connection.cursor() as cursor:
                    cursor.executemany(self._sql(sql), rows)


P = ParamSpec("P")
R = TypeVar("R")


def _as_store_error(store: SqlStore, error: BaseException) -> BaseException:
    """A failure of the database engine as a StoreError naming the database; the store's
    own errors (LostGame, DamagedGame) and anything else pass as they are."""
    if isinstance(error, store.errors) and not isinstance(error, (StoreError, DamagedGame)):
        return StoreError(f"the games database {store.name} failed: {_first_line(error)}")
    return error


def _mapped(method: Callable[P, R]) -> Callable[P, R]:
    """Any failure of the database engine becomes a StoreError naming the database."""

    @functools.wraps(method)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        store = args[0]
        assert isinstance(store, SqlStore)
        try:
            return method(*args, **kwargs)
        except (StoreError, DamagedGame):
            raise
        except store.errors as error:
            raise _as_store_error(store, error) from None

    return run


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


WriteBody = Callable[..., Any]
"""A write's statements, run inside a transaction it is given: (store, sql, *args)."""


Valid = Callable[[], bool]
"""A write's `valid=` keyword: asked just before the commit, in the writing thread; when it
says no (the writer's lease ran out meanwhile), the write is rolled back as `LostGame`."""


def _split_valid(kwargs: dict[str, Any]) -> tuple[dict[str, Any], Valid | None]:
    if "valid" not in kwargs:
        return kwargs, None
    rest = dict(kwargs)
    return rest, rest.pop("valid")


def _check_valid(checks: Iterable[Valid | None]) -> None:
    if not all(check() for check in checks if check is not None):
        raise LostGame("this process's lease ran out before the write was committed")


def _write(body: Callable[Concatenate[Any, Sql, P], R]) -> Callable[Concatenate[Any, P], R]:
    """A write: alone, it is one transaction; `write_batch` (and so `AsyncStore`) may run
    it with others in one transaction instead. The statements are kept as `.body`. Any
    write takes `valid=` (see `Valid`)."""

    @functools.wraps(body)
    def alone(store: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        rest, valid = _split_valid(kwargs)
        with store._transaction() as sql:
            result = body(store, sql, *args, **rest)
            _check_valid([valid])
            return result

    mapped = _mapped(alone)
    mapped.body = body  # type: ignore[attr-defined]
    return mapped


class SqlStore:
    """The games database in SQL. Subclasses say how to connect (`_transaction`), which
    errors the engine raises, and its placeholder and row-id names."""

    name = "?"
    workers = 1
    """Worker threads `AsyncStore` may use at once (SQLite: one connection, one thread)."""
    errors: ClassVar[tuple[type[BaseException], ...]] = ()
    unavailable: ClassVar[tuple[type[BaseException], ...]] = ()
    """The engine's errors that mean the database (or the connection to it) failed, not
    one write: a batch that meets one is not retried write by write."""
    placeholder = "?"
    row_id = "rowid"
    """The chat table's row identity (SQLite's rowid; PostgreSQL's id column)."""

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Sql]:
        raise NotImplementedError
        yield  # pragma: no cover

    def close(self) -> None:
        raise NotImplementedError

    # ----------------------------------------------------------------- writes

    def write_batch(self, writes: list[tuple[WriteBody, tuple[Any, ...], dict[str, Any]]]) -> list[Any]:
        """Several writes in one transaction (group commit: one commit for everything that
        arrived while the last batch was being written).

        Returns each write's result, or the exception it raised in its place. If any write
        fails (a game claimed by another process, an action number taken, a writer's lease
        run out), the batch is rolled back and each write is tried again in a transaction
        of its own, so the failure undoes only itself. If the database itself fails (the
        connection lost or ended, a wait timed out), or the commit does, nothing of the
        batch is stored and every write fails: retried later, a write could land after
        its writer's lease (a process frozen inside the transaction, woken up)."""
        split = [(body, args, *_split_valid(kwargs)) for body, args, kwargs in writes]
        if len(split) > 1:
            try:
                with self._transaction() as sql:
                    results = [body(self, sql, *args, **rest) for body, args, rest, _ in split]
                    _check_valid(valid for *_, valid in split)
                    return results
            except self.unavailable as error:
                return [_as_store_error(self, error)] * len(split)
            except Exception:  # rolled back: find which write failed, one transaction each
                pass
        outcomes: list[Any] = []
        for body, args, rest, valid in split:
            try:
                with self._transaction() as sql:
                    result = body(self, sql, *args, **rest)
                    _check_valid([valid])
                outcomes.append(result)
            except Exception as error:
                outcomes.append(_as_store_error(self, error))
        return outcomes

    @_write
    def create(self, sql: Sql, game: StoredGame) -> None:
        """Store a new game (`StoredGame.new`) with its actions so far."""
        shared, open_seats = seat_counts(game.seats)
        sql.execute(
            "INSERT INTO games (id, created, updated, rules, players, seats, extra, over, winner,"
            " ranking, host_token, started, shared, open_seats, action_count, epoch, speed)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                game.id,
                game.created,
                game.updated,
                json.dumps(game.rules),
                json.dumps(game.players),
                json.dumps(game.seats),
                json.dumps(game.extra),
                int(game.over),
                game.winner,
                json.dumps(game.ranking),
                game.host_token,
                int(game.started),
                int(shared),
                open_seats,
                len(game.actions),
                game.epoch,
                game.speed,
            ),
        )
        sql.executemany(
            "INSERT INTO actions (game_id, seq, roll, plane, at) VALUES (?, ?, ?, ?, ?)",
            [(game.id, seq, roll, plane, game.created) for seq, (roll, plane) in enumerate(game.actions)],
        )

    def _update_game(
        self, sql: Sql, game_id: str, assignments: str, values: tuple[Any, ...], epoch: int | None
    ) -> None:
        """UPDATE games SET assignments for one game, fenced by the owner's epoch."""
        if epoch is None:
            sql.execute(f"UPDATE games SET {assignments} WHERE id = ?", (*values, game_id))
            return
        cursor = sql.execute(f"UPDATE games SET {assignments} WHERE id = ? AND epoch = ?", (*values, game_id, epoch))
        if cursor.rowcount == 0:
            raise LostGame(f"game {game_id} has been claimed by another process (or deleted)")

    @_write
    def set_pending_roll(self, sql: Sql, game_id: str, roll: int, epoch: int | None = None) -> float:
        """The die a human must now move with: stored so a reload cannot re-roll it.
        Returns the time written as the game's last change (as do the other writes)."""
        now = time.time()
        self._update_game(sql, game_id, "pending_roll = ?, updated = ?", (roll, now), epoch)
        return now

    @_write
    def append_action(
        self,
        sql: Sql,
        game_id: str,
        seq: int,
        roll: int,
        plane: int | None,
        over: bool,
        winner: str | None,
        ranking: list[str],
        epoch: int | None = None,
    ) -> float:
        now = time.time()
        self._update_game(
            sql,
            game_id,
            "pending_roll = NULL, updated = ?, over = ?, winner = ?, ranking = ?, action_count = ?",
            (now, int(over), winner, json.dumps(ranking), seq + 1),
            epoch,
        )
        # action `seq` can be written once only (its primary key): a second writer fails
        sql.execute(
            "INSERT INTO actions (game_id, seq, roll, plane, at) VALUES (?, ?, ?, ?, ?)",
            (game_id, seq, roll, plane, now),
        )
        return now

    @_write
    def set_seats(
        self,
        sql: Sql,
        game_id: str,
        seats: dict[str, Any],
        started: bool = True,
        epoch: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> float:
        """New seats, and with them (in the same write) the game's other fields when they
        change too: a seat given away before the start changes the dice proof."""
        shared, open_seats = seat_counts(seats)
        now = time.time()
        assignments = "seats = ?, started = ?, shared = ?, open_seats = ?, updated = ?"
        values: tuple[Any, ...] = (json.dumps(seats), int(started), int(shared), open_seats, now)
        if extra is not None:
            assignments, values = assignments + ", extra = ?", (*values, json.dumps(extra))
        self._update_game(sql, game_id, assignments, values, epoch)
        return now

    @_write
    def add_chat(
        self,
        sql: Sql,
        game_id: str,
        at: float,
        colour: str | None,
        name: str,
        text: str,
        keep: int = 100,
        epoch: int | None = None,
    ) -> None:
        """One chat line; only the game's last `keep` lines stay stored."""
        if epoch is not None:
            self._update_game(sql, game_id, "epoch = epoch", (), epoch)
        sql.execute(
            "INSERT INTO chat (game_id, at, colour, name, text) VALUES (?, ?, ?, ?, ?)",
            (game_id, at, colour, name, text),
        )
        row = self.row_id
        sql.execute(
            f"DELETE FROM chat WHERE game_id = ? AND {row} NOT IN (SELECT {row} FROM chat"
            f" WHERE game_id = ? ORDER BY at DESC, {row} DESC LIMIT ?)",
            (game_id, game_id, keep),
        )

    @_write
    def set_speed(self, sql: Sql, game_id: str, speed: str, epoch: int | None = None) -> None:
        self._update_game(sql, game_id, "speed = ?", (speed,), epoch)

    @_write
    def set_extra(self, sql: Sql, game_id: str, extra: dict[str, Any], epoch: int | None = None) -> float:
        """The game's other fields (the dice commitment lives there, with its secret seed)."""
        now = time.time()
        self._update_game(sql, game_id, "extra = ?, updated = ?", (json.dumps(extra), now), epoch)
        return now

    @_write
    def delete(self, sql: Sql, game_id: str) -> bool:
        cursor = sql.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return bool(cursor.rowcount > 0)

    @_mapped
    def claim(self, game_id: str) -> int | None:
        """Claim a game for this process: its epoch goes up by one and is returned (None
        when there is no such game). Writes fenced with an older epoch fail from now on."""
        with self._transaction() as sql:
            row = sql.execute("UPDATE games SET epoch = epoch + 1 WHERE id = ? RETURNING epoch", (game_id,)).fetchone()
        return None if row is None else int(row[0])

    @_mapped
    def claim_all(self, game_ids: Sequence[str]) -> dict[str, int]:
        """`claim` for many games in one transaction (hundreds of rooms coming back at
        once): each game's new epoch; a game that does not exist is left out."""
        epochs: dict[str, int] = {}
        with self._transaction() as sql:
            for part in _parts(game_ids):
                marks = ",".join("?" * len(part))
                rows = sql.execute(
                    f"UPDATE games SET epoch = epoch + 1 WHERE id IN ({marks}) RETURNING id, epoch", part
                ).fetchall()
                epochs.update((row[0], int(row[1])) for row in rows)
        return epochs

    # ----------------------------------------------------------------- reads

    @_mapped
    def chat(self, game_id: str, last: int) -> list[dict[str, Any]]:
        with self._transaction() as sql:
            rows = sql.execute(
                f"SELECT at, colour, name, text FROM chat WHERE game_id = ? ORDER BY at DESC, {self.row_id} DESC"
                " LIMIT ?",
                (game_id, last),
            ).fetchall()
        return [{"at": r[0], "colour": r[1], "name": r[2], "text": r[3]} for r in reversed(rows)]

    @_mapped
    def host_token(self, game_id: str) -> tuple[bool, str | None]:
        """(whether the game exists, its host token hash): enough to authorise deleting a
        game without loading it, so even a damaged game can be forgotten."""
        with self._transaction() as sql:
            row = sql.execute("SELECT host_token FROM games WHERE id = ?", (game_id,)).fetchone()
        return (False, None) if row is None else (True, row[0])

    @_mapped
    def load(self, game_id: str) -> StoredGame | None:
        with self._transaction() as sql:
            row = sql.execute(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            actions = [
                (roll, plane)
                for roll, plane in sql.execute(
                    "SELECT roll, plane FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
                ).fetchall()
            ]
        return _stored_game(game_id, row, actions)

    @_mapped
    def load_all(self, game_ids: Sequence[str]) -> dict[str, StoredGame | DamagedGame]:
        """`load` for many games in two queries: each game, or why it cannot be read (one
        damaged game does not keep the others back); a game that does not exist is left out."""
        games: dict[str, StoredGame | DamagedGame] = {}
        with self._transaction() as sql:
            for part in _parts(game_ids):
                marks = ",".join("?" * len(part))
                rows = sql.execute(f"SELECT {GAME_COLUMNS} FROM games WHERE id IN ({marks})", part).fetchall()
                actions: dict[str, list[tuple[int, int | None]]] = {row[0]: [] for row in rows}
                for game_id, roll, plane in sql.execute(
                    f"SELECT game_id, roll, plane FROM actions WHERE game_id IN ({marks}) ORDER BY game_id, seq", part
                ).fetchall():
                    actions[game_id].append((roll, plane))
                for row in rows:
                    try:
                        games[row[0]] = _stored_game(row[0], row, actions[row[0]])
                    except DamagedGame as damaged:
                        games[row[0]] = damaged
        return games

    @_mapped
    def summaries(
        self, limit: int, offset: int = 0, ids: Iterable[str] | None = None, finished: bool = False
    ) -> list[dict[str, Any]]:
        """Games without their actions, newest change first (the home screen; with
        `finished`, only games that are over, for the statistics): a page of every game,
        or only the games named by `ids`."""
        where, params = ["g.over = 1"] if finished else [], []
        if ids is not None:
            wanted = list(ids)
            if not wanted:
                return []
            where.append(f"g.id IN ({','.join('?' * len(wanted))})")
            params += wanted
        condition = f" WHERE {' AND '.join(where)}" if where else ""
        with self._transaction() as sql:
            rows = sql.execute(
                f"SELECT {SUMMARY_COLUMNS} FROM games g{condition} ORDER BY g.updated DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
        return [_summary(row) for row in rows]

    @_mapped
    def lobby(self, limit: int, offset: int = 0) -> list[dict[str, Any]]:
        """Unfinished shared games, rooms with open seats first, then the newest change."""
        with self._transaction() as sql:
            rows = sql.execute(
                f"SELECT {SUMMARY_COLUMNS} FROM games g WHERE g.over = 0 AND g.shared = 1"
                " ORDER BY g.open_seats > 0 DESC, g.updated DESC LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        return [_summary(row) for row in rows]

    # ----------------------------------------------------------------- moving house

    @_mapped
    def dump(self) -> Iterator[tuple[str, tuple[Any, ...], list[tuple[Any, ...]], list[tuple[Any, ...]]]]:
        """Every game as stored: (id, its row of GAME_COLUMNS and the lobby columns, its
        actions, its chat), for `flyingchess migrate`."""
        with self._transaction() as sql:
            ids = [row[0] for row in sql.execute("SELECT id FROM games ORDER BY created").fetchall()]
        for game_id in ids:
            with self._transaction() as sql:
                row = sql.execute(
                    "SELECT id, created, updated, rules, players, seats, extra, pending_roll, speed, over, winner,"
                    " ranking, host_token, started, shared, open_seats, action_count, epoch FROM games WHERE id = ?",
                    (game_id,),
                ).fetchone()
                if row is None:
                    continue
                actions = sql.execute(
                    "SELECT seq, roll, plane, at FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
                ).fetchall()
                chat = sql.execute(
                    f"SELECT at, colour, name, text FROM chat WHERE game_id = ? ORDER BY at, {self.row_id}",
                    (game_id,),
                ).fetchall()
            yield game_id, tuple(row), [tuple(a) for a in actions], [tuple(c) for c in chat]

    @_mapped
    def restore(self, row: tuple[Any, ...], actions: list[tuple[Any, ...]], chat: list[tuple[Any, ...]]) -> bool:
        """Write one game exactly as `dump` gave it; False when a game with its id exists."""
        with self._transaction() as sql:
            if sql.execute("SELECT 1 FROM games WHERE id = ?", (row[0],)).fetchone() is not None:
                return False
            sql.execute(
                "INSERT INTO games (id, created, updated, rules, players, seats, extra, pending_roll, speed, over,"
                " winner, ranking, host_token, started, shared, open_seats, action_count, epoch)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            sql.executemany(
                "INSERT INTO actions (game_id, seq, roll, plane, at) VALUES (?, ?, ?, ?, ?)",
                [(row[0], *action) for action in actions],
            )
            sql.executemany(
                "INSERT INTO chat (game_id, at, colour, name, text) VALUES (?, ?, ?, ?, ?)",
                [(row[0], *line) for line in chat],
            )
        return True

    @_mapped
    def ping(self) -> None:
        """A round trip to the database (the health check)."""
        with self._transaction() as sql:
            sql.execute("SELECT 1").fetchone()

    @_mapped
    def counts(self) -> dict[str, int]:
        """Rows per table (games, actions, chat lines)."""
        with self._transaction() as sql:
            return {
                table: int(sql.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
                for table in ("games", "actions", "chat")
            }


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


IN_ONE_QUERY: Final = 500
"""Games named in one statement (SQLite allows 32,766 parameters, PostgreSQL 65,535)."""


def _parts(game_ids: Sequence[str]) -> list[tuple[str, ...]]:
    ids = tuple(game_ids)
    return [ids[start : start + IN_ONE_QUERY] for start in range(0, len(ids), IN_ONE_QUERY)]


def _stored_game(game_id: str, row: tuple[Any, ...], actions: list[tuple[int, int | None]]) -> StoredGame:
    try:
        stored = StoredGame(
            id=row[0],
            created=row[1],
            updated=row[2],
            rules=json.loads(row[3]),
            players=json.loads(row[4]),
            seats=json.loads(row[5]),
            extra=json.loads(row[6]),
            pending_roll=row[7],
            speed=row[8],
            over=bool(row[9]),
            winner=row[10],
            ranking=json.loads(row[11]),
            actions=actions,
            host_token=row[12],
            started=bool(row[13]),
            epoch=int(row[14]),
        )
    except (ValueError, TypeError) as error:
        raise DamagedGame(f"game {game_id} is damaged in storage: {error}") from None
    if (
        not isinstance(stored.seats, dict)
        or not isinstance(stored.extra, dict)
        or not isinstance(stored.players, list)
        or _number(stored.created) != stored.created
        or _number(stored.updated) != stored.updated
    ):
        raise DamagedGame(f"game {game_id} is damaged in storage: a field has the wrong kind")
    return stored


def _summary(row: tuple[Any, ...]) -> dict[str, Any]:
    """A list entry, whatever the row holds: a damaged row still lists (and can be deleted)."""

    def parsed(text: Any, kind: type, default: Any) -> Any:
        try:
            value = json.loads(text)
        except (ValueError, TypeError, RecursionError):
            return default
        return value if isinstance(value, kind) else default

    seats = {
        colour: seat
        for colour, seat in parsed(row[5], dict, {}).items()
        if isinstance(colour, str) and isinstance(seat, dict)
    }
    players = [colour for colour in parsed(row[4], list, []) if isinstance(colour, str)]
    ranking = [colour for colour in parsed(row[8], list, []) if isinstance(colour, str)]
    return {
        "id": row[0],
        "created": _number(row[1]),
        "updated": _number(row[2]),
        "rules": parsed(row[3], object, None),
        "players": players,
        "seats": seats,
        "over": bool(row[6]),
        "winner": row[7] if isinstance(row[7], str) else None,
        "ranking": ranking,
        "open_seats": _number(row[9]),
        "actions": _number(row[10]),
    }


def _number(value: Any) -> Any:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
