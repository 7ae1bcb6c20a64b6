"""Learning environments (needs the `rl` extra): PettingZoo AEC and Gymnasium single-agent.

`import flyingchess.envs` registers the Gymnasium id "FlyingChess-v0".
"""

from __future__ import annotations

import gymnasium

from . import flyingchess_v0
from .single import FlyingChessEnv

if "FlyingChess-v0" not in gymnasium.registry:
    gymnasium.register(id="FlyingChess-v0", entry_point="flyingchess.envs.single:FlyingChessEnv")

__all__ = ["FlyingChessEnv", "flyingchess_v0"]
