"""A game as the games database keeps it: its header and action list (`StoredGame`), and
what its seats say about who may see it listed (`seat_counts`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


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
