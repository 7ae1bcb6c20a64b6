"""The vector environment over the batch simulator, and the conventions RL libraries
expect of every environment (docs/environments.md)."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import flyingchess.envs  # noqa: F401  (registers FlyingChess-v0)
from flyingchess import Rules, apply, roll
from flyingchess.engine.moves import choices
from flyingchess.envs import flyingchess_v0
from flyingchess.envs.batch import PASS_ACTION, BatchGame
from flyingchess.envs.observation import (
    DIE_AT,
    OBSERVATION_SIZE,
    SIXES_AT,
    TURN_AT,
    action_mask,
    observe,
)
from flyingchess.envs.vector import EngineBot, FlyingChessVectorEnv, VectorGames

from tiers import first_fast

CONFIGS = [(4, "classic"), (3, "house"), (2, "traditional"), (4, {"preset": "even", "finish": "bounce"})]


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.argmax(np.where(mask, 1 + rng.random(mask.shape), 0), axis=1)


def trajectory(games: VectorGames, steps: int, seed: int) -> list[np.ndarray]:
    """The learners' observations over `steps` steps of random legal moves drawn with `seed`."""
    observation, mask = games.reset()
    rng = np.random.default_rng(seed)
    out = [observation]
    for _ in range(steps):
        observation, mask, *_ = games.step(random_legal(mask, rng))
        out.append(observation)
    return out


def engine_view(games: VectorGames, index: int) -> tuple[Any, str]:
    """Game `index` as the engine's state (rolled when its learner is to choose) and the
    learner's colour."""
    state = games.game.to_state(index)
    if games.waiting[index]:
        state, _ = roll(state, int(games.rolls[index]))
    return state, games.players[int(games.seat[index])]


@pytest.mark.parametrize(
    ("skip_forced", "players", "rules"),
    [(False, *config) for config in CONFIGS] + first_fast([(True, *c) for c in CONFIGS]),
)
def test_batched_observations_and_masks_are_the_single_envs_entry_by_entry(
    players: int, rules: Any, skip_forced: bool
) -> None:
    games = VectorGames(64, players=players, rules=rules, opponents="heuristic", skip_forced=skip_forced, seed=5)
    observation, mask = games.reset()
    rng = np.random.default_rng(1)
    compared = finals = 0
    for _ in range(60):
        for index in range(games.num_games):
            state, colour = engine_view(games, index)
            assert np.array_equal(observation[index], observe(state, colour)), index
            assert np.array_equal(mask[index], action_mask(state, colour).astype(bool)), index
            compared += 1
        before = [engine_view(games, i) for i in range(games.num_games)]
        actions = random_legal(mask, rng)
        observation, mask, _reward, terminated, _truncated, info = games.step(actions)
        for index in np.flatnonzero(info["done"]):
            # the final view: the game over, seen from the same seat
            state, colour = before[index]
            assert games.players[int(info["final_seat"][index])] == colour
            final = info["final_observation"][index]
            assert terminated[index] and not final[DIE_AT:SIXES_AT].any() and not final[TURN_AT : TURN_AT + 4].any()
            rank = int(info["final_rank"][index])
            if state.rules.end == "first":
                assert bool(final[1]) == (rank == 0)  # the learner's seat is the first one
            else:
                assert rank >= 0
            finals += 1
    assert compared >= 64 * 60 and finals > 0


def test_a_finished_game_gives_the_engines_rewards_and_restarts_in_the_same_step() -> None:
    games = VectorGames(32, players=4, rules="classic", opponents="random", seed=9)
    _, mask = games.reset()
    rng = np.random.default_rng(2)
    seen = 0
    while seen < 40:
        actions = random_legal(mask, rng)
        _observation, mask, reward, terminated, _truncated, info = games.step(actions)
        for index in np.flatnonzero(info["done"]):
            seen += 1
            rank = int(info["final_rank"][index])
            expected = 1.0 if rank == 0 else -1 / 3  # classic ends when the first player is home
            assert reward[index] == pytest.approx(expected), rank
            # the new episode: a fresh game, its learner asked about its first roll
            assert games.game.rolls[index] < 40 and not games.game.over[index]
            assert mask[index].any()
            final_mask = info["final_action_mask"][index]
            assert list(final_mask) == [False, False, False, False, True]  # over: PASS_ACTION only
        assert mask.any(axis=1).all()  # never an all-false mask
        assert (reward[~terminated] == 0).all()


