"""PettingZoo AEC environment: 2-4 colours, any rules, the die rolled inside the env.

    from flyingchess.envs import flyingchess_v0
    env = flyingchess_v0.env(players=4, rules="classic")

Agents are colour names (or "player_0".. with `agent_names="player"`). Each observation
is {"observation", "action_mask"}; the acting agent always sees the die already rolled,
the others a mask allowing only PASS_ACTION. `state()` is the whole position (for centralised
critics). Rewards come once, at the end (see `final_rewards`). The die comes from the
environment's `np_random`: `reset(seed=s)` seeds it, a later `reset()` goes on from it,
so a run of episodes is reproducible from one seed. A thin adapter over the engine: no
rule is written here.
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar, Literal

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..engine.game import new_game, step
from ..engine.rules import Rules
from .batch import ACTIONS
from .episode import EPISODE_MAX_ROLLS, final_rewards, parse_rules
from .observation import OBSERVATION_SIZE, action_mask, observe, to_plane
from .render import RENDER_MODES, board_image, describe


def env(**kwargs: Any) -> AECEnv:
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]  # noqa: N801 (PettingZoo's naming)
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "flyingchess_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        players: int | list[str] = 4,
        rules: str | Rules | dict[str, Any] = "classic",
        render_mode: str | None = None,
        agent_names: Literal["colour", "player"] = "colour",
    ) -> None:
        EzPickle.__init__(self, players, rules, render_mode, agent_names)
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, not {render_mode!r}")
        if agent_names not in ("colour", "player"):
            raise ValueError(f"agent_names must be 'colour' or 'player', not {agent_names!r}")
        self.rules = parse_rules(rules)
        self.start = new_game(players if isinstance(players, int) else tuple(players), self.rules)
        colours = list(self.start.players)
        self.possible_agents = colours if agent_names == "colour" else [f"player_{i}" for i in range(len(colours))]
        self.colour_of = dict(zip(self.possible_agents, colours))
        self.agent_of = dict(zip(colours, self.possible_agents))
        self.agents = self.possible_agents[:]
        self.render_mode = render_mode
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32),
                    "action_mask": spaces.Box(0, 1, (ACTIONS,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(ACTIONS) for agent in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32)
        self.state_now = self.start
        self.np_random, _ = seeding.np_random()
        self.rolls = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        colour = self.colour_of[agent]
        return {"observation": observe(self.state_now, colour), "action_mask": action_mask(self.state_now, colour)}

    def state(self) -> np.ndarray:
        """The whole position, the same for every agent (the first colour's view: it
        shows every seat, whose turn it is and the die)."""
        return observe(self.state_now, self.start.players[0])

    def _die(self) -> int:
        return int(self.np_random.integers(1, 7))

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.rolls = 0
        self.state_now, _ = step(self.start, self._die())
        self.agent_selection = self.possible_agents[self.state_now.turn]
        self._render_human()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None and action_mask(self.state_now)[action], "played an illegal move"
        assert not self.state_now.over, "the game is over"
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        after, _ = step(self.state_now, to_plane(action))
        self.rolls += 1
        if after.over:
            self.state_now = after
            self.rewards.update({self.agent_of[c]: r for c, r in final_rewards(after).items()})
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.state_now, _ = step(after, self._die())
            if self.rolls >= EPISODE_MAX_ROLLS:
                self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agent_of[self.state_now.players[self.state_now.turn]]
        self._accumulate_rewards()
        self._render_human()

    def _render_human(self) -> None:
        if self.render_mode == "human":
            sys.stdout.write(describe(self.state_now) + "\n\n")

    def render(self) -> Any:
        """In "ansi" mode the position as text (whose turn, the die, every plane), returned;
        "rgb_array": an image of the board; "human" prints the text at every step."""
        if self.render_mode == "ansi":
            return describe(self.state_now)
        if self.render_mode == "rgb_array":
            return board_image(self.state_now)
        return None

    def close(self) -> None:
        pass
