"""The roll previews an experimental value network may take as inputs (envs/training.py,
`roll_previews`; docs/bots.md says what they were measured to be worth): for every face
of the roll to come, what the engine's own move previews say the roller could do."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from flyingchess import roll
from flyingchess.board import CENTRE
from flyingchess.bots.value import INPUTS, PREVIEW_FEATURES, PREVIEW_INPUTS, ValueNet, shipped_net, win_chances
from flyingchess.envs.batch import BatchGame
from flyingchess.envs.training import game_inputs, network_inputs, roll_previews, value_actions
from flyingchess.moves import move_infos
from test_ace import played_states


def expected_previews(state) -> list[float]:  # type: ignore[no-untyped-def]
    """The previews of one state waiting for the die, from the engine's move infos."""
    found: list[float] = []
    for face in range(1, 7):
        infos = move_infos(roll(state, face)[0]) if not state.over else ()
        found += [
            float(bool(infos)),
            max(((max(i.end, 0) - max(i.start, 0)) / CENTRE for i in infos), default=0.0),
            float(any(i.captures for i in infos)),
            float(any(i.special for i in infos)),
            float(any(i.finish for i in infos)),
        ]
    return found


@pytest.mark.parametrize(("players", "preset"), [(4, "classic"), (4, "house"), (3, "traditional"), (2, "even")])
def test_every_face_previews_what_the_engine_would_let_the_roller_do(players: int, preset: str) -> None:
    states = [s for seed in range(3) for s in played_states(players, preset, seed=seed, count=120)]
    previews = roll_previews(BatchGame.from_states(states))
    assert previews.shape == (len(states), 6 * PREVIEW_FEATURES)
    expected = np.array([expected_previews(state) for state in states], np.float32)
    assert np.allclose(previews, expected, atol=1e-6)
    assert expected[:, 2::PREVIEW_FEATURES].any() and expected[:, 3::PREVIEW_FEATURES].any()  # captures, jumps seen


def test_a_network_with_previews_takes_them_after_the_usual_inputs() -> None:
    states = played_states(4, "classic", seed=4)
    game = BatchGame.from_states(states)
    net = ValueNet.random(16, np.random.default_rng(0), PREVIEW_INPUTS)
    assert net.previews and not shipped_net().previews
    inputs = game_inputs(net, game)
    assert inputs.shape == (len(states), PREVIEW_INPUTS)
    assert np.array_equal(inputs[:, :INPUTS], game_inputs(shipped_net(), game))
    # the trainer's samples (positions apart from their games) give the same inputs
    apart = network_inputs(net, game.rules, game.players, game.positions, game.turn, game.sixes)
    assert np.array_equal(apart[:, :INPUTS], inputs[:, :INPUTS])
    plain = [k for k, s in enumerate(states) if not s.last_moved and not s.six_moved]
    assert np.array_equal(apart[plain], inputs[plain])
    rolls = np.full(game.batch, 6)
    assert value_actions(game, rolls, net).shape == (game.batch,)


def test_the_engine_side_refuses_a_network_with_previews_in_words() -> None:
    net = ValueNet.random(16, np.random.default_rng(0), PREVIEW_INPUTS)
    with pytest.raises(ValueError, match="roll previews"):
        win_chances(played_states(2, "classic", seed=1, count=3), net)
    with pytest.raises(ValueError, match=f"expected \\({INPUTS}"):
        ValueNet.random(16, np.random.default_rng(0), PREVIEW_INPUTS + 1)
