"""axe-core (npm, pinned in package.json) on every screen and state of the page, in English
and Arabic (each direction) in the light and the dark theme, and the first screen of each
test in all eight languages in the light theme: zero violations (docs/accessibility.md). The states: home
without games and with them, the new game, a game waiting for the player's roll, for
the player's move, for a bot, with the hint and the win chances shown, the end card, the
replay, the settings, the join screen with its invite card and the network game's dice
card."""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from flyingchess.clients.terminal.words import LANGUAGES

from browser import Page
from servers import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"
RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
}"""
THEMES = ("light", "dark")


@pytest.fixture(scope="module")
def axe_source() -> Path:
    if not AXE.exists():
        if os.environ.get("FLYINGCHESS_REQUIRE_BROWSER"):
            pytest.fail(f"{AXE} is missing: run npm ci")
        pytest.skip("axe-core is not installed (npm ci)")
    return AXE


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("local"))
    yield started
    started.stop()


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("network"), network=True)
    yield started
    started.stop()


def create(server: Server, seats: dict[str, dict[str, str]], **options: Any) -> dict[str, Any]:
    body = json.dumps({"players": list(seats), "seats": seats, "rules": "classic", **options}).encode()
    request = urllib.request.Request(
        f"{server.url}/api/games", body, {"content-type": "application/json", "origin": server.url}
    )
    with urllib.request.urlopen(request) as answer:
        created: dict[str, Any] = json.loads(answer.read())
    return created


def violations(tab: Page, axe: Path) -> list[str]:
    tab.page.wait_for_timeout(150)
    tab.idle()
    if not tab.page.evaluate("typeof axe !== 'undefined'"):
        tab.page.add_script_tag(path=str(axe))
    found: list[str] = tab.page.evaluate(RUN)
    return found


EACH_DIRECTION = ("en", "ar")
"""The languages every screen is checked in: what axe finds of a screen is its structure,
labels and colours, the same in every language but for the direction and the `lang`
attributes; the first screen of each test (home, a game at your roll, the end card, the
join screen) is checked in all eight in the light theme, their words and lengths too."""


def every_language(
    tab: Page, axe: Path, where: str, ready: Callable[[], None] = lambda: None, all_eight: bool = False
) -> list[str]:
    """The violations of the screen as it stands, in each language of EACH_DIRECTION in
    turn (in all eight with `all_eight`, in the light theme)."""
    dark = tab.page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    found = []
    for language in LANGUAGES if all_eight and not dark else EACH_DIRECTION:
        tab.testid("lang-select").select_option(language)
        tab.wait_for("lang => document.documentElement.lang.startsWith(lang)", arg=language)
        ready()
        found += [f"{where} [{language}] {violation}" for violation in violations(tab, axe)]
    tab.testid("lang-select").select_option("en")
    return found


def roll_until(tab: Page, wanted: str) -> None:
    """Roll (Space) until the die says `wanted` ("move": a choice to make)."""
    for _ in range(300):
        tab.wait_for(
            "['ready', 'move', 'over'].includes(document.querySelector('[data-testid=die]').dataset.state)"
            " && document.body.dataset.animating !== 'true'",
            timeout=30_000,
        )
        state = tab.testid("die").get_attribute("data-state")
        if state == wanted:
            return
        tab.page.keyboard.press("Space")
        tab.page.wait_for_timeout(60)
    raise AssertionError(f"the die never said {wanted}")


@pytest.mark.parametrize("theme", THEMES)
def test_home_new_game_and_settings(browser: Any, axe_source: Path, tmp_path: Path, theme: str) -> None:
    fresh = Server(tmp_path / "fresh")  # no games yet
    try:
        tab = Page(browser, fresh.url, bypass_csp=True, color_scheme=theme)
        tab.page.wait_for_selector("body[data-screen=home]")
        found = every_language(tab, axe_source, "home (no games)", all_eight=True)
        for route, screen in (("#/new", "new"), ("#/settings", "settings")):
            tab.page.goto(f"{fresh.url}/{route}")
            tab.page.wait_for_selector(f"body[data-screen={screen}]")
            found += every_language(tab, axe_source, screen)
        create(fresh, {"red": {"kind": "human"}, "blue": {"kind": "bot", "bot": "heuristic"}})
        tab.page.goto(f"{fresh.url}/#/")
        tab.page.wait_for_selector("[data-testid=game-item]")
        found += every_language(tab, axe_source, "home (games)")
        assert found == [], "\n".join(found)
        tab.close()
    finally:
        fresh.stop()


@pytest.mark.parametrize("theme", THEMES)
def test_a_game_in_each_phase_with_hint_and_chances(browser: Any, axe_source: Path, local: Server, theme: str) -> None:
    game = create(local, {"red": {"kind": "human"}, "blue": {"kind": "bot", "bot": "heuristic"}}, hints=True)
    tab = Page(browser, f"{local.url}/#/game/{game['id']}", bypass_csp=True, color_scheme=theme)
    tab.page.wait_for_selector("body[data-screen=game]")
    tab.testid("auto-move").uncheck()
    tab.page.evaluate("document.activeElement.blur()")
    roll_until(tab, "ready")
    found = every_language(tab, axe_source, "game (your roll)", all_eight=True)
    roll_until(tab, "move")
    found += every_language(tab, axe_source, "game (your move)")
    tab.testid("hint-button").click()
    tab.testid("hint-best").wait_for()
    found += every_language(tab, axe_source, "game (hint)")
    tab.testid("show-chances").check()
    found += every_language(tab, axe_source, "game (chances)")
    assert found == [], "\n".join(found)
    tab.close()


@pytest.mark.parametrize("theme", THEMES)
def test_a_bots_turn_the_end_card_and_the_replay(browser: Any, axe_source: Path, local: Server, theme: str) -> None:
    bots = {"red": {"kind": "bot", "bot": "heuristic"}, "blue": {"kind": "bot", "bot": "random"}}
    game = create(local, bots, speed="slow")
    tab = Page(browser, f"{local.url}/#/game/{game['id']}", bypass_csp=True, color_scheme=theme)
    tab.page.wait_for_selector("body[data-screen=game]")
    found = [f"game (a bot's turn) {v}" for v in violations(tab, axe_source)]
    tab.testid("speed").select_option("instant")
    tab.testid("end-screen").wait_for(timeout=60_000)
    # the confetti falls twice, then is gone: measured over the card, not over a falling piece
    tab.wait_for(
        "[...document.querySelectorAll('.confetti i')].every((el) => el.getAnimations().every((a) => a.playState !== 'running'))",
        timeout=10_000,
    )
    found += every_language(tab, axe_source, "end card", all_eight=True)
    # drawn again in each language, the card neither pops in again nor throws more confetti
    assert tab.page.locator(".end-card.settled").count() == 1 and tab.page.locator(".confetti").count() == 0
    tab.page.goto(f"{local.url}/#/replay/{game['id']}")
    tab.page.wait_for_selector("body[data-screen=replay]")
    tab.wait_for("!document.querySelector('.replay-screen[aria-busy]')")  # checked with its steps
    found += every_language(tab, axe_source, "replay")
    assert found == [], "\n".join(found)
    tab.close()


@pytest.mark.parametrize("theme", THEMES)
def test_join_invite_and_the_dice_card_of_a_network_game(
    browser: Any, axe_source: Path, network: Server, theme: str
) -> None:
    game = create(network, {"red": {"kind": "human"}, "blue": {"kind": "open"}})
    guest = Page(browser, f"{network.url}/#/join/{game['id']}", bypass_csp=True, color_scheme=theme)
    guest.page.wait_for_selector("body[data-screen=join]")
    found = every_language(guest, axe_source, "join", all_eight=True)
    guest.close()
    host = Page(browser, network.url, bypass_csp=True, color_scheme=theme)
    host.page.evaluate(
        "([id, token]) => localStorage.setItem('flyingchess.tokens', JSON.stringify({[id]: {token, role: 'host'}}))",
        [game["id"], game["host_token"]],
    )
    host.page.goto(f"{network.url}/#/game/{game['id']}")
    host.page.wait_for_selector("body[data-screen=game]")
    host.testid("invite").wait_for()  # open by itself while seats are open
    found += every_language(host, axe_source, "invite")
    host.testid("dice-card").wait_for()
    found += every_language(host, axe_source, "dice card")
    assert found == [], "\n".join(found)
    host.close()
