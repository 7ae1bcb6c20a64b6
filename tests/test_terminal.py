"""The terminal game (docs/terminal.md): the board's picture and the words without a
terminal; the app driven by Textual's pilot over a real local server (a uvicorn thread
over a SQLite file, as `flyingchess play --terminal` starts one); the commands' bad input.
tests/test_terminal_tmux.py plays it in a real terminal."""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from flyingchess.clients.game_client import create_game, server_json
from flyingchess.clients.terminal.narrate import log_lines, planes_text
from flyingchess.clients.terminal.picture import board_lines, move_mark, place_of, planes_by_cell
from flyingchess.clients.terminal.words import LANGUAGES, Words, language_from_environment
from flyingchess.engine.board import CENTRE, HANGAR
from flyingchess.engine.game import legal_moves, new_game, roll, step
from flyingchess.engine.moves import move_infos
from flyingchess.engine.rules import PRESETS

LABEL = re.compile(r"[RYBG](?:[1-4]+|\+)")


def some_states(count: int, seed: int) -> list[Any]:
    """States met along random games of every preset and player count, rolled or not."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = new_game(rng.choice((2, 3, 4)), rng.choice(list(PRESETS.values())))
        for _ in range(rng.randint(0, 400)):
            if state.phase == "over":
                break
            state, _ = roll(state, rng.randint(1, 6))
            moves = legal_moves(state)
            state, _ = step(state, rng.choice(moves) if moves else None)
        found.append(state)
    return found


# ------------------------------------------------------------------ the picture


@pytest.mark.parametrize("width,height", [(2, 1), (3, 1), (4, 2)])
def test_every_plane_is_drawn_once_in_its_cell(width: int, height: int) -> None:
    for state in some_states(30, seed=width):
        lines = board_lines(state, width, height)
        assert len(lines) == 15 * height + 2
        assert {line.cell_len for line in lines} == {15 * width + 2}
        drawn = [label for line in lines for label in LABEL.findall(line.plain)]
        cells = planes_by_cell(state)
        assert len(drawn) == len(cells)  # one label a cell with planes, nothing else looks like one
        for (x, y), planes in cells.items():
            row = lines[1 + y * height].plain
            text = row[1 + x * width : 1 + (x + 1) * width]
            colour = planes[0][0]
            assert text.strip()[0] == colour[0].upper(), (x, y, text)
            if len(planes) == 1:
                assert text.strip() == f"{colour[0].upper()}{planes[0][1] + 1}"


def test_the_cells_of_different_places_never_collide() -> None:
    """Every place a plane can be drawn is a cell of its own (but a hangar's four slots,
    one a plane, and a finished stack in the centre's arm)."""
    seen: dict[tuple[int, int], tuple[str, int]] = {}
    for colour in ("red", "yellow", "blue", "green"):
        for progress in range(HANGAR, CENTRE + 1):
            for plane in range(4) if progress == HANGAR else (0,):
                cell = place_of(colour, progress, plane)
                assert 0 <= cell[0] < 15 and 0 <= cell[1] < 15
                if progress >= 1 and progress <= 50:
                    continue  # ring cells are shared by the colours, by design
                assert cell not in seen, (colour, progress, plane, seen.get(cell))
                seen[cell] = (colour, progress)


def test_monochrome_draws_no_colour_and_names_each_cell_by_letter() -> None:
    state = new_game(4)
    for line in board_lines(state, mono=True):
        for span in line.spans:
            style = span.style
            assert not isinstance(style, str)
            assert style.color is None and style.bgcolor is None
    coloured = board_lines(state)
    assert any(
        span.style.bgcolor is not None for line in coloured for span in line.spans if not isinstance(span.style, str)
    )
    ring_letters = "".join(line.plain for line in board_lines(state, mono=True))
    assert all(ring_letters.count(letter) > 10 for letter in "rybg")


def test_a_moves_mark_ends_where_the_plane_comes_to_rest() -> None:
    rng = random.Random(7)
    checked = 0
    for state in some_states(60, seed=3):
        if state.phase != "roll":
            continue
        rolled, _ = roll(state, rng.randint(1, 6))
        colour = rolled.players[rolled.turn]
        for info in move_infos(rolled):
            hits = [(hit.colour, plane, hit.progress) for hit in info.hits for plane in hit.planes]
            mark = move_mark(colour, info.plane, info.start, info.events, hits)
            assert mark.target == place_of(colour, info.end, info.plane)
            assert mark.target not in mark.path
            assert len(mark.hits) == len({place_of(c, p, i) for c, i, p in hits})
            picture = board_lines(rolled, mark=mark)
            x, y = mark.target
            assert picture[1 + y].plain[1 + 2 * x : 3 + 2 * x].strip() != ""
            checked += 1
    assert checked > 20


# ------------------------------------------------------------------ the words


def test_the_language_comes_from_the_locale() -> None:
    assert language_from_environment({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert language_from_environment({"LC_ALL": "vi_VN.UTF-8", "LANG": "zh_CN.UTF-8"}) == "vi"
    assert language_from_environment({"LANGUAGE": "fr:vi", "LANG": "en_US"}) == "vi"
    assert language_from_environment({"LANG": "C.UTF-8"}) == "en"
    assert language_from_environment({}) == "en"
    with pytest.raises(ValueError, match="choose one of en, zh, vi, hi, es, pt, id, ar"):
        Words("fr")


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_event_of_a_game_is_told_in_each_language(language: str) -> None:
    words = Words(language)
    rng = random.Random(11)
    state = new_game(4, PRESETS["house"])
    told = []
    while state.phase != "over":
        state, events = roll(state, rng.randint(1, 6))
        moves = legal_moves(state)
        state, more = step(state, rng.choice(moves) if moves else None)
        told += log_lines(words, events + more)
    texts = [line.text for line in told]
    assert texts and not [text for text in texts if "{" in text or "log." in text]
    english = [line.text for line in log_lines(Words("en"), [])]
    assert english == []
    assert planes_text("red", (0, 2)) == "R1+R3"


# ------------------------------------------------------------------ the app, headless


@pytest.fixture()
def local(tmp_path: Path) -> Iterator[str]:
    """The data folder's local server, started as `play --terminal` starts it."""
    from flyingchess.server.transport.local import local_server

    base, server = local_server(tmp_path / "data")
    assert server is not None
    yield base
    server.stop()


def visible_text(app: Any) -> str:
    """What the current screen shows: the text of every widget on view, the board's rows."""
    from textual.widgets import OptionList, Static

    from flyingchess.clients.terminal.game_screen import BoardView

    parts = [str(widget.render()) for widget in app.screen.query(Static) if widget.display and widget.region.area]
    for listed in app.screen.query(OptionList):
        parts += [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]
    for board in app.screen.query(BoardView):
        if board.display and board.region.area and board.game is not None:
            parts += [line.plain for line in board_lines(board.game.state, *board.scale)]
    return "\n".join(parts)


async def eventually(pilot: Any, test: Callable[[], bool], tries: int = 100) -> None:
    """Wait (a tenth of a second at a time) until `test` holds; fail with the screen."""
    for _ in range(tries):
        await pilot.pause(0.1)
        if test():
            return
    raise AssertionError(visible_text(pilot.app))


async def set_choice(pilot: Any, choice_id: str, value: str) -> None:
    """Focus a setup field and press → until it shows `value`, as a player would."""
    from flyingchess.clients.terminal.app import Choice

    field = pilot.app.screen.query_one(f"#{choice_id}", Choice)
    field.focus()
    for _ in range(len(field.options)):
        if field.value == value:
            return
        await pilot.press("right")
    raise AssertionError(f"{choice_id} never showed {value}")


async def play_to_the_end(pilot: Any, presses: int = 600) -> None:
    """Enter (roll, or play the chosen move) until the game is over."""
    from flyingchess.clients.terminal.game_screen import GameScreen

    screen = pilot.app.screen
    assert isinstance(screen, GameScreen)
    for _ in range(presses):
        if screen.game is not None and screen.game.phase == "over":
            return
        await pilot.press("enter")
        await pilot.pause(0.02)
    raise AssertionError("the game did not end")


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.parametrize("language", ["en", "ar"])  # every language: tests/test_terminal_tmux.py
def test_a_whole_game_in_the_terminal(local: str, language: str) -> None:
    from flyingchess.clients.terminal.app import TerminalApp

    words = Words(language)

    async def scenario() -> None:
        app = TerminalApp(local, words)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert words("home.new-game") in visible_text(app)
            await pilot.press("n")
            await pilot.pause()
            await set_choice(pilot, "seat-blue", "none")
            await set_choice(pilot, "seat-green", "none")
            await set_choice(pilot, "speed", "instant")
            await pilot.press("s")
            await pilot.pause(0.3)
            shown = visible_text(app)
            assert words("term.hint-roll", player=words.colour("red")) in shown
            assert "R1" in shown and "Y4" in shown and "B1" not in shown  # the board: two colours
            await play_to_the_end(pilot)
            shown = visible_text(app)
            game = app.screen.game
            winner = game.state.ranking[0]
            assert words("end.wins", player=words.colour(winner)) in shown
            listed = await server_json(local, "/api/games")
            stored = next(summary for summary in listed["games"] if summary["id"] == game.id)
            assert stored["over"] and stored["winner"] == winner  # the server stored every move
            await pilot.press("q")
            await pilot.pause()
            assert words("home.new-game") in visible_text(app)
            await pilot.press("n")  # the next new game starts from the last one's choices
            await pilot.pause()
            from flyingchess.clients.terminal.app import Choice

            chosen = {str(choice.id): choice.value for choice in app.screen.query(Choice)}
            assert chosen["seat-blue"] == chosen["seat-green"] == "none" and chosen["speed"] == "instant"
            await pilot.press("ctrl+c")  # quits at once
            await pilot.pause()
            assert not app.is_running

    asyncio.run(scenario())


@pytest.mark.slow
@pytest.mark.server
def test_a_game_begun_in_the_browser_goes_on_in_the_terminal(local: str) -> None:
    """The game a page created (the same server, the same store) is in the terminal's
    list; opened there, a roll is stored and seen by every other connection."""
    from flyingchess.clients.game_client import GameClient
    from flyingchess.clients.terminal.app import TerminalApp

    async def scenario() -> None:
        seats = {"red": {"kind": "human"}, "blue": {"kind": "bot", "bot": "heuristic"}}
        invite, _ = await create_game(local, ["red", "blue"], seats, "classic")
        async with GameClient(invite) as page:  # the browser's page, watching
            app = TerminalApp(local, Words("en"))
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.pause(0.3)
                assert "RB  Classic" in visible_text(app)
                await pilot.press("down", "enter")
                await pilot.pause(0.3)
                assert "Red: press Space to roll" in visible_text(app)
                await pilot.press("space")
                after = await page.wait_until(lambda game: game.actions >= 1, timeout=10)
                assert after.actions >= 1
                await pilot.press("q")
                await pilot.pause()
                assert "RB  Classic" in visible_text(app)  # still in progress, still listed
            listed = await server_json(local, "/api/games")
            assert listed["games"][0]["actions"] >= 1

    asyncio.run(scenario())


@pytest.mark.slow
@pytest.mark.server
def test_a_window_too_small_shows_a_notice_and_the_game_comes_back(local: str) -> None:
    from flyingchess.clients.terminal.app import TerminalApp
    from flyingchess.clients.terminal.fit import TooSmall

    async def scenario() -> None:
        app = TerminalApp(local, Words("en"), mono=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("n")
            await pilot.pause()
            await pilot.press("s")
            await pilot.pause(0.3)
            for size in ((40, 12), (63, 24), (80, 19), (20, 5)):
                await pilot.resize_terminal(*size)
                await pilot.pause()
                notice = app.screen.query_one(TooSmall)
                assert notice.display and notice.region.area
                assert f"Make the window larger: at least 64×20 (now {size[0]}×{size[1]})." in str(notice.render())
            await pilot.resize_terminal(64, 20)
            await pilot.pause()
            assert not app.screen.query_one(TooSmall).region.area
            assert "Red: press Space to roll" in visible_text(app)
            await pilot.press("space")  # the game goes on at the smallest size
            await eventually(pilot, lambda: app.screen.game.actions >= 1, 50)  # the roll was played

    asyncio.run(scenario())


@pytest.mark.slow
@pytest.mark.server
def test_join_takes_an_open_seat_and_plays_it_to_the_end(local: str) -> None:
    """`flyingchess join`'s seat (run.py) played in the app: a network game's open seat,
    the other one a bot; the token it got opens the same seat again."""
    from flyingchess.clients.game_client import GameClient
    from flyingchess.clients.terminal.app import TerminalApp
    from flyingchess.clients.terminal.run import _seat

    async def scenario() -> None:
        seats = {"red": {"kind": "bot", "bot": "heuristic"}, "yellow": {"kind": "open"}}
        invite, host = await create_game(local, ["red", "yellow"], seats, "classic", speed="instant")
        async with GameClient(invite, host) as hosting:
            seat = await _seat(invite.link, None, "Terminal", None)
            token = seat.token
            await seat.close()
            assert token
            await hosting.start()
            app = TerminalApp(local, Words("en"), joined=GameClient(invite, token))
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause(0.3)
                assert app.screen.client.you.controls == ("yellow",)
                await play_to_the_end(pilot)
                assert "wins!" in visible_text(app)
                await pilot.press("q")
                await pilot.pause()
            assert app.return_code in (None, 0) and app.failure is None

    asyncio.run(scenario())


# ------------------------------------------------------------------ the commands


def flyingchess(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flyingchess", *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
@pytest.mark.server
def test_join_refuses_bad_input_with_one_line(local: str) -> None:
    async def games() -> tuple[str, str]:
        full = await create_game(local, ["red", "blue"], {"red": {"kind": "human"}, "blue": {"kind": "human"}})
        open_one = await create_game(
            local, ["red", "blue"], {"red": {"kind": "bot", "bot": "random"}, "blue": {"kind": "open"}}
        )
        return full[0].link, open_one[0].link

    full, open_one = asyncio.run(games())
    base = local.rstrip("/")
    cases = {
        ("join", "not a link"): "give a game's invite link",
        ("join", f"{base}/#/settings"): "not a game's link",
        ("join", f"{base}/#/join/nosuchgame1"): "",
        ("join", "http://127.0.0.1:9/#/join/abc"): "",
        ("join", full): "no open seat",
        ("join", open_one, "--colour", "red"): "",
        ("join", open_one, "--token", "not-a-real-token-at-all"): "",
        ("play", "--terminal", "--lan"): "takes no --static, --lan or --port",
    }
    for args, said in cases.items():
        done = flyingchess(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in done.stderr, (args, done.stderr)
        assert said in lines[0], (args, lines)


@pytest.mark.slow
@pytest.mark.server
def test_a_second_play_opens_the_running_server_of_its_folder(tmp_path: Path) -> None:
    from flyingchess.server.transport.local import local_server

    folder = tmp_path / "data"
    base, server = local_server(folder)
    try:
        again, none = local_server(folder)
        assert again == base and none is None
        done = flyingchess("play", "--no-browser", "--data", str(folder), timeout=30)
        assert done.returncode == 0, done.stderr
        assert f"already running at {base}" in done.stdout
    finally:
        assert server is not None
        server.stop()
    assert not (folder / "server.json").exists()
    _base2, server2 = local_server(folder)  # the lock went with the server
    assert server2 is not None
    server2.stop()


@pytest.mark.slow
@pytest.mark.server
def test_the_terminal_says_when_the_server_is_away_and_goes_on_when_it_is_back(tmp_path: Path) -> None:
    """`flyingchess play` (the browser's server) killed under a terminal game that joined
    it, then started again on the same address: the screen says it is reconnecting, then
    the game goes on where it was."""
    import socket

    from flyingchess.clients.terminal.app import TerminalApp
    from flyingchess.server.launch.process import ServerProcess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        options = ["--port", str(probe.getsockname()[1])]
    server = ServerProcess(tmp_path / "data", options=options)

    async def scenario() -> None:
        nonlocal server
        seats = {"red": {"kind": "human"}, "blue": {"kind": "bot", "bot": "heuristic"}}
        invite, token = await create_game(server.url, ["red", "blue"], seats)
        app = TerminalApp(server.url, Words("en"))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await app.open_game(invite, token)
            await pilot.pause(0.3)
            assert "Red: press Space to roll" in visible_text(app)
            server.kill()
            await eventually(pilot, lambda: "Connection lost — reconnecting…" in visible_text(app), 50)
            server = ServerProcess(tmp_path / "data", options=options)
            await eventually(pilot, lambda: "Red: press Space to roll" in visible_text(app), 100)
            await pilot.press("space")
            await eventually(pilot, lambda: app.screen.game.actions >= 1, 50)  # the roll was played

    try:
        asyncio.run(scenario())
    finally:
        server.stop()


@pytest.mark.slow
@pytest.mark.server
def test_a_local_game_finds_its_folders_server_again_on_another_port(tmp_path: Path) -> None:
    """`flyingchess play` stopped under a terminal game and started again (on a new
    port, as it always is): the terminal finds the folder's new server and goes on."""
    from flyingchess.clients.terminal.app import TerminalApp
    from flyingchess.clients.terminal.run import LocalServers
    from flyingchess.server.launch.process import ServerProcess

    folder = tmp_path / "data"
    server = ServerProcess(folder)
    servers = LocalServers(folder)

    async def scenario() -> None:
        nonlocal server
        seats = {"red": {"kind": "human"}, "blue": {"kind": "bot", "bot": "heuristic"}}
        invite, _ = await create_game(server.url, ["red", "blue"], seats)
        app = TerminalApp(servers.find(), Words("en"), servers=servers)
        assert not servers.started  # it joined the running server
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await app.open_game(invite)
            await pilot.pause(0.3)
            first = server.url
            server.kill()
            server = ServerProcess(folder)
            assert server.url != first
            await eventually(
                pilot,
                lambda: app.screen.client.invite.base == server.url and "Red: press Space to roll" in visible_text(app),
                150,
            )
            await pilot.press("space")
            await eventually(pilot, lambda: app.screen.game.actions >= 1, 50)  # the roll was played

    try:
        asyncio.run(scenario())
    finally:
        server.stop()
        servers.stop()


@pytest.mark.slow
@pytest.mark.server
def test_a_folder_served_for_a_network_is_not_opened_as_a_local_one(tmp_path: Path) -> None:
    from flyingchess.server.launch.process import ServerProcess
    from flyingchess.server.transport.local import ServedForNetwork, local_server

    folder = tmp_path / "data"
    with ServerProcess(folder, network=True) as server:
        with pytest.raises(ServedForNetwork, match="for a network"):
            local_server(folder)
        done = flyingchess("play", "--terminal", "--data", str(folder))
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
        assert "flyingchess join" in done.stderr
        again = flyingchess("play", "--no-browser", "--data", str(folder), timeout=30)
        assert again.returncode == 2 and f"another flyingchess serves {folder}" in again.stderr
        assert server.url  # the first one serves on
        assert server.api("/api/meta")
