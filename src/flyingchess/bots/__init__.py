"""Bots and their registry: a bot sees a state waiting for a move and returns a plane or None.

Every place that offers a choice of bot (CLI, web seats, simulator) reads `BOTS`, so a
new bot is one module plus one `register` call.
"""

from __future__ import annotations

from .base import BOTS, Bot, BotInfo, bot_names, make_bot, register
from .heuristic import HeuristicBot
from .random_bot import RandomBot

register(BotInfo("random", 0, "picks any legal move at random", RandomBot))
register(BotInfo("heuristic", 1, "captures, then jumps and flights, then launches, then its leading plane",
                 HeuristicBot))

__all__ = ["BOTS", "Bot", "BotInfo", "HeuristicBot", "RandomBot", "bot_names", "make_bot", "register"]
