"""Gymnasium single-agent environment: one seat against bots from the registry.

    import gymnasium, flyingchess.envs
    env = gymnasium.make("FlyingChess-v0", opponents=["heuristic"] * 3)

The agent plays the seat `seat` (0 = the first colour; None = a random seat each
episode). Between its turns the opponents roll and move by themselves. Observations and
rewards are those of the PettingZoo environment; an illegal action ends the episode with
reward -1 and info["illegal_action"] = True.
"""

from __future__ import annotations

import random
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from ..bots import Bot, make_bot, seat_chooser
from ..game import DEFAULT_PLAYERS, State, apply, new_game, play_out
from .flyingchess_v0 import MAX_ROLLS, final_rewards, parse_rules
from .observation import ACTIONS, OBSERVATION_SIZE, action_mask, observe, to_plane


class FlyingChessEnv(gymnasium.Env[dict[str, np.ndarray], np.int64]):
    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (Gymnasium declares it so)

    def __init__(
        self,
        opponents: list[str] | None = None,
        rules: Any = "classic",
        seat: int | None = 0,
        render_mode: str | None = None,
    ) -> None:
        self.opponent_names = list(opponents) if opponents is not None else ["heuristic"]
        if not 1 <= len(self.opponent_names) <= 3:
            raise ValueError("1 to 3 opponents play")
        for name in self.opponent_names:
            make_bot(name)
        self.rules = parse_rules(rules)
        self.players = DEFAULT_PLAYERS[len(self.opponent_names) + 1]
        if seat is not None and not 0 <= seat < len(self.players):
            raise ValueError(f"seat must be 0..{len(self.players) - 1} or None")
        self.fixed_seat = seat
        self.render_mode = render_mode
        self.observation_space = spaces.Dict(
            {  # type: ignore[assignment]
                "observation": spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTIONS,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(ACTIONS)
        self.dice = random.Random()
        self.state = new_game(self.players, self.rules)
        self.colour = self.players[0]
        self.bots: dict[str, Bot] = {}
        self.rolls = 0

    def _observation(self) -> dict[str, np.ndarray]:
        return {"observation": observe(self.state, self.colour), "action_mask": action_mask(self.state)}

    def _play_opponents(self, state: State) -> State:
        """Roll for and move the bots until the agent must choose or the game ends."""
        state, actions = play_out(
            state,
            seat_chooser(self.bots),
            lambda: self.dice.randint(1, 6),
            until=lambda waiting, _: waiting.players[waiting.turn] == self.colour,
            checked=True,
        )
        self.rolls += actions + (state.roll is not None)  # the roll the agent now moves with
        return state

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self.dice = random.Random(seed if seed is not None else int(self.np_random.integers(2**31)))
        seat = self.fixed_seat if self.fixed_seat is not None else self.dice.randrange(len(self.players))
        self.colour = self.players[seat]
        others = [c for c in self.players if c != self.colour]
        self.bots = {
            colour: make_bot(name, self.dice.getrandbits(32)) for colour, name in zip(others, self.opponent_names)
        }
        self.rolls = 0
        self.state = self._play_opponents(new_game(self.players, self.rules))
        return self._observation(), {"colour": self.colour}

    def step(self, action: np.int64 | int) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        if self.state.over:
            raise RuntimeError("the episode is over: call reset()")
        if not (0 <= int(action) < ACTIONS) or not action_mask(self.state)[int(action)]:
            return self._observation(), -1.0, True, False, {"illegal_action": True, "colour": self.colour}
        after, _ = apply(self.state, to_plane(int(action)))
        self.state = self._play_opponents(after)
        reward = final_rewards(self.state).get(self.colour, 0.0) if self.state.over else 0.0
        truncated = not self.state.over and self.rolls >= MAX_ROLLS
        return self._observation(), reward, self.state.over, truncated, {"colour": self.colour}

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return "\n".join(f"{c:>6}: {list(p)}" for c, p in zip(self.state.players, self.state.planes))
