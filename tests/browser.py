"""Chromium driven by Playwright for the browser tests: the browser, a tab that fails the
test on any console error, and the steps a player takes (test_browser.py runs them on a
server's page, test_static_site.py on the static site)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SHOTS = Path(os.environ.get("FLYINGCHESS_SCREENSHOTS", Path(tempfile.gettempdir()) / "flyingchess-screenshots"))
"""Where screenshots go (not the repository): FLYINGCHESS_SCREENSHOTS, or a temporary folder."""
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launched_chromium() -> Iterator[Any]:
    """Chromium for a module of browser tests (the `browser` fixture of conftest.py):
    Debian's, or Playwright's own download. Without either the tests skip with a notice,
    unless FLYINGCHESS_REQUIRE_BROWSER is set (CI): then they fail."""
    if os.environ.get("FLYINGCHESS_REQUIRE_BROWSER"):
        import playwright.sync_api as playwright_api  # CI: a missing Playwright fails, never skips
    else:
        playwright_api = pytest.importorskip("playwright.sync_api")
    executable = _chromium_path()
    with playwright_api.sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        except Exception as error:  # no system Chromium and no Playwright download
            if os.environ.get("FLYINGCHESS_REQUIRE_BROWSER"):
                raise
            pytest.skip(
                f"no Chromium to drive ({error.__class__.__name__}); install Debian's chromium to run the browser tests"
            )
        yield launched
        launched.close()


def _chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Page:
    """A browser tab on the app that fails the test on any console error."""

    def __init__(
        self, browser: Any, url: str, width: int = 1280, height: int = 860, init_script: str = "", **options: Any
    ) -> None:
        """`options`: more of Playwright's context options (color_scheme="dark", say);
        `init_script` runs in every document of the tab before the page's own scripts."""
        self.context = browser.new_context(viewport={"width": width, "height": height}, **options)
        if init_script:
            self.context.add_init_script(init_script)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.expected: tuple[str, ...] = ()
        self.page.on("console", lambda message: message.type == "error" and self._error(message.text))
        self.page.on("pageerror", lambda error: self._error(str(error)))
        self.page.set_default_timeout(15_000)
        self.page.goto(url)

    def _error(self, text: str) -> None:
        if not any(part in text for part in self.expected):
            self.errors.append(text)

    def expect_errors(self, *parts: str) -> None:
        """From now on, console errors containing any of `parts` are the browser's
        own (a refused connection, say) and do not fail the test: one logged while
        the tab closes is ignored too."""
        self.expected += parts

    def testid(self, name: str) -> Any:
        return self.page.locator(f"[data-testid={name}]")

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{name}.png"))

    def wait_for(self, expression: str, arg: Any = None, timeout: float = 15_000) -> None:
        """Poll an expression until it is truthy. (Playwright's own wait_for_function
        evaluates its predicate with eval inside the page, which the page's
        Content-Security-Policy rightly forbids; evaluate() goes through DevTools.)"""
        deadline = time.monotonic() + timeout / 1000
        while not self.page.evaluate(expression, arg):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {expression}")
            self.page.wait_for_timeout(40)

    def idle(self, timeout: float = 45_000) -> None:
        """Wait for a moment between animations: bots at the slow pace animate one move after
        another, and on a machine shared with other workers the gaps between them come late."""
        self.wait_for("document.body.dataset.animating !== 'true'", timeout=timeout)

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], self.errors


def set_up_game(tab: Page, seats: dict[str, str], speed: str = "instant") -> None:
    """From the home screen: a new game with these seats ("human" or "bot:NAME")."""
    tab.testid("new-game").click()
    tab.page.wait_for_selector("body[data-screen=new]")
    tab.testid("player-count").select_option(str(len(seats)))
    for colour in ("red", "yellow", "blue", "green"):
        checkbox = tab.testid(f"use-{colour}")
        if checkbox.is_checked() != (colour in seats):
            checkbox.click()
    for colour, seat in seats.items():
        tab.testid(f"seat-{colour}").select_option(seat)
    tab.shot("setup")
    tab.testid("start").click()
    tab.page.wait_for_selector("body[data-screen=game]")
    tab.testid("speed").select_option(speed)


def human_step(tab: Page, tap: bool = False) -> str:
    """Roll or move once for a human seat (a click, or with `tap` a touch); returns the
    die state seen."""
    die = tab.testid("die")
    tab.wait_for(
        "['ready', 'move', 'over'].includes(document.querySelector('[data-testid=die]').dataset.state)"
        " && document.body.dataset.animating !== 'true'",
        timeout=30_000,
    )
    # read together: auto-move may play the move between two separate reads
    state, choices, auto_move = tab.page.evaluate(
        "(({state, choices}) => [state, choices, document.querySelector('[data-testid=auto-move]')?.checked])"
        "(document.querySelector('[data-testid=die]').dataset)"
    )
    if state == "ready":
        die.tap() if tap else die.click()
    elif state == "move" and choices == "one" and auto_move:  # auto-move (on by default) plays it
        tab.wait_for("document.querySelector('[data-testid=die]').dataset.state !== 'move'", timeout=5_000)
    elif state == "move":
        plane = tab.page.locator("[data-legal=true]").last  # the topmost of planes sharing a cell
        plane.tap() if tap else plane.click()
    return str(state)
