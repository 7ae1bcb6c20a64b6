"""The static site (docs/static-site.md) in a real Chromium: built with the README's
command, served by a plain static server, the game played by Python in the page's own
Web Worker, saved in the browser's storage, offline after the first visit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services import free_port

from browser import Page, human_step, set_up_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
RECORDS = Path(__file__).resolve().parent / "records"
READY = "document.querySelector('[data-testid=engine-status]')?.dataset.state === 'ready'"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site built by `flyingchess build-site` and served by `python -m http.server`."""
    folder = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "flyingchess", "build-site", str(folder)],
        cwd=ROOT,  # where `npm ci` put node_modules/pyodide
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    assert built.stdout.startswith(f"static site written to {folder}")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            break
        except OSError:
            assert time.monotonic() < deadline, "the static server did not start"
            time.sleep(0.1)
    yield url
    server.terminate()
    server.wait(timeout=10)


def servers_words(record: str, folder: Path) -> str:
    """What a `flyingchess play` server says of a record it refuses."""
    from flyingchess.server.storage.store import SqliteStore
    from flyingchess.server.transport.app import create_app

    from asgi import LocalClient

    with LocalClient(create_app(SqliteStore(folder / "server.sqlite3"))) as client:
        answer = client.post("/api/records/check", content=record, headers={"content-type": "application/json"})
    words: str = answer.json()["error"]["message"]
    return words


# Notes, the moment the first screen is drawn, how the engine's progress bar stood.
ENGINE_AT_FIRST_PAINT = """
new MutationObserver((changes, observer) => {
  if (!document.querySelector(".home-screen")) return;
  observer.disconnect();
  const bar = document.querySelector("[data-testid=engine-status]");
  window.engineAtFirstPaint = { state: bar?.dataset.state ?? "absent", shown: !!bar && !bar.hidden };
}).observe(document, { childList: true, subtree: true });
"""


def engine_ready(tab: Page) -> None:
    tab.wait_for(READY, timeout=120_000)


def offline_ready(tab: Page) -> None:
    """The service worker controls the page and holds every file of the site."""
    tab.wait_for("navigator.serviceWorker.controller !== null", timeout=120_000)


def finish(tab: Page, limit: int = 3000) -> None:
    for _ in range(limit):
        if human_step(tab) == "over":
            return
    raise AssertionError("the game did not end")


def test_a_game_with_bots_is_saved_survives_a_reload_and_finishes_offline(
    browser: Any, site: str, tmp_path: Path
) -> None:
    # reduced motion: saving, reloading and going offline are the test, not the moves' animation
    tab = Page(browser, site, init_script=ENGINE_AT_FIRST_PAINT, reduced_motion="reduce")
    tab.page.wait_for_selector("body[data-screen=home]")
    # the home screen was drawn while Python was still on its way, its progress showing
    # (asked when the screen appeared: a fast machine may have the engine ready by now)
    assert tab.page.evaluate("window.engineAtFirstPaint") == {"state": "loading", "shown": True}
    engine_ready(tab)
    tab.shot("static-home")
    set_up_game(tab, {"red": "human", "blue": "bot:expectimax"})  # the strongest level the browser runs
    for _ in range(6):
        human_step(tab)
    game_url = tab.page.url
    game_id = game_url.rsplit("/", 1)[1]
    tab.page.wait_for_timeout(600)  # the worker copies the database to IndexedDB right after each change
    # the tab closes and opens again: the game is on the home screen, where it was
    tab.page.reload()
    engine_ready(tab)
    tab.page.goto(site + "#/")
    tab.page.locator(f"[data-testid=game-item][data-id='{game_id}']").wait_for(timeout=30_000)
    offline_ready(tab)
    # installable as an app: Chromium finds nothing missing (manifest, icons, service worker;
    # that Playwright's contexts are private windows is the test's doing, not the site's)
    session = tab.context.new_cdp_session(tab.page)
    errors = session.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [error["errorId"] for error in errors if error["errorId"] != "in-incognito"] == []
    # no network at all: the site opens from its cache and the saved game finishes
    tab.context.set_offline(True)
    tab.page.reload()
    tab.page.wait_for_selector("body[data-screen=home]")
    engine_ready(tab)
    tab.page.locator(f"[data-testid=game-item][data-id='{game_id}'] [data-testid=resume]").click()
    tab.page.wait_for_selector("body[data-screen=game]")
    assert tab.page.url == game_url
    tab.testid("speed").select_option("instant")
    finish(tab)
    tab.testid("end-screen").wait_for()
    tab.shot("static-end-offline")
    # the record, downloaded from the page, replays with the command line's engine
    tab.testid("end-close").click()
    with tab.page.expect_download() as download:
        tab.testid("download-record").click()
    path = tmp_path / "record.json"
    download.value.save_as(path)
    record = json.loads(path.read_text())
    assert record["id"] == game_id and len(record["actions"]) > 6
    replayed = subprocess.run(
        [sys.executable, "-m", "flyingchess", "replay", str(path)], capture_output=True, text=True, timeout=60
    )
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["over"] is True
    tab.context.set_offline(False)
    tab.close()


