"""The bot interface and the registry of bots by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Final, Protocol

from ..engine.game import Chooser, State
from .levels import level_of, resolve


class Bot(Protocol):
    """Chooses a move for the player to move in a state whose die is rolled.

    Returns a plane index naming a legal move, or None to pass (only when no move is legal).
    A bot built with the same seed returns the same move for the same state.

    A bot may also have a `name` (its registry name, which `introduce` tells the others)
    and a `meet(colour, table)` method, to be told who sits at the table before play:
    `table` maps each colour to its bot's name, None for a player no bot plays."""

    def choose(self, state: State) -> int | None: ...


def introduce(seats: Mapping[str, Bot | None]) -> None:
    """Tell every bot that asks (a `meet` method) who sits at the table: each colour's
    bot by its `name`, None for a seat no bot plays (a person, a client) or a bot
    without a name."""
    table = {colour: getattr(bot, "name", None) for colour, bot in seats.items()}
    for colour, bot in seats.items():
        meet = getattr(bot, "meet", None)
        if meet is not None:
            meet(colour, table)


@dataclass(frozen=True)
class BotInfo:
    name: str
    level: int
    """Difficulty: 0 is the weakest; higher plays better."""
    description: str
    factory: Callable[[int | None], Bot]
    """Builds the bot from an optional seed."""
    needs: tuple[str, ...] = ()
    """Modules the bot imports beyond the standard library (e.g. numpy)..."""
    extra: str | None = None
    """...and the package extra that installs them (`pip install 'flyingchess[rl]'`)."""

    @property
    def available(self) -> bool:
        """Whether the modules the bot needs are installed."""
        return all(_installed(module) for module in self.needs)

    def missing(self) -> str | None:
        """What to install to play this bot, in one line; None when it can play."""
        if self.available:
            return None
        names = ", ".join(MODULE_NAMES.get(module, module) for module in self.needs)
        return f"bot {self.name!r} needs {names}: pip install 'flyingchess[{self.extra}]'"


MODULE_NAMES: Final = {"numpy": "NumPy"}


def _installed(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except ValueError:  # a module set to None in sys.modules (hidden on purpose)
        return False


class BotUnavailable(ValueError):
    """A registered bot whose extra is not installed; the message says what to install."""


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
    """A new bot by registry name or level name (bots/levels.py). ValueError names the
    known bots for an unknown one; BotUnavailable says what to install for a bot whose
    extra is missing."""
    name = resolve(name)
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(bot_names())})")
    missing = BOTS[name].missing()
    if missing is not None:
        raise BotUnavailable(missing)
    return BOTS[name].factory(seed)


def bot_listing(name: str) -> dict[str, object]:
    """A bot as the CLI and the page list it: name, level, description, whether it can
    play here and, if not, the extra to install."""
    info = BOTS[name]
    return {
        "name": name,
        "level": info.level,
        "level_name": level_of(name),
        "description": info.description,
        "available": info.available,
        "extra": None if info.available else info.extra,
    }


def playable(name: object) -> bool:
    """Whether `name` names a registered bot that can play here (its extra installed)."""
    return isinstance(name, str) and name in BOTS and BOTS[name].available
