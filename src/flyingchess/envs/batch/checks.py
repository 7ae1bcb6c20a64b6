"""What `BatchGame.step` checks before it plays a roll: the arrays' shapes, the dice and
that every action is legal, naming the first game at fault.

`step_unchecked` trusts its callers (the environments and policies build their actions
from the masks); `step` is for everyone else, so a wrong input fails loudly and changes
nothing instead of leaving a game in a state the rules never reach.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .words import PASS_ACTION, Bools, Indices, as_indices

if TYPE_CHECKING:
    from . import BatchGame


def checked_step(
    simulator: BatchGame, rolls: npt.ArrayLike, actions: npt.ArrayLike, idle: Bools | None
) -> tuple[Indices, Indices]:
    """The rolls and actions to play, a roll of 1 and a pass in the games over or `idle`;
    raises ValueError naming the first game with a bad roll or an illegal action."""
    batch = simulator.batch
    rolls_in, actions_in = as_indices(rolls), as_indices(actions)
    if rolls_in.shape != (batch,) or actions_in.shape != (batch,):
        raise ValueError(f"rolls and actions must both have shape ({batch},)")
    waiting = simulator.over if idle is None else simulator.over | idle
    rolls_in = np.where(waiting, 1, rolls_in)
    actions_in = np.where(waiting, PASS_ACTION, actions_in)
    bad_roll = (rolls_in < 1) | (rolls_in > 6)
    if bad_roll.any():
        game = int(np.argmax(bad_roll))
        raise ValueError(f"game {game}: roll {int(rolls_in[game])} is not a die value 1..6")
    mask = simulator.action_mask(rolls_in)
    mask[waiting] = False
    mask[waiting, PASS_ACTION] = True
    named = np.clip(actions_in, 0, PASS_ACTION)
    bad = ~mask[np.arange(batch), named] | (actions_in != named)
    if bad.any():
        game = int(np.argmax(bad))
        legal = [int(a) for a in np.flatnonzero(mask[game])]
        raise ValueError(
            f"game {game}: action {int(actions_in[game])} is illegal with roll "
            f"{int(rolls_in[game])} (legal: {legal}); {simulator.to_state(game).describe()}"
        )
    return rolls_in, actions_in
