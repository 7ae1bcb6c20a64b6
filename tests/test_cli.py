"""The command-line contract of docs/records.md through the real `flyingchess` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flyingchess import Rules

from tiers import first_fast


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flyingchess", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def record(**fields: Any) -> str:
    data: dict[str, Any] = {"format": "flyingchess/1", "players": ["red", "blue"], "actions": []}
    data.update(fields)
    return json.dumps(data)


def assert_one_line_error(result: subprocess.CompletedProcess[str], prefix: str) -> None:
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(prefix), lines[0]
    assert "Traceback" not in result.stderr


INITIAL = {
    "players": ["red", "blue"],
    "turn": "red",
    "sixes": 0,
    "planes": {"red": [-1] * 4, "blue": [-1] * 4},
    "ranking": [],
    "winner": None,
    "over": False,
}


def test_replay_with_no_actions_prints_the_initial_state_and_trace_prints_nothing() -> None:
    result = run("replay", "-", stdin=record())
    assert result.returncode == 0 and json.loads(result.stdout) == INITIAL
    traced = run("replay", "--trace", "-", stdin=record())
    assert traced.returncode == 0 and traced.stdout == ""


def test_replay_example_of_record_md() -> None:
    actions = [{"roll": 6, "plane": 0}, {"roll": 3, "plane": 0}, {"roll": 2, "plane": None}]
    result = run("replay", "--trace", "-", stdin=record(actions=actions))
    states = [json.loads(line) for line in result.stdout.splitlines()]
    assert [s["planes"]["red"] for s in states] == [[0, -1, -1, -1], [3, -1, -1, -1], [3, -1, -1, -1]]
    assert [s["turn"] for s in states] == ["red", "blue", "red"]
    assert [s["sixes"] for s in states] == [1, 0, 0]


@pytest.mark.parametrize(
    "text, words",
    first_fast(
        [
            ("not json", "not valid JSON"),
            ("[1, 2]", "object"),
            (record(format="flyingchess/2"), "format"),
            (json.dumps({"players": ["red", "blue"], "actions": []}), "format"),
            (record(rules="classical"), "classical"),
            (record(rules={"preset": "classic", "chains": "none"}), "chains"),
            (record(rules={"preset": "classic", "chain": "twice"}), "twice"),
            (record(rules={"preset": "classic", "launch": []}), "launch"),
            (record(rules={"preset": "classic", "launch": [0, 6]}), "launch"),
            (record(rules={"finish": "exact"}), "missing"),
            (record(players=["red"]), "players"),
            (record(players=["red", "yellow", "green", "blue"]), "clockwise"),
            (record(players=["red", "purple"]), "purple"),
            (record(players=["red", "red"]), "twice"),
            (record(actions={"roll": 6}), "actions"),
        ]
    ),
)
def test_malformed_records_are_one_line_errors_with_nothing_on_stdout(text: str, words: str) -> None:
    for args in (("replay", "-"), ("replay", "--trace", "-"), ("analyse", "-"), ("analyse", "--json", "-")):
        result = run(*args, stdin=text)
        assert_one_line_error(result, "record: ")
        assert words in result.stderr
        assert result.stdout == ""


@pytest.mark.parametrize(
    "action, words",
    first_fast(
        [
            ({"roll": 7, "plane": None}, "roll 7"),
            ({"roll": 6.0, "plane": 0}, "roll 6.0"),
            ({"roll": True, "plane": 0}, "roll true"),
            ({"roll": 6, "plane": 4}, "plane 4"),
            ({"roll": 6, "plane": True}, "plane true"),
            ({"roll": 6, "plane": "0"}, 'plane "0"'),
            ({"roll": 6}, "plane"),
            ({"plane": None}, "roll"),
            ([6, 0], "object"),
            ({"roll": 6, "plane": None}, "cannot pass"),
            ({"roll": 3, "plane": 1}, "hangar"),
        ]
    ),
)
def test_an_illegal_action_names_its_index(action: Any, words: str) -> None:
    good = [{"roll": 6, "plane": 0}, {"roll": 2, "plane": 0}]
    # red launches and moves 0 -> 2, which jumps to 6; then blue (all in the hangar) rolls 1
    result = run("replay", "--trace", "-", stdin=record(actions=[*good, {"roll": 1, "plane": 1}, action]))
    assert_one_line_error(result, "action 2: ")  # blue cannot move plane 1: it must pass
    fine = run("replay", "--trace", "-", stdin=record(actions=[*good, {"roll": 1, "plane": None}, action]))
    assert_one_line_error(fine, "action 3: ")
    assert words in fine.stderr
    assert len(fine.stdout.splitlines()) == 3
    # analyse refuses the same record with the same line, and prints nothing
    for args in (("analyse", "-"), ("analyse", "--json", "-")):
        analysed = run(*args, stdin=record(actions=[*good, {"roll": 1, "plane": None}, action]))
        assert (analysed.returncode, analysed.stderr, analysed.stdout) == (2, fine.stderr, "")


def test_unknown_keys_are_kept_or_ignored() -> None:
    text = record(actions=[{"roll": 6, "plane": 0, "note": "launch"}], date="2026-11-30", seed=3)
    assert run("replay", "-", stdin=text).returncode == 0


def test_missing_file_is_a_record_error(tmp_path: Path) -> None:
    assert_one_line_error(run("replay", str(tmp_path / "nope.json")), "record: ")


def test_choose_heuristic_prefers_a_capture() -> None:
    # red plane 0 at 3 (ring cell 2); blue plane at 43 is ring cell (26 + 42) % 52 = 16.
    # a 1 from red's 3 reaches 4, nothing; launching needs 6. Build it through a record:
    actions = [
        {"roll": 6, "plane": 0},
        {"roll": 3, "plane": 0},
        {"roll": 6, "plane": 0},
        {"roll": 6, "plane": 0},
        {"roll": 5, "plane": 0},
    ]
    # red 0 -> 3; blue launches (6, extra), moves 6 -> to 6 which jumps to 10, then 5 -> 15.
    text = record(actions=actions)
    state = json.loads(run("replay", "-", stdin=text).stdout)
    assert state["planes"] == {"red": [3, -1, -1, -1], "blue": [15, -1, -1, -1]}
    # blue 15 is ring cell 26 + 14 = 40; red needs progress 41 to stand there: not reachable.
    # With roll 6, red may launch (step 3) or move plane 0 3 -> 9 (step 4): launch wins.
    assert run("choose", "--bot", "heuristic", "--roll", "6", "-", stdin=text).stdout.strip() == "1"
    # With roll 3, plane 0 goes 3 -> 6, an own cell: it jumps to 10 (step 2).
    assert run("choose", "--bot", "heuristic", "--roll", "3", "-", stdin=text).stdout.strip() == "0"
    # With a 5 from an all-hangar position nothing moves.
    assert run("choose", "--bot", "heuristic", "--roll", "5", "-", stdin=record()).stdout.strip() == "pass"


@pytest.mark.parametrize(
    "args, prefix",
    first_fast(
        [
            (("--bot", "heuristic", "--roll", "0"), "roll"),
            (("--bot", "heuristic", "--roll", "7"), "roll"),
            (("--bot", "heuristic", "--roll", "six"), "roll"),
            (("--bot", "grandmaster", "--roll", "3"), "unknown bot"),
        ]
    ),
)
def test_choose_rejects_bad_arguments(args: tuple[str, ...], prefix: str) -> None:
    result = run("choose", *args, "-", stdin=record())
    assert_one_line_error(result, prefix)
    assert result.stdout == ""


def test_choose_rejects_a_record_that_does_not_replay_or_is_over() -> None:
    bad = record(actions=[{"roll": 3, "plane": 0}])
    assert_one_line_error(run("choose", "--bot", "heuristic", "--roll", "3", "-", stdin=bad), "action 0")
    golden = (Path(__file__).parent / "records" / "classic-4p.json").read_text()
    result = run("choose", "--bot", "random", "--roll", "3", "-", stdin=golden)
    assert_one_line_error(result, "the game is over")


def test_choose_random_is_reproducible_with_a_seed() -> None:
    text = record(actions=[{"roll": 6, "plane": 0}, {"roll": 6, "plane": 1}])
    # red launched two planes with two sixes; a 3 moves either of them
    picks = {run("choose", "--bot", "random", "--seed", "5", "--roll", "3", "-", stdin=text).stdout for _ in range(3)}
    assert len(picks) == 1 and picks.pop().strip() in {"0", "1"}
    # a third six forbids any move (classic: three_sixes last-moved)
    third = run("choose", "--bot", "random", "--seed", "5", "--roll", "6", "-", stdin=text)
    assert third.stdout.strip() == "pass"


def test_demo_plays_a_whole_game_and_saves_a_replayable_record(tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    result = run("demo", "--seed", "4", "--rules", "traditional", "--save", str(saved))
    assert result.returncode == 0, result.stderr
    assert "game over" in result.stdout
    final = json.loads(run("replay", str(saved)).stdout)
    assert final["over"] is True
    assert final["ranking"][0] in result.stdout.splitlines()[-2]


def test_demo_rejects_bad_rules_and_bots() -> None:
    assert_one_line_error(run("demo", "--rules", "fast"), "--rules")
    assert_one_line_error(run("demo", "--bots", "heuristic,nobody"), "unknown bot")
    assert_one_line_error(run("demo", "--players", "red,red"), "--players: ")


def test_bench_prints_figures_as_json() -> None:
    result = run("bench", "--games", "20", "--json")
    figures = json.loads(result.stdout)
    assert figures["games"] == 20 and figures["games_per_second"] > 0


def test_bots_lists_weakest_first() -> None:
    listing = json.loads(run("bots", "--json").stdout)
    assert [entry["name"] for entry in listing][:2] == ["random", "heuristic"]
    assert [entry["level"] for entry in listing] == sorted(entry["level"] for entry in listing)


def test_rules_prints_every_preset() -> None:
    lines = run("rules").stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["classic", "traditional", "house", "even"]
    assert Rules.from_json(json.loads(lines[2].split(": ", 1)[1])) == Rules.preset("house")


def test_unknown_command_is_one_line() -> None:
    assert_one_line_error(run("fly"), "flyingchess: ")


def test_play_reports_a_database_that_cannot_be_opened(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "games.sqlite3").write_bytes(b"garbage" * 1000)
    result = run("play", "--no-browser", "--data", str(corrupt))
    assert_one_line_error(result, "flyingchess: cannot open the games database")
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    assert_one_line_error(run("play", "--no-browser", "--data", str(blocked)), "flyingchess: cannot open")
    assert_one_line_error(run("play", "--port", "70000"), "--port 70000")


# The runner below calls the same `main` as `python -m flyingchess`, but with the simulator's
# `run_games` replaced by one that stops the process, so a test can tell that an argument
# was refused before any game started; `missing` hides installed modules (sys.modules[name]
# = None makes both `import name` and `find_spec(name)` behave as if it were not installed).
GUARDED = """
import sys
for name in sys.argv[1].split(","):
    if name:
        sys.modules[name] = None
