"""Hand-worked tests for every value of every rule option (docs/rules.md §8) and the presets.

Every expectation below was worked out by hand from docs/rules.md, never copied
from the engine. Geometry used throughout (docs/rules.md §1):

    ring index r = (13*k + p - 1) mod 52,  k: red=0 yellow=1 blue=2 green=3
    so for the same ring cell r:  red p = r+1,  yellow p = r-12,  blue p = r-25,
    green p = r-38 (all mod 52, and only 1 <= p <= 50 is on the ring).
    own-colour cells: p = 2 (mod 4); jump cells 2..46 except 18 (+4); 18 flies to 30;
    50 never jumps; the flight crosses the opposite colour's p = 53.
"""

from __future__ import annotations

import json

import pytest

from flyingchess import (
    IllegalMoveError,
    Rules,
    RulesError,
    apply,
    canonical_state,
    legal_moves,
    loads_record,
    new_game,
    play,
    roll,
    setup_position,
)
from flyingchess.engine.events import (
    Bounced,
    Captured,
    ExtraRoll,
    Flew,
    GameOver,
    Jumped,
    PlayerFinished,
    ThreeSixes,
)
from flyingchess.engine.rules import PRESETS

H = [-1, -1, -1, -1]  # all four planes in the hangar
DONE = [56, 56, 56, 56]  # a finished player


# --------------------------------------------------------------------------- helpers


def rules(preset: str = "classic", **overrides) -> Rules:
    return Rules.preset(preset, **overrides)


def position(planes: dict, rule_set: Rules, **kw):
    return setup_position(planes, rule_set, **kw)


def run(state, *actions):
    """Play (roll, plane) actions in order; return the final state and all events."""
    events = []
    for roll_value, plane in actions:
        state, ev = play(state, roll_value, plane)
        events.extend(ev)
    return state, events


def canon(state) -> dict:
    return canonical_state(state)


def planes_of(state) -> dict:
    return canonical_state(state)["planes"]


def moves_for(state, value: int) -> tuple[int, ...]:
    rolled, _ = roll(state, value)
    return legal_moves(rolled)


def captures(events, cause: str | None = None) -> list[Captured]:
    return [e for e in events if isinstance(e, Captured) and (cause is None or e.cause == cause)]


# --------------------------------------------------------------------------- presets


PRESET_TABLE = {
    "classic": dict(
        launch={6},
        extra_roll={6},
        three_sixes="last-moved",
        finish="exact",
        chain="none",
        capture="final",
        flight_capture=False,
        stacking="none",
        end="first",
    ),
    "traditional": dict(
        launch={6},
        extra_roll={6},
        three_sixes="none",
        finish="bounce",
        chain="jump-fly-jump",
        capture="every-stop",
        flight_capture=True,
        stacking="none",
        end="ranking",
    ),
    "house": dict(
        launch={5, 6},
        extra_roll={6},
        three_sixes="moved-by-sixes",
        finish="exact",
        chain="jump-fly",
        capture="every-stop",
        flight_capture=True,
        stacking="together",
        end="ranking",
    ),
    "even": dict(
        launch={2, 4, 6},
        extra_roll={6},
        three_sixes="moved-by-sixes",
        finish="exact",
        chain="jump-fly",
        capture="every-stop",
        flight_capture=True,
        stacking="together",
        end="ranking",
    ),
}


@pytest.mark.parametrize("name", sorted(PRESET_TABLE))
def test_preset_options_match_rules_table(name):
    r = Rules.preset(name)
    for option, value in PRESET_TABLE[name].items():
        got = getattr(r, option)
        if isinstance(value, set):
            assert set(got) == value, option
        else:
            assert got == value, option


def test_classic_is_the_default():
    assert Rules.preset() == Rules.preset("classic")
    assert new_game().rules == Rules.preset("classic")
    assert canon(new_game()) == {
        "players": ["red", "blue"],
        "turn": "red",
        "sixes": 0,
        "planes": {"red": H, "blue": H},
        "ranking": [],
        "winner": None,
        "over": False,
    }


def test_preset_with_overrides():
    r = Rules.preset("classic", chain="jump-fly", launch=[5, 6])
    assert r.chain == "jump-fly" and set(r.launch) == {5, 6}
    # Everything else stays classic.
    for option in ("extra_roll", "three_sixes", "finish", "capture", "flight_capture", "stacking", "end"):
        assert getattr(r, option) == getattr(PRESETS["classic"], option)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Rules.preset("nonsense"),
        lambda: Rules.preset("classic", teleport=True),
        lambda: Rules.preset("classic", chain="fly-jump"),
        lambda: Rules.preset("classic", three_sixes="some"),
        lambda: Rules.preset("classic", finish="overshoot"),
        lambda: Rules.preset("classic", capture="never"),
        lambda: Rules.preset("classic", stacking="apart"),
        lambda: Rules.preset("classic", end="last"),
        lambda: Rules.preset("classic", launch=[]),
        lambda: Rules.preset("classic", launch=[7]),
        lambda: Rules.preset("classic", launch=[0, 6]),
        lambda: Rules.preset("classic", extra_roll=[7]),
        lambda: Rules.preset("classic", flight_capture="yes"),
    ],
    ids=[
        "preset",
        "option",
        "chain",
        "three_sixes",
        "finish",
        "capture",
        "stacking",
        "end",
        "empty-launch",
        "launch-7",
        "launch-0",
        "extra-7",
        "flight-capture-str",
    ],
)
def test_bad_options_are_clear_errors(make):
    with pytest.raises(RulesError):
        make()
    assert issubclass(RulesError, ValueError)


def test_empty_extra_roll_is_allowed():
    assert set(Rules.preset("classic", extra_roll=[]).extra_roll) == set()


def test_rules_from_json_preset_with_overrides():
    r = Rules.from_json({"preset": "house", "finish": "bounce"})
    assert r.finish == "bounce" and r.stacking == "together" and set(r.launch) == {5, 6}


# One position, roll 4 with red plane 0 at p=10, under each preset.
# Plain move lands on 14 (own colour, jump cell).  Blue victims by ring index:
#   red 14 -> r=13 -> blue p=40;  red 18 -> r=17 -> blue 44;  red 30 -> r=29 -> blue 4;
#   blue 53 is the crossing cell of red's flight.
# classic: chain none -> 14 jumps to 18 and stops (no flight); capture final checks 18 only.
# traditional: jump-fly-jump -> 14->18->30 (the jump is used, so no jump at 30);
#   every-stop checks 14, 18, 30; flight_capture takes blue 53.
# house/even: jump-fly -> 14->18->30; every-stop + flight capture as traditional.
@pytest.mark.parametrize(
    "name,red_end,blue_after",
    [
        ("classic", 18, [40, -1, 4, 53]),
        ("traditional", 30, H),
        ("house", 30, H),
        ("even", 30, H),
    ],
)
def test_presets_on_one_position(name, red_end, blue_after):
    s = position({"red": [10, -1, -1, -1], "blue": [40, 44, 4, 53]}, rules(name))
    s, _ = play(s, 4, 0)
    c = canon(s)
    assert c["planes"] == {"red": [red_end, -1, -1, -1], "blue": blue_after}
    assert c["turn"] == "blue" and c["sixes"] == 0


