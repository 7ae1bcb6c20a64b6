"""A registered bot, or a user's own policy, in a seat of a network game
(`flyingchess seat-bot`; docs/clients.md).

A policy is a function from the environments' observation and action mask to an action
(docs/environments.md: 0..3 move that plane, 4 passes), so an agent trained on
`FlyingChess-v0` or the vector environment plays unchanged: the observation is built by
`flyingchess.envs.observation`, the code the environments use. A policy that returns an
illegal action or raises ends the command with one line naming it; its connection then
closes, and the server's autopilot plays the seat once its grace runs out, so the table
never stalls.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from ..bots import Bot, make_bot
from ..engine.game import State
from .game_client import Game, GameClient

Chooser = Callable[[State], "int | None"]
"""The plane to move in a rolled state (None: pass)."""


class SeatError(Exception):
    """Why the seat cannot be played on, in one line."""


class BotChooser:
    """A registered bot as a chooser, told who sits at the table (`meet`) when play starts."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def __call__(self, state: State) -> int | None:
        return self.bot.choose(state)

    def meet(self, colour: str, table: Mapping[str, str | None]) -> None:
        meet = getattr(self.bot, "meet", None)
        if meet is not None:
            meet(colour, table)


def bot_chooser(name: str) -> Chooser:
    """A registered bot's choice (`flyingchess bots` lists them)."""
    try:
        bot = make_bot(name)
    except (KeyError, ValueError, RuntimeError, ImportError) as error:
        raise SeatError(f"--bot {name}: {error}") from None
    return BotChooser(bot)


def seated_bots(seats: Mapping[str, Mapping[str, Any]]) -> dict[str, str | None]:
    """Each colour's bot by name, None for a person or a client (`bots.introduce`'s table)."""
    return {colour: seat.get("bot") if seat.get("kind") == "bot" else None for colour, seat in seats.items()}


def policy_chooser(spec: str) -> Chooser:
    """`module:function`, a policy taking (observation, mask) and returning an action."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise SeatError(f"--policy {spec}: give it as module:function (a function of the observation and the mask)")
    if os.getcwd() not in sys.path:  # a module beside the user, as `python -m` would find it
        sys.path.insert(0, os.getcwd())
    try:
        policy = getattr(importlib.import_module(module_name), attribute)
    except ImportError as error:
        raise SeatError(f"--policy {spec}: cannot import {module_name}: {error}") from None
    except SyntaxError as error:
        raise SeatError(f"--policy {spec}: {module_name} does not compile: {error}") from None
    except AttributeError:
        raise SeatError(f"--policy {spec}: {module_name} has no {attribute}") from None
    if not callable(policy):
        raise SeatError(f"--policy {spec}: {attribute} is not a function")
    try:
        from ..envs.observation import action_mask, observe, to_plane
    except ImportError:
        raise SeatError("--policy needs NumPy for the observation: pip install 'flyingchess[rl]'") from None

    def choose(state: State) -> int | None:
        mask = action_mask(state)
        try:
            action: Any = policy(observe(state, str(state.colour)), mask)
        except Exception as error:  # the user's code: said in one line, never a traceback
            raise SeatError(f"--policy {spec} raised {type(error).__name__}: {error}") from None
        legal = [int(a) for a in mask.nonzero()[0]]
        if isinstance(action, bool) or not hasattr(action, "__index__") or int(action) not in legal:
            raise SeatError(f"--policy {spec} chose action {action!r}; the legal actions were {legal} (4 passes)")
        return to_plane(int(action))

    return choose


async def sit(
    link: str,
    choose: Chooser,
    *,
    colour: str | None = None,
    name: str = "bot",
    token: str | None = None,
    say: Callable[[str], None] = print,
) -> Game:
    """Take `colour` (else the first open seat; or the seat `token` opens), add a share to
    the game's dice, and play until the game is over; returns the last snapshot."""
    async with GameClient(link, token) as table:
        game = table.game
        assert game is not None
        if token is None:
            open_seats = [c for c in game.state.players if game.seats.get(c, {}).get("kind") == "open"]
            if colour is None:
                if not open_seats:
                    raise SeatError("no open seat in this game")
                colour = open_seats[0]
            await table.join(colour, name)
        if game.dice is not None and not game.started:
            await table.contribute()
        say(f"playing {', '.join(table.you.controls)} in {table.invite.link}")
        meet = getattr(choose, "meet", None)
        while (now := await table.my_turn()).phase != "over":
            if meet is not None:  # the seats are settled once play has begun
                for mine in table.you.controls:
                    meet(mine, seated_bots(now.seats))
                meet = None
            if now.phase == "roll":
                await table.roll()
                continue
            plane = choose(now.state)
            if plane is None:  # the server passes by itself when no move is legal
                raise SeatError("the bot chose to pass while a move is legal")
            await table.move(plane)
        say(f"game over: {now.state.winner} wins")
        return now