def test_rewards_follow_the_ranking_under_end_ranking() -> None:
    games = VectorGames(16, players=3, rules="house", opponents="heuristic", seed=4)
    _, mask = games.reset()
    rng = np.random.default_rng(3)
    rewards: list[tuple[int, float]] = []
    while len(rewards) < 20:
        _, mask, reward, terminated, _, info = games.step(random_legal(mask, rng))
        rewards += [(int(info["final_rank"][i]), float(reward[i])) for i in np.flatnonzero(terminated)]
    for rank, reward in rewards:
        assert reward == pytest.approx({0: 1.0, 1: 0.0, 2: -1.0}[rank])


def test_idle_games_wait_unchanged_while_the_others_play() -> None:
    rng = np.random.default_rng(7)
    game = BatchGame(Rules.preset("house"), 4, 200)
    for _ in range(60):
        game.step_random(rng)
    for _ in range(40):
        idle = rng.random(game.batch) < 0.5
        before = [game.to_state(i) for i in range(game.batch)]
        rolls = game.roll(rng)
        mask = game.action_mask(rolls)
        actions = random_legal(mask, rng)
        game.step(rolls, actions, idle=idle)
        for index in range(game.batch):
            if idle[index] or before[index].over:
                assert game.to_state(index) == before[index]
            else:
                rolled, _ = roll(before[index], int(rolls[index]))
                plane = None if actions[index] == PASS_ACTION else int(actions[index])
                expected, _ = apply(rolled, plane)
                assert game.to_state(index) == expected._replace(
                    last_moved=tuple(sorted(set(expected.last_moved))),
                    six_moved=tuple(sorted(set(expected.six_moved))),
                )


def test_truncation_after_max_rolls() -> None:
    games = VectorGames(8, players=4, opponents="random", max_rolls=100, seed=1)
    _, mask = games.reset()
    rng = np.random.default_rng(0)
    truncated_seen = False
    for _ in range(40):
        _, mask, reward, terminated, truncated, _info = games.step(random_legal(mask, rng))
        assert not (terminated & truncated).any()
        assert (reward[truncated] == 0).all()
        truncated_seen |= bool(truncated.any())
        assert (games.game.rolls <= 100 + 4).all()
    assert truncated_seen
    with pytest.raises(ValueError, match="max_rolls must be at least 100"):
        VectorGames(8, max_rolls=30)


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    games = VectorGames(8, players=2, opponents="heuristic", seed=3)
    observation, mask = games.reset()
    bad = random_legal(mask, np.random.default_rng(0))
    illegal_game = 5
    bad[illegal_game] = int(np.flatnonzero(~mask[illegal_game])[0])
    with pytest.raises(ValueError, match=f"game {illegal_game}: action {bad[illegal_game]} is illegal"):
        games.step(bad)
    again = games.observe()
    assert np.array_equal(again, observation)
    with pytest.raises(ValueError, match="8 integers"):
        games.step(np.zeros(7, np.int64))
    with pytest.raises(ValueError, match="8 integers"):
        games.step(np.zeros(8) + 0.5)