# --------------------------------------------------------------------------- launch


@pytest.mark.parametrize(
    "name,launching",
    [
        ("classic", {6}),
        ("traditional", {6}),
        ("house", {5, 6}),
        ("even", {2, 4, 6}),
    ],
)
@pytest.mark.parametrize("value", range(1, 7))
def test_launch_sets_of_presets(name, launching, value):
    s = position({"red": H, "blue": H}, rules(name))
    if value in launching:
        assert moves_for(s, value) == (0, 1, 2, 3)
    else:
        assert moves_for(s, value) == ()


def test_launch_on_five_goes_to_takeoff_and_turn_passes():
    # house: 5 launches; 5 is not in extra_roll {6}, so blue moves next.
    s = position({"red": H, "blue": H}, rules("house"))
    s, _events = play(s, 5, 2)
    assert canon(s)["planes"]["red"] == [-1, -1, 0, -1]
    assert canon(s)["turn"] == "blue" and canon(s)["sixes"] == 0


def test_launch_on_six_gives_extra_roll():
    s = position({"red": H, "blue": H}, rules("classic"))
    s, events = play(s, 6, 0)
    assert canon(s)["planes"]["red"] == [0, -1, -1, -1]
    assert canon(s)["turn"] == "red" and canon(s)["sixes"] == 1
    assert any(isinstance(e, ExtraRoll) for e in events)


def test_custom_launch_set_one():
    r = rules("classic", launch=[1])
    s = position({"red": H, "blue": H}, r)
    assert moves_for(s, 1) == (0, 1, 2, 3)
    assert moves_for(s, 6) == ()
    s1, _ = play(s, 1, 3)
    assert canon(s1)["planes"]["red"] == [-1, -1, -1, 0]
    assert canon(s1)["turn"] == "blue"  # 1 is not in extra_roll


def test_even_launch_on_two_and_four():
    r = rules("even")
    s = position({"red": H, "blue": H}, r)
    s, _ = run(s, (2, 0))  # launch plane 0, turn to blue
    s, _ = run(s, (4, 1))  # blue launches plane 1 with a 4
    c = canon(s)
    assert c["planes"] == {"red": [0, -1, -1, -1], "blue": [-1, 0, -1, -1]}
    assert c["turn"] == "red"


def test_launch_never_captures():
    # Blue planes sit on ring cells right after red's start: blue 27 -> r=0 (red p=1),
    # blue 26 -> r=51.  A launch goes to the private takeoff point: nothing is captured.
    s = position({"red": H, "blue": [27, 26, -1, -1]}, rules("traditional"))
    s, events = play(s, 6, 0)
    assert planes_of(s) == {"red": [0, -1, -1, -1], "blue": [27, 26, -1, -1]}
    assert captures(events) == []


def test_takeoff_to_first_ring_cell_captures_across_all_colours():
    # red p=0 with roll 1 goes to p=1 -> r=0.  Same cell: yellow p=40 (12+40=52=0 mod 52),
    # blue p=27 (25+27=52), green p=14 (38+14=52).  All three go home; red p=1 is not a
    # jump cell.  Roll 1 is not an extra roll, so yellow (next clockwise) plays.
    s = position(
        {"red": [0, -1, -1, -1], "yellow": [40, 41, -1, -1], "blue": [27, -1, -1, -1], "green": [14, 13, -1, -1]},
        rules("classic"),
    )
    s, events = play(s, 1, 0)
    c = canon(s)
    assert c["planes"] == {"red": [1, -1, -1, -1], "yellow": [-1, 41, -1, -1], "blue": H, "green": [-1, 13, -1, -1]}
    assert c["turn"] == "yellow"
    assert {e.colour for e in captures(events, "landing")} == {"yellow", "blue", "green"}


# --------------------------------------------------------------------------- extra_roll


def test_extra_roll_empty_six_passes_turn():
    # extra_roll = {}: no roll gives another; red 10 + 6 = 16 (not own colour).
    s = position({"red": [10, -1, -1, -1], "blue": H}, rules("classic", extra_roll=[]))
    s, events = play(s, 6, 0)
    c = canon(s)
    assert c["planes"]["red"] == [16, -1, -1, -1]
    assert c["turn"] == "blue" and c["sixes"] == 0
    assert not any(isinstance(e, ExtraRoll) for e in events)


def test_extra_roll_empty_three_sixes_cannot_fire():
    # With no extra rolls, every turn has one roll: red 6, blue 6, red 6, blue 6 ... never
    # three sixes in one turn.  Red: launch p0 (->0), then p0 0+6=6 -> jump 10 (classic).
    s = position({"red": H, "blue": H}, rules("classic", extra_roll=[], three_sixes="all"))
    s, _ = run(s, (6, 0), (6, 0), (6, 0), (6, 0), (6, 1), (6, 1))
    # red: launch 0; 0->6->10; launch 1.  blue: launch 0; 0->6->10; launch 1.
    c = canon(s)
    assert c["planes"] == {"red": [10, 0, -1, -1], "blue": [10, 0, -1, -1]}
    assert c["turn"] == "red" and c["sixes"] == 0


def test_extra_roll_five_six_five_gives_another_roll_with_count_zero():
    s = position({"red": [10, -1, -1, -1], "blue": H}, rules("classic", extra_roll=[5, 6]))
    s, _events = play(s, 5, 0)  # 10 -> 15
    c = canon(s)
    assert c["planes"]["red"] == [15, -1, -1, -1]
    assert c["turn"] == "red" and c["sixes"] == 0
    s, _ = play(s, 3, 0)  # 15 -> 18 -> flight 30 (classic chain none), 3 not extra
    assert canon(s)["planes"]["red"] == [30, -1, -1, -1]
    assert canon(s)["turn"] == "blue"


def test_extra_roll_one_only():
    # extra_roll = {1}: a 1 gives another roll, a 6 does not.
    s = position({"red": [10, -1, -1, -1], "blue": H}, rules("classic", extra_roll=[1]))
    s, _ = play(s, 1, 0)  # 10 -> 11
    assert canon(s)["turn"] == "red" and canon(s)["sixes"] == 0
    s, _ = play(s, 6, 0)  # 11 -> 17
    c = canon(s)
    assert c["planes"]["red"] == [17, -1, -1, -1]
    assert c["turn"] == "blue" and c["sixes"] == 0


def test_extra_roll_after_a_pass():
    # launch {5}: a 6 with all planes in the hangar is a pass, yet 6 is in extra_roll.
    s = position({"red": H, "blue": H}, rules("classic", launch=[5]))
    assert moves_for(s, 6) == ()
    s, _ = play(s, 6, None)
    c = canon(s)
    assert c["turn"] == "red" and c["sixes"] == 1 and c["planes"]["red"] == H


def test_extra_roll_without_six_six_ends_turn():
    # extra_roll {5}: a 6 gives no further roll, so three sixes in a turn are impossible.
    s = position({"red": [10, -1, -1, -1], "blue": H}, rules("classic", extra_roll=[5], three_sixes="all"))
    s, _ = play(s, 6, 0)
    c = canon(s)
    assert c["turn"] == "blue" and c["sixes"] == 0 and c["planes"]["red"] == [16, -1, -1, -1]


