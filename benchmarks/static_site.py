"""The static site's figures (docs/benchmarks.md, The page and the static site), measured in headless Chromium.

    python benchmarks/static_site.py [--lighthouse RUNS] [--json]

Builds the site with `flyingchess build-site` into a temporary folder and serves it on a
loopback port as a static host would (compressed ahead of time, as GitHub Pages or nginx
with gzip_static serve it),
then measures:
- the cold first visit: bytes transferred (as served, compressed) until the engine is
  ready, and the time to that;
- the warm visit from the cache with 4x CPU throttling: navigation to a saved game whose
  die can be rolled. Chromium's throttling slows the page's main thread only, not its
  Web Worker (where Python runs): the same visit without throttling is reported beside
  it, and the bot levels below are timed on a throttled main thread instead;
- a bots-only 4-player game at the fastest pace, start to end screen;
- each bot level's decision time with Python on the page's main thread under 4x
  throttling (a faithful slow CPU), over positions of real games;
- offline: the network cut, the site reloads and the engine starts from the cache;
- with --lighthouse RUNS, Lighthouse's scores for the static home page (mobile), RUNS times
  (they vary from run to run on a shared machine).
Fails (exit status 1) when anything could not be measured.
"""

from __future__ import annotations

import argparse
import gzip
import json
import mimetypes
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from playwright.sync_api import sync_playwright

from flyingchess.server.site import build_site

READY = "document.querySelector('[data-testid=engine-status]')?.dataset.state === 'ready'"
THROTTLE = 4
LEVELS = ("gentle", "casual", "sensible", "strong")
"""The levels the static site offers (master needs NumPy, which the browser lacks)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Counted:
    """Bytes a server sent (body and headers, as they went out)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.bytes = 0
        self.responses = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def counted(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.responses += 1
                self.bytes += sum(len(name) + len(value) + 4 for name, value in message.get("headers", []))
            elif message["type"] == "http.response.body":
                self.bytes += len(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, counted)


class Precompressed:
    """A static host as the real ones are: every file compressed once, ahead of time (a
    host that compressed 9.6 MB on every request would take the browser's CPU on this
    2-core machine), sent compressed to browsers that accept it, fresh for ten minutes
    as GitHub Pages sends them."""

    def __init__(self, folder: Path) -> None:
        self.files: dict[str, tuple[str, bytes, bytes]] = {}
        for path in folder.rglob("*"):
            if path.is_file():
                name = "/" + path.relative_to(folder).as_posix()
                kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                raw = path.read_bytes()
                self.files[name] = (kind, raw, gzip.compress(raw, 6))
        self.files["/"] = self.files["/index.html"]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        found = self.files.get(scope["path"])
        if found is None:
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b"not found"})
            return
        kind, raw, packed = found
        accepts = b"gzip" in dict(scope["headers"]).get(b"accept-encoding", b"")
        body = packed if accepts and len(packed) < len(raw) else raw
        # caching as GitHub Pages answers: fresh for ten minutes, then revalidated
        headers = [
            (b"content-type", kind.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"max-age=600"),
            (b"etag", f'"{hash(raw) & 0xFFFFFFFF:x}"'.encode()),
        ]
        if body is packed:
            headers.append((b"content-encoding", b"gzip"))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def serve(folder: Path) -> tuple[str, uvicorn.Server, Counted]:
    """The site as a static host serves it: its files, compressed; what went out is counted."""
    counted = Counted(Precompressed(folder))
    app = counted
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise SystemExit("the static server did not start")
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}/", server, counted


def wait(page: Any, expression: str, timeout: float = 120.0) -> float:
    """Seconds until `expression` is true in the page (polled through DevTools)."""
    started = time.perf_counter()
    while not page.evaluate(expression):
        if time.perf_counter() - started > timeout:
            raise SystemExit(f"timed out waiting for {expression}")
        page.wait_for_timeout(20)
    return time.perf_counter() - started


def set_up(page: Any, seats: dict[str, str]) -> float:
    """A new game with these seats at the fastest pace; returns when its start was clicked."""
    page.click("[data-testid=new-game]")
    page.wait_for_selector("body[data-screen=new]")
    page.select_option("[data-testid=player-count]", str(len(seats)))
    for colour in ("red", "yellow", "blue", "green"):
        box = page.locator(f"[data-testid=use-{colour}]")
        if box.is_checked() != (colour in seats):
            box.click()
    for colour, seat in seats.items():
        page.select_option(f"[data-testid=seat-{colour}]", seat)
    started = time.perf_counter()
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=game]")
    page.select_option("[data-testid=speed]", "instant")
    return started


LEVEL_TIMES = """
import random, time, statistics, sys
sys.path.insert(0, "/home/pyodide/site")
from flyingchess import Rules, new_game, legal_moves, roll
from flyingchess.bots import make_bot
from flyingchess.engine.game import apply_unchecked
rng = random.Random(7)
positions = []
for players in (2, 4):
    state = new_game(players, Rules.preset("classic"))
    while not state.over and len(positions) < 150 * players:
        rolled, _ = roll(state, rng.randint(1, 6))
        moves = legal_moves(rolled)
        if len(moves) >= 2:
            positions.append(rolled)
        state = apply_unchecked(rolled, rng.choice(moves) if moves else None)
        if state.over:
            state = new_game(players, Rules.preset("classic"))
out = {}
for level in LEVELS:
    bot = make_bot(level, 1)
    times = []
    for state in positions:
        started = time.perf_counter()
        bot.choose(state)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    out[level] = {"decisions": len(times), "median_ms": statistics.median(times), "p99_ms": times[int(len(times) * 0.99)]}
out
"""


