"""Bots and their registry: a bot sees a state waiting for a move and returns a plane or None.

Every place that offers a choice of bot (CLI, web seats, simulator) reads `BOTS`, so a
new bot is one module plus one `register` call.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import (
    BOTS,
    Bot,
    BotInfo,
    BotUnavailable,
    bot_listing,
    bot_names,
    introduce,
    make_bot,
    playable,
    register,
    seat_chooser,
)
from .expectimax import ExpectimaxBot
from .greedy import GreedyBot
from .heuristic import HeuristicBot
from .random_bot import RandomBot

register(BotInfo("random", 0, "picks any legal move at random", RandomBot))
register(
    BotInfo("heuristic", 1, "captures, then jumps and flights, then launches, then its leading plane", HeuristicBot)
)


def _learned_bot(seed: int | None) -> Bot:
    from .learned import LearnedBot  # imported on first use: it needs NumPy (the `rl` extra)

    return LearnedBot(seed)


def _ace_bot(seed: int | None) -> Bot:
    from .ace import AceBot  # the same: NumPy, on first use

    return AceBot(seed)


def _network_bot(name: str, level: int, description: str, factory: Callable[[int | None], Bot]) -> BotInfo:
    """A bot that needs NumPy: registered whatever is installed, so that without NumPy it
    is listed and choosing it says what to install."""
    return BotInfo(name, level, description, factory, needs=("numpy",), extra="rl")


# Listed before greedy: it beats heuristic but not greedy (benchmarks/train_learned.py).
register(
    _network_bot("learned", 2, "plays the move whose position a value trained by self-play rates best", _learned_bot)
)
register(BotInfo("greedy", 2, "plays the move whose position evaluates best: progress, danger, readiness", GreedyBot))
register(
    BotInfo("expectimax", 3, "looks ahead over the next roll and the reply, with the greedy evaluation", ExpectimaxBot)
)
register(
    _network_bot(
        "ace",
        4,
        "looks two rolls ahead, every player playing for itself, judged by a network trained by self-play",
        _ace_bot,
    )
)

__all__ = [
    "BOTS",
    "Bot",
    "BotInfo",
    "BotUnavailable",
    "ExpectimaxBot",
    "GreedyBot",
    "HeuristicBot",
    "RandomBot",
    "bot_listing",
    "bot_names",
    "introduce",
    "make_bot",
    "playable",
    "register",
    "seat_chooser",
]