def test_non_six_extra_roll_resets_six_count():
    # classic + extra_roll {5,6}; red p0 at 10.
    #   6: 10->16 (sixes 1)      6: 16->22 jump 26 (sixes 2)
    #   5: 26->31 (count back to 0, but rolls again)
    #   6: 31->37 (sixes 1)      6: 37->43 (sixes 2)
    #   6: third six in a row -> last-moved: plane 0 goes home, turn passes.
    s = position({"red": [10, -1, -1, -1], "blue": H}, rules("classic", extra_roll=[5, 6]))
    s, _ = run(s, (6, 0), (6, 0))
    assert canon(s)["sixes"] == 2 and canon(s)["planes"]["red"][0] == 26
    s, _ = run(s, (5, 0))
    assert canon(s)["sixes"] == 0 and canon(s)["turn"] == "red"
    assert canon(s)["planes"]["red"][0] == 31
    # A six now is only the first of a new row: it moves.
    assert moves_for(s, 6) != ()
    s, _ = run(s, (6, 0), (6, 0))
    assert canon(s)["sixes"] == 2 and canon(s)["planes"]["red"][0] == 43
    assert moves_for(s, 6) == ()
    s, _events = run(s, (6, None))
    c = canon(s)
    assert c["planes"]["red"] == H and c["turn"] == "blue" and c["sixes"] == 0


# --------------------------------------------------------------------------- three_sixes


def test_three_sixes_none_keeps_counting():
    # traditional (three_sixes none, chain jump-fly-jump): launch p0; 0->6 jump 10;
    # 10->16; 16->22 jump 26.  Four sixes, all moved, count 4, red still to roll.
    s = position({"red": H, "blue": H}, rules("traditional"))
    s, _ = run(s, (6, 0), (6, 0), (6, 0))
    assert canon(s)["sixes"] == 3 and canon(s)["turn"] == "red"
    s, events = run(s, (6, 0))
    c = canon(s)
    assert c["planes"]["red"] == [26, -1, -1, -1]
    assert c["sixes"] == 4 and c["turn"] == "red"
    assert not any(isinstance(e, ThreeSixes) for e in events)


def test_three_sixes_last_moved_launched_plane_goes_back():
    # classic: 6 launches p0, 6 launches p1, third 6 gives no move; the most recently
    # moved plane (p1, a launch is a move) goes home; p0 stays at takeoff.
    s = position({"red": H, "blue": H}, rules("classic"))
    s, _ = run(s, (6, 0), (6, 1))
    assert moves_for(s, 6) == ()
    s, events = run(s, (6, None))
    c = canon(s)
    assert c["planes"]["red"] == [0, -1, -1, -1]
    assert c["turn"] == "blue" and c["sixes"] == 0
    assert [e.planes for e in events if isinstance(e, ThreeSixes)] == [(1,)]


def test_three_sixes_moved_by_sixes_launched_planes_go_back():
    s = position({"red": H, "blue": H}, rules("classic", three_sixes="moved-by-sixes"))
    s, _ = run(s, (6, 0), (6, 1), (6, None))
    c = canon(s)
    assert c["planes"]["red"] == H and c["turn"] == "blue" and c["sixes"] == 0


def test_three_sixes_third_six_forbids_a_move():
    s = position({"red": H, "blue": H}, rules("classic"))
    s, _ = run(s, (6, 0), (6, 1))
    with pytest.raises(IllegalMoveError):
        play(s, 6, 0)


# red [10, 20]: 6 moves p0 10->16; 6 moves p1 20->26 jump 30 (classic chain none).
@pytest.mark.parametrize(
    "variant,red_after",
    [
        ("last-moved", [16, -1, -1, -1]),  # only p1, the latest move
        ("moved-by-sixes", [-1, -1, -1, -1]),  # p0 and p1 both moved by the first two sixes
        ("all", [-1, -1, -1, -1]),  # every plane not in the centre
    ],
)
def test_three_sixes_variants_after_two_moves(variant, red_after):
    s = position({"red": [10, 20, -1, -1], "blue": [5, -1, -1, -1]}, rules("classic", three_sixes=variant))
    s, _ = run(s, (6, 0), (6, 1))
    assert planes_of(s)["red"] == [16, 30, -1, -1]
    s, _ = run(s, (6, None))
    c = canon(s)
    assert c["planes"] == {"red": red_after, "blue": [5, -1, -1, -1]}
    assert c["turn"] == "blue" and c["sixes"] == 0


def test_three_sixes_none_after_two_moves_moves_again():
    s = position({"red": [10, 20, -1, -1], "blue": H}, rules("classic", three_sixes="none"))
    s, _ = run(s, (6, 0), (6, 1), (6, 0))  # third six: 16 -> 22 jump 26
    c = canon(s)
    assert c["planes"]["red"] == [26, 30, -1, -1] and c["sixes"] == 3 and c["turn"] == "red"


@pytest.mark.parametrize("variant", ["last-moved", "moved-by-sixes"])
def test_three_sixes_pass_counts_as_a_six(variant):
    # launch {1}: hangar planes cannot launch on 6.  red [47, 52]:
    #   6: p0 47->53 (lane)            (sixes 1, the only legal move: 52+6 > 56)
    #   6: 53+6, 52+6 > 56 -> pass     (sixes 2: a pass still counts)
    #   6: third six -> p0 (latest move / moved by the first two sixes) goes home.
    s = position({"red": [47, 52, -1, -1], "blue": H}, rules("classic", launch=[1], three_sixes=variant))
    s, _ = run(s, (6, 0))
    assert moves_for(s, 6) == ()
    s, _ = run(s, (6, None))
    assert canon(s)["sixes"] == 2 and canon(s)["turn"] == "red"
    s, _ = run(s, (6, None))
    c = canon(s)
    assert c["planes"]["red"] == [-1, 52, -1, -1]
    assert c["turn"] == "blue" and c["sixes"] == 0


@pytest.mark.parametrize(
    "variant,red_after",
    [
        ("last-moved", [52, 53, 54, -1]),  # nothing moved this turn: nothing goes back
        ("moved-by-sixes", [52, 53, 54, -1]),
        ("all", [-1, -1, -1, -1]),  # all planes not in the centre, moved or not
    ],
)
def test_three_sixes_after_three_passes(variant, red_after):
    s = position({"red": [52, 53, 54, -1], "blue": H}, rules("classic", launch=[1], three_sixes=variant))
    s, _events = run(s, (6, None), (6, None), (6, None))
    c = canon(s)
    assert c["planes"]["red"] == red_after
    assert c["turn"] == "blue" and c["sixes"] == 0


