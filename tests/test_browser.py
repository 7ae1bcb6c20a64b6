"""The page in a real Chromium driven by Playwright, against a real `flyingchess play` server.

Chromium comes from the system (Debian's `chromium`) or Playwright's own download. CI
sets FLYINGCHESS_REQUIRE_BROWSER=1 so these tests fail rather than skip without it.
Screenshots go to $FLYINGCHESS_SCREENSHOTS, or flyingchess-screenshots in the temporary folder.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flyingchess.clients.terminal.words import LANGUAGES

from browser import Page, human_step, set_up_game
from servers import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    started = Server(tmp_path)
    yield started
    started.stop()


def test_play_a_whole_game_against_bots_with_a_reload(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    tab.page.wait_for_selector("body[data-screen=home]")
    set_up_game(tab, {"red": "human", "blue": "bot:heuristic"})
    steps = 0
    reloaded = False
    while True:
        state = human_step(tab)
        if state == "over":
            break
        steps += 1
        if steps == 30 and not reloaded:
            tab.shot("mid-game")
            turn_before = tab.testid("turn").get_attribute("data-colour")
            tab.page.reload()
            tab.page.wait_for_selector("body[data-screen=game]")
            tab.idle()
            assert tab.testid("turn").get_attribute("data-colour") in ("red", "blue", turn_before)
            reloaded = True
        assert steps < 2000
    end = tab.testid("end-screen")
    end.wait_for()
    assert tab.testid("winner").get_attribute("data-colour") in ("red", "blue")
    assert reloaded
    tab.shot("end")
    tab.close()


def test_bots_only_game_finishes_and_can_be_replayed(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    set_up_game(tab, {"red": "bot:heuristic", "yellow": "bot:random", "blue": "bot:heuristic", "green": "bot:random"})
    tab.testid("end-screen").wait_for(timeout=120_000)
    ranking = tab.testid("ranking").inner_text()
    assert ranking.strip()
    check_end_card(tab)
    tab.testid("home").click()
    tab.page.wait_for_selector("body[data-screen=home]")
    finished = tab.page.locator("[data-testid=game-item][data-over=true]")
    finished.first.wait_for()  # the list comes from the server after the screen shows
    assert finished.count() == 1
    # the statistics count it: two bots (heuristic and random) and four colours
    stats = tab.testid("stats")
    stats.wait_for()
    assert stats.locator(".stats-colours [data-testid=stats-row]").count() == 4
    assert stats.locator("[data-testid=stats-row]").count() == 6
    finished.locator("[data-testid=replay]").click()
    tab.page.wait_for_selector("body[data-screen=replay]")
    position = tab.testid("replay-position")
    tab.wait_for("!/\\/\\s*0$/.test(document.querySelector('[data-testid=replay-position]').innerText)")
    tab.testid("replay-last").click()
    last = position.inner_text()
    tab.testid("replay-first").click()
    tab.testid("replay-next").click()
    assert position.inner_text() != last
    # play runs on by itself until paused
    step = "Number(document.querySelector('[data-testid=replay-position]').innerText.split('/')[0])"
    tab.testid("replay-play").click()
    tab.wait_for(f"{step} >= 3")
    tab.testid("replay-play").click()
    assert tab.testid("replay-play").get_attribute("data-playing") == "false"
    paused_at = tab.page.evaluate(step)
    tab.page.wait_for_timeout(1_000)
    assert tab.page.evaluate(step) == paused_at
    tab.shot("replay")
    # the review of the finished game: chances across it, the costliest decisions (the
    # random bots make some), each a way to its step, with the verdict under the die
    tab.testid("chance-chart").wait_for(timeout=30_000)
    mistake = tab.page.locator("[data-testid=mistake]").first
    target = mistake.get_attribute("data-step")
    mistake.click()
    assert tab.page.evaluate(step) == int(target)
    verdict = tab.testid("verdict")
    assert verdict.is_visible() and verdict.get_attribute("data-kind") in ("mistake", "inaccuracy")
    # the cost is the difference of the chances as shown, never a rounding apart from them
    texts = """async (pairs) => {
        const m = await import('/static/insight.js');
        return pairs.map(([best, played]) => m.costTexts({ chance_best: best, chance_played: played }));
    }"""
    assert tab.page.evaluate(texts, [[0.5941, 0.4561], [0.4564, 0.4561], [0.999, 0.97]]) == [
        {"best": "59%", "played": "46%", "cost": "13%"},
        {"best": "45.6%", "played": "45.6%", "cost": "0.0%"},  # the verdict calls that "about as good"
        {"best": ">99%", "played": "97%", "cost": "3%"},
    ]
    words = verdict.inner_text()
    if verdict.get_attribute("data-kind") in ("mistake", "inaccuracy") and "<" not in words and ">" not in words:
        best, played, cost = (float(n) for n in re.findall(r"([\d.]+)%", words)[-3:])
        assert round(best - played, 1) == cost, words
    tab.close()


def check_end_card(tab: Page) -> None:
    """The end card fits inside the board and closes by a pointer (Playwright's click
    fails when another element would take it), and "view the board" does the same."""
    board, card = tab.testid("board").bounding_box(), tab.testid("end-screen").bounding_box()
    assert board["y"] <= card["y"] and card["y"] + card["height"] <= board["y"] + board["height"] + 1, (board, card)
    tab.testid("end-close").click()
    tab.wait_for("document.querySelector('.end-layer').classList.contains('minimised')")
    assert not tab.testid("ranking").is_visible() and not tab.testid("end-screen").is_visible()
    # minimised, nothing covers the board: the panel's dock has the card's actions
    assert tab.testid("end-dock").is_visible() and tab.testid("dock-new-game-end").is_visible()
    tab.testid("end-reopen").click()  # open again
    tab.wait_for("!document.querySelector('.end-layer').classList.contains('minimised')")
    assert tab.testid("end-dock").is_hidden()
    tab.testid("view-board").click()
    tab.wait_for("document.querySelector('.end-layer').classList.contains('minimised')")
    box = tab.testid("board").bounding_box()
    middle_of_the_bottom = tab.page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-testid=board]') !== null",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.85],
    )
    assert middle_of_the_bottom  # where the minimised card used to sit, the board itself answers
    tab.shot(f"end-minimised-{tab.page.viewport_size['width']}")


def test_the_end_card_fits_a_phone_and_closes_by_tap(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url, width=390, height=844)
    set_up_game(tab, {"red": "bot:heuristic", "yellow": "bot:random", "blue": "bot:heuristic", "green": "bot:random"})
    tab.testid("end-screen").wait_for(timeout=120_000)
    tab.idle()
    tab.shot("end-phone")
    check_end_card(tab)
    tab.close()


def test_languages_switch_and_are_remembered(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    tab.page.wait_for_selector("body[data-screen=home]")
    shown = tab.testid("new-game").inner_text()
    for language in ("zh", "vi"):
        tab.testid("lang-select").select_option(language)
        # the words change from the last language's, not only from English's
        tab.wait_for("text => document.querySelector('[data-testid=new-game]').innerText !== text", arg=shown)
        translated = shown = tab.testid("new-game").inner_text()
        tab.page.reload()
        tab.page.wait_for_selector("body[data-screen=home]")
        assert tab.testid("new-game").inner_text() == translated
    tab.shot("home-vi")
    tab.testid("lang-select").select_option("en")
    tab.close()


def test_keyboard_plays_and_phone_layout(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url, width=390, height=844)
    set_up_game(tab, {"red": "human", "blue": "human"}, speed="fast")
    tab.testid("auto-move").uncheck()  # every move by a key here
    tab.page.evaluate("document.activeElement.blur()")  # Space would toggle the focused checkbox
    die = tab.testid("die")
    log_length = "document.querySelectorAll('[data-testid=log] > *').length"
    for _ in range(12):
        tab.wait_for(
            "['ready', 'move'].includes(document.querySelector('[data-testid=die]').dataset.state)"
            " && document.body.dataset.animating !== 'true'"
        )
        before = tab.page.evaluate(log_length)
        if die.get_attribute("data-state") == "ready":
            # no banner about another player hangs over this player's roll
            turn = tab.testid("turn").get_attribute("data-colour")
            assert tab.page.locator(f".banner:not(.banner-{turn})").count() == 0
            # the board itself shows whose turn it is: that colour's corner, and only it
            assert tab.testid("board").get_attribute("data-turn") == turn
            assert tab.page.locator(".yard.turn").count() == 1
            assert tab.page.locator(f".yard.turn.yard-{turn}").count() == 1
            tab.page.keyboard.press("Space")
        else:
            plane = tab.page.locator("[data-legal=true]").last.get_attribute("data-testid")
            tab.page.keyboard.press(str(int(plane.rsplit("-", 1)[1]) + 1))
        # every roll and every move adds lines to the log
        tab.wait_for(f"{log_length} > {before}")
    box = tab.testid("board").bounding_box()
    assert box["width"] <= 390 and box["width"] > 300
    # the planes' numbers are drawn bigger on a phone's board, to stay readable
    badge = tab.page.locator(".plane-badge").first.bounding_box()
    assert badge["height"] >= 10, badge
    tab.shot("phone")
    tab.close()


RECORDS = Path(__file__).resolve().parent / "records"


def test_load_a_record_to_watch_or_continue_and_refuse_a_bad_one(browser: Any, server: Server, tmp_path: Path) -> None:
    tab = Page(browser, server.url)
    tab.page.wait_for_selector("body[data-screen=home]")
    # an unfinished game: the first 60 actions of a golden game
    import json

    data = json.loads((RECORDS / "traditional-4p.json").read_text())
    data["actions"] = data["actions"][:60]
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(data))
    tab.testid("load-record").set_input_files(str(partial))
    tab.testid("loaded-watch").click()
    tab.page.wait_for_selector("body[data-screen=replay]")
    # the viewer fetches the game's steps after it opens
    tab.wait_for("document.querySelector('[data-testid=replay-position]').innerText.replace(/ /g, '').endsWith('/60')")
    tab.testid("continue").click()
    tab.page.wait_for_selector("body[data-screen=game]")
    tab.idle()
    assert tab.testid("die").get_attribute("data-state") in ("ready", "waiting", "move")
    # a foreign file: refused with a short message, the engine's detail on request, and
    # no failed request in the console (the page asks whether the file loads first)
    tab.testid("home").click()
    tab.page.wait_for_selector("body[data-screen=home]")
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"format": "chess/1", "moves": ["e4"]}))
    tab.testid("load-record").set_input_files(str(foreign))
    error = tab.testid("load-error")
    error.wait_for()
    # the notice that says so lets taps through to whatever lies under it
    toast = tab.testid("toast").last
    box = toast.bounding_box()
    under = "([x, y]) => !document.elementFromPoint(x, y).closest('.toast')"
    assert tab.page.evaluate(under, [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
    detail = tab.testid("load-error-detail")
    assert not detail.locator("code").is_visible()
    detail.locator("summary").click()
    assert "format" in detail.locator("code").inner_text()
    tab.page.locator("[data-testid=game-item]").first.wait_for()
    assert tab.page.locator("[data-testid=game-item]").count() == 1
    tab.close()


def test_rematch_starts_a_fresh_game_with_the_same_seats(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    set_up_game(tab, {"red": "bot:heuristic", "blue": "bot:random"})
    tab.testid("end-screen").wait_for(timeout=120_000)
    first = tab.page.url
    tab.testid("rematch").click()
    tab.wait_for(f"location.href !== {first!r}")
    tab.page.wait_for_selector("body[data-screen=game]")
    assert tab.page.locator("[data-testid=end-screen]").count() == 0 or not tab.testid("end-screen").is_visible()
    tab.close()


def test_two_devices_share_a_room_with_invite_join_chat_and_reload(browser: Any, tmp_path: Path) -> None:
    """A network server (tokens required): the host invites, a guest joins from the link,
    both play their own seat only, chat shows names as text, and a reload keeps the seat."""
    server = Server(tmp_path, network=True)
    try:
        host = Page(browser, server.url)
        host.page.wait_for_selector("body[data-screen=home]")
        set_up_game(host, {"red": "human", "blue": "open"}, speed="fast")
        host.testid("invite").wait_for()
        link = host.testid("invite-link").inner_text().strip()
        assert "/#/join/" in link
        host.shot("invite")
        guest = Page(browser, link)
        guest.testid("join-name").wait_for()
        guest.testid("join-name").fill('<b onclick="x()">Ann</b>')
        # blue is the only free seat: it is chosen already, and the name is all it takes
        assert guest.testid("join-seat-blue").get_attribute("aria-pressed") == "true"
        assert guest.testid("join-submit").is_enabled()
        guest.testid("join-submit").click()
        guest.page.wait_for_selector("body[data-screen=game]")
        host.wait_for("document.querySelector('[data-testid=player-blue]')?.dataset.connected === 'true'")
        assert '<b onclick="x()">Ann</b>' in host.testid("player-blue").inner_text()
        # both pages added their share to the dice before the start
        game_id = link.rsplit("/", 1)[1]
        for _ in range(100):
            if sorted(server.api(f"/api/games/{game_id}")["game"]["dice"]["contributors"]) == ["blue", "host"]:
                break
            host.page.wait_for_timeout(100)
        assert sorted(server.api(f"/api/games/{game_id}")["game"]["dice"]["contributors"]) == ["blue", "host"]
        guest.wait_for("document.querySelector('[data-testid=dice-status]')?.innerText.includes(': 2.')")
        # the host gathered the players: now the game starts
        assert host.testid("die").get_attribute("data-state") == "waiting"
        host.testid("start-game").click()
        host.wait_for("document.querySelector('[data-testid=start-game]').hidden")
        # each plays only its own seat: a few turns from both pages
        for _ in range(240):
            if server.api(f"/api/games/{game_id}")["game"]["actions"] >= 4:
                break
            for tab, mine in ((host, "red"), (guest, "blue")):
                # turn and die read together, so an update cannot fall between the two reads
                turn, state, busy = tab.page.evaluate(
                    "[document.querySelector('[data-testid=turn]').dataset.colour,"
                    " document.querySelector('[data-testid=die]').dataset.state,"
                    " document.body.dataset.animating === 'true']"
                )
                if turn == mine and state == "ready" and not busy:
                    tab.testid("die").click()
                elif turn == mine and state == "move":
                    tab.page.locator("[data-legal=true]").last.click()  # the topmost of planes sharing a cell
                elif turn != mine and not busy:
                    assert state != "ready"
            host.page.wait_for_timeout(250)
        assert server.api(f"/api/games/{game_id}")["game"]["actions"] >= 4  # both pages played
        guest.testid("chat-input").fill("<i>good luck</i>")
        guest.testid("chat-send").click()
        host.wait_for(
            "[...document.querySelectorAll('[data-testid=chat-message]')].some(m => m.innerText.includes('<i>good luck</i>'))"
        )
        guest.page.reload()
        guest.page.wait_for_selector("body[data-screen=game]")
        guest.wait_for("document.querySelector('[data-testid=role]')?.dataset.role === 'player'")
        guest.shot("guest")
        # a guest who leaves is named as away on the host's page, not only by a hollow dot
        host.wait_for("document.querySelector('[data-testid=player-blue]')?.dataset.connected === 'true'")
        assert host.testid("away-blue").count() == 0
        guest.close()
        host.wait_for("document.querySelector('[data-testid=player-blue]')?.dataset.connected === 'false'")
        assert host.testid("away-blue").inner_text() == "Away"
        host.close()
    finally:
        server.stop()


def test_the_pages_model_follows_what_the_server_said(browser: Any, server: Server) -> None:
    """web/identity.js and web/gamemodel.js, the page's model: each message in, a new
    model and its effects out. Who the page is and what it may do come from the server's
    `you` and `welcome` alone; a request lost with its connection is sent again once."""
    tab = Page(browser, server.url)
    seen = tab.page.evaluate(
        """async () => {
      const id = await import('/static/identity.js');
      const gm = await import('/static/gamemodel.js');
      const out = { nobody: [id.NOBODY.role, id.NOBODY.controls.length], frozen: Object.isFrozen(id.NOBODY) };
      const player = { role: 'player', colours: ['blue'], controls: ['blue'], dice_share: 'blue' };
      const watcher = { role: 'spectator', colours: [], controls: [], dice_share: null };
      let me = id.told(id.NOBODY, player);
      out.player = [me.role, id.controls(me, 'blue'), id.controls(me, 'red'), me.diceShare];
      out.unknown_role = id.told(id.NOBODY, { role: 'admin', colours: 'red' }).role;
      // a reconnection that proves its token keeps who it was until the welcome comes
      me = id.snapshotSaid(id.connecting(me, true), watcher);
      out.while_proving = me.role;
      out.refused = id.helloRefused(me).role;
      out.without_hello = id.snapshotSaid(id.connecting(me, false), watcher).role;

      const game = (actions, phase, turn = 'blue') => ({ actions, phase, started: true, state: { turn }, choices: phase === 'move' ? 1 : 0 });
      let model = gm.opened(gm.START, false);
      let effects;
      [model, effects] = gm.received(model, { type: 'snapshot', game: game(3, 'roll'), you: player });
      out.die = gm.dieState(model, game(3, 'roll'), false);
      out.die_others = gm.dieState(model, game(3, 'roll', 'red'), false);
      out.die_busy = gm.dieState(model, game(3, 'roll'), true);
      model = gm.sent(model, { type: 'roll', at: 3 }, game(3, 'roll'));
      out.die_pending = gm.dieState(model, game(3, 'roll'), false);
      model = gm.closed(model);
      [model, effects] = gm.received(gm.opened(model, false), { type: 'snapshot', game: game(3, 'roll'), you: player });
      out.resent = effects.filter((e) => e.kind === 'send').map((e) => e.message);
      [model, effects] = gm.received(gm.closed(model), { type: 'snapshot', game: game(4, 'move'), you: player });
      out.not_resent = effects.filter((e) => e.kind === 'send').length;
      [model, effects] = gm.received(model, { type: 'update', events: [], game: game(6, 'roll') });
      out.gap = effects.filter((e) => e.kind === 'send').map((e) => e.message.type);
      model = gm.shareSent(model);
      [model, effects] = gm.received(model, { type: 'error', code: 'already-contributed' });
      out.late_share = [effects.length, model.sharing];
      [model, effects] = gm.received(model, { type: 'error', code: 'not-your-seat', message: 'no' });
      out.refusal = effects.map((e) => e.kind);
      [model, effects] = gm.received(model, { type: 'welcome', ...watcher });
      out.welcome = [model.me.role, gm.dieState(model, game(6, 'roll'), false)];
      out.one_choice = [gm.oneChoice(game(6, 'move')), gm.oneChoice({ ...game(6, 'move'), choices: 2 })];
      return out;
    }"""
    )
    assert seen == {
        "nobody": ["spectator", 0],
        "frozen": True,
        "player": ["player", True, False, "blue"],
        "unknown_role": "spectator",
        "while_proving": "player",
        "refused": "spectator",
        "without_hello": "spectator",
        "die": "ready",
        "die_others": "waiting",
        "die_busy": "waiting",
        "die_pending": "waiting",
        "resent": [{"type": "roll", "at": 3}],
        "not_resent": 0,
        "gap": ["sync"],
        "late_share": [0, False],
        "refusal": ["refused", "render"],
        "welcome": ["spectator", "waiting"],
        "one_choice": [True, False],
    }
    tab.close()


def test_the_hosts_end_card_offers_a_rematch_after_a_reload(browser: Any, server: Server) -> None:
    """The end card drawn from a fresh snapshot can come before the welcome that says the
    page is the host's: the card is drawn again for the host, with its rematch."""
    tab = Page(browser, server.url)
    set_up_game(tab, {"red": "bot:random", "blue": "bot:random"})
    tab.testid("end-screen").wait_for(timeout=120_000)
    assert tab.testid("rematch").count() == 1
    for _ in range(2):
        tab.page.reload()
        tab.testid("end-screen").wait_for(timeout=30_000)
        tab.wait_for("document.querySelectorAll('[data-testid=rematch]').length === 1", timeout=10_000)
        assert tab.testid("role").get_attribute("data-role") == "host"
    tab.close()


