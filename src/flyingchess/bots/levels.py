"""Levels a player understands: five names, each a bot measured stronger than the one below.

The bots keep their technical names (what a record or a seat stores); a level is what the
page and the CLI offer a person choosing an opponent. docs/bots.md has the tournament that
orders them. Wherever a bot name is accepted (`make_bot`, `--bots`, `--bot`), a level name
is too.
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Level(NamedTuple):
    name: str
    bot: str


LEVELS: Final = (
    Level("gentle", "random"),
    Level("casual", "heuristic"),
    Level("sensible", "greedy"),
    Level("strong", "expectimax"),
    Level("master", "ace"),
)
"""Weakest first."""

_BY_NAME: Final = {level.name: level for level in LEVELS}
_BY_BOT: Final = {level.bot: level for level in LEVELS}


def resolve(name: str) -> str:
    """The bot a name means: a level's bot, else the name itself."""
    level = _BY_NAME.get(name)
    return level.bot if level else name


def level_of(bot: str) -> str | None:
    """The level name of a bot, None for a bot that is no level."""
    level = _BY_BOT.get(bot)
    return level.name if level else None


__all__ = ["LEVELS", "Level", "level_of", "resolve"]