@pytest.mark.parametrize(
    "variant,red_after",
    [
        ("last-moved", [56, 52, 53, 54]),
        ("moved-by-sixes", [56, 52, 53, 54]),
        ("all", [56, -1, -1, -1]),
    ],
)
def test_three_sixes_never_sends_back_a_plane_in_the_centre(variant, red_after):
    # red [50, 52, 53, 54]: 6 takes p0 50->56 (centre); next 6 is a pass (every lane plane
    # would overshoot); third 6: the latest moved plane is in the centre and stays there.
    s = position({"red": [50, 52, 53, 54], "blue": H}, rules("classic", three_sixes=variant))
    s, _ = run(s, (6, 0), (6, None), (6, None))
    c = canon(s)
    assert c["planes"]["red"] == red_after
    assert c["turn"] == "blue" and c["sixes"] == 0 and c["over"] is False


def test_three_sixes_all_sends_back_ring_takeoff_and_lane_planes():
    # classic + all: red [56, 24, 52, -1]. 6: p1 24->30 jump 34. 6: launch p3 -> 0.
    # third 6: every plane not in the centre goes back (34, 52, 0); the 56 stays.
    s = position({"red": [56, 24, 52, -1], "blue": H}, rules("classic", three_sixes="all"))
    s, _ = run(s, (6, 1), (6, 3))
    assert planes_of(s)["red"] == [56, 34, 52, 0]
    s, _ = run(s, (6, None))
    assert canon(s)["planes"]["red"] == [56, -1, -1, -1]
    assert canon(s)["turn"] == "blue"


@pytest.mark.parametrize("variant", ["last-moved", "moved-by-sixes"])
def test_three_sixes_merely_joined_plane_stays(variant):
    # house (stacking together) red [45, 51, 52, 53]:
    #   6: p0 45->51 joins p1 (they now stack; the move carried only p0).
    #   6: the stack 51+6, 52+6, 53+6 all > 56 -> pass.
    #   6: third six -> only p0 goes back; p1, which was merely joined, stays at 51.
    s = position({"red": [45, 51, 52, 53], "blue": H}, rules("house", three_sixes=variant))
    s, _ = run(s, (6, 0))
    assert planes_of(s)["red"] == [51, 51, 52, 53]
    s, _ = run(s, (6, None), (6, None))
    c = canon(s)
    assert c["planes"]["red"] == [-1, 51, 52, 53]
    assert c["turn"] == "blue" and c["sixes"] == 0


@pytest.mark.parametrize("variant", ["last-moved", "moved-by-sixes"])
def test_three_sixes_moved_stack_goes_back_whole(variant):
    # house red [45, 45, 52, 53]: the stack (p0+p1) moves 45->51 with the first six;
    # second six: pass; third: both planes the move carried go back.
    s = position({"red": [45, 45, 52, 53], "blue": H}, rules("house", three_sixes=variant))
    s, _ = run(s, (6, 0), (6, None), (6, None))
    assert canon(s)["planes"]["red"] == [-1, -1, 52, 53]
    assert canon(s)["turn"] == "blue"


def test_moved_by_sixes_ignores_a_plane_moved_by_an_earlier_non_six():
    # classic + moved-by-sixes + extra_roll {5,6}; red [10, 20]:
    #   5: p1 20->25 (extra roll, count 0)   6: p0 10->16   6: p0 16->22 jump 26
    #   6: third six -> only p0 (moved by the first two sixes) goes back; p1 stays at 25.
    s = position(
        {"red": [10, 20, -1, -1], "blue": H}, rules("classic", three_sixes="moved-by-sixes", extra_roll=[5, 6])
    )
    s, _ = run(s, (5, 1), (6, 0), (6, 0), (6, None))
    c = canon(s)
    assert c["planes"]["red"] == [-1, 25, -1, -1]
    assert c["turn"] == "blue"


@pytest.mark.parametrize(
    "variant,red_after",
    [
        ("last-moved", [-1, 52, 53, 54]),  # latest move of the turn was p0 (with the 5)
        ("moved-by-sixes", [55, 52, 53, 54]),  # the first two sixes were passes: nothing back
    ],
)
def test_last_moved_counts_a_move_made_with_a_non_six(variant, red_after):
    # extra_roll {5,6}; red [50, 52, 53, 54]: 5: p0 50->55, roll again (count 0);
    # 6: pass (all overshoot); 6: pass; 6: third six.
    s = position({"red": [50, 52, 53, 54], "blue": H}, rules("classic", three_sixes=variant, extra_roll=[5, 6]))
    s, _ = run(s, (5, 0), (6, None), (6, None), (6, None))
    c = canon(s)
    assert c["planes"]["red"] == red_after
    assert c["turn"] == "blue" and c["sixes"] == 0


@pytest.mark.parametrize(
    "variant,red_after",
    [
        ("last-moved", [16, -1, 0, 56]),
        ("moved-by-sixes", [-1, -1, 0, 56]),
        ("all", [-1, -1, -1, 56]),
    ],
)
def test_three_sixes_from_a_set_up_position(variant, red_after):
    # Two sixes already rolled this turn; the first moved p0, the second p1 (latest).
    s = position(
        {"red": [16, 30, 0, 56], "blue": H},
        rules("classic", three_sixes=variant),
        sixes=2,
        last_moved=(1,),
        six_moved=(0, 1),
    )
    assert moves_for(s, 6) == ()
    s, _ = play(s, 6, None)
    c = canon(s)
    assert c["planes"]["red"] == red_after and c["turn"] == "blue" and c["sixes"] == 0


def test_three_sixes_counts_in_canonical_state():
    s = position({"red": H, "blue": H}, rules("classic"))
    s, _ = play(s, 6, 0)
    assert canon(s)["sixes"] == 1
    s, _ = play(s, 6, 0)  # 0 -> 6 jump 10
    assert canon(s)["sixes"] == 2 and planes_of(s)["red"] == [10, -1, -1, -1]
    s, _ = play(s, 2, 0)  # 10 -> 12, turn passes
    assert canon(s)["sixes"] == 0 and canon(s)["turn"] == "blue"


def test_three_sixes_whole_record_replay():
    # classic from the start: 6 launches p0; 6 moves p0 0->6 jump 10; third 6 (pass):
    # the last moved plane p0 goes back; blue to play.
    text = json.dumps(
        {
            "format": "flyingchess/1",
            "rules": "classic",
            "players": ["red", "blue"],
            "actions": [{"roll": 6, "plane": 0}, {"roll": 6, "plane": 0}, {"roll": 6, "plane": None}],
        }
    )
    states = list(loads_record(text).replay())
    assert [canon(st)["planes"]["red"] for st in states] == [[0, -1, -1, -1], [10, -1, -1, -1], [-1, -1, -1, -1]]
    assert canon(states[-1]) == {
        "players": ["red", "blue"],
        "turn": "blue",
        "sixes": 0,
        "planes": {"red": H, "blue": H},
        "ranking": [],
        "winner": None,
        "over": False,
    }


# --------------------------------------------------------------------------- finish


def test_finish_exact_overshoot_is_illegal():
    s = position({"red": [52, -1, -1, -1], "blue": H}, rules("classic"))
    assert moves_for(s, 5) == ()  # 52 + 5 = 57 > 56
    rolled, _ = roll(s, 5)
    with pytest.raises(IllegalMoveError):
        apply(rolled, 0)
    s2, _ = play(s, 5, None)
    assert planes_of(s2)["red"] == [52, -1, -1, -1] and canon(s2)["turn"] == "blue"


