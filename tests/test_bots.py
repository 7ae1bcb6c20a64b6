"""The bot interface on every registered bot, and the heuristic bot's order of preference."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from flyingchess import PRESETS, Rules, apply, legal_moves, new_game, roll, setup_position
from flyingchess.bots import BOTS, bot_names, make_bot


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BOTS))
@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_bot_plays_legal_moves_to_the_end(name: str, preset: str, players: int) -> None:
    rng = random.Random(7)
    bot = make_bot(name, seed=1)
    state = new_game(players, Rules.preset(preset))
    passes = 0
    while not state.over:
        state, _ = roll(state, rng.randint(1, 6))
        plane = bot.choose(state)
        moves = legal_moves(state)
        assert (plane is None) == (not moves)
        passes += plane is None
        state, _ = apply(state, plane)
    assert passes > 0


def test_the_random_bot_follows_its_seed() -> None:
    state = setup_position({"red": [3, 10, 20, -1], "blue": [-1] * 4}, roll=6)

    def choices(seed: int) -> list[int | None]:
        bot = make_bot("random", seed=seed)
        return [bot.choose(state) for _ in range(40)]

    assert choices(9) == choices(9)  # the same seed, the same choices
    assert choices(9) != choices(10)  # another seed, other choices (40 picks among 4)
    assert len(set(choices(9))) > 1


@pytest.mark.parametrize("name", [name for name in BOTS if name != "random"])
def test_the_other_bots_choose_the_same_whatever_the_seed(name: str) -> None:
    state = setup_position({"red": [3, 10, 20, -1], "blue": [12, -1, 40, -1]}, roll=6)
    assert len({make_bot(name, seed).choose(state) for seed in (None, 1, 2, 99)}) == 1


def test_registry_lists_weakest_first_and_rejects_unknown_names() -> None:
    assert bot_names()[:2] == ["random", "heuristic"]
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        make_bot("nobody")


def choose(planes: dict[str, list[int]], value: int, rules: Rules = Rules.preset("classic")) -> int | None:
    return make_bot("heuristic").choose(setup_position(planes, rules, roll=value))


def test_heuristic_prefers_capture_then_special_then_launch_then_furthest() -> None:
    # blue 14 is ring cell 26 + 13 = 39 = red progress 40: red 37 + 3 lands there (capture).
    # red 1 + 3 = 4 and red 20 + 3 = 23: plain; red 3 + 3 = 6 jumps (special).
    planes = {"red": [1, 37, 3, 20], "blue": [14, -1, -1, -1]}
    assert choose(planes, 3) == 1
    # without the blue plane: the jump wins
    assert choose({"red": [1, 37, 3, 20], "blue": [-1] * 4}, 3) == 2
    # a 6 with a hangar plane and no capture or special move: launch (plane 3)
    assert choose({"red": [3, 30, 11, -1], "blue": [-1] * 4}, 6) == 3
    # otherwise the furthest plane: 30 + 5 = 35 (not own cell)
    assert choose({"red": [3, 30, 11, -1], "blue": [-1] * 4}, 5) == 1


def test_heuristic_ties_go_to_largest_progress_then_lowest_index() -> None:
    # both 2 and 10 jump with a 4 (6 and 14 are own cells): the one at 10 wins
    assert choose({"red": [2, 10, -1, -1], "blue": [-1] * 4}, 4) == 1
    # two planes on one cell (no stacking): lowest index
    assert choose({"red": [-1, 20, 20, -1], "blue": [-1] * 4}, 1) == 1
    # two launches: lowest index
    assert choose({"red": [-1, 5, -1, -1], "blue": [-1] * 4}, 6) == 0


def test_heuristic_judges_by_what_the_move_really_does() -> None:
    # red 15 + 3 = 18: the pad. Classic: flies to 30. Blue 53 is the crossing cell.
    # With flight_capture the flight is a capture; with classic it is only special.
    planes = {"red": [15, 40, -1, -1], "blue": [53, -1, -1, -1]}
    assert choose(planes, 3, Rules.preset("classic")) == 0
    # red 40 + 3 = 43 is not special; so plane 0 wins either way, but check the capture:
    # blue 4 is ring cell 29 = red progress 30: under capture final, the flight lands on it.
    assert choose({"red": [40, 15, -1, -1], "blue": [4, -1, -1, -1]}, 3) == 1


def test_a_bot_whose_extra_is_missing_is_listed_and_refused_clearly(tmp_path: Path) -> None:

    from flyingchess.bots import BOTS, BotInfo, BotUnavailable, bot_listing, make_bot, register

    from asgi import app_client

    register(
        BotInfo(
            "needs-extra",
            1,
            "a test bot",
            lambda seed: make_bot("random", seed),
            needs=("no_such_module_for_flyingchess",),
            extra="rl",
        )
    )
    try:
        assert bot_listing("needs-extra") == {
            "name": "needs-extra",
            "level": 1,
            "level_name": None,
            "description": "a test bot",
            "available": False,
            "extra": "rl",
        }
        with pytest.raises(BotUnavailable, match=r"pip install 'flyingchess\[rl\]'"):
            make_bot("needs-extra")
        with app_client(tmp_path / "games.sqlite3", seed=1) as client:
            listed = {bot["name"]: bot for bot in client.get("/api/meta").json()["bots"]}
            assert listed["needs-extra"]["available"] is False
            seats = {"red": {"kind": "bot", "bot": "needs-extra"}, "blue": {"kind": "human"}}
            refused = client.post("/api/games", json={"players": ["red", "blue"], "seats": seats})
            assert refused.status_code == 400 and "flyingchess[rl]" in refused.json()["error"]["message"]
    finally:
        del BOTS["needs-extra"]