def test_policies_as_opponents_see_their_own_view_and_are_checked() -> None:
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def first_legal_policy(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        seen.append((observation.copy(), mask.copy()))
        return np.argmax(mask, axis=1)

    games = VectorGames(16, players=4, opponents=first_legal_policy, seed=2)
    _, mask = games.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        _, mask, *_ = games.step(random_legal(mask, rng))
    assert seen and all(o.shape[1] == OBSERVATION_SIZE and m.any(axis=1).all() for o, m in seen)
    # a policy's observation is from the mover's seat: the turn entry says "me"
    assert all((o[:, TURN_AT] == 1).all() for o, _ in seen)

    def cheat(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmin(mask, axis=1)  # an action its mask forbids

    games.set_opponents(cheat)
    with pytest.raises(ValueError, match="opponent cheat chose illegal action"):
        for _ in range(20):
            _, mask, *_ = games.step(random_legal(mask, rng))
    with pytest.raises(ValueError, match="2 opponents given for 3 other seats"):
        games.set_opponents(["heuristic", "random"])
    with pytest.raises(ValueError, match=r"unknown bot|no bot"):
        VectorGames(4, opponents="no-such-bot")


@pytest.mark.parametrize(("twin", "other"), [("heuristic", "greedy"), ("greedy", "heuristic")])
def test_a_batched_twin_is_the_engines_bot_move_for_move(twin: str, other: str) -> None:
    """The same seed and learner moves with the batched twin and with the registered bot
    played game by game through the engine: the same games, observation for observation."""

    def run(opponent: Any) -> list[np.ndarray]:
        return trajectory(VectorGames(24, players=4, opponents=opponent, seed=8), steps=60, seed=5)

    batched, engine = run(twin), run(EngineBot(twin))
    assert type(VectorGames(2, players=4, opponents=twin).opponents[0]) is not EngineBot
    assert all(np.array_equal(a, b) for a, b in zip(batched, engine))
    elsewhere = run(EngineBot(other))  # any registered bot plays; a different one plays differently
    assert not all(np.array_equal(a, b) for a, b in zip(batched, elsewhere))


def test_skip_forced_asks_only_real_choices_but_for_a_few_marked_ones() -> None:
    games = VectorGames(256, players=4, opponents="heuristic", skip_forced=True, seed=6)
    _, mask = games.reset()
    rng = np.random.default_rng(4)
    asked = forced = 0
    for _ in range(30):
        for index in range(games.num_games):
            state, _ = engine_view(games, index)
            if games.waiting[index]:
                asked += 1
                if choices(state) <= 1:
                    forced += 1
        _, mask, _, _, _, info = games.step(random_legal(mask, rng))
        for index in range(games.num_games):
            state, _ = engine_view(games, index)
            if games.waiting[index]:
                assert bool(info["forced"][index]) == (choices(state) <= 1)
    assert asked > 0 and forced / asked < 0.2  # without skip_forced: about half


def test_the_same_seed_plays_the_same_games() -> None:
    def run() -> list[np.ndarray]:
        return trajectory(VectorGames(32, players=3, opponents="random", seed=11), steps=25, seed=0)

    assert all(np.array_equal(a, b) for a, b in zip(run(), run()))


def test_the_gymnasium_vector_env() -> None:
    env = FlyingChessVectorEnv(num_envs=12, players=2, opponents="heuristic", skip_forced=True)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    observation, info = env.reset(seed=3)
    assert env.observation_space.contains(observation)
    assert observation["observation"].shape == (12, OBSERVATION_SIZE)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(200):
        masks = env.action_masks()
        assert np.array_equal(masks, observation["action_mask"].astype(bool))
        observation, _reward, terminated, truncated, info = env.step(random_legal(masks, rng))
        assert env.observation_space.contains(observation)
        if "final_obs" in info:
            done = info["_final_obs"]
            assert np.array_equal(done, terminated | truncated)
            assert info["final_obs"]["observation"].shape == (12, OBSERVATION_SIZE)
            assert np.array_equal(info["_final_info"], done) and np.array_equal(info["final_info"]["_rank"], done)
            assert (info["final_info"]["rank"][done] >= -1).all()
            episodes += int(done.sum())
    assert episodes > 0
    env.close()


# ---------------------------------------------------------------- the single environments


def test_aec_seeding_carries_on_across_resets() -> None:
    def episodes(seed: int) -> list[list[int]]:
        env = flyingchess_v0.raw_env(players=2)
        env.reset(seed=seed)
        rolls: list[list[int]] = []
        for _ in range(3):
            seen = []
            for _ in range(30):
                state = env.state_now
                seen.append(int(state.roll or 0))
                if state.over:
                    break
                env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
            rolls.append(seen)
            env.reset()  # no seed: on from the same generator, not the operating system
        return rolls

    first, again, other = episodes(5), episodes(5), episodes(6)
    assert first == again and first != other
    assert first[0] != first[1]  # each episode its own dice


def test_aec_render_modes_state_and_player_names(capsys: pytest.CaptureFixture[str]) -> None:
    env = flyingchess_v0.raw_env(players=3, render_mode="ansi")
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    text = env.render()
    assert capsys.readouterr().out == ""  # ansi returns the text, it does not print
    head = text.splitlines()[0].split()
    assert head[0] == env.state_now.colour and head[1:3] == ["rolled", str(env.state_now.roll)]
    human = flyingchess_v0.raw_env(players=2, render_mode="human")
    human.reset(seed=1)
    assert "rolled" in capsys.readouterr().out
    image = flyingchess_v0.raw_env(players=4, render_mode="rgb_array")
    image.reset(seed=2)
    frame = image.render()
    assert frame.shape == (240, 240, 3) and frame.dtype == np.uint8 and len(np.unique(frame.reshape(-1, 3), axis=0)) > 5
    assert env.state().shape == env.state_space.shape and env.state_space.contains(env.state())
    with pytest.raises(ValueError, match="render_mode"):
        flyingchess_v0.raw_env(render_mode="video")
    named = flyingchess_v0.env(players=3, agent_names="player")
    named.reset(seed=0)
    assert named.agents == ["player_0", "player_1", "player_2"]
    for names, warned in (("player", False), ("colour", True)):  # colour names: PettingZoo's naming warning
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            api_test(flyingchess_v0.env(players=3, agent_names=names), num_cycles=50)
        assert any("player_0" in str(w.message) for w in caught) == warned


def test_aec_masks_are_never_all_zero() -> None:
    env = flyingchess_v0.raw_env(players=4)
    env.reset(seed=4)
    for _ in range(300):
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.any()
            if agent != env.agent_selection:
                assert list(mask) == [0, 0, 0, 0, 1]
        if env.state_now.over:
            break
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))