def test_finish_exact_reaches_centre():
    s = position({"red": [52, -1, -1, -1], "blue": H}, rules("classic"))
    s, _ = play(s, 4, 0)
    assert planes_of(s)["red"] == [56, -1, -1, -1] and canon(s)["turn"] == "blue"


@pytest.mark.parametrize(
    "start,value,end",
    [
        (53, 6, 53),  # 112 - 53 - 6
        (53, 5, 54),  # 112 - 58
        (52, 6, 54),
        (55, 6, 51),  # 112 - 61
        (51, 6, 55),  # 112 - 57
        (55, 1, 56),  # exact hit, no bounce
        (54, 2, 56),
        (50, 6, 56),
    ],
)
def test_finish_bounce_end_positions(start, value, end):
    s = position({"red": [start, -1, -1, -1], "blue": H}, rules("classic", finish="bounce", launch=[1]))
    assert 0 in moves_for(s, value)
    s, events = play(s, value, 0)
    assert planes_of(s)["red"] == [end, -1, -1, -1]
    assert any(isinstance(e, Bounced) for e in events) == (start + value > 56)


def test_bounce_never_captures():
    # traditional (bounce, every-stop, flight_capture).  red 54 + 6 -> 56, back to 52.
    # Decoys: blue p=26 is r=51 (where a naive ring index of red p=52 would point),
    # blue p=34 is r=7 (naive index of the overshoot 60), blue p=53 (a flight crossing).
    s = position({"red": [54, -1, -1, -1], "blue": [26, 34, 53, -1]}, rules("traditional"))
    s, events = play(s, 6, 0)
    c = canon(s)
    assert c["planes"] == {"red": [52, -1, -1, -1], "blue": [26, 34, 53, -1]}
    assert captures(events) == []
    assert c["turn"] == "red" and c["sixes"] == 1  # a 6 still gives another roll


def test_bounce_stack_bounces_together():
    # house + bounce: red stack at 53, roll 5 -> 112 - 58 = 54 for both.
    s = position({"red": [53, 53, -1, -1], "blue": H}, rules("house", finish="bounce"))
    s, _ = play(s, 5, 1)
    assert planes_of(s)["red"] == [54, 54, -1, -1]
    assert canon(s)["turn"] == "blue"


# --------------------------------------------------------------------------- chain


# (start, roll) -> end, for each chain.  Red alone on the board (blue in the hangar).
CHAIN_CASES = [
    # start, roll, none, jump-fly, jump-fly-jump
    (10, 4, 18, 30, 30),  # 14 jump 18; chained: then fly to 30 and stop
    (12, 2, 18, 30, 30),
    (15, 3, 30, 30, 34),  # lands on 18: fly 30; jump-fly-jump then jumps 30 -> 34
    (13, 5, 30, 30, 34),
    (23, 3, 30, 30, 30),  # 26 jump 30: one jump only, never again at 30
    (27, 3, 34, 34, 34),  # lands on 30 directly: ordinary jump to 34
    (42, 4, 50, 50, 50),  # 46 jumps to 50
    (44, 6, 50, 50, 50),  # 50 never jumps
    (0, 2, 6, 6, 6),  # takeoff -> 2, jump 6
    (10, 5, 15, 15, 15),  # not an own-colour cell
    (17, 3, 20, 20, 20),
]


@pytest.mark.parametrize("chain_index,chain", list(enumerate(["none", "jump-fly", "jump-fly-jump"])))
@pytest.mark.parametrize("start,value,e_none,e_jf,e_jfj", CHAIN_CASES)
def test_chain_end_positions(chain_index, chain, start, value, e_none, e_jf, e_jfj):
    expected = (e_none, e_jf, e_jfj)[chain_index]
    s = position({"red": [start, -1, -1, -1], "blue": H}, rules("classic", chain=chain, launch=[1]))
    s, _ = play(s, value, 0)
    assert planes_of(s)["red"] == [expected, -1, -1, -1]


def test_chain_jump_fly_event_order():
    s = position({"red": [10, -1, -1, -1], "blue": H}, rules("classic", chain="jump-fly"))
    s, events = play(s, 4, 0)
    special = [(type(e).__name__, e.start, e.end) for e in events if isinstance(e, (Jumped, Flew))]
    assert special == [("Jumped", 14, 18), ("Flew", 18, 30)]


def test_chain_jump_fly_jump_event_order():
    s = position({"red": [15, -1, -1, -1], "blue": H}, rules("classic", chain="jump-fly-jump"))
    s, events = play(s, 3, 0)
    special = [(type(e).__name__, e.start, e.end) for e in events if isinstance(e, (Jumped, Flew))]
    assert special == [("Flew", 18, 30), ("Jumped", 30, 34)]


@pytest.mark.parametrize(
    "colour,players",
    [
        ("yellow", {"yellow": [15, -1, -1, -1], "green": H}),
        ("blue", {"blue": [15, -1, -1, -1], "red": H}),
        ("green", {"green": [15, -1, -1, -1], "yellow": H}),
    ],
)
def test_chain_is_relative_to_own_progress(colour, players):
    # Every colour's pad is its own p=18: 15 + 3 -> 18 -> flight 30 (classic chain none).
    s = position(players, rules("classic"), turn=colour)
    s, _ = play(s, 3, 0)
    assert planes_of(s)[colour] == [30, -1, -1, -1]


# --------------------------------------------------------------------------- capture


def test_capture_across_colours_multiple_planes_own_plane_safe():
    # red p17 + 3 -> 20 (20 = 0 mod 4: no jump); r = 19.
    # Same cell: yellow p = 19-12 = 7 (two planes), blue p = 19-25+52 = 46,
    # green p = 19-38+52 = 33.  Red's own plane already on 20 is never captured.
    s = position(
        {"red": [17, 20, -1, -1], "yellow": [7, 7, 30, -1], "blue": [46, -1, -1, -1], "green": [33, 0, -1, -1]},
        rules("classic"),
    )
    s, events = play(s, 3, 0)
    c = canon(s)
    assert c["planes"] == {"red": [20, 20, -1, -1], "yellow": [-1, -1, 30, -1], "blue": H, "green": [-1, 0, -1, -1]}
    assert c["turn"] == "yellow"
    got = {(e.colour, tuple(sorted(e.planes))) for e in captures(events)}
    assert ("yellow", (0, 1)) in got or {("yellow", (0,)), ("yellow", (1,))} <= got
    assert all(e.by == "red" and e.cause == "landing" for e in captures(events))


def test_own_planes_never_captured():
    # red p0 10 + 3 -> 13 where red p1 stands; nothing happens to p1.
    s = position({"red": [10, 13, 13, -1], "blue": H}, rules("traditional"))
    s, events = play(s, 3, 0)
    assert planes_of(s)["red"] == [13, 13, 13, -1]
    assert captures(events) == []


