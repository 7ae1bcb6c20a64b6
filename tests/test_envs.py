"""The learning environments: PettingZoo and Gymnasium conformance, masks from the engine."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import flyingchess.envs  # noqa: F401  (registers FlyingChess-v0)
from flyingchess import Rules, apply, legal_moves, roll, setup_position
from flyingchess.envs import flyingchess_v0
from flyingchess.envs.observation import (
    LAST_MOVED_AT,
    OBSERVATION_SIZE,
    PASS_ACTION,
    SIX_MOVED_AT,
    SIXES_AT,
    TURN_AT,
    action_mask,
    observe,
)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", ["classic", "traditional", "house", {"preset": "even", "finish": "bounce"}])
def test_pettingzoo_api(players: int, rules: object) -> None:
    api_test(flyingchess_v0.env(players=players, rules=rules), num_cycles=200)


def test_pettingzoo_seed() -> None:
    seed_test(lambda: flyingchess_v0.env(players=4, rules="house"), num_cycles=200)


def test_gymnasium_env_checker() -> None:
    check_env(gymnasium.make("FlyingChess-v0", opponents=["heuristic"] * 3).unwrapped)
    check_env(gymnasium.make("FlyingChess-v0", opponents=["random"], rules="traditional", seat=None).unwrapped)


def test_masks_name_exactly_the_engines_moves() -> None:
    # stacking together: red planes 0 and 2 share cell 10 and move as one
    state = setup_position({"red": [10, -1, 10, 54], "blue": [5, -1, -1, -1]}, Rules.preset("house"))
    rolled, _ = roll(state, 3)
    assert legal_moves(rolled) == (0,)
    mask = action_mask(rolled)
    assert list(mask) == [1, 0, 1, 0, 0]  # 54 + 3 overshoots: exact finish
    passing, _ = roll(setup_position({"red": [-1] * 4, "blue": [-1] * 4}), 2)
    assert list(action_mask(passing)) == [0, 0, 0, 0, 1] and PASS_ACTION == 4


def test_observation_is_relative_to_the_observer() -> None:
    # red at progress 5 and blue at progress 5 look the same to each of them, but for
    # whose turn it is: red's own (seat offset 0) to red, two seats on to blue
    state = setup_position({"red": [5, -1, -1, -1], "blue": [5, -1, -1, -1]})
    red, blue = observe(state, "red"), observe(state, "blue")
    assert red.shape == (OBSERVATION_SIZE,) and red.dtype == np.float32
    turn = slice(TURN_AT, TURN_AT + 4)
    assert list(red[turn]) == [1, 0, 0, 0] and list(blue[turn]) == [0, 0, 1, 0]
    red[turn] = blue[turn] = 0
    assert np.array_equal(red, blue)
    assert red.min() >= 0 and red.max() <= 1


def test_the_observation_remembers_what_this_turns_sixes_moved() -> None:
    """Under `house` a third six sends home the planes the sixes moved: which ones must be
    seen, or two positions that play differently would look the same."""
    rules = Rules.preset("house")
    state = setup_position({"red": [10, 20, -1, -1], "blue": [5, -1, -1, -1]}, rules)
    state, _ = roll(state, 6)
    state, _ = apply(state, 0)  # the first six moves plane 0: red rolls again
    seen = observe(state, "red")
    assert list(seen[SIX_MOVED_AT : SIX_MOVED_AT + 4]) == [1, 0, 0, 0]
    assert list(seen[LAST_MOVED_AT : LAST_MOVED_AT + 4]) == [1, 0, 0, 0]
    assert seen[SIXES_AT] == pytest.approx(1 / 3)
    other = setup_position({"red": [16, 20, -1, -1], "blue": [5, -1, -1, -1]}, rules)
    other = other._replace(sixes=1, six_moved=(1,), last_moved=(1,))
    assert list(observe(other, "red")[SIX_MOVED_AT : SIX_MOVED_AT + 4]) == [0, 1, 0, 0]


def test_a_whole_pettingzoo_game_with_random_legal_actions() -> None:
    env = flyingchess_v0.env(players=3, rules="traditional")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    steps = 0
    for _agent in env.agent_iter():
        observation, _reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(legal)))
        steps += 1
    assert steps > 50
    assert sorted(env.unwrapped.state_now.ranking) == ["blue", "red", "yellow"]


def test_gymnasium_episode_and_illegal_action() -> None:
    env = gymnasium.make("FlyingChess-v0", opponents=["heuristic"])
    observation, info = env.reset(seed=1)
    total = 0.0
    done = False
    while not done:
        action = int(np.flatnonzero(observation["action_mask"])[0])
        observation, reward, terminated, truncated, info = env.step(action)
        total += float(reward)
        done = terminated or truncated
    assert total in (1.0, -1.0)
    observation, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    observation, reward, terminated, _, info = env.step(illegal)
    assert reward == -1.0 and terminated and info["illegal_action"]
    # the episode is over: no more moves until a reset, and the mask says only PASS_ACTION
    assert list(observation["action_mask"]) == [0, 0, 0, 0, 1]
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(PASS_ACTION)
