"""How fast the terminal game redraws, and how long a bots-only game takes in it.

    python benchmarks/terminal.py [--keys 60] [--games 3] [--size 80x24]

The app runs headless (Textual's own test harness, no terminal) over the local server a
`flyingchess play --terminal` starts (a uvicorn thread over a SQLite file in a temporary
folder). Timed to the frame: the moment Textual hands a finished screen to its driver
(`App._display`, wrapped here: the nearest thing to "on the screen" without a terminal).

- A key to its frame: keys that change the screen (r rules, c chances, l language, a
  auto-move, and ←/→ choosing among moves, which redraws the preview on the board) in a
  game against bots at the fastest pace.
- An update to its frame: every update of a four-bot game at the fastest pace
  ("instant"), from the moment the app takes it from the client to the frame that shows it;
  and the game's wall time from its start to the winner on the screen.

Needs the `terminal` extra. Fails (exit 1) if nothing was measured.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rich.console import Console
from rich.table import Table

from flyingchess.clients.game_client import Invite, create_game
from flyingchess.clients.terminal.app import TerminalApp
from flyingchess.clients.terminal.game_screen import GameScreen
from flyingchess.clients.terminal.words import Words
from flyingchess.server.transport.local import local_server

KEYS = ("r", "c", "l", "a", "r", "c", "right", "left")


def timed(app: TerminalApp) -> list[float]:
    """Every frame's time, from now on."""
    frames: list[float] = []
    show = app._display

    def display(screen: Any, renderable: Any) -> None:
        show(screen, renderable)
        frames.append(time.perf_counter())

    app._display = display  # type: ignore[method-assign]
    return frames


def first_after(frames: list[float], moment: float) -> float | None:
    return next((frame - moment for frame in frames if frame > moment), None)


async def keys_to_frames(base: str, count: int, size: tuple[int, int]) -> list[float]:
    seats = {"red": {"kind": "human"}, "yellow": {"kind": "bot", "bot": "heuristic"}}
    invite, token = await create_game(base, ["red", "yellow"], seats, speed="instant")
    app = TerminalApp(base, Words("en"))
    frames = timed(app)
    found: list[float] = []
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.open_game(invite, token)
        await pilot.pause(0.3)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        while len(found) < count:
            game = screen.game
            if game is not None and game.phase == "over":
                break
            for key in KEYS:
                await pilot.pause(0.03)
                pressed = time.perf_counter()
                await pilot.press(key)
                await pilot.pause()
                latency = first_after(frames, pressed)
                if latency is not None and (key not in ("left", "right") or screen._mine("move")):
                    found.append(latency)
            await pilot.press("enter")  # roll, or play the chosen move: on to the next turn
            await pilot.pause(0.1)
    return found


async def bots_game(base: str, size: tuple[int, int], seed: int) -> tuple[float, int, list[float]]:
    bots = {colour: {"kind": "bot", "bot": "heuristic"} for colour in ("red", "yellow", "blue", "green")}
    invite, token = await create_game(base, list(bots), bots, speed="instant")
    app = TerminalApp(base, Words("en"))
    frames = timed(app)
    taken: list[float] = []
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        started = time.perf_counter()
        await app.open_game(Invite(invite.base, invite.game_id), token)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        take = screen._take

        def taking(update: Any) -> None:
            taken.append(time.perf_counter())
            take(update)

        screen._take = taking  # type: ignore[method-assign]
        while screen.game is None or screen.game.phase != "over":
            await asyncio.sleep(0.01)
            if time.perf_counter() - started > 300:
                raise SystemExit("a bots-only game did not end in 300 s")
        await pilot.pause()
        ended = first_after(frames, taken[-1]) if taken else None
        wall = (taken[-1] + (ended or 0.0)) - started
        latencies = [latency for moment in taken if (latency := first_after(frames, moment)) is not None]
        return wall, screen.game.actions, latencies


def spread(values: list[float]) -> str:
    ms = sorted(value * 1000 for value in values)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"{statistics.median(ms):.1f} / {p95:.1f} / {ms[-1]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=60)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--size", default="80x24")
    args = parser.parse_args()
    columns, rows = (int(part) for part in args.size.split("x"))
    console = Console()
    with tempfile.TemporaryDirectory() as folder:
        base, server = local_server(Path(folder) / "data")
        try:
            keys = asyncio.run(keys_to_frames(base, args.keys, (columns, rows)))
            games = [asyncio.run(bots_game(base, (columns, rows), seed)) for seed in range(args.games)]
        finally:
            if server is not None:
                server.stop()
    updates = [latency for _, _, latencies in games for latency in latencies]
    if not keys or not updates or not games:
        raise SystemExit("nothing was measured: no key or update reached a frame")
    table = Table(title=f"The terminal game at {columns}x{rows} (ms: median / p95 / max)")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_column("to the frame", justify="right")
    table.add_row("a key", str(len(keys)), spread(keys))
    table.add_row("an update (four bots, instant)", str(len(updates)), spread(updates))
    console.print(table)
    for wall, actions, _ in games:
        console.print(f"a four-bot game at the fastest pace: {actions} actions in {wall:.1f} s")


if __name__ == "__main__":
    main()