def test_two_players_on_one_phone_play_to_the_end_by_tapping(browser: Any, site: str) -> None:
    # reduced motion: the taps are the test, not the moves' animation (tests/test_browser.py has those)
    tab = Page(
        browser,
        site,
        width=390,
        height=844,
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
        reduced_motion="reduce",
    )
    tab.page.wait_for_selector("body[data-screen=home]")
    engine_ready(tab)
    set_up_game(tab, {"red": "human", "blue": "human"})
    tab.testid("auto-move").tap()  # off: every move a tap (auto-move would wait 450 ms before each single choice)
    assert not tab.testid("auto-move").is_checked()
    tab.shot("static-phone-game")
    for _ in range(3000):
        if human_step(tab, tap=True) == "over":
            break
    tab.testid("end-screen").wait_for()
    tab.shot("static-phone-end")
    tab.close()


def test_a_bad_record_gets_the_servers_words_and_the_setup_says_what_is_not_here(
    browser: Any, site: str, tmp_path: Path
) -> None:
    tab = Page(browser, site)
    tab.page.wait_for_selector("body[data-screen=home]")
    engine_ready(tab)
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"format": "chess/1", "moves": ["e4"]}))
    tab.testid("load-record").set_input_files(str(foreign))
    tab.testid("load-error").wait_for()
    detail = tab.testid("load-error-detail")
    detail.locator("summary").click()
    assert detail.locator("code").inner_text() == servers_words(foreign.read_text(), tmp_path)
    # a record that plays: watched, then continued, in the worker
    data = json.loads((RECORDS / "traditional-4p.json").read_text())
    data["actions"] = data["actions"][:60]
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(data))
    tab.testid("load-record").set_input_files(str(partial))
    tab.testid("loaded-watch").click()
    tab.page.wait_for_selector("body[data-screen=replay]")
    tab.wait_for("document.querySelector('[data-testid=replay-position]').innerText.replace(/ /g, '').endsWith('/60')")
    # the setup offers what runs here and says what does not (the master level needs NumPy)
    tab.page.goto(site + "#/new")
    tab.page.wait_for_selector("body[data-screen=new]")
    assert "Master" in tab.testid("bots-missing").inner_text()
    options = tab.testid("seat-red").locator("option").all_inner_texts()
    assert "Invite a player (open seat)" not in options and any("Strong" in text for text in options)
    assert tab.testid("network-note").is_visible()
    tab.close()


def test_full_storage_is_said_and_the_game_goes_on(browser: Any, site: str) -> None:
    tab = Page(browser, "about:blank")
    session = tab.context.new_cdp_session(tab.page)
    session.send("Storage.overrideQuotaForOrigin", {"origin": site.rstrip("/"), "quotaSize": 1})
    tab.page.goto(site)
    tab.page.wait_for_selector("body[data-screen=home]")
    engine_ready(tab)
    set_up_game(tab, {"red": "human", "blue": "bot:heuristic"})
    for _ in range(4):
        human_step(tab)
    toast = tab.page.locator("[data-testid=toast]", has_text="storage is full or switched off")
    toast.wait_for(timeout=30_000)
    for _ in range(4):
        human_step(tab)  # and it goes on
    tab.close()


def test_a_runtime_that_cannot_load_is_a_clear_message(browser: Any, site: str) -> None:
    tab = Page(browser, "about:blank")
    tab.page.route("**/pyodide.asm.wasm", lambda route: route.abort())
    tab.page.goto(site)
    tab.page.wait_for_selector("body[data-screen=home]")
    status = tab.testid("engine-status")
    tab.wait_for("document.querySelector('[data-testid=engine-status]')?.dataset.state === 'failed'", timeout=60_000)
    assert status.inner_text().startswith("This browser cannot run the game by itself")
    tab.shot("static-runtime-failed")
    tab.errors.clear()  # the refused download is in the console, as it should be
    tab.close()


def test_play_static_serves_the_same_site(tmp_path: Path) -> None:
    """`flyingchess play --static` builds the site and serves it as a static host would."""
    process = subprocess.Popen(
        [sys.executable, "-m", "flyingchess", "play", "--static", "--no-browser", "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)},  # its own build folder
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("flyingchess (static site, ") and "is running at http://127.0.0.1:" in line, line
        url = line.split("running at ")[1].split()[0]
        with urllib.request.urlopen(url, timeout=10) as response:
            page = response.read().decode()
        assert '<html lang="en" data-transport="worker" data-version="' in page
        with urllib.request.urlopen(url + "sw.js", timeout=10) as response:
            assert b'"engine/pyodide/pyodide.asm.wasm"' in response.read()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_new_version_is_announced_and_waits_for_the_next_visit(browser: Any, tmp_path: Path) -> None:
    """A site built again (another version) installs in the background: the page says it
    is ready and keeps running the version it started with."""
    folder = tmp_path / "site"

    def build(*options: str) -> None:
        built = subprocess.run(
            [sys.executable, "-m", "flyingchess", "build-site", str(folder), *options],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert built.returncode == 0, built.stderr

    build()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url, timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        tab = Page(browser, url)
        tab.page.wait_for_selector("body[data-screen=home]")
        offline_ready(tab)
        first = tab.page.evaluate("document.documentElement.dataset.version")
        build("--server", "https://games.example.org")  # a new version of the site
        tab.page.reload()
        tab.page.wait_for_selector("body[data-screen=home]")
        tab.page.locator("[data-testid=toast]", has_text="A new version of the game is ready").wait_for(timeout=120_000)
        assert tab.page.evaluate("document.documentElement.dataset.version") == first  # not in the middle of it
        tab.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
