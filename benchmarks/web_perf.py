"""Web app figures: asset weight, a move's server round trip, a bots-only game's duration.

    python benchmarks/web_perf.py [--moves 200] [--browser]

Starts a real `flyingchess play` server on a free loopback port with a throw-away data
folder, talks to it over real WebSockets, and prints the figures (with --browser, also
the time a bots-only game takes to finish in headless Chromium at the fastest speed).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import tempfile
import time
from pathlib import Path

from flyingchess.server.launch.process import ServerProcess as Server

WEB = Path(__file__).resolve().parent.parent / "src" / "flyingchess" / "web"


def asset_bytes() -> int:
    return sum(path.stat().st_size for path in WEB.rglob("*") if path.is_file())


IMPORT = re.compile(r"""^\s*import\s[^;]*?from\s+["']\./([\w.-]+\.js)["']""", re.MULTILINE)


def loaded_modules() -> list[Path]:
    """The page's module graph from its two scripts (boot.js, app.js), following static
    imports: what a visit to the server's page loads. The static site's worker and
    service worker (engine-worker.js, sw.js) are started only there, never imported."""
    found: list[Path] = []
    todo = [WEB / "boot.js", WEB / "app.js"]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.append(path)
        todo += [WEB / name for name in IMPORT.findall(path.read_text(encoding="utf-8"))]
    return sorted(found)


def first_load_bytes() -> int:
    """What a first visit transfers, compressed as the server sends it: the page, its
    style sheet, every module it loads and one language (the icons load only when
    installing)."""
    first = [WEB / "index.html", WEB / "style.css", WEB / "manifest.webmanifest", WEB / "i18n" / "en.json"]
    first += loaded_modules()
    return sum(len(gzip.compress(path.read_bytes())) for path in first)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def round_trips(server: Server, moves: int) -> list[float]:
    """Milliseconds from sending a roll or move to receiving its update, two humans."""
    created = server.api(
        "/api/games", {"players": ["red", "blue"], "seats": {"red": {"kind": "human"}, "blue": {"kind": "human"}}}
    )
    timings: list[float] = []
    with server.socket(created["id"]) as socket:
        game = json.loads(socket.recv(timeout=10))["game"]
        while len(timings) < moves:
            if game["phase"] == "over":
                break
            message = (
                {"type": "roll"} if game["phase"] == "roll" else {"type": "move", "plane": game["moves"][0]["plane"]}
            )
            began = time.perf_counter()
            socket.send(json.dumps(message))
            reply = json.loads(socket.recv(timeout=10))
            timings.append((time.perf_counter() - began) * 1000)
            game = reply["game"]
            time.sleep(0.04)  # a brisk human pace, inside the server's per-connection rate limit
    return timings


def bots_game_seconds(server: Server) -> tuple[float, int]:
    bots = {colour: {"kind": "bot", "bot": "heuristic"} for colour in ("red", "yellow", "blue", "green")}
    created = server.api("/api/games", {"players": list(bots), "seats": bots})
    began = time.perf_counter()
    with server.socket(created["id"]) as socket:
        socket.send(json.dumps({"type": "speed", "speed": "instant"}))
        game = json.loads(socket.recv(timeout=10))["game"]
        while game["phase"] != "over":
            game = json.loads(socket.recv(timeout=30))["game"]
    return time.perf_counter() - began, game["actions"]


def browser_bots_game_seconds(server: Server) -> float:
    import shutil

    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        page.goto(server.url)
        bots = {colour: {"kind": "bot", "bot": "heuristic"} for colour in ("red", "yellow", "blue", "green")}
        created = server.api("/api/games", {"players": list(bots), "seats": bots})
        began = time.perf_counter()
        page.goto(f"{server.url}/#/game/{created['id']}")
        page.wait_for_selector("[data-testid=speed]")
        page.select_option("[data-testid=speed]", "instant")
        page.wait_for_selector("[data-testid=end-screen]", timeout=120_000)
        seconds = time.perf_counter() - began
        browser.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--browser", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder))
        try:
            timings = round_trips(server, args.moves)
            seconds, actions = bots_game_seconds(server)
            figures = {
                "assets_kb": round(asset_bytes() / 1024, 1),
                "first_load_kb_compressed": round(first_load_bytes() / 1024, 1),
                "round_trip_ms_median": round(statistics.median(timings), 2),
                "round_trip_ms_p95": round(percentile(timings, 0.95), 2),
                "round_trip_ms_max": round(max(timings), 2),
                "round_trips": len(timings),
                "bots_game_seconds_server": round(seconds, 2),
                "bots_game_actions": actions,
            }
            if args.browser:
                figures["bots_game_seconds_browser"] = round(browser_bots_game_seconds(server), 2)
        finally:
            server.stop()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
