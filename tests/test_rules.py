"""The Rules value: presets as docs/rules.md §8 tabulates them, validation, JSON forms."""

from __future__ import annotations

import pickle

import pytest

from flyingchess import PRESETS, Rules, RulesError

# The presets against docs/rules.md §8 are checked in test_rule_options.py.


def test_default_preset_is_classic_and_presets_are_all_there() -> None:
    assert Rules.preset() == PRESETS["classic"]
    for name in PRESETS:
        assert Rules.preset(name).preset_name() == name and Rules.preset(name).describe() == name
    assert list(PRESETS) == ["classic", "traditional", "house", "even"]


def test_overrides_change_one_option() -> None:
    rules = Rules.preset("house", finish="bounce", launch=[6])
    assert rules.finish == "bounce" and rules.launch == frozenset({6})
    assert rules.chain == "jump-fly"
    assert rules.describe() == "house + launch=[6], finish=bounce"
    assert rules.preset_name() is None


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"chains": "none"}, "'chains'"),
        ({"chain": "jump-jump"}, "'jump-jump'"),
        ({"finish": "Exact"}, "'Exact'"),
        ({"three_sixes": None}, "three_sixes"),
        ({"capture": "all"}, "capture"),
        ({"stacking": "yes"}, "stacking"),
        ({"end": "last"}, "end"),
        ({"flight_capture": "true"}, "flight_capture"),
        ({"flight_capture": 1}, "flight_capture"),
        ({"launch": []}, "launch"),
        ({"launch": [0]}, "0"),
        ({"launch": [7]}, "7"),
        ({"launch": [6.0]}, "6.0"),
        ({"launch": [True]}, "True"),
        ({"launch": "6"}, "launch"),
        ({"extra_roll": [9]}, "extra_roll"),
    ],
)
def test_bad_options_name_what_is_wrong(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(RulesError, match=words.replace("(", r"\(")):
        Rules.preset("classic", **kwargs)


def test_unknown_preset_is_an_error() -> None:
    with pytest.raises(RulesError, match="'modern'"):
        Rules.preset("modern")


def test_empty_extra_roll_is_allowed() -> None:
    assert Rules.preset("classic", extra_roll=[]).extra_roll == frozenset()


@pytest.mark.parametrize(
    "value",
    [
        "traditional",
        {"preset": "even", "capture": "final"},
        Rules.preset("house", chain="none").to_json(),
    ],
)
def test_json_forms_round_trip(value: object) -> None:
    rules = Rules.from_json(value)
    assert Rules.from_json(rules.to_json()) == rules


def test_full_object_must_give_every_option() -> None:
    partial = Rules.preset("classic").to_json()
    del partial["end"]
    with pytest.raises(RulesError, match="end"):
        Rules.from_json(partial)
    with pytest.raises(RulesError, match="null"):
        Rules.from_json(None)
    with pytest.raises(RulesError, match="bogus"):
        Rules.from_json({**Rules.preset("classic").to_json(), "bogus": 1})


def test_rules_are_hashable_and_survive_pickling() -> None:
    a = Rules.preset("even", finish="bounce")
    b = Rules.from_json(a.to_json())
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(AttributeError):
        a.finish = "exact"  # type: ignore[misc]
