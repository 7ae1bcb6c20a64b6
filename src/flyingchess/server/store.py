"""SQLite storage for games: every roll and action is committed before anyone is told.

One file in the user's data directory, in WAL mode so a crash at any moment leaves the
last committed action intact. A game is stored as its header plus its action list; the
engine rebuilds the state by replaying it, so nothing derived is ever stored twice.

The file is checked when it opens (a damaged database stops the server with one line),
and every failure later (disk full, I/O error) is a `StoreError` raised before anything
in memory changes: callers write first and adopt the new state only after the write.
Methods may be called from worker threads; one lock keeps their transactions apart.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

SCHEMA = """
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
)
INDEXES = """
CREATE INDEX IF NOT EXISTS games_by_update ON games (updated);
CREATE INDEX IF NOT EXISTS games_in_lobby ON games (over, shared, updated);
"""


class StoreError(Exception):
    """The database cannot be opened or used (damaged, disk full, I/O error): the message
    says which file and why. Nothing was written when this is raised."""


class DamagedGame(Exception):
    """One stored game cannot be read back (its row does not parse or replay). The rest
    of the database is fine, and the game can still be deleted."""


P = ParamSpec("P")
R = TypeVar("R")


def _locked(method: Callable[P, R]) -> Callable[P, R]:
    """Run under the store's lock; any SQLite failure becomes a StoreError."""

    @functools.wraps(method)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        store = args[0]
        assert isinstance(store, Store)
        with store.lock:
            try:
                return method(*args, **kwargs)
            except sqlite3.Error as error:
                raise StoreError(f"the games database {store.path} failed: {error}") from None

    return run


def seat_counts(seats: dict[str, Any]) -> tuple[bool, int]:
    """(shared, open seats): a game is shared when other devices play or may join it.
    Games played on one device alone are never listed for others."""
    kinds = [seat.get("kind") for seat in seats.values() if isinstance(seat, dict)]
    open_seats = kinds.count("open")
    return open_seats > 0 or "player" in kinds, open_seats


@dataclass
class StoredGame:
    id: str
    created: float
    updated: float
    rules: Any
    players: list[str]
    seats: dict[str, Any]
    extra: dict[str, Any]
    pending_roll: int | None
    speed: str
    over: bool
    winner: str | None
    ranking: list[str]
    actions: list[tuple[int, int | None]]
    host_token: str | None = None
    """The SHA-256 of the host's secret token (the token itself is never stored)."""
    started: bool = True
    """False while the host gathers players: nobody rolls until the host starts."""


SUMMARY_COLUMNS = (
    "g.id, g.created, g.updated, g.rules, g.players, g.seats, g.over, g.winner,"
    " g.ranking, g.open_seats, COALESCE(g.action_count,"
    " (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id))"
)