# red p10 + 4 -> 14 (r=13, blue 40), jump -> 18 (r=17, blue 44), chain none stops there.
@pytest.mark.parametrize(
    "capture,blue_after",
    [
        ("final", [40, -1, -1, -1]),
        ("every-stop", [-1, -1, -1, -1]),
    ],
)
def test_capture_final_vs_every_stop_with_jump(capture, blue_after):
    s = position({"red": [10, -1, -1, -1], "blue": [40, 44, -1, -1]}, rules("classic", capture=capture))
    s, _ = play(s, 4, 0)
    assert planes_of(s) == {"red": [18, -1, -1, -1], "blue": blue_after}


# red p15 + 3 -> pad 18 (r=17, blue 44), flight -> 30 (r=29, blue 4).
@pytest.mark.parametrize(
    "capture,blue_after",
    [
        ("final", [44, -1, -1, -1]),
        ("every-stop", [-1, -1, -1, -1]),  # the pad itself is checked before the flight
    ],
)
def test_capture_every_stop_checks_pad_before_flight(capture, blue_after):
    s = position({"red": [15, -1, -1, -1], "blue": [44, 4, -1, -1]}, rules("classic", capture=capture))
    s, _ = play(s, 3, 0)
    assert planes_of(s) == {"red": [30, -1, -1, -1], "blue": blue_after}


# jump-fly-jump: 15 + 3 -> 18 (blue 44) -> 30 (blue 4) -> 34 (r=33, blue 8).
@pytest.mark.parametrize(
    "capture,blue_after",
    [
        ("final", [44, 4, -1, -1]),
        ("every-stop", [-1, -1, -1, -1]),
    ],
)
def test_capture_fly_then_jump(capture, blue_after):
    s = position(
        {"red": [15, -1, -1, -1], "blue": [44, 4, 8, -1]}, rules("classic", capture=capture, chain="jump-fly-jump")
    )
    s, _ = play(s, 3, 0)
    assert planes_of(s) == {"red": [34, -1, -1, -1], "blue": blue_after}


def test_capture_every_stop_jump_fly_all_stops_in_yellow_coordinates():
    # house-like (jump-fly, every-stop) with yellow as victim and no flight capture.
    # red 10 + 4 -> 14 (r=13: yellow p=1), 18 (r=17: yellow 5), 30 (r=29: yellow 17).
    s = position({"red": [10, -1, -1, -1], "yellow": [1, 5, 17, 53]}, rules("house", flight_capture=False))
    s, _ = play(s, 4, 0)
    assert planes_of(s) == {"red": [30, -1, -1, -1], "yellow": H[:3] + [53]}


@pytest.mark.parametrize("capture", ["final", "every-stop"])
def test_passed_cells_never_checked_and_nothing_blocks(capture):
    # red 10 + 5 -> 15 passes red 12 (r=11, blue 38: a blue pair) and red 13 (r=12, blue 39).
    # Ends at 15 (r=14, blue 41 would be hit; there is none).
    s = position({"red": [10, -1, -1, -1], "blue": [38, 38, 39, -1]}, rules("classic", capture=capture))
    assert 0 in moves_for(s, 5)
    s, events = play(s, 5, 0)
    assert planes_of(s) == {"red": [15, -1, -1, -1], "blue": [38, 38, 39, -1]}
    assert captures(events) == []


@pytest.mark.parametrize(
    "start,value,yellow",
    [
        (10, 3, [0, 52, -1, -1]),  # red 13 -> r=12; a naive yellow index of p=0 or p=52 is 12
        (9, 3, [-1, -1, -1, 0]),  # red 12 -> r=11; naive yellow hangar (13-2) is 11
    ],
)
def test_takeoff_lane_hangar_never_captured(start, value, yellow):
    s = position({"red": [start, -1, -1, -1], "yellow": yellow}, rules("traditional"))
    s, events = play(s, value, 0)
    assert planes_of(s)["yellow"] == yellow
    assert captures(events) == []


def test_centre_never_captured():
    # red 40 + 3 -> 43 (r=42); a naive green index of p=56 is (39+55) mod 52 = 42.
    s = position({"red": [40, -1, -1, -1], "green": [56, 55, 20, -1]}, rules("traditional"))
    s, events = play(s, 3, 0)
    assert planes_of(s)["green"] == [56, 55, 20, -1]
    assert captures(events) == []


def test_green_captures_red_across_the_wrap():
    # green 12 + 3 -> 15: r = (39 + 14) mod 52 = 1 = red p 2.  Red p=2 goes home.
    s = position({"red": [2, 52, -1, -1], "green": [12, -1, -1, -1]}, rules("classic"), turn="green")
    s, events = play(s, 3, 0)
    c = canon(s)
    assert c["planes"] == {"red": [-1, 52, -1, -1], "green": [15, -1, -1, -1]}
    assert c["turn"] == "red"
    assert [(e.colour, e.planes, e.by) for e in captures(events)] == [("red", (0,), "green")]


def test_green_on_cell_51_does_not_touch_red_lane():
    # green 10 + 3 -> 13: r = (39 + 12) mod 52 = 51.  Red never reaches r=51 on the ring
    # (red p=52 would naively map there): red's lane plane stays.
    s = position({"red": [52, 51, -1, -1], "green": [10, -1, -1, -1]}, rules("classic"), turn="green")
    s, _ = play(s, 3, 0)
    assert planes_of(s) == {"red": [52, 51, -1, -1], "green": [13, -1, -1, -1]}


@pytest.mark.parametrize("preset", ["classic", "house"])
def test_two_red_planes_on_a_cell_are_both_captured(preset):
    # blue 44 + 3 -> 47: r = (26 + 46) mod 52 = 20 = red p 21.
    s = position({"red": [21, 21, 30, -1], "blue": [44, -1, -1, -1]}, rules(preset), turn="blue")
    s, _ = play(s, 3, 0)
    assert planes_of(s) == {"red": [-1, -1, 30, -1], "blue": [47, -1, -1, -1]}
    assert canon(s)["turn"] == "red"


# --------------------------------------------------------------------------- flight_capture


def test_flight_capture_true_on_crossing_cell():
    # red 15 + 3 -> pad 18 -> 30; flight crosses blue's p=53.  Blue 52/54/51 are lane cells
    # off the crossing: untouched.  (classic capture final: flight capture acts anyway.)
    s = position({"red": [15, -1, -1, -1], "blue": [53, 52, 54, 51]}, rules("classic", flight_capture=True))
    s, events = play(s, 3, 0)
    assert planes_of(s) == {"red": [30, -1, -1, -1], "blue": [-1, 52, 54, 51]}
    flight = captures(events, "flight")
    assert [(e.colour, e.planes, e.progress, e.by) for e in flight] == [("blue", (0,), 53, "red")]


def test_flight_capture_false_leaves_crossing_cell():
    s = position({"red": [15, -1, -1, -1], "blue": [53, -1, -1, -1]}, rules("classic"))
    s, events = play(s, 3, 0)
    assert planes_of(s) == {"red": [30, -1, -1, -1], "blue": [53, -1, -1, -1]}
    assert captures(events) == []


