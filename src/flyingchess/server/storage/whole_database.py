"""The games database as a whole: every game copied out as stored and written back
(`flyingchess migrate`), a round trip for the health check, and its rows per table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .sql import SqlEngine, _mapped


class WholeDatabase(SqlEngine):
    """What concerns every game at once rather than one (a part of `SqlStore`): moving
    house (`dump`, `restore`), whether the database answers (`ping`), what it holds (`counts`)."""

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
