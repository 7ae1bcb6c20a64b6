"""The engine's public API: phases, errors that change nothing, events, setup checks."""

from __future__ import annotations

import random
from typing import Any

import pytest

from flyingchess import (
    GameSetupError,
    IllegalMoveError,
    Rules,
    apply,
    canonical_state,
    legal_moves,
    new_game,
    play,
    roll,
    setup_position,
)
from flyingchess.engine.events import (
    EVENT_TYPES,
    Captured,
    ExtraRoll,
    Flew,
    GameOver,
    Jumped,
    Launched,
    Passed,
    PlaneFinished,
    PlayerFinished,
    Rolled,
    Stepped,
    ThreeSixes,
    TurnPassed,
)


def test_phases_alternate_between_roll_and_move() -> None:
    state = new_game(2)
    assert state.phase == "roll" and state.colour == "red"
    rolled, events = roll(state, 4)
    assert rolled.phase == "move" and events == [Rolled("red", 4)]
    with pytest.raises(IllegalMoveError, match="already rolled"):
        roll(rolled, 3)
    with pytest.raises(IllegalMoveError, match="roll the die"):
        apply(state, None)
    with pytest.raises(IllegalMoveError, match="no die"):
        legal_moves(state)


@pytest.mark.parametrize("value", [0, 7, -1, 2.5, True, "3", None])
def test_roll_outside_the_die_is_rejected(value: object) -> None:
    with pytest.raises(IllegalMoveError, match=r"1\.\.6"):
        roll(new_game(2), value)  # type: ignore[arg-type]


def test_illegal_move_error_names_move_and_position() -> None:
    state = setup_position({"red": [54, -1, 56, 10], "blue": [-1] * 4}, roll=5)
    for plane, words in [(0, "overshoots"), (1, "hangar"), (2, "centre"), (4, "0..3"), (None, "cannot pass")]:
        with pytest.raises(IllegalMoveError, match=words) as caught:
            apply(state, plane)
        assert "red to play with roll 5" in str(caught.value) or plane == 4
    assert legal_moves(state) == (3,)


def test_game_over_refuses_everything() -> None:
    state = setup_position({"red": [56, 56, 56, 55], "blue": [-1] * 4}, roll=1)
    over, events = apply(state, 3)
    assert over.over and over.phase == "over" and over.colour is None and over.winner == "red"
    assert [type(e) for e in events][-3:] == [PlaneFinished, PlayerFinished, GameOver]
    with pytest.raises(IllegalMoveError, match="over"):
        roll(over, 3)
    with pytest.raises(IllegalMoveError, match="over"):
        apply(over, None)


def test_a_move_reports_every_event_in_order() -> None:
    # traditional: red 17 + 1 = 18 (pad): pad check, fly to 30 over blue's lane (blue 53
    # is captured by the flight line), then jump 30 -> 34 (jump-fly-jump), and 34 holds a
    # yellow plane: red 34 is ring cell 33, yellow progress (33 - 13) + 1 = 21.
    # (yellow's other plane at 6 is ring cell 18, next to the pad's ring cell 17: safe)
    state = setup_position(
        {"red": [17, -1, -1, -1], "yellow": [21, 6, -1, -1], "blue": [53, -1, -1, -1], "green": [-1] * 4},
        Rules.preset("traditional"),
    )
    after, events = play(state, 1, 0)
    assert events == [
        Rolled("red", 1),
        Stepped("red", (0,), 18),
        Flew("red", (0,), 18, 30),
        Captured("blue", (0,), 53, "red", "flight"),
        Jumped("red", (0,), 30, 34),
        Captured("yellow", (0,), 21, "red", "landing"),
        TurnPassed("yellow"),
    ]
    assert canonical_state(after)["planes"] == {
        "red": [34, -1, -1, -1],
        "yellow": [-1, 6, -1, -1],
        "blue": [-1] * 4,
        "green": [-1] * 4,
    }
    assert all(event.to_json()["type"] in EVENT_TYPES for event in events)
    assert all(event.describe() for event in events)


def test_launch_pass_extra_roll_and_three_sixes_events() -> None:
    state = new_game(["red", "blue"])
    state, events = play(state, 6, 2)
    assert events == [Rolled("red", 6), Launched("red", 2), ExtraRoll("red")]
    state, events = play(state, 6, 2)
    assert events[-1] == ExtraRoll("red") and state.sixes == 2
    state, events = play(state, 6, None)
    assert events == [Rolled("red", 6), ThreeSixes("red", (2,)), TurnPassed("blue")]
    state, events = play(state, 1, None)
    assert events == [Rolled("blue", 1), Passed("blue"), TurnPassed("red")]


