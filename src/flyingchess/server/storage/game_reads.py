"""A game read back from the games database: one or many whole games, or the lists of them
without their actions (`GameReads`, a part of `SqlStore`); a damaged row is told apart."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import DamagedGame
from .sql import SqlEngine, _mapped, _parts
from .stored_game import StoredGame

GAME_COLUMNS = (
    "id, created, updated, rules, players, seats, extra, pending_roll, speed, over, winner, ranking,"
    " host_token, started, epoch"
)
SUMMARY_COLUMNS = (
    "g.id, g.created, g.updated, g.rules, g.players, g.seats, g.over, g.winner,"
    " g.ranking, g.open_seats, COALESCE(g.action_count,"
    " (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id))"
)


class GameReads(SqlEngine):
    """Games as stored (`load`, `load_all`), what deleting one needs (`host_token`), and
    the home screen's and the lobby's lists."""

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
