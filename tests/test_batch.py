"""The NumPy batch simulator against the engine: same dice, same choices, every state equal.

Each test plays a batch of games through `flyingchess.envs.batch` and, in lockstep, the
same games through `flyingchess.engine.game.play`; after every roll every game's state (the
canonical state plus the three-sixes memory), its masks and, for the heuristic policy,
its choice are compared. Games end at different times, so finished games are compared
too: they must stay frozen.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flyingchess import Rules, State, canonical_state, legal_moves, new_game, roll
from flyingchess.bots import make_bot
from flyingchess.engine.game import DEFAULT_PLAYERS, apply, carried_planes
from flyingchess.engine.moves import choices, move_info
from flyingchess.engine.rules import PRESETS

np = pytest.importorskip("numpy")
from flyingchess.envs.batch import (
    PASS_ACTION,
    BatchGame,
    heuristic_actions,
    play_random_games,
    random_actions,
)
from flyingchess.envs.vector import real_options

from strategies import players_strategy, rules_strategy

MAX_STEPS = 5_000
"""Far beyond any real game of a small batch (a 4-player random game takes ~300 rolls)."""


def state_key(state: State) -> tuple[Any, ...]:
    """What must agree: the canonical state, whose turn it is, and the three-sixes memory
    (as sets: the engine keeps move order and repeats, the batch keeps bitmasks)."""
    return (canonical_state(state), state.turn, state.sixes, frozenset(state.last_moved), frozenset(state.six_moved))


def roll_dice(rng: np.random.Generator, batch: int, sixes: float) -> np.ndarray:
    """Fair dice, with a share `sixes` of the rolls forced to 6 (three-sixes rule, extra rolls)."""
    dice = rng.integers(1, 7, size=batch)
    return np.where(rng.random(batch) < sixes, 6, dice)


def check_masks(game: BatchGame, rolled: State, index: int, moves_mask: np.ndarray, action_mask: np.ndarray) -> None:
    moves = legal_moves(rolled)
    assert tuple(np.flatnonzero(moves_mask[index])) == moves
    nameable = sorted({plane for move in moves for plane in carried_planes(rolled, move)})
    assert list(np.flatnonzero(action_mask[index, :PASS_ACTION])) == nameable
    assert bool(action_mask[index, PASS_ACTION]) == (not moves)


def check_move_facts(facts: tuple[np.ndarray, ...], alike: np.ndarray, rolled: State, index: int) -> None:
    """The twins agree: what the batch's tables say each legal move does is what the
    engine's MoveInfo says (moves.py), and so is the number of real choices."""
    progress, captures, special = (array[index] for array in facts)
    for plane in legal_moves(rolled):
        move = move_info(rolled, plane)
        assert (progress[plane], captures[plane], special[plane]) == (move.start, move.captures, move.special), (
            rolled.describe(),
            plane,
        )
    assert alike[index] == choices(rolled)


def play_lockstep(
    rules: Rules,
    players: tuple[str, ...],
    batch: int,
    seed: int,
    policy: str,
    sixes: float = 0.0,
    compact_at: int | None = None,
) -> Counter[str]:
    """Play `batch` games to the end in the batch simulator and the engine, comparing
    everything after every roll; returns the engine's events by type. `compact_at`: a step
    at which half the games are dropped (`keep`), to check the others stay exact."""
    events: Counter[str] = Counter()
    rng = np.random.default_rng(seed)
    game = BatchGame(rules, players, batch)
    states = [new_game(players, rules) for _ in range(batch)]
    bot = make_bot("heuristic")
    for step in range(MAX_STEPS):
        if game.over.all():
            break
        if step == compact_at:
            kept = np.arange(0, batch, 2)
            game.keep(kept)
            states = [states[i] for i in kept]
            batch = len(kept)
        dice = roll_dice(rng, batch, sixes)
        moves_mask, action_mask = game.move_mask(dice), game.action_mask(dice)
        if policy == "heuristic":
            actions = heuristic_actions(game, dice)
        else:  # random over moves, or over every nameable plane (stacks named by any plane)
            actions = random_actions(moves_mask if step % 2 else action_mask, rng)
        facts = game.move_facts(dice)
        alike = real_options(game, dice)
        rolls_before = game.rolls.copy()
        game.step(dice, actions)
        for i in range(batch):
            if states[i].over:
                assert game.rolls[i] == rolls_before[i]
            else:
                rolled, _ = roll(states[i], int(dice[i]))
                check_masks(game, rolled, i, moves_mask, action_mask)
                check_move_facts(facts, alike, rolled, i)
                if policy == "heuristic":
                    choice = bot.choose(rolled)
                    assert (PASS_ACTION if choice is None else choice) == actions[i], (rolled.describe(), dice[i])
                states[i], happened = apply(rolled, None if actions[i] == PASS_ACTION else int(actions[i]))
                events.update(type(event).__name__ for event in happened)
                events.update(
                    "stack moved" for event in happened if type(event).__name__ == "Stepped" and len(event.planes) > 1
                )
            assert state_key(game.to_state(i)) == state_key(states[i]), (i, step)
    else:
        pytest.fail("games did not end")
    for i, state in enumerate(states):
        assert state.over and game.over[i]
        assert state.winner == players[game.winner[i]]
    return events


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(rules_strategy, players_strategy(), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.4]))
def test_random_games_match_the_engine(rules: Rules, players: tuple[str, ...], seed: int, sixes: float) -> None:
    play_lockstep(rules, players, 5, seed, "random", sixes)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(rules_strategy, players_strategy(), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.4]))
