"""SQLite storage for games: every roll and action is committed before anyone is told.

One file in the user's data directory, in WAL mode so a crash at any moment leaves the
last committed action intact. A game is stored as its header plus its action list; the
engine rebuilds the state by replaying it, so nothing derived is ever stored twice.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


class StoreError(Exception):
    """The database file cannot be opened or used; the message says which file and why."""


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


class Store:
    """The games database. Methods commit before they return."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(games)")}
            if "host_token" not in columns:  # databases written before rooms had hosts
                self.db.execute("ALTER TABLE games ADD COLUMN host_token TEXT")
            if "started" not in columns:
                self.db.execute("ALTER TABLE games ADD COLUMN started INTEGER NOT NULL DEFAULT 1")
        except (sqlite3.Error, OSError) as error:
            raise StoreError(f"cannot open the games database {path}: {error}") from None

    def close(self) -> None:
        self.db.close()

    def create(self, game_id: str, rules: Any, players: list[str], seats: dict[str, Any],
               extra: dict[str, Any], actions: list[tuple[int, int | None]],
               over: bool = False, winner: str | None = None,
               ranking: list[str] | None = None, host_token: str | None = None,
               started: bool = True) -> None:
        now = time.time()
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT INTO games (id, created, updated, rules, players, seats, extra, over, winner,"
                " ranking, host_token, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, now, now, json.dumps(rules), json.dumps(players), json.dumps(seats),
                 json.dumps(extra), int(over), winner, json.dumps(ranking or []), host_token,
                 int(started)))
            self.db.executemany(
                "INSERT INTO actions (game_id, seq, roll, plane, at) VALUES (?, ?, ?, ?, ?)",
                [(game_id, seq, roll, plane, now) for seq, (roll, plane) in enumerate(actions)])

    def set_pending_roll(self, game_id: str, roll: int) -> None:
        """The die a human must now move with: stored so a reload cannot re-roll it."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("UPDATE games SET pending_roll = ?, updated = ? WHERE id = ?",
                            (roll, time.time(), game_id))

    def append_action(self, game_id: str, seq: int, roll: int, plane: int | None, over: bool,
                      winner: str | None, ranking: list[str]) -> None:
        now = time.time()
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO actions (game_id, seq, roll, plane, at) VALUES (?, ?, ?, ?, ?)",
                            (game_id, seq, roll, plane, now))
            self.db.execute(
                "UPDATE games SET pending_roll = NULL, updated = ?, over = ?, winner = ?, ranking = ?"
                " WHERE id = ?", (now, int(over), winner, json.dumps(ranking), game_id))

    def set_seats(self, game_id: str, seats: dict[str, Any], started: bool = True) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("UPDATE games SET seats = ?, started = ?, updated = ? WHERE id = ?",
                            (json.dumps(seats), int(started), time.time(), game_id))

    def add_chat(self, game_id: str, at: float, colour: str | None, name: str, text: str) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO chat (game_id, at, colour, name, text) VALUES (?, ?, ?, ?, ?)",
                            (game_id, at, colour, name, text))

    def chat(self, game_id: str, last: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT at, colour, name, text FROM chat WHERE game_id = ? ORDER BY at DESC, rowid DESC"
            " LIMIT ?", (game_id, last)).fetchall()
        return [{"at": r[0], "colour": r[1], "name": r[2], "text": r[3]} for r in reversed(rows)]

    def set_speed(self, game_id: str, speed: str) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("UPDATE games SET speed = ? WHERE id = ?", (speed, game_id))

    def delete(self, game_id: str) -> bool:
        with self.db:
            self.db.execute("BEGIN")
            cursor = self.db.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return cursor.rowcount > 0

    def load(self, game_id: str) -> StoredGame | None:
        row = self.db.execute(
            "SELECT id, created, updated, rules, players, seats, extra, pending_roll, speed, over,"
            " winner, ranking, host_token, started FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        actions = [(roll, plane) for roll, plane in self.db.execute(
            "SELECT roll, plane FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))]
        return StoredGame(row[0], row[1], row[2], json.loads(row[3]), json.loads(row[4]),
                          json.loads(row[5]), json.loads(row[6]), row[7], row[8], bool(row[9]),
                          row[10], json.loads(row[11]), actions, row[12], bool(row[13]))

    def summaries(self) -> list[dict[str, Any]]:
        """Every game, newest change first, without its actions (for the home screen)."""
        rows = self.db.execute(
            "SELECT g.id, g.created, g.updated, g.rules, g.players, g.seats, g.over, g.winner,"
            " g.ranking, (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id)"
            " FROM games g ORDER BY g.updated DESC").fetchall()
        return [{"id": r[0], "created": r[1], "updated": r[2], "rules": json.loads(r[3]),
                 "players": json.loads(r[4]), "seats": json.loads(r[5]), "over": bool(r[6]),
                 "winner": r[7], "ranking": json.loads(r[8]), "actions": r[9]} for r in rows]
