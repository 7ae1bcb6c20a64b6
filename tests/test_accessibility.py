"""Playing without seeing the board: what a screen reader is told during a game (the
announcer's live region, web/announcer.js) and a whole game with the keyboard alone, in
a real Chromium over a real server (docs/accessibility.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import Page, set_up_game
from servers import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WATCH = """() => {
  const now = () => performance.now();
  window.__said = []; window.__shown = [];
  const text = (node) => node.textContent.replace(/\\s+/g, " ").trim();
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) {
      if (node.nodeType !== 1) continue;
      for (const span of node.querySelectorAll("span[data-kind]")) window.__said.push({ kind: span.dataset.kind, text: text(span), at: now() });
    }
  }).observe(document.querySelector("[data-testid=announcer]"), { childList: true });
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) {
      if (node.nodeType === 1) window.__shown.push({ text: text(node), at: now() });
    }
  }).observe(document.querySelector("[data-testid=log]"), { childList: true });
}"""

DIE = "document.querySelector('[data-testid=die]').dataset.state"


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    started = Server(tmp_path)
    yield started
    started.stop()


def key_step(tab: Page) -> str:
    """Roll or move once with a key, as a player who hears the game would."""
    tab.wait_for(
        f"['ready', 'move', 'over'].includes({DIE}) && document.body.dataset.animating !== 'true'", timeout=30_000
    )
    state, choices, auto_move = tab.page.evaluate(
        "(({state, choices}) => [state, choices, document.querySelector('[data-testid=auto-move]')?.checked])"
        "(document.querySelector('[data-testid=die]').dataset)"
    )
    if state == "ready":
        tab.page.keyboard.press("Space")
    elif state == "move" and choices == "one" and auto_move:  # auto-move plays it
        tab.wait_for(f"{DIE} !== 'move'", timeout=5_000)
    elif state == "move":
        plane = tab.page.locator("[data-legal=true]").first.get_attribute("data-testid")
        tab.page.keyboard.press(str(int(plane.rsplit("-", 1)[1]) + 1))
    return str(state)


def test_every_event_is_announced_once_in_order_and_within_a_second(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    tab.page.wait_for_selector("body[data-screen=home]")
    set_up_game(tab, {"red": "human", "blue": "bot:heuristic"}, speed="instant")
    tab.testid("auto-move").uncheck()  # every move a key (auto-move waits 450 ms before a single choice)
    tab.page.evaluate("document.activeElement.blur()")
    tab.page.evaluate(WATCH)
    steps = 0
    while key_step(tab) != "over":
        steps += 1
        assert steps < 1500
    tab.page.wait_for_timeout(1200)  # the last batch
    said: list[dict[str, Any]] = tab.page.evaluate("window.__said")
    shown: list[dict[str, Any]] = tab.page.evaluate("window.__shown")
    events = [entry for entry in said if entry["kind"] == "event"]
    assert len(shown) > 50
    assert [entry["text"] for entry in events] == [entry["text"] for entry in shown]  # each once, in order
    late = [
        (s["text"], round(e["at"] - s["at"])) for s, e in zip(shown, events, strict=True) if e["at"] - s["at"] > 1000
    ]
    assert late == []
    prompts = [entry["text"] for entry in said if entry["kind"] == "prompt"]
    assert any(text.startswith("Your roll: press Space") for text in prompts)
    assert any(text.startswith("You rolled") and "Plane 1" in text for text in prompts)
    tab.close()


def test_where_every_plane_is_and_what_each_move_does_are_said_on_request(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    tab.page.wait_for_selector("body[data-screen=home]")
    set_up_game(tab, {"red": "human", "blue": "human"}, speed="fast")
    tab.testid("auto-move").uncheck()
    tab.page.evaluate("document.activeElement.blur()")
    tab.page.evaluate(WATCH)
    tab.page.keyboard.press("w")
    tab.wait_for("window.__said.some((entry) => entry.kind === 'asked')")
    asked = tab.page.evaluate("window.__said.filter((entry) => entry.kind === 'asked').map((entry) => entry.text)")
    assert asked == [
        "Red: plane 1 in the hangar, plane 2 in the hangar, plane 3 in the hangar, plane 4 in the hangar."
        " Blue: plane 1 in the hangar, plane 2 in the hangar, plane 3 in the hangar, plane 4 in the hangar."
    ]
    for _ in range(200):  # roll until some player may move
        tab.wait_for(f"['ready', 'move'].includes({DIE}) && document.body.dataset.animating !== 'true'", timeout=30_000)
        if tab.page.evaluate(DIE) == "move":
            break
        tab.page.keyboard.press("Space")
        tab.page.wait_for_timeout(100)
    tab.page.keyboard.press("m")
    tab.wait_for("window.__said.filter((entry) => entry.kind === 'asked').length === 2")
    repeated = tab.page.evaluate("window.__said.filter((entry) => entry.kind === 'asked')[1].text")
    assert repeated.startswith("You rolled 6.") and "Plane 1: takes off." in repeated
    tab.close()


def test_a_whole_game_with_the_keyboard_alone(browser: Any, server: Server) -> None:
    """From the home screen to the end card with no mouse: Tab to a control, Enter or
    Space on it, the game's own keys on the board; the focus is never lost to the page.
    With reduced motion (what the announcements look like as the board moves is the test
    above's): the moves are drawn at once, and the focus has as many chances to be lost."""
    tab = Page(browser, server.url, reduced_motion="reduce")
    tab.page.wait_for_selector("body[data-screen=home]")

    def tab_to(testid: str, presses: int = 60) -> None:
        for _ in range(presses):
            if tab.page.evaluate(f"document.activeElement?.dataset?.testid === '{testid}'"):
                return
            tab.page.keyboard.press("Tab")
        raise AssertionError(f"Tab never reached {testid}")

    tab_to("new-game")
    tab.page.keyboard.press("Enter")
    tab.page.wait_for_selector("body[data-screen=new]")
    tab_to("player-count")
    tab.page.keyboard.press("ArrowUp")  # a select changes with the arrows: fewer players
    tab.page.keyboard.press("ArrowUp")
    tab_to("start")
    tab.page.keyboard.press("Enter")
    tab.page.wait_for_selector("body[data-screen=game]")
    tab_to("speed")
    tab.page.keyboard.press("End")  # the bots' pace: the fastest
    assert tab.testid("speed").input_value() == "instant"
    tab_to("auto-move")
    tab.page.keyboard.press("Space")  # off: every move by a key (auto-move waits 450 ms before a single choice)
    assert not tab.testid("auto-move").is_checked()
    tab_to("die")
    lost = 0
    steps = 0
    while True:
        tab.wait_for(
            f"['ready', 'move', 'over'].includes({DIE}) && document.body.dataset.animating !== 'true'", timeout=30_000
        )
        state = tab.page.evaluate(DIE)
        if state == "over":
            break
        if state == "ready":
            if tab.page.evaluate("document.activeElement?.dataset?.testid") != "die":
                tab_to("die")
            tab.page.keyboard.press("Enter")  # the focused die
        else:
            tab.page.keyboard.press("Tab")  # the board's planes to move come next in the order
            for _ in range(40):
                if tab.page.evaluate("document.activeElement?.dataset?.legal === 'true'"):
                    break
                tab.page.keyboard.press("Tab")
            tab.page.keyboard.press("Enter")
        tab.page.wait_for_timeout(50)
        lost += tab.page.evaluate("document.activeElement === document.body")
        steps += 1
        assert steps < 2000
    tab.testid("end-screen").wait_for()
    assert lost == 0
    tab.close()


def test_each_step_of_a_replay_is_said(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    tab.page.wait_for_selector("body[data-screen=home]")
    set_up_game(tab, {"red": "bot:heuristic", "blue": "bot:random"})
    tab.testid("end-screen").wait_for(timeout=60_000)
    tab.page.goto(tab.page.url.replace("#/game/", "#/replay/"))
    tab.page.wait_for_selector("body[data-screen=replay]")
    tab.wait_for("!document.querySelector('.replay-screen[aria-busy]')")  # its steps are here
    tab.page.evaluate("document.activeElement.blur()")
    tab.page.keyboard.press("ArrowRight")
    tab.wait_for("document.querySelector('[data-testid=replay-said]').textContent.startsWith('1 / ')")
    said = tab.testid("replay-said").text_content().split(". ")
    shown = [line.strip() for line in tab.page.locator("[data-step='1'] .step-lines > div").all_text_contents()]
    assert said[0].startswith("1 / ") and shown and said[1 : 1 + len(shown)] == shown  # the step's lines, in order
    assert tab.testid("replay-said").get_attribute("aria-live") == "polite"
    tab.close()
