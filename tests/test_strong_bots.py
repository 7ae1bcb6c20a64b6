"""The evaluation-based bots (greedy, expectimax): legal under every rule option and player
count, deterministic, passing when they must, and sensible in hand-made positions."""

from __future__ import annotations

import random

import pytest

from flyingchess import PRESETS, Rules, apply, legal_moves, new_game, roll, setup_position
from flyingchess.bots import BOTS, make_bot
from flyingchess.bots.evaluation import Evaluator
from flyingchess.engine.compiled import move_table
from flyingchess.engine.rules import CHOICES

STRONG = ["greedy", "expectimax"]


def test_strong_bots_are_registered_above_the_heuristic() -> None:
    assert [BOTS[name].level for name in STRONG] == [2, 3]
    assert all(BOTS[name].level > BOTS["heuristic"].level for name in STRONG)


def play_out(name: str, rules: Rules, players: int, seed: int) -> int:
    """Plays a whole game with the bot in every seat; returns the number of passes."""
    rng = random.Random(seed)
    bot = make_bot(name, seed)
    state = new_game(players, rules)
    passes = 0
    while not state.over:
        state, _ = roll(state, rng.randint(1, 6))
        plane = bot.choose(state)
        moves = legal_moves(state)
        if moves:
            assert plane in moves
        else:
            assert plane is None
            passes += 1
        state, _ = apply(state, plane)
    return passes


@pytest.mark.slow
@pytest.mark.parametrize("name", STRONG)
@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_strong_bots_play_every_preset_and_player_count(name: str, preset: str, players: int) -> None:
    assert play_out(name, Rules.preset(preset), players, seed=players) > 0


def option_variants() -> list[Rules]:
    """Every value of every option on top of classic, plus a few random mixtures."""
    variants = []
    for option, values in CHOICES.items():
        variants += [Rules.preset("classic", **{option: value}) for value in values]
    variants += [
        Rules.preset("classic", flight_capture=True),
        Rules.preset("classic", launch=[1, 3, 5]),
        Rules.preset("classic", extra_roll=[]),
        Rules.preset("classic", extra_roll=[1, 6]),
    ]
    rng = random.Random(3)
    for _ in range(8):
        variants.append(
            Rules.preset(
                "classic",
                launch=rng.sample(range(1, 7), rng.randint(1, 3)),
                extra_roll=rng.sample(range(1, 7), rng.randint(0, 2)),
                flight_capture=rng.random() < 0.5,
                **{option: rng.choice(values) for option, values in CHOICES.items()},
            )
        )
    return variants


@pytest.mark.slow
@pytest.mark.parametrize("name", STRONG)
@pytest.mark.parametrize("index", range(len(option_variants())))
def test_strong_bots_play_every_rule_option(name: str, index: int) -> None:
    play_out(name, option_variants()[index], players=2 + index % 3, seed=11)


@pytest.mark.slow
@pytest.mark.parametrize("name", STRONG)
def test_strong_bots_are_deterministic(name: str) -> None:
    rng = random.Random(5)
    state = new_game(4, Rules.preset("house"))
    for _ in range(200):
        state, _ = roll(state, rng.randint(1, 6))
        picks = {make_bot(name, seed).choose(state) for seed in (1, 1, 2, None)}
        assert len(picks) == 1
        state, _ = apply(state, picks.pop())
        if state.over:
            break


@pytest.mark.parametrize("name", STRONG)
def test_strong_bots_pass_when_nothing_can_move(name: str) -> None:
    # all planes in the hangar and no launching face
    assert make_bot(name).choose(setup_position({"red": [-1] * 4, "blue": [-1] * 4}, roll=3)) is None
    # a third six under last-moved forbids any move
    third_six = setup_position({"red": [10, -1, -1, -1], "blue": [-1] * 4}, roll=6, sixes=2, last_moved=[0])
    assert make_bot(name).choose(third_six) is None
    # exact finish: 52 + 5 overshoots
    assert make_bot(name).choose(setup_position({"red": [52, 56, 56, 56], "blue": [-1] * 4}, roll=5)) is None


