"""PettingZoo AEC environment: 2-4 colours, any rules, the die rolled inside the env.

    from flyingchess.envs import flyingchess_v0
    env = flyingchess_v0.env(players=4, rules="classic")

Agents are colour names. Each observation is {"observation", "action_mask"}; the acting
agent always sees the die already rolled. Rewards come once, at the end (see
`final_rewards`). A thin adapter over the engine: no rule is written here.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..game import State, apply, new_game, roll
from ..rules import Rules
from .observation import ACTIONS, OBSERVATION_SIZE, action_mask, observe, to_plane

MAX_ROLLS = 20_000


def final_rewards(state: State) -> dict[str, float]:
    """Zero-sum end rewards. `end: ranking`: +1 for first place down to -1 for last, in
    equal steps. `end: first`: +1 for the winner, -1/(n-1) for each other player."""
    n = len(state.players)
    if state.rules.end == "ranking":
        return {colour: (n + 1 - 2 * (place + 1)) / (n - 1) for place, colour in enumerate(state.ranking)}
    return {colour: 1.0 if colour == state.winner else -1.0 / (n - 1) for colour in state.players}


def parse_rules(rules: str | Rules | dict[str, Any]) -> Rules:
    return rules if isinstance(rules, Rules) else Rules.from_json(rules)


def env(**kwargs: Any) -> AECEnv:
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]  # noqa: N801 (PettingZoo's naming)
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "flyingchess_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        players: int | list[str] = 4,
        rules: str | Rules | dict[str, Any] = "classic",
        render_mode: str | None = None,
    ) -> None:
        EzPickle.__init__(self, players, rules, render_mode)
        super().__init__()
        self.rules = parse_rules(rules)
        self.start = new_game(players if isinstance(players, int) else tuple(players), self.rules)
        self.possible_agents = list(self.start.players)
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
        self.state_now = self.start
        self.dice = random.Random()
        self.rolls = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = action_mask(self.state_now) if agent == self.agent_selection else np.zeros(ACTIONS, np.int8)
        return {"observation": observe(self.state_now, agent), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.dice = random.Random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.rolls = 0
        self.state_now, _ = roll(self.start, self.dice.randint(1, 6))
        self.agent_selection = self.possible_agents[self.state_now.turn]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None and action_mask(self.state_now)[action], "played an illegal move"
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        after, _ = apply(self.state_now, to_plane(action))
        self.rolls += 1
        if after.over:
            self.state_now = after
            self.rewards.update(final_rewards(after))
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.state_now, _ = roll(after, self.dice.randint(1, 6))
            if self.rolls >= MAX_ROLLS:
                self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.state_now.players[self.state_now.turn]
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self) -> str:
        state = self.state_now
        rows = [f"{colour:>6}: {list(planes)}" for colour, planes in zip(state.players, state.planes)]
        return "\n".join(rows + [f"to play: {state.colour} with {state.roll}"])

    def close(self) -> None:
        pass
