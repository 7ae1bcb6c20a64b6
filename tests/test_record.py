"""Records and states as JSON: round trips, kept keys, and malformed input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flyingchess import Record, Rules, new_game, play
from flyingchess.records.record import (
    ActionError,
    RecordError,
    canonical_state,
    loads_record,
    parse_action,
    parse_record,
    state_from_json,
    state_to_json,
)


def test_record_round_trip_keeps_unknown_top_level_keys() -> None:
    text = json.dumps(
        {
            "format": "flyingchess/1",
            "rules": {"preset": "house", "finish": "bounce"},
            "players": ["yellow", "green"],
            "date": "2026-11-30",
            "seats": ["Ann", "bot"],
            "actions": [{"roll": 5, "plane": 1, "ms": 40}],
        }
    )
    record = loads_record(text)
    assert record.rules == Rules.preset("house", finish="bounce")
    assert record.extra == {"date": "2026-11-30", "seats": ["Ann", "bot"]}
    again = json.loads(record.dumps())
    assert again["date"] == "2026-11-30" and again["rules"] == {"preset": "house", "finish": "bounce"}
    assert canonical_state(record.final_state())["planes"]["yellow"] == [-1, 0, -1, -1]


def test_rules_default_to_classic_and_records_name_presets() -> None:
    record = loads_record('{"format": "flyingchess/1", "players": ["red", "blue"], "actions": []}')
    assert record.rules == Rules.preset("classic")
    assert Record.for_game(Rules.preset("even"), ("red", "blue")).to_json()["rules"] == "even"
    custom = Rules.preset("even", end="first")
    assert Rules.from_json(Record.for_game(custom, ("red", "blue")).to_json()["rules"]) == custom


@pytest.mark.parametrize(
    "action, words",
    [
        ({"roll": 0, "plane": None}, "roll 0"),
        ({"roll": "6", "plane": None}, 'roll "6"'),
        ({"roll": 6, "plane": -1}, "plane -1"),
        ({"roll": 6, "plane": 1.5}, "plane 1.5"),
        ({"roll": 6}, "missing 'plane'"),
        (None, "object"),
    ],
)
def test_malformed_actions(action: object, words: str) -> None:
    with pytest.raises(ActionError, match=words) as caught:
        parse_action(4, action)
    assert caught.value.index == 4 and str(caught.value).startswith("action 4: ")


def test_state_json_round_trip_mid_turn() -> None:
    state = new_game(["green", "red", "yellow"], Rules.preset("house"))
    for value, plane in [(6, 0), (6, 1), (5, 2)]:
        state, _ = play(state, value, plane)
    assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.pop("rules"),
        lambda d: d.update(players=["red"]),
        lambda d: d["planes"].update(red=[1, 2, 3]),
        lambda d: d["planes"].update(red=[1, 2, 3, 99]),
        lambda d: d.update(turn="purple"),
    ],
)
def test_state_from_json_rejects_nonsense(mutate: object) -> None:
    data = state_to_json(new_game(2))
    mutate(data)  # type: ignore[operator]
    with pytest.raises(RecordError):
        state_from_json(data)


def test_not_json_is_a_record_error() -> None:
    for text in ["", "{", "[]", "null", '"flyingchess/1"', b"\xff\xfe"]:
        with pytest.raises(RecordError):
            loads_record(text)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 9)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(
        ["red", "blue", "yellow", "green", "classic", "house", "flyingchess/1", "preset", "launch", "none", "bounce"]
    ),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["format", "rules", "players", "actions", "roll", "plane", "preset", "launch", "chain", "finish", "x"]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(
    st.fixed_dictionaries(
        {"format": st.just("flyingchess/1")},
        optional={
            "rules": json_values,
            "players": json_values | st.just(["red", "blue"]),
            "actions": st.lists(
                json_values | st.fixed_dictionaries({"roll": json_values, "plane": json_values}), max_size=5
            ),
        },
    )
    | json_values
)
@pytest.mark.slow
def test_any_json_is_either_replayed_or_refused_cleanly(data: object) -> None:
    """Whatever JSON arrives, the only errors are RecordError and ActionError."""
    try:
        record = parse_record(data)
    except RecordError:
        return
    try:
        for _ in record.replay():
            pass
    except ActionError:
        pass
