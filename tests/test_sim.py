"""The simulator: statistics on known cases, seat rotation, reproducibility across --jobs."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from flyingchess import Rules, setup_position
from flyingchess.simulation.games import GameResult, finishing_places, lineup_for, run_games
from flyingchess.simulation.statistics import bradley_terry, summarise, wilson_interval


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_seats_rotate_so_every_bot_sits_everywhere() -> None:
    bots = ["a", "b", "c"]
    seen = {seat: [lineup_for(bots, i)[seat] for i in range(3)] for seat in range(3)}
    assert all(sorted(names) == bots for names in seen.values())
    assert lineup_for(bots, 0) == ("a", "b", "c") and lineup_for(bots, 1) == ("c", "a", "b")


def test_finishing_places_rank_unfinished_players_by_progress() -> None:
    state = setup_position(
        {"red": [56] * 4, "yellow": [10, 10, -1, -1], "blue": [30, 0, -1, -1], "green": [20, 0, -1, -1]},
        ranking=["red"],
        turn="yellow",
    )
    # yellow 10+10-1-1 = 18, blue 30+0-1-1 = 28, green 20+0-1-1 = 18: yellow and green tie
    assert finishing_places(state) == (1.0, 3.5, 2.0, 3.5)


def test_summary_of_known_results() -> None:
    results = [
        GameResult(0, ("x", "y"), (1.0, 2.0), 100),
        GameResult(1, ("y", "x"), (1.0, 2.0), 50),
        GameResult(2, ("x", "y"), (1.0, 2.0), 30),
    ]
    data = summarise(results).to_json()
    assert data["games"] == 3
    assert data["bots"]["x"]["wins"] == 2 and data["bots"]["y"]["wins"] == 1
    assert data["bots"]["x"]["win_rate"] == pytest.approx(0.6667, abs=1e-4)
    assert data["bots"]["x"]["mean_place"] == pytest.approx(4 / 3, abs=1e-3)
    assert data["bots"]["x"]["mean_rolls"] == 60.0


def test_bradley_terry_on_known_cases() -> None:
    even = bradley_terry({("a", "b"): 5, ("b", "a"): 5}, ["a", "b"])
    assert even["a"] == pytest.approx(0.0, abs=1e-6) and even["b"] == pytest.approx(0.0, abs=1e-6)
    skewed = bradley_terry({("a", "b"): 3, ("b", "a"): 1}, ["a", "b"])
    # with half a pseudo-win each way: 3.5 to 1.5
    assert skewed["a"] - skewed["b"] == pytest.approx(400 * math.log10(3.5 / 1.5), abs=0.5)


@pytest.mark.parametrize("bots", [["heuristic", "random"], ["random", "random", "heuristic"]])
def test_results_do_not_depend_on_the_number_of_processes(bots: list[str]) -> None:
    rules = Rules.preset("house")
    one = list(run_games(rules, bots, 24, seed=5, jobs=1, chunk=5))
    two = list(run_games(rules, bots, 24, seed=5, jobs=2, chunk=5))
    assert one == two
    assert [r.index for r in one] == list(range(24))
    other_seed = list(run_games(rules, bots, 24, seed=6, jobs=1))
    assert other_seed != one


def test_unknown_bot_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        list(run_games(Rules.preset(), ["heuristic", "nobody"], 2, seed=1))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flyingchess", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_simulate_cli_json_and_plot(tmp_path: Path) -> None:
    plot = tmp_path / "rates.png"
    result = run(
        "simulate",
        "--bots",
        "heuristic,random,random,random",
        "--games",
        "40",
        "--jobs",
        "2",
        "--json",
        "--plot",
        str(plot),
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout.splitlines()[0])
    assert data["games"] == 40 and set(data["bots"]) == {"heuristic", "random"}
    assert data["bots"]["random"]["games"] == 120
    for stats in data["bots"].values():
        assert stats["ci95"][0] <= stats["win_rate"] <= stats["ci95"][1]
    assert data["games_per_second"] > 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = run("simulate", "--bots", "heuristic,random,random,random", "--games", "40", "--jobs", "1", "--json")
    assert json.loads(again.stdout)["bots"] == data["bots"]


def test_simulate_and_tournament_reject_bad_arguments() -> None:
    for args in (
        ["simulate", "--bots", "heuristic,random,random,random,random"],
        ["simulate", "--bots", "heuristic,ghost"],
        ["simulate", "--bots", "random,random", "--rules", "nope"],
        ["tournament", "--bots", "random"],
    ):
        result = run(*args)
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr


def test_demo_and_simulate_read_one_bot_name_alike_every_seat_plays_it() -> None:
    simulated = run("simulate", "--bots", "random", "--games", "5", "--jobs", "1", "--json")
    assert simulated.returncode == 0, simulated.stderr
    data = json.loads(simulated.stdout)
    assert list(data["bots"]) == ["random"] and data["bots"]["random"]["games"] == 20  # 5 games, 4 seats each
    demo = run("demo", "--bots", "random")
    assert demo.stdout.splitlines()[0].startswith(
        "flyingchess demo: red (random), yellow (random), blue (random), green (random)"
    )
    for command in ("demo", "simulate"):
        refused = run(command, "--bots", "random,random,random,random,random")
        assert refused.returncode == 2 and refused.stderr.startswith("--bots: name one bot for every seat")


def test_tournament_rates_heuristic_above_random() -> None:
    result = run("tournament", "--bots", "random,heuristic", "--games", "60", "--bootstrap", "20", "--json")
    assert result.returncode == 0, result.stderr
    ratings = {entry["bot"]: entry for entry in json.loads(result.stdout)["ratings"]}
    assert ratings["heuristic"]["rating"] > ratings["random"]["rating"]
    assert ratings["heuristic"]["ci95"][0] <= ratings["heuristic"]["rating"] <= ratings["heuristic"]["ci95"][1]
