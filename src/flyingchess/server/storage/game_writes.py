"""The writes that change a game's row and its actions, each fenced by the owner's epoch,
and the claims that move that epoch on (`GameWrites`, a part of `SqlStore`)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from ..errors import LostGame
from .sql import Sql, SqlEngine, _mapped, _parts, _write
from .stored_game import StoredGame, seat_counts


def update_game(sql: Sql, game_id: str, assignments: str, values: tuple[Any, ...], epoch: int | None) -> None:
    """UPDATE games SET assignments for one game, fenced by the owner's epoch."""
    if epoch is None:
        sql.execute(f"UPDATE games SET {assignments} WHERE id = ?", (*values, game_id))
        return
    cursor = sql.execute(f"UPDATE games SET {assignments} WHERE id = ? AND epoch = ?", (*values, game_id, epoch))
    if cursor.rowcount == 0:
        raise LostGame(f"game {game_id} has been claimed by another process (or deleted)")


class GameWrites(SqlEngine):
    """A game's row and actions created, changed, deleted and claimed: the writes other
    processes are fenced out of once they no longer hold the game's latest epoch."""

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

    @_write
    def set_pending_roll(self, sql: Sql, game_id: str, roll: int, epoch: int | None = None) -> float:
        """The die a human must now move with: stored so a reload cannot re-roll it.
        Returns the time written as the game's last change (as do the other writes)."""
        now = time.time()
        update_game(sql, game_id, "pending_roll = ?, updated = ?", (roll, now), epoch)
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
        update_game(
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
        update_game(sql, game_id, assignments, values, epoch)
        return now

    @_write
    def set_speed(self, sql: Sql, game_id: str, speed: str, epoch: int | None = None) -> None:
        update_game(sql, game_id, "speed = ?", (speed,), epoch)

    @_write
    def set_extra(self, sql: Sql, game_id: str, extra: dict[str, Any], epoch: int | None = None) -> float:
        """The game's other fields (the dice commitment lives there, with its secret seed)."""
        now = time.time()
        update_game(sql, game_id, "extra = ?, updated = ?", (json.dumps(extra), now), epoch)
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
