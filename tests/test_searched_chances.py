"""The batched search that gives expert iteration its targets (envs/training.py,
`searched_chances`; benchmarks/train_value.py --expert) against the same search written
plainly over engine states: every face, every legal move or the pass, the roller taking
what is best for it, the shipped network (`win_chances`) at the leaves."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from flyingchess import legal_moves, roll
from flyingchess.bots.value import shipped_net, win_chances
from flyingchess.envs.batch import BatchGame
from flyingchess.envs.training import player_chances, searched_chances
from flyingchess.game import apply_unchecked
from test_ace import played_states


def engine_search(state, depth: int):  # type: ignore[no-untyped-def]
    """Every player's chance by the network searched `depth` rolls deep, one state at a time."""
    if state.ranking or depth == 0:
        return win_chances([state])[0]
    total = np.zeros(len(state.players))
    for face in range(1, 7):
        rolled, _ = roll(state, face)
        best = None
        for move in legal_moves(rolled) or (None,):
            found = engine_search(apply_unchecked(rolled, move), depth - 1)
            if best is None or found[rolled.turn] > best[rolled.turn]:
                best = found
        total += best
    return total / 6


@pytest.mark.parametrize(("players", "preset"), [(4, "classic"), (3, "traditional"), (2, "house"), (4, "even")])
def test_the_batched_search_values_positions_as_the_engine_search_does(players: int, preset: str) -> None:
    states = played_states(players, preset, seed=players, count=200)[::25]
    game = BatchGame.from_states(states)
    assert np.allclose(player_chances(game, shipped_net()), win_chances(states), atol=1e-6)
    for depth in (1, 2) if players < 4 else (1,):
        found = searched_chances(game, shipped_net(), depth)
        expected = np.array([engine_search(state, depth) for state in states])
        assert np.allclose(found, expected, atol=1e-5), depth
        assert np.allclose(found.sum(axis=1), 1.0)
    assert not np.allclose(searched_chances(game, shipped_net(), 1), win_chances(states), atol=1e-3)


def test_a_decided_game_is_worth_one_to_its_winner_at_any_depth() -> None:
    states = played_states(2, "classic", seed=5, count=2000)
    game = BatchGame.from_states([states[-1]])
    rng = np.random.default_rng(0)
    while not (game.ranked > 0).all():  # play the game on to its first finisher
        game.step_random(rng)
    winner = int(game.ranking[0, 0])
    for depth in (0, 1, 2):
        assert searched_chances(game, shipped_net(), depth)[0].tolist() == [float(p == winner) for p in range(2)]