def level_times(browser: Any, url: str) -> dict[str, dict[str, float]]:
    """Each level's decision times with Python on a main thread slowed 4x."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(url + "static/meta.json")  # an origin of the site, nothing running
    session = context.new_cdp_session(page)
    session.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
    script = """async ([root, code, levels]) => {
        const { loadPyodide } = await import(root + "engine/pyodide/pyodide.mjs");
        const py = await loadPyodide({ indexURL: root + "engine/pyodide/" });
        const zip = await (await fetch(root + "engine/python.zip")).arrayBuffer();
        py.unpackArchive(zip, "zip", { extractDir: "/home/pyodide/site" });
        py.globals.set("LEVELS", py.toPy(levels));
        const result = await py.runPythonAsync(code);
        return result.toJs({ dict_converter: Object.fromEntries });
    }"""
    result: dict[str, dict[str, float]] = page.evaluate(script, [url, LEVEL_TIMES, list(LEVELS)])
    context.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--lighthouse",
        type=int,
        default=0,
        metavar="RUNS",
        help="also Lighthouse's scores for the home page, RUNS times",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        site = build_site(Path(folder) / "site")
        figures["site_mb"] = round(site.size / 1e6, 2)
        url, server, sent = serve(site.folder)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
            context = browser.new_context(viewport={"width": 1280, "height": 860})
            page = context.new_page()
            started = time.perf_counter()
            page.goto(url)
            page.wait_for_selector("body[data-screen=home]")
            figures["cold_home_seconds"] = round(time.perf_counter() - started, 2)
            wait(page, READY)
            figures["cold_ready_seconds"] = round(time.perf_counter() - started, 2)
            wait(page, "navigator.serviceWorker.controller !== null")
            page.wait_for_timeout(2000)  # the service worker's own copies of the files
            figures["cold_transferred_mb"] = round(sent.bytes / 1e6, 2)
            figures["cold_responses"] = sent.responses
            if sent.bytes == 0:
                raise SystemExit("no bytes were counted on the first visit: nothing was measured")
            # a saved game, red (a person) to roll
            set_up(page, {"red": "human", "yellow": "bot:heuristic", "blue": "bot:heuristic", "green": "bot:heuristic"})
            game_url = page.url
            wait(page, "document.querySelector('[data-testid=die]').dataset.state === 'ready'")
            page.wait_for_timeout(800)
            # warm visits: from the cache, 4x slower main thread
            for rate, key in ((THROTTLE, "warm_playable_seconds"), (1, "warm_playable_seconds_unthrottled")):
                warm = []
                for _ in range(3):
                    visit = context.new_page()
                    session = context.new_cdp_session(visit)
                    session.send("Emulation.setCPUThrottlingRate", {"rate": rate})
                    started = time.perf_counter()
                    visit.goto(game_url)
                    wait(visit, "document.querySelector('[data-testid=die]')?.dataset.state === 'ready'")
                    warm.append(time.perf_counter() - started)
                    visit.close()
                figures[key] = [round(value, 2) for value in warm]
            # a bots-only game at the fastest pace
            page.goto(url + "#/")
            wait(page, READY)
            started = set_up(
                page, {"red": "bot:heuristic", "yellow": "bot:greedy", "blue": "bot:expectimax", "green": "bot:random"}
            )
            page.wait_for_selector("[data-testid=end-screen]", timeout=600_000)
            figures["bots_game_seconds"] = round(time.perf_counter() - started, 2)
            # offline
            context.set_offline(True)
            page.goto(url + "#/")
            wait(page, READY, timeout=60)
            figures["offline_ready"] = True
            context.set_offline(False)
            context.close()
            figures["levels_ms_4x"] = {
                level: {key: round(value, 2) for key, value in row.items()}
                for level, row in level_times(browser, url).items()
            }
            browser.close()
        if args.lighthouse:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from lighthouse import lighthouse_command, measure

            runs = [
                measure(lighthouse_command(), url, Path(folder) / f"home-{run}.json") for run in range(args.lighthouse)
            ]
            figures["lighthouse_home"] = {key: [run[key] for run in runs] for key in runs[0]}
        server.should_exit = True
    if args.json:
        print(json.dumps(figures))
        return
    print(f"site: {figures['site_mb']} MB in all")
    print(
        f"cold first visit: home in {figures['cold_home_seconds']} s, engine ready in {figures['cold_ready_seconds']} s,"
        f" {figures['cold_transferred_mb']} MB transferred in {figures['cold_responses']} responses (compressed as"
        " served), the service worker's copy of every file included"
    )
    for key, how in (
        ("warm_playable_seconds", f"{THROTTLE}x throttled main thread"),
        ("warm_playable_seconds_unthrottled", "no throttling"),
    ):
        print(
            f"warm visit, {how}: a saved game playable in {', '.join(str(value) for value in figures[key])} s"
            f" (median {statistics.median(figures[key])} s)"
        )
    print(f"a bots-only 4-player game at the fastest pace: {figures['bots_game_seconds']} s")
    print(f"offline: the site reloads and its engine starts with the network cut: {figures['offline_ready']}")
    for level, row in figures["levels_ms_4x"].items():
        print(
            f"  {level:<9} median {row['median_ms']:7.2f} ms, p99 {row['p99_ms']:7.2f} ms"
            f" ({int(row['decisions'])} decisions, Python on a {THROTTLE}x slower main thread)"
        )
    if "lighthouse_home" in figures:
        for key, scores in figures["lighthouse_home"].items():
            print(f"Lighthouse (mobile), static home, {key}: {scores} (median {statistics.median(scores)})")


def chromium() -> str | None:
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser")


if __name__ == "__main__":
    main()
