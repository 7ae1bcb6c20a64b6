"""Differential tests: the engine against tests/oracle.py, an independent, deliberately plain
reading of docs/rules.md written separately from the engine. Any disagreement is a bug in one
of the two readings."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flyingchess import Rules, canonical_state, legal_moves, new_game, roll
from flyingchess.bots import make_bot
from flyingchess.engine.game import apply
from flyingchess.records.record import ActionError, RecordError, parse_record

from oracle import OracleError, oracle_replay, parse_header
from oracle import new_game as oracle_new_game
from strategies import players_strategy, rules_strategy

JUNK_PLANES: list[Any] = [None, 0, 1, 2, 3, 4, -1, True, 1.0, "0"]
JUNK_ROLLS: list[Any] = [0, 7, 6.0, True, "3", None]


def engine_trace(record: dict[str, Any]) -> tuple[list[dict[str, Any]], int | None]:
    states = []
    try:
        for state in parse_record(record).replay():
            states.append(canonical_state(state))
    except ActionError as error:
        return states, error.index
    return states, None


def random_record(rules: Rules, players: tuple[str, ...], seed: int, junk: float) -> dict[str, Any]:
    """A game played by a mix of random and heuristic choices, with some junk actions."""
    rng = random.Random(seed)
    heuristic = make_bot("heuristic")
    state = new_game(players, rules)
    actions: list[Any] = []
    while not state.over and len(actions) < 3000:
        value = rng.randint(1, 6)
        rolled, _ = roll(state, value)
        moves = legal_moves(rolled)
        if rng.random() < junk:
            actions.append({"roll": rng.choice(JUNK_ROLLS + [value]), "plane": rng.choice(JUNK_PLANES)})
            break
        plane = heuristic.choose(rolled) if rng.random() < 0.5 else (rng.choice(moves) if moves else None)
        actions.append({"roll": value, "plane": plane})
        state, _ = apply(rolled, plane)
    if state.over and rng.random() < junk:
        actions.append({"roll": 1, "plane": None})
    return {"format": "flyingchess/1", "rules": rules.to_json(), "players": list(players), "actions": actions}


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    rules=rules_strategy,
    players=players_strategy(),
    seed=st.integers(0, 2**32),
    junk=st.sampled_from([0.0, 0.01, 0.05]),
)
def test_engine_and_oracle_agree_on_every_state(rules: Rules, players: tuple[str, ...], seed: int, junk: float) -> None:
    record = random_record(rules, players, seed, junk)
    expected, expected_error = oracle_replay(record)
    actual, actual_error = engine_trace(record)
    assert actual_error == (expected_error[0] if expected_error else None), expected_error
    assert actual == expected


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, players=players_strategy(), seed=st.integers(0, 2**32))
def test_engine_and_oracle_agree_on_legal_moves_and_heuristic(
    rules: Rules, players: tuple[str, ...], seed: int
) -> None:
    record = random_record(rules, players, seed, junk=0.0)
    oracle_game, _ = oracle_new_game(record)
    state = new_game(players, rules)
    heuristic = make_bot("heuristic")
    for action in record["actions"]:
        for value in range(1, 7):
            rolled, _ = roll(state, value)
            moves = legal_moves(rolled)
            named = sorted(
                {
                    plane
                    for plane in range(4)
                    for move in moves
                    if plane == move
                    or (
                        rules.stacking == "together"
                        and 1 <= rolled.planes[rolled.turn][plane] <= 55
                        and rolled.planes[rolled.turn][plane] == rolled.planes[rolled.turn][move]
                    )
                }
            )
            assert named == sorted(oracle_game.legal_planes(value))
            assert heuristic.choose(rolled) == oracle_game.heuristic(value)
        assert oracle_game.apply(action) is None
        state, _ = apply(roll(state, action["roll"])[0], action["plane"])


HEADER_FIELDS: list[Any] = [
    {"format": "flyingchess/1"},
    {"format": "flyingchess/2"},
    {"format": None},
    {},
    {"rules": "classic"},
    {"rules": "house"},
    {"rules": "nope"},
    {"rules": None},
    {"rules": 3},
    {"rules": {"preset": "even", "finish": "bounce"}},
    {"rules": {"preset": "even", "finsh": "x"}},
    {"rules": {"preset": "classic", "launch": []}},
    {"rules": {"preset": "classic", "extra_roll": []}},
    {"rules": {"preset": "classic", "launch": [7]}},
    {"rules": {"preset": "classic", "launch": [6.0]}},
    {"rules": {"preset": "classic", "flight_capture": "true"}},
    {"rules": {"preset": "classic", "chain": "fly"}},
    {"rules": {"launch": [6]}},
    {"rules": Rules.preset("traditional").to_json()},
    {"players": ["red", "blue"]},
    {"players": ["blue", "red"]},
    {"players": ["red", "blue", "yellow"]},
    {"players": ["red"]},
    {"players": ["red", "red"]},
    {"players": ["red", "pink"]},
    {"players": "red,blue"},
    {"players": ["yellow", "blue", "green", "red"]},
    {"actions": []},
    {"actions": {}},
    {"actions": [{"roll": 6, "plane": 0}]},
    {"actions": [[6, 0]]},
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(HEADER_FIELDS), min_size=1, max_size=6))
def test_engine_and_oracle_agree_on_malformed_headers(parts: list[dict[str, Any]]) -> None:
    record: dict[str, Any] = {}
    for part in parts:
        record.update(part)
    try:
        expected, expected_error = oracle_replay(record)
        oracle_ok = True
    except OracleError:
        oracle_ok = False
    try:
        parsed = parse_record(record)
        engine_ok = True
    except RecordError:
        engine_ok = False
    assert engine_ok == oracle_ok, record
    if engine_ok:
        assert engine_trace(record) == (expected, expected_error[0] if expected_error else None)
        # the header means the same to both: players, and every option's value
        oracle_rules, oracle_players, _ = parse_header(record)
        assert parsed.players == tuple(oracle_players)
        assert {
            name: sorted(value) if isinstance(value, (set, frozenset)) else value
            for name, value in oracle_rules.items()
        } == parsed.rules.to_json()