def test_flight_capture_when_opposite_colour_not_playing():
    # red's opposite is blue, who does not play; yellow and green lanes are not crossed.
    s = position({"red": [15, -1, -1, -1], "yellow": [53, -1, -1, -1], "green": [53, -1, -1, -1]}, rules("traditional"))
    s, events = play(s, 3, 0)  # traditional: 18 -> 30 -> 34
    assert planes_of(s) == {"red": [34, -1, -1, -1], "yellow": [53, -1, -1, -1], "green": [53, -1, -1, -1]}
    assert captures(events) == []


@pytest.mark.parametrize(
    "flyer,victim",
    [
        ("red", "blue"),
        ("yellow", "green"),
        ("blue", "red"),
        ("green", "yellow"),
    ],
)
def test_flight_capture_opposite_seat_multiple_planes(flyer, victim):
    # seat k flies over seat k+2's p=53; two victim planes there both go home.
    s = position({flyer: [15, -1, -1, -1], victim: [53, 53, 55, -1]}, rules("classic", flight_capture=True), turn=flyer)
    s, events = play(s, 3, 0)
    assert planes_of(s) == {flyer: [30, -1, -1, -1], victim: [-1, -1, 55, -1]}
    assert {p for e in captures(events, "flight") for p in e.planes} == {0, 1}


@pytest.mark.parametrize(
    "chain,red_end,blue_after",
    [
        ("none", 18, [53, -1, -1, -1]),  # 14 jump 18 and stop: no flight, no flight capture
        ("jump-fly", 30, [-1, -1, -1, -1]),  # 14 -> 18 -> flies -> crossing captured
    ],
)
def test_flight_capture_needs_a_real_flight(chain, red_end, blue_after):
    s = position(
        {"red": [10, -1, -1, -1], "blue": [53, -1, -1, -1]}, rules("classic", chain=chain, flight_capture=True)
    )
    s, _ = play(s, 4, 0)
    assert planes_of(s) == {"red": [red_end, -1, -1, -1], "blue": blue_after}


def test_flight_capture_and_landing_capture_in_one_move():
    # red 15+3 -> 18 -> 30: blue 53 (flight) and blue 4 (r=29, landing) both go home.
    s = position({"red": [15, -1, -1, -1], "blue": [53, 4, 20, -1]}, rules("classic", flight_capture=True))
    s, events = play(s, 3, 0)
    assert planes_of(s) == {"red": [30, -1, -1, -1], "blue": [-1, -1, 20, -1]}
    assert {e.cause for e in captures(events)} == {"flight", "landing"}


# --------------------------------------------------------------------------- stacking


def test_stacking_none_planes_share_a_cell_and_move_alone():
    s = position({"red": [10, 13, -1, -1], "blue": H}, rules("classic"))
    s, _ = play(s, 3, 0)  # p0 joins p1 on 13, no capture of own plane
    assert planes_of(s)["red"] == [13, 13, -1, -1]
    s = position({"red": [13, 13, -1, -1], "blue": H}, rules("classic"))
    assert moves_for(s, 2) == (0, 1)
    s, _ = play(s, 2, 1)
    assert planes_of(s)["red"] == [13, 15, -1, -1]


def test_stacking_together_one_move_named_by_any_plane():
    s = position({"red": [13, 13, -1, 20], "blue": H}, rules("house"))
    assert moves_for(s, 2) == (0, 3)
    s, _ = play(s, 2, 1)
    assert planes_of(s)["red"] == [15, 15, -1, 20]


def test_stacking_together_join_then_move_together():
    # house: red 10+3 -> 13 joins p1; blue rolls 1 (cannot launch: pass); red 2 -> both 15.
    s = position({"red": [10, 13, -1, -1], "blue": H}, rules("house"))
    s, _ = run(s, (3, 0), (1, None), (2, 1))
    assert planes_of(s) == {"red": [15, 15, -1, -1], "blue": H}
    assert canon(s)["turn"] == "blue"


def test_stacking_together_takeoff_planes_do_not_stack():
    s = position({"red": [0, 0, -1, -1], "blue": H}, rules("house"))
    assert moves_for(s, 3) == (0, 1)  # 3 does not launch
    s, _ = play(s, 3, 1)
    assert planes_of(s)["red"] == [0, 3, -1, -1]


def test_stacking_together_lane_stack_finishes_together():
    s = position({"red": [52, 52, -1, -1], "blue": H}, rules("house"))
    s, _ = play(s, 4, 0)
    assert planes_of(s)["red"] == [56, 56, -1, -1]


def test_stack_jumps_and_flies_together_with_captures():
    # house (jump-fly, every-stop, flight capture): the stack at 10 + 4 -> 14 (blue 40)
    # -> 18 (blue 44) -> 30 (blue 4); flight takes blue 53.
    s = position({"red": [10, 10, -1, -1], "blue": [40, 44, 4, 53]}, rules("house"))
    s, events = play(s, 4, 0)
    assert planes_of(s) == {"red": [30, 30, -1, -1], "blue": H}
    jumps = [e for e in events if isinstance(e, Jumped)]
    flights = [e for e in events if isinstance(e, Flew)]
    assert [(e.planes, e.start, e.end) for e in jumps] == [((0, 1), 14, 18)]
    assert [(e.planes, e.start, e.end) for e in flights] == [((0, 1), 18, 30)]


def test_stack_captured_together_and_no_longer_stacked():
    # house: red stack at 21 (r=20); blue 44+3 -> 47 (r=20) captures both.
    # Then red launches with a 6: only the named plane goes to takeoff.
    s = position({"red": [21, 21, -1, -1], "blue": [44, -1, -1, -1]}, rules("house"), turn="blue")
    s, events = play(s, 3, 0)
    assert planes_of(s)["red"] == H
    assert sorted(p for e in captures(events) for p in e.planes) == [0, 1]
    s, _ = play(s, 6, 1)
    assert planes_of(s)["red"] == [-1, 0, -1, -1]


def test_stack_landing_captures_opponent():
    # house: red stack 17+3 -> 20 (r=19): blue 46 goes home (every-stop = final here).
    s = position({"red": [17, 17, -1, -1], "blue": [46, 46, -1, -1]}, rules("house"))
    s, _ = play(s, 3, 0)
    assert planes_of(s) == {"red": [20, 20, -1, -1], "blue": H}


# --------------------------------------------------------------------------- end


def test_end_first_game_over_at_once():
    s = position({"red": [56, 56, 56, 52], "yellow": [5, -1, -1, -1], "blue": H}, rules("classic"))
    s, events = play(s, 4, 3)
    assert canon(s) == {
        "players": ["red", "yellow", "blue"],
        "turn": None,
        "sixes": 0,
        "planes": {"red": DONE, "yellow": [5, -1, -1, -1], "blue": H},
        "ranking": ["red"],
        "winner": "red",
        "over": True,
    }
    assert any(isinstance(e, GameOver) for e in events)


def test_end_first_finishing_with_a_six():
    s = position({"red": [56, 56, 56, 50], "blue": H}, rules("classic"))
    s, events = play(s, 6, 3)
    c = canon(s)
    assert c["over"] is True and c["winner"] == "red" and c["ranking"] == ["red"]
    assert c["turn"] is None and c["sixes"] == 0
    assert not any(isinstance(e, ExtraRoll) for e in events)
    with pytest.raises(IllegalMoveError):
        play(s, 3, None)