def test_a_single_choice_plays_itself_unless_auto_move_is_off(browser: Any, server: Server) -> None:
    """Auto-move is on by default: a move with one real choice (one legal plane, or all
    of them alike, such as launching any of four planes) needs no tap. Turned off (and
    remembered), the page waits for the player."""
    tab = Page(browser, server.url)
    set_up_game(tab, {"red": "human", "blue": "bot:random"})
    die = tab.testid("die")
    playable = "['ready', 'move', 'over'].includes(document.querySelector('[data-testid=die]').dataset.state)"

    def next_single_choice() -> None:
        for _ in range(400):
            tab.wait_for(f"{playable} && document.body.dataset.animating !== 'true'", timeout=30_000)
            state, choices = tab.page.evaluate(
                "(({state, choices}) => [state, choices])(document.querySelector('[data-testid=die]').dataset)"
            )
            assert state != "over", "the game ended before a move with one choice came up"
            if state == "move" and choices == "one":
                return
            if state == "ready":
                die.click()
            else:
                tab.page.locator("[data-legal=true]").last.click()
        raise AssertionError("no move with one choice in 400 steps")

    # off: a move with one choice waits for the player
    tab.testid("auto-move").uncheck()
    tab.page.reload()
    tab.page.wait_for_selector("body[data-screen=game]")
    assert not tab.testid("auto-move").is_checked()  # remembered
    next_single_choice()
    tab.page.wait_for_timeout(1_500)
    assert die.get_attribute("data-state") == "move"
    tab.page.locator("[data-legal=true]").last.click()
    # on: the same kind of move plays itself, without a tap
    tab.testid("auto-move").check()
    for _ in range(2):
        next_single_choice()
        tab.wait_for("document.querySelector('[data-testid=die]').dataset.state !== 'move'", timeout=3_000)
    tab.close()


