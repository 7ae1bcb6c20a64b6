"""The greedy bot's batched twin (envs/evaluation.py) against the engine's bot: the same
value for every position, to the last bit, and so the same move in every decision."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flyingchess import Rules, State, legal_moves, new_game, roll
from flyingchess.bots.evaluation import Evaluator, default_evaluator
from flyingchess.bots.greedy import GreedyBot
from flyingchess.engine.game import apply_unchecked
from flyingchess.engine.rules import PRESETS

np = pytest.importorskip("numpy")
from flyingchess.envs.batch import BatchGame
from flyingchess.envs.evaluation import greedy_actions, values

from strategies import players_strategy, rules_strategy


def decisions(rules: Rules, players: tuple[str, ...] | int, games: int, seed: int) -> list[tuple[State, State]]:
    """(state waiting for the die, the same state rolled) at every roll of random games
    that leaves two or more moves; the games play on to their end (places too)."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state = new_game(players, rules)
        while not state.over:
            rolled, _ = roll(state, rng.randint(1, 6))
            moves = legal_moves(rolled)
            if len(moves) >= 2:
                found.append((state, rolled))
            state = apply_unchecked(rolled, rng.choice(moves) if moves else None)
    return found


def check_choices(found: list[tuple[State, State]], evaluator: Evaluator) -> int:
    game = BatchGame.from_states([before for before, _ in found])
    rolls = np.array([rolled.roll for _, rolled in found])
    bot = GreedyBot(evaluator=evaluator)
    twin = greedy_actions(game, rolls, evaluator=evaluator)
    for (_, rolled), action in zip(found, twin):
        assert action == bot.choose(rolled), rolled.describe()
    return len(found)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_twin_picks_greedys_move_in_every_decision(preset: str, players: int) -> None:
    assert check_choices(decisions(Rules.preset(preset), players, 6, seed=players), default_evaluator()) > 300


@settings(max_examples=15, deadline=None)
@given(rules=rules_strategy, players=players_strategy(), seed=st.integers(0, 2**16))
def test_the_twin_follows_every_rule_option(rules: Rules, players: tuple[str, ...], seed: int) -> None:
    check_choices(decisions(rules, players, 2, seed), default_evaluator())


def test_the_twin_values_positions_as_the_evaluator_does_to_the_last_bit() -> None:
    """Afterstates of real moves (extra rolls, third sixes to come, places taken) valued
    for the mover: exactly equal, with the tuned weights and with others."""
    found = decisions(Rules.preset("house"), 4, 4, seed=9)
    afters = [apply_unchecked(rolled, plane) for _, rolled in found for plane in legal_moves(rolled)]
    movers = [rolled.turn for _, rolled in found for _ in legal_moves(rolled)]
    playing = [k for k, after in enumerate(afters) if not after.over]
    game = BatchGame.from_states([afters[k] for k in playing])
    assert (game.sixes >= 2).any() and (game.ranked > 0).any()  # the penalty and places are exercised
    for evaluator in (default_evaluator(), Evaluator({"stacked": -0.7, "three_sixes": 4.0, "leader": 0.9})):
        twin = values(game, np.array([movers[k] for k in playing]), evaluator)
        engine = [evaluator.value(afters[k], movers[k]) for k in playing]
        assert twin.tolist() == engine


def test_other_weights_make_other_choices_and_the_twin_follows() -> None:
    found = decisions(Rules.preset("classic"), 4, 4, seed=3)
    reckless = Evaluator({"danger": 0.0, "opponents": 0.2, "two_active": -3.0})
    check_choices(found, reckless)
    game = BatchGame.from_states([before for before, _ in found])
    rolls = np.array([rolled.roll for _, rolled in found])
    assert (greedy_actions(game, rolls, evaluator=reckless) != greedy_actions(game, rolls)).any()