class Store:
    """The games database. Methods commit before they return."""

    def __init__(self, path: Path, check: bool = True) -> None:
        self.path = path
        self.lock = threading.RLock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except (sqlite3.Error, OSError) as error:
            raise StoreError(f"cannot open the games database {path}: {error}") from None
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            if check:
                problems = [str(row[0]) for row in self.db.execute("PRAGMA quick_check(5)")]
                if problems != ["ok"]:
                    first = " ".join(problems[0].split())[:200]
                    raise sqlite3.DatabaseError(f"the file is damaged ({first}; and more)")
            self.db.executescript(SCHEMA)
            self._upgrade()
        except (sqlite3.Error, OSError) as error:
            self.db.close()
            raise StoreError(
                f"cannot open the games database {path}: {error}; move it aside (or restore a backup) and start again"
            ) from None

    def _upgrade(self) -> None:
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

    def close(self) -> None:
        with self.lock:
            self.db.close()

    @_locked
    def create(
        self,
        game_id: str,
        rules: Any,
        players: list[str],
        seats: dict[str, Any],
        extra: dict[str, Any],
        actions: list[tuple[int, int | None]],
        over: bool = False,
        winner: str | None = None,
        ranking: list[str] | None = None,
        host_token: str | None = None,
        started: bool = True,
    ) -> None:
        now = time.time()
        shared, open_seats = seat_counts(seats)
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT INTO games (id, created, updated, rules, players, seats, extra, over, winner,"
                " ranking, host_token, started, shared, open_seats, action_count)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    now,
                    now,
                    json.dumps(rules),
                    json.dumps(players),
                    json.dumps(seats),
                    json.dumps(extra),
                    int(over),
                    winner,
                    json.dumps(ranking or []),
                    host_token,
                    int(started),
                    int(shared),
                    open_seats,
                    len(actions),
                ),
            )
            self.db.executemany(
                "INSERT INTO actions (game_id, seq, roll, plane, at) VALUES (?, ?, ?, ?, ?)",
                [(game_id, seq, roll, plane, now) for seq, (roll, plane) in enumerate(actions)],
            )

    @_locked
    def set_pending_roll(self, game_id: str, roll: int) -> float:
        """The die a human must now move with: stored so a reload cannot re-roll it.
        Returns the time written as the game's last change (as do the other writes)."""
        now = time.time()
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("UPDATE games SET pending_roll = ?, updated = ? WHERE id = ?", (roll, now, game_id))
        return now

    @_locked
    def append_action(
        self, game_id: str, seq: int, roll: int, plane: int | None, over: bool, winner: str | None, ranking: list[str]
    ) -> float:
        now = time.time()
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT INTO actions (game_id, seq, roll, plane, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, roll, plane, now),
            )
            self.db.execute(
                "UPDATE games SET pending_roll = NULL, updated = ?, over = ?, winner = ?, ranking = ?,"
                " action_count = ? WHERE id = ?",
                (now, int(over), winner, json.dumps(ranking), seq + 1, game_id),
            )
        return now

    @_locked
    def set_seats(self, game_id: str, seats: dict[str, Any], started: bool = True) -> float:
        shared, open_seats = seat_counts(seats)
        now = time.time()
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "UPDATE games SET seats = ?, started = ?, shared = ?, open_seats = ?, updated = ? WHERE id = ?",
                (json.dumps(seats), int(started), int(shared), open_seats, now, game_id),
            )
        return now

    @_locked
    def add_chat(self, game_id: str, at: float, colour: str | None, name: str, text: str, keep: int = 100) -> None:
        """One chat line; only the game's last `keep` lines stay stored."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT INTO chat (game_id, at, colour, name, text) VALUES (?, ?, ?, ?, ?)",
                (game_id, at, colour, name, text),
            )
            self.db.execute(
                "DELETE FROM chat WHERE game_id = ? AND rowid NOT IN (SELECT rowid FROM chat"
                " WHERE game_id = ? ORDER BY at DESC, rowid DESC LIMIT ?)",
                (game_id, game_id, keep),
            )

    @_locked
    def chat(self, game_id: str, last: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT at, colour, name, text FROM chat WHERE game_id = ? ORDER BY at DESC, rowid DESC LIMIT ?",
            (game_id, last),
        ).fetchall()
        return [{"at": r[0], "colour": r[1], "name": r[2], "text": r[3]} for r in reversed(rows)]

    @_locked
    def set_speed(self, game_id: str, speed: str) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("UPDATE games SET speed = ? WHERE id = ?", (speed, game_id))

    @_locked
    def delete(self, game_id: str) -> bool:
        with self.db:
            self.db.execute("BEGIN")
            cursor = self.db.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return cursor.rowcount > 0

    @_locked
    def host_token(self, game_id: str) -> tuple[bool, str | None]:
        """(whether the game exists, its host token hash): enough to authorise deleting a
        game without loading it, so even a damaged game can be forgotten."""
        row = self.db.execute("SELECT host_token FROM games WHERE id = ?", (game_id,)).fetchone()
        return (False, None) if row is None else (True, row[0])

    @_locked
    def load(self, game_id: str) -> StoredGame | None:
        row = self.db.execute(
            "SELECT id, created, updated, rules, players, seats, extra, pending_roll, speed, over,"
            " winner, ranking, host_token, started FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        actions = [
            (roll, plane)
            for roll, plane in self.db.execute(
                "SELECT roll, plane FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
            )
        ]
        try:
            stored = StoredGame(
                row[0],
                row[1],
                row[2],
                json.loads(row[3]),
                json.loads(row[4]),
                json.loads(row[5]),
                json.loads(row[6]),
                row[7],
                row[8],
                bool(row[9]),
                row[10],
                json.loads(row[11]),
                actions,
                row[12],
                bool(row[13]),
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

    @_locked
    def summaries(self, limit: int, offset: int = 0, ids: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Games without their actions, newest change first (the home screen): a page of
        every game, or only the games named by `ids`."""
        if ids is None:
            rows = self.db.execute(
                f"SELECT {SUMMARY_COLUMNS} FROM games g ORDER BY g.updated DESC LIMIT ? OFFSET ?", (limit, offset)
            ).fetchall()
        else:
            wanted = list(ids)
            marks = ",".join("?" * len(wanted))
            rows = self.db.execute(
                f"SELECT {SUMMARY_COLUMNS} FROM games g WHERE g.id IN ({marks})"
                " ORDER BY g.updated DESC LIMIT ? OFFSET ?",
                (*wanted, limit, offset),
            ).fetchall()
        return [_summary(row) for row in rows]

    @_locked
    def lobby(self, limit: int, offset: int = 0) -> list[dict[str, Any]]:
        """Unfinished shared games, rooms with open seats first, then the newest change."""
        rows = self.db.execute(
            f"SELECT {SUMMARY_COLUMNS} FROM games g WHERE g.over = 0 AND g.shared = 1"
            " ORDER BY g.open_seats > 0 DESC, g.updated DESC LIMIT ? OFFSET ?",
            (limit, offset),
        ).fetchall()
        return [_summary(row) for row in rows]


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
