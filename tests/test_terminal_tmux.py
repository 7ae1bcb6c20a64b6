"""The terminal game in a real terminal, as a person plays it: `flyingchess play
--terminal` in a tmux window of 80 x 24, keys sent, the screen read back (tmux is
Debian's `tmux`; CI installs it). A whole game to the end in each language."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from flyingchess.clients.terminal.words import LANGUAGES, Words

pytestmark = [pytest.mark.slow, pytest.mark.server]


@pytest.fixture()
def tmux(tmp_path: Path) -> Iterator[list[str]]:
    if shutil.which("tmux") is None:
        if os.environ.get("FLYINGCHESS_REQUIRE_SERVICES"):
            pytest.fail("tmux is not installed (apt-get install tmux)")
        pytest.skip("tmux is not installed")
    # a tmux server of its own for each test: the last test's server may still be exiting
    # after its kill-server, and a new session on its socket fails ("server exited unexpectedly")
    command = ["tmux", "-L", f"flyingchess-{os.getpid()}-{uuid.uuid4().hex[:8]}", "-f", "/dev/null"]
    yield command
    subprocess.run([*command, "kill-server"], capture_output=True)


def screen(tmux: list[str]) -> str:
    return subprocess.run([*tmux, "capture-pane", "-p", "-t", "game"], capture_output=True, text=True).stdout


def keys(tmux: list[str], *sent: str) -> None:
    subprocess.run([*tmux, "send-keys", "-t", "game", *sent], check=True)


def wait_for(tmux: list[str], text: str, seconds: float = 20) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        shown = screen(tmux)
        if text in shown:
            return shown
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared; the screen:\n{screen(tmux)}")


def choose(tmux: list[str], *moves: str, row: str, wanted: str) -> None:
    """Move the focus to a row of the new game (↑↓), then → until it shows `wanted`."""
    keys(tmux, *moves)
    for _ in range(12):
        time.sleep(0.15)
        line = next(line for line in screen(tmux).splitlines() if line.strip().startswith(row))
        if wanted in line:
            return
        keys(tmux, "Right")
    raise AssertionError(f"{row} never showed {wanted!r}:\n{screen(tmux)}")


WHOLE_GAMES = ("en", "zh", "hi", "ar")
"""A whole game in a real terminal in one language of each script (Latin, Han, Devanagari,
Arabic from right to left); in the other languages, the game's first 40 actions and a
game left from the middle (tests/test_terminal.py plays whole games in Textual's pilot)."""


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_game_played_in_a_real_terminal(tmux: list[str], tmp_path: Path, language: str) -> None:
    words = Words(language)
    presses = None if language in WHOLE_GAMES else 40
    done = tmp_path / "exit"
    command = (
        f"{sys.executable} -m flyingchess play --terminal --data {tmp_path / 'data'} --lang {language};"
        f" echo $? > {done}; sleep 5"
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "game", "-x", "80", "-y", "24", "-e", "TERM=xterm-256color", command],
        check=True,
    )
    wait_for(tmux, words("home.new-game"))
    keys(tmux, "n")
    wait_for(tmux, f"{words.colour('blue')} (B)")  # the new game's seats
    choose(tmux, "Down", "Down", row=f"{words.colour('blue')} (B)", wanted=words("setup.not-playing"))
    choose(tmux, "Down", row=f"{words.colour('green')} (G)", wanted=words("setup.not-playing"))
    choose(tmux, "Down", "Down", row=words("game.speed"), wanted=words("speed.instant"))
    keys(tmux, "s")
    wait_for(tmux, words("term.hint-roll", player=words.colour("red")))
    shown = screen(tmux)
    assert "R1" in shown and "Y4" in shown and "B1" not in shown
    first = shown
    winners = [words("end.wins", player=words.colour(colour)) for colour in ("red", "yellow")]
    deadline = time.monotonic() + 240
    while not any(winner in (shown := screen(tmux)) for winner in winners):
        assert time.monotonic() < deadline, shown
        assert "Traceback" not in shown
        if presses is not None:
            if presses == 0:
                assert shown != first, "40 actions changed nothing on the screen"
                break  # left from the middle of the game: q goes home, as after its end
            presses -= 1
        keys(tmux, "Enter")
        time.sleep(0.08)
    keys(tmux, "q")
    wait_for(tmux, words("home.new-game"))
    keys(tmux, "q")
    deadline = time.monotonic() + 20
    while not done.exists():
        assert time.monotonic() < deadline, screen(tmux)
        time.sleep(0.1)
    assert done.read_text().strip() == "0"
