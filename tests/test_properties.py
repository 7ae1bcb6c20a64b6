"""Property tests over random games under random rule options (docs/rules.md as invariants)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flyingchess import (
    IllegalMoveError,
    Record,
    Rules,
    State,
    apply,
    apply_unchecked,
    canonical_state,
    legal_moves,
    new_game,
    roll,
)
from flyingchess.engine.board import CENTRE, COLOURS, HANGAR, RING_INDEX, SEAT, is_on_ring
from flyingchess.engine.game import play_unchecked, random_playout
from flyingchess.records.record import loads_record, state_from_json, state_to_json

from strategies import players_strategy, rules_strategy

MAX_ROLLS = 20_000
"""Far beyond any real game (a 4-player random game averages a few hundred rolls)."""


def check_invariants(state: State) -> None:
    assert len(state.planes) == len(state.players)
    cells: dict[int, str] = {}
    for colour, planes in zip(state.players, state.planes):
        assert len(planes) == 4
        assert all(HANGAR <= p <= CENTRE for p in planes)
        for p in planes:
            if is_on_ring(p):
                cell = RING_INDEX[SEAT[colour]][p]
                assert cells.setdefault(cell, colour) == colour, (
                    f"two colours on ring cell {cell}: {canonical_state(state)}"
                )
    if state.rules.three_sixes != "none":
        assert state.sixes <= 2
    finished = [c for c, planes in zip(state.players, state.planes) if planes == (CENTRE,) * 4]
    if state.rules.end == "ranking":
        assert set(finished) <= set(state.ranking)
    if state.over:
        assert state.colour is None
        assert canonical_state(state)["sixes"] == 0
        assert state.winner in finished
        if state.rules.end == "ranking":
            assert sorted(state.ranking) == sorted(state.players)
    else:
        assert state.colour not in state.ranking


def play_random_game(rules: Rules, players: tuple[str, ...], seed: int) -> tuple[list[State], Record]:
    rng = random.Random(seed)
    state = new_game(players, rules)
    record = Record.for_game(rules, players)
    states = [state]
    while not state.over:
        assert len(states) < MAX_ROLLS, "game did not end"
        value = rng.randint(1, 6)
        rolled, _ = roll(state, value)
        moves = legal_moves(rolled)
        plane = rng.choice(moves) if moves else None
        if plane is not None and rng.random() < 0.3:
            # name a stack by another of its planes now and then: must mean the same move
            plane = rng.choice(
                [
                    i
                    for i, p in enumerate(rolled.planes[rolled.turn])
                    if p == rolled.planes[rolled.turn][plane]
                    and ((rules.stacking == "together" and 1 <= p <= 55) or i == plane)
                ]
            )
        state, _ = apply(rolled, plane)
        record.add(value, plane)
        states.append(state)
    return states, record


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(rules=rules_strategy, players=players_strategy(), seed=st.integers(0, 2**32))
def test_random_games_keep_every_invariant_and_end(rules: Rules, players: tuple[str, ...], seed: int) -> None:
    states, _record = play_random_game(rules, players, seed)
    for state in states:
        check_invariants(state)
        assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state
        hash(state)
    assert states[-1].over


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(rules=rules_strategy, players=players_strategy(), seed=st.integers(0, 2**32))
def test_replaying_a_record_reproduces_the_game(rules: Rules, players: tuple[str, ...], seed: int) -> None:
    states, record = play_random_game(rules, players, seed)
    reread = loads_record(record.dumps())
    assert reread.rules == rules
    replayed = [reread.start()] + list(reread.replay())
    assert [canonical_state(s) for s in replayed] == [canonical_state(s) for s in states]
    assert replayed == states


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(rules=rules_strategy, players=players_strategy(), seed=st.integers(0, 2**32))
def test_fast_path_agrees_with_checked_path(rules: Rules, players: tuple[str, ...], seed: int) -> None:
    """apply_unchecked and play_unchecked reach exactly the states apply reaches."""
    states, record = play_random_game(rules, players, seed)
    for state, action in zip(states, record.actions):
        rolled, _ = roll(state, action["roll"])
        checked, _ = apply(rolled, action["plane"])
        assert apply_unchecked(rolled, action["plane"]) == checked
        assert play_unchecked(state, action["roll"], action["plane"]) == checked


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, players=players_strategy(), seed=st.integers(0, 2**32))
def test_illegal_moves_raise_and_legal_moves_do_not(rules: Rules, players: tuple[str, ...], seed: int) -> None:
    states, _record = play_random_game(rules, players, seed)
    for state in states[:-1][::7]:
        for value in range(1, 7):
            rolled, _ = roll(state, value)
            moves = legal_moves(rolled)
            mine = rolled.planes[rolled.turn]
            named = {
                i
                for m in moves
                for i in range(4)
                if i == m or (rules.stacking == "together" and 1 <= mine[i] <= 55 and mine[i] == mine[m])
            }
            for plane in [None, 0, 1, 2, 3]:
                legal = (plane is None and not moves) or plane in named
                if legal:
                    apply(rolled, plane)
                else:
                    with pytest.raises(IllegalMoveError):
                        apply(rolled, plane)


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy, players=players_strategy(), seed=st.integers(0, 2**32))
def test_random_playout_ends_in_a_consistent_state(rules: Rules, players: tuple[str, ...], seed: int) -> None:
    final, rolls = random_playout(new_game(players, rules), random.Random(seed))
    assert final.over and rolls > 0
    check_invariants(final)


def test_every_colour_list_in_clockwise_order_is_accepted() -> None:
    for count in (2, 3, 4):
        for first in range(4):
            seats = [(first + step) % 4 for step in range(4)][:count]
            new_game([COLOURS[s] for s in seats])
