"""The bot interface and the registry of bots by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Protocol

from ..game import Chooser, State


class Bot(Protocol):
    """Chooses a move for the player to move in a state whose die is rolled.

    Returns a plane index naming a legal move, or None to pass (only when no move is legal).
    A bot built with the same seed returns the same move for the same state."""

    def choose(self, state: State) -> int | None: ...


@dataclass(frozen=True)
class BotInfo:
    name: str
    level: int
    """Difficulty: 0 is the weakest; higher plays better."""
    description: str
    factory: Callable[[int | None], Bot]
    """Builds the bot from an optional seed."""


BOTS: dict[str, BotInfo] = {}


def register(info: BotInfo) -> None:
    if info.name in BOTS:
        raise ValueError(f"a bot named {info.name!r} is already registered")
    BOTS[info.name] = info


def bot_names() -> list[str]:
    """Registered bot names, weakest first."""
    return [info.name for info in sorted(BOTS.values(), key=lambda info: info.level)]


def seat_chooser(seats: Mapping[str, Bot]) -> Chooser:
    """The `play_out` chooser that asks the bot of the colour to move."""
    def choose(state: State, roll: int, moves: tuple[int, ...]) -> int | None:
        return seats[state.players[state.turn]].choose(state._replace(roll=roll))
    return choose


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A new bot by registry name; ValueError names the known bots for an unknown one."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(bot_names())})")
    return BOTS[name].factory(seed)