def test_a_fault_of_the_page_is_shown_and_logged_never_swallowed(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    tab.page.wait_for_selector("body[data-screen=home]")
    tab.page.evaluate("setTimeout(() => { throw new Error('a planted fault') })")
    tab.testid("fault").wait_for()
    assert tab.testid("fault").locator("button").is_visible()
    assert any("a planted fault" in error for error in tab.errors)
    tab.errors.clear()  # the planted one only
    tab.close()


OVERFLOW = """() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('[aria-hidden=true], .sr-only') || el.tagName === 'INPUT') continue;  // decoration, fields, screen-reader text
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || !el.getBoundingClientRect().width) continue;
    const clips = !['visible', 'auto', 'scroll'].includes(style.overflowX);
    if (clips && el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName}.${el.className}: ${el.textContent.slice(0, 40)}`);
  }
  const page = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  if (page > 0) out.push(`the page scrolls sideways by ${page} px`);
  return out;
}"""


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 860)])
def test_no_screen_overflows_in_any_language(browser: Any, server: Server, width: int, height: int) -> None:
    """Home, new game and a game, in each language: the page never scrolls sideways
    and no text is cut off by its box."""
    tab = Page(browser, server.url, width=width, height=height)
    tab.page.wait_for_selector("body[data-screen=home]")
    set_up_game(tab, {"red": "human", "blue": "bot:heuristic", "green": "bot:random"})
    game_url = tab.page.url
    for language in LANGUAGES:
        tab.testid("lang-select").select_option(language)
        for url in (server.url + "/#/", server.url + "/#/new", game_url, game_url.replace("#/game/", "#/replay/")):
            tab.page.goto(url)
            tab.page.wait_for_timeout(300)
            tab.idle()
            assert tab.page.evaluate(OVERFLOW) == [], (language, url)
    tab.close()


