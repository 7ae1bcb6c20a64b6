"""Gymnasium single-agent environment: one seat against bots from the registry.

    import gymnasium, flyingchess.envs
    env = gymnasium.make("FlyingChess-v0", opponents=["heuristic"] * 3)

The agent plays the seat `seat` (0 = the first colour; None = a random seat each
episode). Between its turns the opponents roll and move by themselves. Observations and
rewards are those of the PettingZoo environment. An illegal action ends the episode
with reward -1 and info["illegal_action"] = True; the episode is then over like any
other (step raises until reset). `action_masks()` is the mask sb3-contrib's MaskablePPO
asks for; `skip_forced` plays the agent's forced moves (a pass, or one real choice) by
itself.
"""

from __future__ import annotations

import random
import sys
from typing import Any, SupportsFloat

import gymnasium
import numpy as np

from ..bots import Bot, introduce, make_bot, seat_chooser
from ..engine.game import DEFAULT_PLAYERS, State, apply, new_game, play_out
from ..engine.moves import choices
from .batch import PASS_ACTION
from .episode import EPISODE_MAX_ROLLS, final_rewards, parse_rules
from .observation import action_mask, observe, to_plane
from .render import RENDER_MODES, board_image, describe
from .vector import single_spaces


class FlyingChessEnv(gymnasium.Env[dict[str, np.ndarray], np.int64]):
    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012 (Gymnasium declares it so)

    def __init__(
        self,
        opponents: list[str] | None = None,
        rules: Any = "classic",
        seat: int | None = 0,
        render_mode: str | None = None,
        skip_forced: bool = False,
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
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, not {render_mode!r}")
        self.fixed_seat = seat
        self.render_mode = render_mode
        self.skip_forced = skip_forced
        self.observation_space, self.action_space = single_spaces()  # type: ignore[assignment]
        self.dice = random.Random()
        self.state = new_game(self.players, self.rules)
        self.colour = self.players[0]
        self.bots: dict[str, Bot] = {}
        introduce({**self.bots, self.colour: None})  # the agent: a player no bot can know
        self._bots = seat_chooser(self.bots)
        self.rolls = 0
        self.ended = True
        """The episode is over (the game ended, an illegal action, or truncation)."""

    def _observation(self) -> dict[str, np.ndarray]:
        return {"observation": observe(self.state, self.colour), "action_mask": self.action_masks().astype(np.int8)}

    def action_masks(self) -> np.ndarray:
        """bool [5]: the actions the agent may take now (only PASS_ACTION once the episode is over)."""
        if self.ended:
            mask = np.zeros(PASS_ACTION + 1, np.bool_)
            mask[PASS_ACTION] = True
            return mask
        return action_mask(self.state, self.colour).astype(np.bool_)

    def _asks(self, state: State) -> bool:
        """Whether the agent is asked about this rolled state (else its move plays itself)."""
        if state.players[state.turn] != self.colour:
            return False
        return not self.skip_forced or choices(state) > 1

    def _choose(self, state: State, roll_value: int, moves: tuple[int, ...]) -> int | None:
        if state.players[state.turn] == self.colour:  # a forced move of the agent's
            return moves[0] if moves else None
        return self._bots(state, roll_value, moves)

    def _play_opponents(self, state: State) -> State:
        """Roll for and move the bots (and the agent's forced moves, with skip_forced)
        until the agent must choose or the game ends."""
        state, actions = play_out(
            state,
            self._choose,
            lambda: self.dice.randint(1, 6),
            until=lambda waiting, roll_value: self._asks(waiting._replace(roll=roll_value)),
            checked=True,
            max_rolls=EPISODE_MAX_ROLLS - self.rolls,
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
        introduce({**self.bots, self.colour: None})  # the agent: a player no bot can know
        self._bots = seat_chooser(self.bots)
        self.ended = False
        while True:  # with skip_forced a game may end before the agent has a real choice: deal again
            self.rolls = 0
            self.state = self._play_opponents(new_game(self.players, self.rules))
            if not self.state.over and self.rolls < EPISODE_MAX_ROLLS:
                break
        self._render_human()
        return self._observation(), {"colour": self.colour}

    def step(self, action: np.int64 | int) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        if self.ended:
            raise RuntimeError("the episode is over: call reset()")
        if not (0 <= int(action) <= PASS_ACTION) or not action_mask(self.state, self.colour)[int(action)]:
            self.ended = True
            return self._observation(), -1.0, True, False, {"illegal_action": True, "colour": self.colour}
        after, _ = apply(self.state, to_plane(int(action)))
        self.state = self._play_opponents(after)
        reward = final_rewards(self.state).get(self.colour, 0.0) if self.state.over else 0.0
        truncated = not self.state.over and self.rolls >= EPISODE_MAX_ROLLS
        self.ended = self.state.over or truncated
        self._render_human()
        return self._observation(), reward, self.state.over, truncated, {"colour": self.colour}

    def _render_human(self) -> None:
        if self.render_mode == "human":
            sys.stdout.write(describe(self.state, self.colour) + "\n\n")

    def render(self) -> Any:
        """In "ansi" mode the position as text (whose turn, the die, every plane); "rgb_array":
        an image of the board (RecordVideo); "human" prints the text at every step."""
        if self.render_mode == "ansi":
            return describe(self.state, self.colour)
        if self.render_mode == "rgb_array":
            return board_image(self.state)
        return None