def test_end_ranking_two_players_ends_with_the_loser_appended():
    s = position({"red": [56, 56, 56, 52], "blue": [5, -1, -1, -1]}, rules("classic", end="ranking"))
    s, _ = play(s, 4, 3)
    c = canon(s)
    assert c["over"] is True and c["turn"] is None
    assert c["ranking"] == ["red", "blue"] and c["winner"] == "red"


def test_end_ranking_play_goes_on():
    s = position({"red": [56, 56, 56, 52], "yellow": H, "blue": H}, rules("classic", end="ranking"))
    s, events = play(s, 4, 3)
    c = canon(s)
    assert c["over"] is False and c["turn"] == "yellow"
    assert c["ranking"] == ["red"] and c["winner"] == "red"
    assert any(isinstance(e, PlayerFinished) for e in events)


def test_end_ranking_finishing_with_a_six_passes_the_turn():
    # Finishing with a 6: no extra roll ("except when that player has just finished").
    s = position(
        {"red": [56, 56, 56, 50], "yellow": H, "blue": H, "green": H},
        rules("traditional"),
        sixes=1,
        last_moved=(3,),
        six_moved=(3,),
    )
    s, events = play(s, 6, 3)
    c = canon(s)
    assert c["planes"]["red"] == DONE
    assert c["turn"] == "yellow" and c["sixes"] == 0 and c["over"] is False
    assert c["ranking"] == ["red"]
    assert not any(isinstance(e, ExtraRoll) for e in events)


def test_end_ranking_finished_players_are_skipped():
    # 4 players, yellow has finished: red -> blue -> green -> red (rolls of 3 are passes).
    s = position(
        {"red": H, "yellow": DONE, "blue": H, "green": H}, rules("classic", end="ranking"), ranking=("yellow",)
    )
    s, _ = play(s, 3, None)
    assert canon(s)["turn"] == "blue"
    s, _ = play(s, 3, None)
    assert canon(s)["turn"] == "green"
    s, _ = play(s, 3, None)
    assert canon(s)["turn"] == "red"
    assert canon(s)["ranking"] == ["yellow"] and canon(s)["winner"] == "yellow"


def test_end_ranking_order_over_several_moves():
    # red finishes (3: 53 -> 56), then yellow (2: 54 -> 56): only blue is left.
    s = position(
        {"red": [56, 56, 56, 53], "yellow": [56, 56, 56, 54], "blue": [10, -1, -1, -1]}, rules("classic", end="ranking")
    )
    s, _ = play(s, 3, 3)
    assert canon(s)["turn"] == "yellow" and canon(s)["ranking"] == ["red"]
    s, events = play(s, 2, 3)
    c = canon(s)
    assert c["over"] is True and c["turn"] is None and c["sixes"] == 0
    assert c["ranking"] == ["red", "yellow", "blue"] and c["winner"] == "red"
    assert [e.ranking for e in events if isinstance(e, GameOver)] == [("red", "yellow", "blue")]


def test_end_ranking_earlier_finisher_stays_first():
    s = position(
        {"red": [56, 56, 56, 55], "yellow": DONE, "blue": [10, 12, -1, -1]}, rules("traditional"), ranking=("yellow",)
    )
    s, _ = play(s, 1, 3)
    c = canon(s)
    assert c["over"] is True
    assert c["ranking"] == ["yellow", "red", "blue"] and c["winner"] == "yellow"


def test_end_ranking_with_bounce_finish_sequence():
    # traditional: red 53 + 6 bounces to 53 (112-59); 6 gives another roll; then 3 -> 56.
    s = position({"red": [56, 56, 56, 53], "yellow": H, "blue": H}, rules("traditional"))
    s, _ = play(s, 6, 3)
    assert planes_of(s)["red"] == [56, 56, 56, 53] and canon(s)["turn"] == "red"
    s, _ = play(s, 3, 3)
    c = canon(s)
    assert c["ranking"] == ["red"] and c["turn"] == "yellow" and c["over"] is False


# --------------------------------------------------------------------------- more corners


def test_every_stop_jump_start_checked_takeoff_spared():
    # chain none, every-stop: red 23 + 3 -> 26 (r=25) jump -> 30 (r=29).
    # r=25: yellow p=13 (captured); blue p=0 would be r=25 naively but is the takeoff point.
    # r=29: yellow p=17 (captured), blue p=4 (captured).
    s = position(
        {"red": [23, -1, -1, -1], "yellow": [13, 17, -1, -1], "blue": [0, 4, -1, -1]},
        rules("classic", capture="every-stop"),
    )
    s, _ = play(s, 3, 0)
    assert planes_of(s) == {"red": [30, -1, -1, -1], "yellow": H, "blue": [0, -1, -1, -1]}


def test_every_stop_jump_start_not_checked_under_final():
    s = position({"red": [23, -1, -1, -1], "yellow": [13, 17, -1, -1], "blue": [0, 4, -1, -1]}, rules("classic"))
    s, _ = play(s, 3, 0)
    assert planes_of(s) == {"red": [30, -1, -1, -1], "yellow": [13, -1, -1, -1], "blue": [0, -1, -1, -1]}


def test_flight_captures_a_whole_stack_on_the_crossing_cell():
    # house: blue flies 15 + 3 -> 18 -> 30 over red's p=53 where a red stack stands.
    s = position({"red": [53, 53, 10, -1], "blue": [15, -1, -1, -1]}, rules("house"), turn="blue")
    s, events = play(s, 3, 0)
    assert planes_of(s) == {"red": [-1, -1, 10, -1], "blue": [30, -1, -1, -1]}
    assert sorted(p for e in captures(events, "flight") for p in e.planes) == [0, 1]


def test_plane_in_centre_cannot_move():
    s = position({"red": [56, 52, -1, -1], "blue": H}, rules("classic", finish="bounce"))
    assert moves_for(s, 3) == (1,)
    s = position({"red": [56, 52, -1, -1], "blue": H}, rules("classic"))
    assert moves_for(s, 5) == ()


def test_three_sixes_turn_skips_finished_player():
    # ranking mode, yellow finished: red's third six ends the turn; blue plays next.
    s = position(
        {"red": [10, -1, -1, -1], "yellow": DONE, "blue": H}, rules("classic", end="ranking"), ranking=("yellow",)
    )
    s, _ = run(s, (6, 0), (6, 0), (6, None))  # 10->16, 16->22 jump 26, third six
    c = canon(s)
    assert c["planes"]["red"] == H and c["turn"] == "blue" and c["sixes"] == 0


def test_stacking_together_three_sixes_all():
    # house + all: a stack and a lone plane; third six sends every non-centre plane home.
    s = position(
        {"red": [10, 10, 56, 30], "blue": H},
        rules("house", three_sixes="all"),
        sixes=2,
        last_moved=(0, 1),
        six_moved=(0, 1),
    )
    s, _ = play(s, 6, None)
    assert planes_of(s)["red"] == [-1, -1, 56, -1]