def test_a_page_says_when_the_server_cannot_be_reached(browser: Any, tmp_path: Path) -> None:
    server = Server(tmp_path)
    tab = Page(browser, server.url)
    set_up_game(tab, {"red": "bot:heuristic", "blue": "bot:heuristic"}, speed="slow")
    # the browser logs the refused reconnections; nothing else may be in the console
    tab.expect_errors("WebSocket connection", "ERR_CONNECTION_REFUSED")
    server.stop()
    tab.wait_for("document.querySelector('[data-testid=hint]').dataset.kind === 'offline'")
    assert "bot" not in tab.testid("hint").inner_text().lower()
    tab.close()


@pytest.mark.parametrize("away", ["stopped", "hangs-up"])
def test_a_page_backs_off_while_the_server_is_away(browser: Any, tmp_path: Path, away: str) -> None:
    """Reconnections spread out (net.js, retryDelay): over 20 seconds of a server that is
    gone, or that accepts every connection and hangs up at once (as one cut off from its
    Redis did), a page tries again a handful of times, not hundreds; an opened connection
    resets the waits only once it has stayed up. Time runs on Playwright's clock."""
    server = Server(tmp_path)
    tab = Page(browser, server.url)
    tab.page.clock.install()
    set_up_game(tab, {"red": "human", "blue": "human"}, speed="slow")
    attempts: list[float] = []
    counting = [True]  # off before the tab closes: an attempt dispatched by the closing call has no page to ask

    def count_attempt() -> None:
        if counting[0]:
            attempts.append(tab.page.evaluate("Date.now()"))

    def hang_up(socket: Any) -> None:  # it opens; the page says hello; it hangs up
        count_attempt()
        socket.on_message(lambda _: socket.close(code=1012))

    tab.expect_errors("WebSocket connection", "ERR_CONNECTION_REFUSED")  # the browser's own log of each attempt
    if away == "stopped":
        tab.page.on("websocket", lambda _: count_attempt())
        server.stop()
    else:
        tab.page.route_web_socket(re.compile(r".*/ws/.*"), hang_up)
        tab.page.reload()  # the game's connections now go to the route that hangs up
        tab.page.clock.install()
    started = tab.page.evaluate("Date.now()")
    for _ in range(80):  # 20 s of the page's time, each step long enough for a refusal to arrive
        tab.page.clock.run_for(250)
        time.sleep(0.02)
    assert 4 <= len(attempts) <= 10, [round(at - started) for at in attempts]  # docs/protocol.md: at most 10
    counting[0] = False
    tab.page.unroute_all(behavior="ignoreErrors")
    tab.close()
    server.stop()


