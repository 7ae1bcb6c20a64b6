"""What every environment shares about an episode: how its rules are given, how long it
may run, and what each player is paid at its end.

The single-agent, the AEC and the vector environments all read these, so an episode
means the same in each (tests/test_vector.py holds them equal step by step).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..engine.compiled import move_table
from ..engine.game import State
from ..engine.rules import Rules

EPISODE_MAX_ROLLS: Final = 20_000
"""An episode is truncated after this many rolls (a random 4-player game takes about
300; the engine's own play loop gives up on a game only at game.MAX_ROLLS, 100,000)."""


def parse_rules(rules: str | Rules | dict[str, Any]) -> Rules:
    """An environment's `rules` argument: a preset's name, options as JSON, or Rules."""
    return rules if isinstance(rules, Rules) else Rules.from_json(rules)


def end_rewards(players: int, end_first: bool, won: npt.ArrayLike, place: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Zero-sum end rewards, for any number of players at once (NumPy broadcasting).

    `end: first`: +1 for the winner (`won`), -1/(n-1) for each other player. `end:
    ranking`: by `place` (0 first), +1 for first place down to -1 for last in equal steps."""
    if end_first:
        return np.where(won, 1.0, -1.0 / (players - 1))
    return (players + 1 - 2 * (np.asarray(place) + 1)) / (players - 1)


def final_rewards(state: State) -> dict[str, float]:
    """Each player's end reward in a finished game (where every player has a place under
    `end: ranking`): `end_rewards` for a batch of one."""
    players = state.players
    won = [colour == state.winner for colour in players]
    place = [state.ranking.index(colour) if colour in state.ranking else -1 for colour in players]
    rewards = end_rewards(len(players), move_table(state.rules).end_first, won, place)
    return {colour: float(reward) for colour, reward in zip(players, rewards)}


__all__ = ["EPISODE_MAX_ROLLS", "end_rewards", "final_rewards", "parse_rules"]
