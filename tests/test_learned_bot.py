"""The learned bot: legal and deterministic everywhere, sensible in plain positions, its
features the same whether the trainer computes them on a batch or the bot on one state,
and its batched twin (envs/training.py `batch_actions`, an opponent best responses are
trained against) playing its moves."""

from __future__ import annotations

import pytest

from flyingchess import PRESETS, Rules, setup_position
from flyingchess.bots import BOTS, make_bot

np = pytest.importorskip("numpy")  # the learned bot needs NumPy (the rl extra)
from flyingchess.bots.learned import FEATURES, LearnedBot, feature_tables, features, scores
from flyingchess.engine.game import legal_moves
from flyingchess.envs.batch import BatchGame, random_actions
from flyingchess.envs.training import batch_actions, batch_features, batch_winner
from test_greedy_twin import decisions


def test_registered_above_heuristic() -> None:
    assert BOTS["learned"].level > BOTS["heuristic"].level
    assert isinstance(make_bot("learned"), LearnedBot)


# Whole games with only legal moves, in every preset with 2, 3 and 4 players: test_bots.py
# runs every registered bot, this one included.


def test_deterministic_whatever_the_seed() -> None:
    state = setup_position({"red": [3, 10, 20, -1], "blue": [12, -1, 40, -1]}, roll=6)
    assert len({make_bot("learned", seed=seed).choose(state) for seed in (None, 1, 2, 99)}) == 1


def test_captures_rather_than_a_quiet_move() -> None:
    # blue 14 is red progress 40: red 37 + 3 lands there; red 20 + 3 = 23 is a quiet move.
    state = setup_position({"red": [20, 37, 56, 56], "blue": [14, -1, -1, -1]}, roll=3)
    assert LearnedBot().choose(state) == 1


def test_brings_a_plane_home_rather_than_a_quiet_move() -> None:
    state = setup_position({"red": [24, 56, 56, 52], "blue": [-1, -1, -1, -1]}, roll=4)
    assert LearnedBot().choose(state) == 3


def test_a_win_outscores_everything() -> None:
    found = np.zeros((2, FEATURES))
    found[0, 3] = 1e3  # an absurdly good position that is not a win
    assert np.argmax(scores(np.ones(FEATURES), found, winner=[-1, 0], me=[0, 0])) == 1


def test_runs_from_a_plane_that_can_hit_it() -> None:
    # red 30 has blue's plane 2..6 cells behind it (blue 2 is red progress 28); moving it
    # 5 to 35 leaves every blue plane behind more than 6 cells, except for a lucky jump.
    state = setup_position({"red": [8, 30, 56, 56], "blue": [2, 56, 56, -1]}, roll=5)
    assert LearnedBot().choose(state) == 1


@pytest.mark.slow
@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_batch_features_equal_the_bots_features_for_the_same_state(preset: str, players: int) -> None:
    rng = np.random.default_rng(5)
    game = BatchGame(Rules.preset(preset), players, 64)
    for _ in range(120):
        rolls = game.roll(rng)
        game.step(rolls, random_actions(game.move_mask(rolls), rng))
        me = rng.integers(0, len(game.players), size=game.batch)
        batch = batch_features(game, me)
        assert batch.shape == (game.batch, FEATURES)
        for index in (0, 17, 63):
            state = game.to_state(index)
            one = features(
                feature_tables(state.rules, state.players), np.array([state.planes], np.int8), [state.turn], [me[index]]
            )
            assert np.array_equal(one[0], batch[index])
            winner = state.players.index(state.ranking[0]) if state.ranking else -1
            assert batch_winner(game)[index] == winner


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_batched_twin_plays_a_move_the_bot_scores_best(preset: str, players: int) -> None:
    """The same move, or one the bot scores within rounding of its own (moves to equal
    positions: two planes launched from the hangar, a stack; the batch's arithmetic may
    order such a tie differently). Until the first finish: the twin plays for first place."""
    found = [pair for pair in decisions(Rules.preset(preset), players, 4, seed=players) if not pair[1].ranking]
    game = BatchGame.from_states([before for before, _ in found])
    twin = batch_actions(game, np.array([rolled.roll for _, rolled in found]), LearnedBot().weights)
    bot = LearnedBot()
    same = 0
    for (_, rolled), action in zip(found, twin):
        moves = legal_moves(rolled)
        values = bot.move_scores(rolled, moves)
        assert action in moves and values[moves.index(action)] >= values.max() - 1e-9, rolled.describe()
        same += action == bot.choose(rolled)
    assert same >= 0.97 * len(found) > 200