def test_a_roll_lost_with_its_connection_is_rolled_after_reconnecting(browser: Any, server: Server) -> None:
    """The player clicks once: a roll sent on a connection that drops before its answer
    (a server restarting, a failover) is sent again on the new connection when the fresh
    snapshot shows the game still waiting for it, and only then (web/game.js, resendLost)."""
    tab = Page(browser, server.url)
    connections: list[list[str]] = []

    def drop_the_first_roll(page_side: Any) -> None:
        server_side = page_side.connect_to_server()
        sent: list[str] = []
        connections.append(sent)
        first = len(connections) == 1

        def to_server(message: str | bytes) -> None:
            sent.append(str(message))
            if first and json.loads(message).get("type") == "roll":
                page_side.close(code=1012)  # the roll never reaches the server
                server_side.close()
            else:
                server_side.send(message)

        page_side.on_message(to_server)
        server_side.on_message(page_side.send)

    tab.page.route_web_socket(re.compile(r".*/ws/.*"), drop_the_first_roll)
    set_up_game(tab, {"red": "human", "blue": "human"}, speed="slow")
    tab.wait_for("document.querySelector('[data-testid=die]').dataset.state === 'ready'")
    game_id = tab.page.evaluate("location.hash").split("/")[-1]
    tab.testid("die").click()
    deadline = time.monotonic() + 20
    game = server.api(f"/api/games/{game_id}")["game"]
    while game["actions"] == 0 and game["phase"] == "roll" and time.monotonic() < deadline:
        tab.page.wait_for_timeout(200)  # the route's handlers run only while Playwright is called
        game = server.api(f"/api/games/{game_id}")["game"]
    assert game["actions"] >= 1 or game["phase"] == "move", connections  # the server rolled; the player clicked once
    rolls = [[json.loads(m)["type"] for m in sent].count("roll") for sent in connections]
    assert len(rolls) >= 2 and rolls[0] == 1 and sum(rolls[1:]) == 1, rolls  # sent again once, on the new connection
    tab.close()


NEAR_MISS = """() => {
  // a point beside a legal plane, outside its own hit circle and off every plane
  const cell = document.querySelector('[data-testid=board]').getBoundingClientRect().width / 15.1;
  for (const plane of document.querySelectorAll('.plane.legal')) {
    plane.scrollIntoView({ block: 'center' });  // the player looks at the board to tap it
    const box = plane.querySelector('.plane-hit').getBoundingClientRect();
    const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
    for (let k = 0; k < 16; k++) {
      const a = k * Math.PI / 8, d = Math.max(box.width / 2 + 4, 0.5 * cell);
      const x = cx + d * Math.cos(a), y = cy + d * Math.sin(a);
      const hit = document.elementFromPoint(x, y);
      if (hit && hit.closest('[data-testid=board]') && !hit.closest('.plane')) return {x, y, d, radius: box.width / 2};
    }
  }
  return null;
}"""