import flyingchess.simulation.games

def run_games(*args, **kwargs):
    raise SystemExit("the games started before the arguments were checked")

flyingchess.simulation.games.run_games = run_games
from flyingchess.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


def run_guarded(
    *args: str, missing: tuple[str, ...] = (), stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", GUARDED, ",".join(missing), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_refused(result: subprocess.CompletedProcess[str], prefix: str) -> None:
    """One line naming the option, nothing on stdout (so nothing was played)."""
    assert_one_line_error(result, prefix)
    assert "Traceback" not in result.stdout
    assert result.stdout == ""


@pytest.mark.parametrize("delay", first_fast(["-1", "-0.5", "nan", "inf"]))
def test_demo_refuses_a_delay_that_is_not_zero_or_more_seconds(delay: str) -> None:
    assert_refused(run("demo", "--delay", delay), "--delay must be")


def test_demo_save_is_checked_before_the_game_is_played(tmp_path: Path) -> None:
    missing = tmp_path / "some" / "missing" / "folder" / "game.json"
    result = run("demo", "--save", str(missing))
    assert_refused(result, "--save: ")
    assert "does not exist" in result.stderr
    assert not (tmp_path / "some").exists()
    assert_refused(run("demo", "--save", str(tmp_path)), "--save: ")  # a folder, not a file
    assert list(tmp_path.iterdir()) == []
    # the check leaves no file behind when a later check fails ...
    fresh = tmp_path / "fresh.json"
    assert_refused(run("demo", "--save", str(fresh), "--players", "red,red"), "--players: ")
    assert not fresh.exists()
    # ... and does not touch a file that is already there
    kept = tmp_path / "kept.json"
    kept.write_text("an earlier game\n")
    assert_refused(run("demo", "--save", str(kept), "--players", "red,red"), "--players: ")
    assert kept.read_text() == "an earlier game\n"


@pytest.mark.parametrize(
    "args, prefix",
    first_fast(
        [
            (("--bots", "random,random,random,random,random"), "--bots: "),
            (("--bots", "heuristic,"), "--bots: "),
            (("--bots", ","), "--bots: "),
            (("--players", "junk"), "--players: "),
            (("--players", "red,,blue"), "--players: "),
        ]
    ),
)
def test_demo_errors_name_the_option(args: tuple[str, ...], prefix: str) -> None:
    assert_refused(run("demo", *args), prefix)


@pytest.mark.parametrize("games", first_fast(["0", "-3"]))
def test_tournament_refuses_fewer_than_one_game_a_pair(games: str) -> None:
    result = run_guarded("tournament", "--bots", "random,heuristic", "--games", games)
    assert_refused(result, "--games must be at least 1")


@pytest.mark.parametrize(
    "bots, twice",
    first_fast(
        [
            ("heuristic,heuristic", "heuristic"),
            ("random,heuristic, random", "random"),
        ]
    ),
)
def test_tournament_refuses_a_bot_named_twice(bots: str, twice: str) -> None:
    result = run_guarded("tournament", "--bots", bots)
    assert_refused(result, "--bots: ")
    assert f"{twice!r} is named twice" in result.stderr


def test_tournament_refuses_an_empty_bot_list() -> None:
    # `--bots ""` used to mean every bot, silently
    assert_refused(run_guarded("tournament", "--bots", ""), "--bots: ")


@pytest.mark.parametrize(
    "command", [["simulate", "--bots", "random,random"], ["tournament", "--bots", "random,heuristic"]]
)
@pytest.mark.parametrize("jobs", first_fast(["0", "-1"]))
def test_jobs_must_be_at_least_one(command: list[str], jobs: str) -> None:
    result = run_guarded(*command, "--jobs", jobs)
    assert_refused(result, "--jobs must be at least 1")


def test_simulate_without_jobs_uses_every_core() -> None:
    result = run("simulate", "--bots", "random,random", "--games", "4")
    assert result.returncode == 0, result.stderr
    cores = os.cpu_count() or 1
    assert f"on {cores} process" in " ".join(result.stdout.split())
    assert "all cores" in run("simulate", "--help").stdout
    assert "all cores" in run("tournament", "--help").stdout


def test_tournament_refuses_a_negative_bootstrap_and_allows_none() -> None:
    result = run_guarded("tournament", "--bots", "random,heuristic", "--bootstrap", "-1")
    assert_refused(result, "--bootstrap must be at least 0")
    none = run("tournament", "--bots", "random,heuristic", "--games", "4", "--bootstrap", "0", "--jobs", "1", "--json")
    assert none.returncode == 0, none.stderr
    for entry in json.loads(none.stdout)["ratings"]:
        assert entry["ci95"] == [entry["rating"], entry["rating"]]


@pytest.mark.slow
def test_simulate_plot_is_checked_before_the_games(tmp_path: Path) -> None:
    simulate = ("simulate", "--bots", "random,random", "--games", "100000")
    missing = tmp_path / "missing" / "rates.png"
    result = run_guarded(*simulate, "--plot", str(missing))
    assert_refused(result, "--plot: ")
    assert "does not exist" in result.stderr
    assert_refused(run_guarded(*simulate, "--plot", str(tmp_path)), "--plot: ")
    # the format comes from the extension: one matplotlib cannot write, or none, is refused first
    assert_refused(run_guarded(*simulate, "--plot", str(tmp_path / "rates.xyz")), "--plot: ")
    assert ".xyz is not an image format" in run_guarded(*simulate, "--plot", str(tmp_path / "rates.xyz")).stderr
    assert_refused(run_guarded(*simulate, "--plot", str(tmp_path / "rates")), "--plot: ")
    assert "has no extension" in run_guarded(*simulate, "--plot", str(tmp_path / "rates")).stderr
    plot = tmp_path / "rates.png"
    result = run_guarded(*simulate, "--plot", str(plot), missing=("matplotlib",))
    assert_refused(result, "--plot needs matplotlib: pip install 'flyingchess[sim]'")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "command",
    first_fast(
        [
            ["demo", "--bots", "learned,random"],
            ["simulate", "--bots", "learned,random"],
            ["tournament", "--bots", "random,learned"],
            ["choose", "--bot", "learned", "--roll", "6", "-"],
        ]
    ),
)
def test_a_bot_whose_extra_is_missing_names_the_extra(command: list[str]) -> None:
    result = run_guarded(*command, missing=("numpy",), stdin=record())
    assert_refused(result, "bot 'learned' needs NumPy: pip install 'flyingchess[rl]'")