def test_heuristic_games_match_the_engine_and_its_bot(
    rules: Rules, players: tuple[str, ...], seed: int, sixes: float
) -> None:
    play_lockstep(rules, players, 4, seed, "heuristic", sixes)


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("count", [2, 3, 4])
def test_presets_match_the_engine(preset: str, count: int) -> None:
    play_lockstep(Rules.preset(preset), DEFAULT_PLAYERS[count], 6, count, "random", 0.2, compact_at=40)


@pytest.mark.slow
@pytest.mark.parametrize("three_sixes", ["last-moved", "moved-by-sixes", "all"])
def test_rare_events_are_exercised(three_sixes: str) -> None:
    """The lockstep games really meet the events they are meant to check."""
    rules = Rules.preset("house", three_sixes=three_sixes, finish="bounce", chain="jump-fly-jump")
    events = play_lockstep(rules, DEFAULT_PLAYERS[4], 6, 7, "random", 0.4)
    for name in ("ThreeSixes", "Captured", "Flew", "Jumped", "Bounced", "stack moved", "PlayerFinished"):
        assert events[name] > 0, name


def test_step_random_plays_legal_moves_the_engine_agrees_with() -> None:
    rules = Rules.preset("traditional")
    players = DEFAULT_PLAYERS[3]
    rng = np.random.default_rng(3)
    game = BatchGame(rules, players, 8)
    states = [new_game(players, rules) for _ in range(8)]
    while not game.over.all():
        dice, actions = game.step_random(rng)
        for i, state in enumerate(states):
            if not state.over:
                rolled, _ = roll(state, int(dice[i]))
                states[i], _ = apply(rolled, None if actions[i] == PASS_ACTION else int(actions[i]))
            assert state_key(game.to_state(i)) == state_key(states[i])


def test_illegal_actions_are_refused_and_change_nothing() -> None:
    game = BatchGame(Rules.preset("classic"), 2, 3)
    before = game.positions.copy()
    with pytest.raises(ValueError, match="game 1: action 0 is illegal with roll 3"):
        game.step([6, 3, 6], [0, 0, 0])  # nothing launches on a 3
    with pytest.raises(ValueError, match="game 0: action 4 is illegal"):
        game.step([6, 6, 6], [PASS_ACTION, 0, 0])  # a pass while a launch is possible
    with pytest.raises(ValueError, match="roll 7"):
        game.step([6, 7, 6], [0, 0, 0])
    assert (game.positions == before).all() and game.rolls.sum() == 0
    game.step([6, 3, 6], [2, PASS_ACTION, 1])
    assert game.positions[:, 0].tolist() == [[-1, -1, 0, -1], [-1] * 4, [-1, 0, -1, -1]]


def test_play_random_games_summary() -> None:
    summary = play_random_games(Rules.preset("house"), 3, 300, np.random.default_rng(5), batch=64)
    assert len(summary.winner) == len(summary.rolls) == 300
    assert set(summary.winner.tolist()) <= {0, 1, 2}
    assert (summary.rolls > 0).all()
    assert (summary.ranking[:, 0] == summary.winner).all()
    assert (np.sort(summary.ranking, axis=1) == [0, 1, 2]).all()  # ranking: every player placed
