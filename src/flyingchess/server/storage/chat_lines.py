"""A game's chat in the games database: each line stored as it is said, only the last ones
kept (`ChatLines`, a part of `SqlStore`)."""

from __future__ import annotations

from typing import Any

from .game_writes import update_game
from .sql import Sql, SqlEngine, _mapped, _write


class ChatLines(SqlEngine):
    """The chat table: a line added (fenced by the owner's epoch as any write), the last
    lines read back oldest first."""

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
            update_game(sql, game_id, "epoch = epoch", (), epoch)
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

    @_mapped
    def chat(self, game_id: str, last: int) -> list[dict[str, Any]]:
        with self._transaction() as sql:
            rows = sql.execute(
                f"SELECT at, colour, name, text FROM chat WHERE game_id = ? ORDER BY at DESC, {self.row_id} DESC"
                " LIMIT ?",
                (game_id, last),
            ).fetchall()
        return [{"at": r[0], "colour": r[1], "name": r[2], "text": r[3]} for r in reversed(rows)]
