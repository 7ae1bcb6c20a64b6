"""Golden records replayed through the real `flyingchess` command (docs/records.md's CLI contract).

The expected traces were written by the independent oracle (tests/records/generate.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from flyingchess.records.record import loads_record

from golden import FEATURES, features_of_record
from oracle import oracle_heuristic
from tiers import first_fast

RECORDS = Path(__file__).parent / "records"
GOLDEN = sorted(RECORDS.glob("*.json"))


def flyingchess(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flyingchess", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_there_are_golden_records() -> None:
    assert len(GOLDEN) >= 6


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_replay_trace_matches_golden(path: Path) -> None:
    expected = [json.loads(line) for line in path.with_suffix(".trace").read_text().splitlines()]
    error = path.with_suffix(".error")
    result = flyingchess("replay", "--trace", str(path))
    assert [json.loads(line) for line in result.stdout.splitlines()] == expected
    if error.exists():
        assert result.returncode == 2
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(error.read_text().strip() + ":")
        assert "Traceback" not in result.stderr
    else:
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        final = flyingchess("replay", str(path))
        assert final.returncode == 0
        assert [json.loads(line) for line in final.stdout.splitlines()] == expected[-1:]


@pytest.mark.parametrize("path", first_fast(GOLDEN, ids=[p.stem for p in GOLDEN]))
def test_replay_reads_standard_input(path: Path) -> None:
    from_file = flyingchess("replay", str(path))
    from_stdin = flyingchess("replay", "-", stdin=path.read_text())
    assert (from_stdin.stdout, from_stdin.returncode) == (from_file.stdout, from_file.returncode)


def test_golden_records_cover_every_special_rule() -> None:
    covered: set[str] = set()
    for path in GOLDEN:
        if not path.with_suffix(".error").exists():
            covered |= features_of_record(loads_record(path.read_text()))
    assert set(FEATURES) - covered == set()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["classic-4p", "traditional-4p", "house-3p"])
def test_choose_heuristic_matches_oracle_along_a_golden_game(name: str, tmp_path: Path) -> None:
    data = json.loads((RECORDS / f"{name}.json").read_text())
    actions = data["actions"]
    for cut in range(0, len(actions), max(1, len(actions) // 8)):
        prefix = dict(data, actions=actions[:cut])
        path = tmp_path / "prefix.json"
        path.write_text(json.dumps(prefix))
        for value in (1, 6):
            result = flyingchess("choose", "--bot", "heuristic", "--roll", str(value), str(path))
            assert result.returncode == 0, result.stderr
            expected = oracle_heuristic(prefix, value)
            assert result.stdout.strip() == ("pass" if expected is None else str(expected))