def test_a_tap_beside_a_small_plane_on_a_phone_still_moves_it(browser: Any, server: Server) -> None:
    """On a 390 px phone a plane is about 22 px across; a tap within 24 px of a legal
    plane's centre picks it (or opens a chooser when two moves are as near)."""
    tab = Page(browser, server.url, width=390, height=844)
    set_up_game(tab, {"red": "human", "blue": "bot:random"})
    tab.testid("auto-move").uncheck()
    die = tab.testid("die")
    near_taps = 0
    for _ in range(300):
        tab.wait_for(
            "['ready', 'move', 'over'].includes(document.querySelector('[data-testid=die]').dataset.state)"
            " && document.body.dataset.animating !== 'true'",
            timeout=30_000,
        )
        state = die.get_attribute("data-state")
        if state == "over" or near_taps >= 3:
            break
        if state == "ready":
            die.click()
            continue
        spot = tab.page.evaluate(NEAR_MISS)
        if spot is None:  # crowded: play it directly
            tab.page.locator("[data-legal=true]").last.click()
            continue
        assert spot["d"] > spot["radius"]  # outside the plane's own circle
        tab.page.mouse.click(spot["x"], spot["y"])
        chooser = tab.testid("plane-chooser")
        if chooser.count():
            buttons = chooser.locator("button")
            assert buttons.count() >= 2 and buttons.first.bounding_box()["height"] >= 44
            buttons.first.click()
        tab.wait_for("document.querySelector('[data-testid=die]').dataset.state !== 'move'", timeout=3_000)
        near_taps += 1
    assert near_taps >= 3
    tab.close()