@pytest.mark.parametrize(
    "planes, words",
    [
        ({"red": [-1] * 4}, "2, 3 or 4"),
        ({"red": [-1] * 4, "blue": [-1] * 3}, "four progress"),
        ({"red": [-1] * 4, "blue": [-1, -1, -1, 57]}, "four progress"),
        ({"red": [-1] * 4, "blue": [-1, -1, -1, -2]}, "four progress"),
        ({"red": [-1] * 4, "pink": [-1] * 4}, "pink"),
        ({"red": [-1] * 4, "yellow": [-1] * 4, "green": [-1] * 4, "blue": [-1] * 4}, "clockwise"),
    ],
)
def test_setup_position_rejects_nonsense(planes: dict[str, list[int]], words: str) -> None:
    with pytest.raises(GameSetupError, match=words):
        setup_position(planes)


def test_setup_position_checks_turn_roll_and_ranking() -> None:
    planes = {"red": [56] * 4, "blue": [-1] * 4, "green": [-1] * 4}
    with pytest.raises(GameSetupError, match="ranking"):
        setup_position(planes)
    with pytest.raises(GameSetupError, match="finished"):
        setup_position(planes, ranking=["red"], turn="red")
    with pytest.raises(GameSetupError, match="roll"):
        setup_position(planes, ranking=["red"], turn="blue", roll=7)
    with pytest.raises(GameSetupError, match="turn"):
        setup_position(planes, ranking=["red"], turn="yellow")
    state = setup_position(planes, Rules.preset("traditional"), ranking=["red"], turn="blue")
    assert state.colour == "blue"


def test_new_game_by_count_uses_the_default_colours() -> None:
    assert new_game(2).players == ("red", "blue")
    assert new_game(3).players == ("red", "yellow", "blue")
    assert new_game(4).players == ("red", "yellow", "blue", "green")
    for bad in (1, 5, True):
        with pytest.raises(GameSetupError):
            new_game(bad)


def test_states_are_values() -> None:
    """Two games in the same position are equal and hash alike (a state can key a cache),
    and any difference makes them unequal."""
    a = new_game(2)
    b = new_game(2)
    assert a == b and hash(a) == hash(b)
    assert roll(a, 6)[0] != a and roll(a, 6)[0] == roll(b, 6)[0]
    assert new_game(3) != a


def test_play_out_plays_stops_and_checks() -> None:
    import random as stdlib_random

    from flyingchess.engine.game import IllegalMoveError, Turn, play_out

    dice = stdlib_random.Random(4)
    asked: list[int] = []

    def first(state: Any, roll: int, moves: tuple[int, ...]) -> int:
        asked.append(len(moves))
        return moves[0]

    seen: list[Turn] = []
    final, rolls = play_out(new_game(2), first, lambda: dice.randint(1, 6), watch=seen.append, checked=True)
    assert final.over and rolls == len(seen) and seen[-1].after == final
    assert all(turn.events and turn.events[0].kind == "roll" for turn in seen)
    assert min(asked) == 1  # asked with a single move too, by default
    asked.clear()
    play_out(new_game(2), first, lambda: dice.randint(1, 6), ask_forced=False)
    assert min(asked) >= 2
    # stop when blue is to move: the state returned waits for blue's move
    stopped, rolls = play_out(new_game(2), first, lambda: 6, until=lambda state, roll: state.turn == 1)
    assert stopped.turn == 1 and stopped.roll == 6 and rolls > 0
    one, rolls = play_out(new_game(2), first, lambda: 3, actions=1)
    assert rolls == 1 and one.turn == 1  # a 3 launches nothing: red passes
    with pytest.raises(IllegalMoveError):
        play_out(new_game(2), lambda state, roll, moves: 9, lambda: 6, checked=True)
    with pytest.raises(RuntimeError, match="did not end"):
        play_out(new_game(2), first, lambda: 1, max_rolls=50)


def test_one_step_takes_the_die_at_a_chance_node_and_a_plane_otherwise() -> None:
    """`step`, OpenSpiel's one action: a whole game played through it alone is the game
    `play_out` plays with the same dice and choices, event for event."""
    from flyingchess import is_chance, step
    from flyingchess.engine.game import Turn, play_out

    rng = random.Random(7)
    faces = [rng.randint(1, 6) for _ in range(3000)]
    picks = [rng.random() for _ in range(3000)]
    turns: list[Turn] = []
    dice, choice = iter(faces), iter(picks)
    final, rolls = play_out(
        new_game(4),
        lambda _, __, moves: moves[int(next(choice) * len(moves))],
        lambda: next(dice),
        watch=turns.append,
        checked=True,
    )
    state = new_game(4)
    for turn in turns:
        assert is_chance(state)
        rolled, events = step(state, turn.roll)
        assert not is_chance(rolled) and rolled.roll == turn.roll
        state, more = step(rolled, turn.plane)
        assert events + more == turn.events and state == turn.after
    assert state == final and state.over and not is_chance(state) and rolls == len(turns)
    with pytest.raises(IllegalMoveError, match="must show a face"):
        step(new_game(2), None)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        step(final, 3)