def test_capture_chance_counts_the_faces_that_hit() -> None:
    evaluator = Evaluator()
    # blue 47 (ring cell 20) is two cells behind red 23 (ring cell 22): only the face 2 hits; a 6 (extra roll, no hit) rolls again: chance 1 / (6 - 1).
    after_red = setup_position({"red": [23, 40, -1, -1], "blue": [47, -1, -1, -1]}, turn="blue")
    assert evaluator.capture_chances(after_red)[0] == pytest.approx([0.2, 0, 0, 0])
    no_extra = Rules.preset("classic", extra_roll=[])
    after_red = setup_position({"red": [23, 40, -1, -1], "blue": [47, -1, -1, -1]}, no_extra, turn="blue")
    assert evaluator.capture_chances(after_red)[0] == pytest.approx([1 / 6, 0, 0, 0])


def test_capture_chance_follows_flights_and_capture_options() -> None:
    evaluator = Evaluator()
    # red 15 + 3 lands on the pad and flies: the flight line crosses blue's 53.
    planes = {"red": [15, -1, -1, -1], "blue": [53, -1, -1, -1]}
    assert evaluator.capture_chances(setup_position(planes, Rules.preset("traditional")))[1][0] == pytest.approx(0.2)
    assert evaluator.capture_chances(setup_position(planes, Rules.preset("classic")))[1][0] == 0
    # red 2 + 4 = 6 (the cell of blue 32) jumps to 10 (the cell of blue 36); with
    # capture final only the end counts, with every-stop the cell 6 (blue 32) does as well.
    planes = {"red": [2, -1, -1, -1], "blue": [32, 36, -1, -1]}
    final = evaluator.capture_chances(setup_position(planes, Rules.preset("classic")))[1]
    every_stop = evaluator.capture_chances(setup_position(planes, Rules.preset("classic", capture="every-stop")))[1]
    assert final[0] == 0 and final[1] == pytest.approx(0.2)
    assert every_stop == pytest.approx([0.2, 0.2, 0, 0])


def test_expected_rolls_follow_the_move_table() -> None:
    classic = move_table(Rules.preset("classic")).expected_rolls
    # exact finish: from anywhere within six of the centre one face finishes, so six rolls
    assert classic[51 + 1] == pytest.approx(6) and classic[56 + 1] == 0
    # the hangar needs a 6 first: six rolls more than the takeoff point on average
    assert classic[0] == pytest.approx(classic[1] + 6)
    house = move_table(Rules.preset("house")).expected_rolls
    assert house[0] == pytest.approx(house[1] + 3)


def choose(name: str, planes: dict[str, list[int]], value: int, rules: Rules = Rules.preset("classic")) -> int | None:
    return make_bot(name).choose(setup_position(planes, rules, roll=value))


@pytest.mark.parametrize("name", STRONG)
def test_strong_bots_capture(name: str) -> None:
    # red 20 + 3 = 23 is ring cell 22, where blue 49 stands (nearly home): capture it.
    assert choose(name, {"red": [20, 5, -1, -1], "blue": [49, -1, -1, -1]}, 3) == 0


@pytest.mark.parametrize("name", STRONG)
def test_strong_bots_run_from_danger(name: str) -> None:
    # blue 47 + 2 hits red 23; red 23 + 4 = 27 is out of blue's reach (the heuristic moves 40).
    planes = {"red": [23, 40, -1, -1], "blue": [47, -1, -1, -1]}
    assert choose(name, planes, 4) == 0
    assert choose("heuristic", planes, 4) == 1


@pytest.mark.parametrize("name", STRONG)
def test_strong_bots_do_not_land_in_front_of_an_opponent(name: str) -> None:
    # red 40 + 2 = 42 jumps to 46, two cells in front of blue 19 (blue + 1 = 20 hits it);
    # red 11 + 2 = 13 is safe. The heuristic takes the jump.
    planes = {"red": [11, 40, -1, -1], "blue": [19, -1, -1, -1]}
    assert choose(name, planes, 2) == 0
    assert choose("heuristic", planes, 2) == 1