def test_without_numpy_the_network_bots_are_listed_with_their_extra_and_others_still_play() -> None:
    listing = json.loads(run_guarded("bots", "--json", missing=("numpy",)).stdout)
    for name in ("learned", "ace"):
        entry = next(entry for entry in listing if entry["name"] == name)
        assert entry["available"] is False and entry["extra"] == "rl"
    assert all(entry["available"] for entry in listing if entry["name"] not in ("learned", "ace"))
    assert_refused(
        run_guarded("analyse", "-", missing=("numpy",), stdin=record()),
        "analyse uses the ace bot's network: bot 'ace' needs NumPy: pip install 'flyingchess[rl]'",
    )
    assert "flyingchess[rl]" in run_guarded("bots", missing=("numpy",)).stdout
    assert_refused(run_guarded("demo", "--bots", "learner", missing=("numpy",)), "unknown bot 'learner'")
    played = run_guarded("choose", "--bot", "heuristic", "--roll", "6", "-", missing=("numpy",), stdin=record())
    assert played.returncode == 0 and played.stdout.strip() == "0"


@pytest.mark.slow
@pytest.mark.server
def test_play_on_a_machine_without_a_browser_says_so_after_the_address(tmp_path: Path) -> None:
    """No DISPLAY, no BROWSER and nothing on PATH that can show a page (a server over
    SSH): `play` prints the address, then says to open it elsewhere, and keeps serving."""
    empty = tmp_path / "bin"
    empty.mkdir()
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "PATH", "TERM")
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "flyingchess", "play", "--port", "0", "--data", str(tmp_path / "data")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment | {"PATH": str(empty)},
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("flyingchess is running at http://127.0.0.1:"), first
        address = first.split()[4]
        assert process.stdout.readline().strip() == (
            f"no web browser found on this machine: open {address} in a browser yourself"
        )
        assert process.poll() is None  # still serving
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_migrate_and_serve_options_that_cannot_work_are_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "games.sqlite3").write_bytes(b"")
    # PostgreSQL's driver missing: the extra to install, not a traceback
    result = run_guarded("migrate", "--data", str(data), "--to", "postgresql://127.0.0.1:1/x", missing=("psycopg",))
    assert_refused(result, "migrate: --to needs the cluster extra (psycopg is missing)")
    # the target is checked before the source
    assert_refused(run("migrate", "--data", str(tmp_path / "none"), "--to", "sqlite:///x"), "migrate: --to must be")
    # a lease without Redis means nothing; a data folder that is a file is said so
    assert_one_line_error(run("serve", "--lease-seconds", "5"), "--lease-seconds is the lease on a room held in Redis")
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    assert_one_line_error(
        run("serve", "--port", "0", "--data", str(a_file)), f"flyingchess: cannot open the games database {a_file}"
    )
    assert f"{a_file} is a file, not a folder" in run("serve", "--port", "0", "--data", str(a_file)).stderr


@pytest.mark.slow
def test_simulate_json_stays_json_with_a_plot(tmp_path: Path) -> None:
    plot = tmp_path / "rates.svg"
    result = run("simulate", "--bots", "random", "--games", "4", "--jobs", "1", "--json", "--plot", str(plot))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["games"] == 4  # nothing after the JSON on standard output
    assert result.stderr.strip() == f"plot written to {plot}"
    assert plot.read_text().lstrip().startswith("<?xml")