def test_sound_waits_for_a_gesture_and_its_switch_is_remembered(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    tab.page.wait_for_selector("body[data-screen=home]")
    sound = "document.body.dataset.sound"
    assert tab.page.evaluate(sound) == "locked"  # no sound before the first tap or key
    set_up_game(tab, {"red": "human", "blue": "bot:random"}, speed="fast")
    assert tab.page.evaluate(sound) == "on"
    tab.testid("die").click()  # a roll with sound on: nothing in the console
    tab.testid("sound").uncheck()
    assert tab.page.evaluate(sound) == "muted"
    tab.page.reload()
    tab.page.wait_for_selector("body[data-screen=game]")
    assert tab.page.evaluate(sound) == "locked" and not tab.testid("sound").is_checked()
    tab.testid("hint").click()
    assert tab.page.evaluate(sound) == "muted"
    tab.close()


def test_the_page_can_be_installed_on_a_home_screen(browser: Any, server: Server) -> None:
    """Chromium's own verdict on the manifest and its icons (a test browser is always
    incognito, which is the only objection allowed)."""
    tab = Page(browser, server.url)
    tab.page.wait_for_selector("body[data-screen=home]")
    devtools = tab.context.new_cdp_session(tab.page)
    assert devtools.send("Page.getAppManifest")["errors"] == []
    objections = {error["errorId"] for error in devtools.send("Page.getInstallabilityErrors")["installabilityErrors"]}
    assert objections <= {"in-incognito"}, objections
    tab.close()


def test_settings_are_reached_from_any_screen_and_kept(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url, width=390, height=844)
    tab.page.wait_for_selector("body[data-screen=home]")
    tab.testid("settings").click()
    tab.page.wait_for_selector("body[data-screen=settings]")
    tab.testid("pref-sound").uncheck()
    tab.testid("pref-auto-move").uncheck()
    tab.testid("pref-motion").select_option("reduced")
    assert tab.page.evaluate("document.documentElement.dataset.motion") == "reduced"
    tab.testid("pref-speed").select_option("slow")
    tab.testid("pref-language").select_option("vi")
    tab.wait_for("document.documentElement.lang === 'vi'")
    tab.testid("pref-done").click()
    tab.page.wait_for_selector("body[data-screen=home]")
    tab.testid("new-game").click()
    tab.page.wait_for_selector("body[data-screen=new]")
    tab.testid("start").click()  # a new game starts at the pace chosen in the settings
    tab.page.wait_for_selector("body[data-screen=game]")
    tab.wait_for("document.querySelector('[data-testid=speed]').value === 'slow'")
    tab.testid("home").click()
    tab.page.wait_for_selector("body[data-screen=home]")
    set_up_game(tab, {"red": "human", "blue": "bot:random"})  # the host's last pace is the next default
    # the game's own switches show the same settings; the header reaches them from here too
    assert not tab.testid("sound").is_checked() and not tab.testid("auto-move").is_checked()
    tab.page.reload()
    tab.page.wait_for_selector("body[data-screen=game]")
    assert tab.page.evaluate("document.documentElement.dataset.motion") == "reduced"
    tab.testid("settings").click()
    tab.page.wait_for_selector("body[data-screen=settings]")
    assert tab.testid("pref-motion").input_value() == "reduced" and not tab.testid("pref-sound").is_checked()
    assert tab.testid("pref-speed").input_value() == "instant"
    assert tab.page.evaluate(OVERFLOW) == []
    tab.close()


SURFACE = "getComputedStyle(document.querySelector('.card')).backgroundColor"


def test_the_theme_follows_the_device_until_the_player_picks_one(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url, color_scheme="dark")
    tab.page.wait_for_selector("body[data-screen=home] .card")
    assert tab.page.evaluate("document.documentElement.dataset.theme") == "dark"
    dark_card = tab.page.evaluate(SURFACE)
    tab.testid("settings").click()
    tab.page.wait_for_selector("body[data-screen=settings]")
    assert tab.testid("pref-theme").input_value() == "system"
    tab.testid("pref-theme").select_option("light")
    assert tab.page.evaluate("document.documentElement.dataset.theme") == "light"
    assert tab.page.evaluate(SURFACE) != dark_card
    # kept: set before the first paint on the next visit (boot.js), whatever the device says
    tab.page.reload()
    tab.page.wait_for_selector("body[data-screen=settings]")
    assert tab.page.evaluate("document.documentElement.dataset.theme") == "light"
    tab.testid("pref-theme").select_option("system")
    assert tab.page.evaluate("document.documentElement.dataset.theme") == "dark"
    tab.testid("pref-done").click()
    tab.page.wait_for_selector("body[data-screen=home]")
    set_up_game(tab, {"red": "human", "blue": "bot:random"})
    assert tab.page.evaluate(OVERFLOW) == []
    tab.shot("game-dark")
    tab.close()


def test_how_to_play_shows_beside_the_first_game_until_dismissed(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url, width=390, height=844)
    set_up_game(tab, {"red": "human", "blue": "bot:random"})
    howto = tab.testid("howto")
    assert howto.is_visible() and howto.locator("li").count() == 5  # roll, move, jump, win, the keys
    tab.testid("die").click()  # it never stands in the way of play
    tab.testid("howto-done").click()
    assert tab.testid("howto").count() == 0
    tab.page.reload()
    tab.page.wait_for_selector("body[data-screen=game]")
    assert tab.testid("howto").count() == 0  # remembered
    tab.testid("settings").click()
    tab.testid("pref-howto").click()  # brought back from the settings screen
    tab.testid("pref-done").click()
    tab.page.wait_for_selector("body[data-screen=game]")
    tab.testid("howto").wait_for()
    tab.close()


def test_hints_and_win_chances_during_a_game(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    tab.testid("new-game").click()
    tab.page.wait_for_selector("body[data-screen=new]")
    tab.testid("hints").check(force=True)  # the switch's box is drawn by its track
    tab.testid("start").click()
    tab.page.wait_for_selector("body[data-screen=game]")
    tab.testid("speed").select_option("instant")
    tab.testid("show-chances").check()
    tab.wait_for("document.querySelectorAll('[data-testid^=chance-]').length === 4")
    shown = tab.page.evaluate("[...document.querySelectorAll('.chance-text')].map(e => parseInt(e.textContent))")
    assert 96 <= sum(shown) <= 104  # four rounded chances of one position
    several = (
        "(d => d.state === 'move' && d.choices === 'several')(document.querySelector('[data-testid=die]').dataset)"
        " && document.body.dataset.animating !== 'true'"
    )
    for _ in range(300):
        tab.wait_for(
            "['ready', 'move', 'over'].includes(document.querySelector('[data-testid=die]').dataset.state)"
            " && document.body.dataset.animating !== 'true'",
            timeout=30_000,
        )
        if tab.page.evaluate(several):
            break
        human_step(tab)
    else:
        raise AssertionError("no move with a real choice in 300 steps")
    tab.testid("hint-button").click()
    tab.testid("hint-best").wait_for()
    assert "plane" in tab.testid("hint-best").inner_text()
    assert tab.page.locator(".ghost").count() == 1  # the best move's path is drawn on the board
    tab.shot("hint")
    tab.page.locator("[data-legal=true]").last.click()
    tab.wait_for("document.querySelector('[data-testid=hint-best]').hidden")  # gone with its position
    tab.close()


def test_local_players_are_named_at_setup_and_the_names_are_remembered(browser: Any, server: Server) -> None:
    tab = Page(browser, server.url)
    tab.testid("new-game").click()
    tab.page.wait_for_selector("body[data-screen=new]")
    tab.testid("name-red").fill("ána")
    tab.testid("start").click()
    tab.page.wait_for_selector("body[data-screen=game]")
    # the players' rows come with the game's first snapshot, just after the screen
    tab.wait_for("(document.querySelector('.players')?.innerText || '').includes('ána')")
    # the named player's badge is her initial on her colour; a bot keeps its colour's shape
    assert tab.page.locator("[data-testid=player-red] [data-testid=avatar-red]").text_content() == "Á"
    assert tab.page.locator("[data-testid=player-yellow] .avatar").count() == 0
    tab.page.goto(server.url + "/#/new")
    tab.page.wait_for_selector("body[data-screen=new]")
    assert tab.testid("name-red").input_value() == "ána"
    tab.close()


def test_a_network_game_shows_its_dice_commitment_and_verifies_every_roll(browser: Any, tmp_path: Path) -> None:
    """The page adds its share before the start, shows the commitment, and once the game
    is over recomputes every roll in the browser (Web Crypto, and the plain SHA-256 a
    LAN page over http falls back to), agreeing with Python's construction."""
    from flyingchess.records.fair_dice import DiceProof, commitment_of

    server = Server(tmp_path, network=True)
    try:
        host = Page(browser, server.url)
        host.page.wait_for_selector("body[data-screen=home]")
        set_up_game(host, {"red": "bot:heuristic", "blue": "open"})
        host.testid("dice-card").wait_for()
        game_id = host.page.evaluate("location.hash").rsplit("/", 1)[1]
        dice = server.api(f"/api/games/{game_id}")["game"]["dice"]
        host.wait_for("document.querySelector('[data-testid=dice-status]').innerText.includes('1')")
        dice = server.api(f"/api/games/{game_id}")["game"]["dice"]
        assert dice["contributors"] == ["host"] and dice["seed"] is None
        assert host.testid("dice-commitment").get_attribute("title") == dice["commitment"]
        assert host.testid("verify-dice").is_hidden()
        host.shot("dice-committed")
        host.testid("start-game").click()  # the open seat goes to a bot: a bots-only game
        host.testid("end-screen").wait_for(timeout=60_000)
        host.testid("end-verify-dice").click()
        host.wait_for("document.querySelector('[data-testid=end-dice-result]').dataset.ok === 'true'")
        record = server.api(f"/api/games/{game_id}/record")
        assert host.testid("end-dice-result").inner_text() == (
            f"✓ All {len(record['actions'])} rolls match the commitment (checked in this browser)."
            " This device's share is in it, and the commitment is the one shown before the game."
        )
        host.shot("dice-verified-end")
        host.testid("view-board").click()
        host.testid("verify-dice").click()
        host.wait_for("document.querySelector('[data-testid=dice-result]').dataset.ok === 'true'")
        host.shot("dice-verified-panel")
        # both ways of hashing, on the real record and on tampered ones
        check = """async ([record, plain]) => {
            const m = await import('/static/fairdice.js');
            const r = await m.verifyRecord(record, m.hasher(plain));
            return [r.ok, r.key || null, r.params || null, r.rolls || null];
        }"""
        rolls = len(record["actions"])
        index = next(i for i, a in enumerate(record["actions"]) if a["plane"] is None)
        tampered = {**record, "actions": [dict(a) for a in record["actions"]]}
        tampered["actions"][index]["roll"] = record["actions"][index]["roll"] % 6 + 1
        for plain in (False, True):
            assert host.page.evaluate(check, [record, plain]) == [True, None, None, rolls]
            assert host.page.evaluate(check, [tampered, plain]) == [
                False,
                "dice.mismatch",
                {
                    "action": index,
                    "rolled": tampered["actions"][index]["roll"],
                    "expected": record["actions"][index]["roll"],
                },
                None,
            ]
            bad_seed = {**record, "dice": {**record["dice"], "seed": "00" * 32}}
            assert host.page.evaluate(check, [bad_seed, plain])[:2] == [False, "dice.bad-seed"]
            hidden = {**record, "dice": {k: v for k, v in record["dice"].items() if k != "seed"}}
            assert host.page.evaluate(check, [hidden, plain])[:2] == [False, "dice.secret-hidden"]
            broken = {**record, "dice": {**record["dice"], "contributions": ["no"]}}
            assert host.page.evaluate(check, [broken, plain])[:3] == [
                False,
                "dice.malformed",
                {"field": "contributions"},
            ]
        # held to what the page saw before the game: a server that swapped the commitment
        # (a seed chosen afterwards) or left this device's share out is caught
        seen = host.page.evaluate(f"JSON.parse(localStorage.getItem('flyingchess.dice'))['{game_id}']")
        assert seen["commitment"] == dice["commitment"] and len(seen["shares"]) == 1
        assert seen["shares"][0]["by"] == "host" and seen["shares"][0]["value"] in record["dice"]["contributions"]
        assert seen["seated"] == []  # blue was open, then a bot: no player ever sat there
        # the card shows the share, and the whole command that holds the downloaded record to
        # what this page saw: run as it is written, it verifies the game's real record
        assert host.testid("dice-share").inner_text().endswith(seen["shares"][0]["value"])
        command = host.testid("dice-command").text_content()
        assert f"--share {seen['shares'][0]['value']} --as host" in command and "--seated ''" in command
        (tmp_path / f"flyingchess-{game_id}.json").write_text(json.dumps(record))
        words = shlex.split(command)
        assert words[:2] == ["flyingchess", "verify"]
        ran = subprocess.run(
            [sys.executable, "-m", "flyingchess", *words[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.splitlines()[-1] == "your share is in the record (sent as host)"
        held = """async ([record, seen]) => {
            const m = await import('/static/fairdice.js');
            const r = await m.verifyRecord(record, m.hasher(), seen);
            return [r.ok, r.key || null, r.mine || false];
        }"""
        assert host.page.evaluate(held, [record, seen]) == [True, None, True]
        other_seed = bytes(range(3, 35))
        swapped = {
            **record,
            "dice": {**record["dice"], "seed": other_seed.hex(), "commitment": commitment_of(other_seed)},
        }
        assert host.page.evaluate(held, [swapped, seen])[:2] == [False, "dice.not-seen"]
        assert host.page.evaluate(held, [record, {**seen, "shares": [{"value": "not-my-share-at-all", "by": "host"}]}])[
            :2
        ] == [False, "dice.share-missing"]
        # this device's share filed under another name is not this device's share
        assert host.page.evaluate(held, [record, {**seen, "shares": [{**seen["shares"][0], "by": "blue"}]}])[:2] == [
            False,
            "dice.share-missing",
        ]
        # a share the server slipped in: under a name that held no seat, or under a seat this
        # page never saw a player in (even with `seated` forged to match)
        proof = record["dice"]
        for name in ("mallory", "yellow", "red", "blue", "host"):
            forged = {
                **record,
                "dice": {
                    **proof,
                    "contributions": [*proof["contributions"], "chosen-by-the-server"],
                    "contributors": [*proof["contributors"], name],
                },
            }
            assert host.page.evaluate(held, [forged, seen])[:2] == [False, "dice.malformed"]
        seated_too = {
            **record,
            "dice": {
                **proof,
                "seated": ["blue"],
                "contributions": [*proof["contributions"], "chosen-by-the-server"],
                "contributors": [*proof["contributors"], "blue"],
            },
        }
        assert host.page.evaluate(held, [seated_too, seen])[:2] == [False, "dice.unseen-contributor"]
        assert host.page.evaluate(held, [seated_too, {**seen, "seated": ["blue"]}])[:2] == [False, "dice.mismatch"]
        # the browser's rolls are Python's, roll for roll, for another seed and shares
        seed, shares = bytes(range(1, 33)), ["abcdefgh", "ZYXW-vut_0123"]
        expected = DiceProof(commitment_of(seed), seed, 0, tuple(shares)).rolls(5, 400)
        derive = """async ([seed, shares, plain]) => {
            const m = await import('/static/fairdice.js');
            return m.deriveRolls(seed, shares, 5, 400, m.hasher(plain));
        }"""
        for plain in (False, True):
            assert host.page.evaluate(derive, [seed.hex(), shares, plain]) == expected
        host.close()
    finally:
        server.stop()