def test_single_env_action_masks_render_and_skip_forced() -> None:
    env = gymnasium.make("FlyingChess-v0", opponents=["heuristic"] * 3, skip_forced=True, render_mode="rgb_array")
    check_env(env.unwrapped)
    observation, _ = env.reset(seed=3)
    inner = env.unwrapped
    asked = 0
    done = False
    while not done:
        assert np.array_equal(inner.action_masks(), observation["action_mask"].astype(bool))
        assert choices(inner.state) >= 2  # skip_forced: only real choices are asked
        asked += 1
        observation, _, terminated, truncated, _ = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        done = terminated or truncated
    assert asked > 5
    frame = env.render()
    assert frame.shape == (240, 240, 3)
    ansi = gymnasium.make("FlyingChess-v0", opponents=["random"], render_mode="ansi")
    ansi.reset(seed=1)
    text = ansi.render()
    assert "rolled" in text and "(you)" in text
    with pytest.raises(ValueError, match="render_mode"):
        gymnasium.make("FlyingChess-v0", render_mode="video")


def test_move_previews_say_what_each_move_does() -> None:
    """The preview entries (docs/environments.md, 139-154) over many positions: captures,
    jumps or flights, and arrivals all appear, only for legal planes, and each agrees with
    the engine playing that move."""
    from flyingchess.engine.events import Captured, Flew, Jumped
    from flyingchess.envs.observation import MOVE_FEATURES, MOVES_AT

    games = VectorGames(128, players=4, opponents="heuristic", seed=12)
    observation, mask = games.reset()
    rng = np.random.default_rng(3)
    seen = np.zeros(3)
    for _ in range(80):
        previews = observation[:, MOVES_AT : MOVES_AT + 4 * MOVE_FEATURES].reshape(-1, 4, MOVE_FEATURES)
        assert not previews[~mask[:, :4]].any()
        seen += previews[:, :, 1:].reshape(-1, 3).sum(axis=0) > 0
        for index in np.flatnonzero(previews[:, :, 1].any(axis=1))[:3]:
            state, _ = engine_view(games, index)
            plane = int(np.flatnonzero(previews[index, :, 1])[0])
            _, events = apply(state, plane)
            assert any(isinstance(e, Captured) for e in events)
        for index in np.flatnonzero(previews[:, :, 2].any(axis=1))[:3]:
            state, _ = engine_view(games, index)
            plane = int(np.flatnonzero(previews[index, :, 2])[0])
            _, events = apply(state, plane)
            assert any(isinstance(e, (Jumped, Flew)) for e in events)
        observation, mask, *_ = games.step(random_legal(mask, rng))
    assert (seen > 0).all(), seen


def test_with_skip_forced_an_episode_never_starts_finished() -> None:
    """A game can end before the agent has a real choice (all its moves forced): the
    environments deal again rather than hand out a finished episode."""
    env = gymnasium.make("FlyingChess-v0", opponents=["heuristic"], skip_forced=True)
    for seed in (176, 179, *range(30)):  # 176 and 179 ended before the agent chose once
        env.reset(seed=seed)
        assert not env.unwrapped.state.over and choices(env.unwrapped.state) >= 2, seed
    games = VectorGames(512, players=2, opponents="heuristic", skip_forced=True, seed=3)
    games.reset()
    assert games.waiting.all() and not games.game.over.any()
