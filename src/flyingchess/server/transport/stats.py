"""Who played and who won, over the finished games of a database (the home screen's
statistics). A player is known by the name of a seat when it has one (a player who
joined, or a named player on the host's device), else by what played it: a bot by its
name, an unnamed seat on the host's device as one "human"."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def who(seat: Mapping[str, Any]) -> tuple[str, str]:
    """(kind, name) that tells one player from another across games."""
    kind = str(seat.get("kind", "human"))
    if kind == "bot":
        return "bot", str(seat.get("bot") or "")
    name = seat.get("name")
    return ("player", str(name)) if name else ("human", "")


def tally(games: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Games played and won by each player and each colour, most wins first."""
    players: dict[tuple[str, str], dict[str, Any]] = {}
    colours: dict[str, dict[str, Any]] = {}
    count = 0
    for game in games:
        count += 1
        seats: Mapping[str, Any] = game.get("seats") or {}
        for colour in game.get("players") or []:
            won = game.get("winner") == colour
            kind, name = who(seats.get(colour) or {})
            entry = players.setdefault((kind, name), {"kind": kind, "name": name, "played": 0, "won": 0})
            shade = colours.setdefault(colour, {"colour": colour, "played": 0, "won": 0})
            for row in (entry, shade):
                row["played"] += 1
                row["won"] += int(won)
    return {
        "games": count,
        "players": sorted(players.values(), key=lambda row: (-row["won"], -row["played"], row["kind"], row["name"])),
        "colours": sorted(colours.values(), key=lambda row: (-row["won"], -row["played"], row["colour"])),
    }
