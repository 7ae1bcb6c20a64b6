// The replay viewer: step through a stored game action by action.
import { Board } from "./board.js";
import { t, onLangChange } from "./i18n.js";
import { showTurn, missingCard } from "./cards.js";
import { makeReview } from "./replayreview.js";
import { makeControls } from "./replaycontrols.js";
import { makeReplayLog } from "./replaylog.js";
import { h, fetchReplay, errorText, dieFace, setDieFace, rulesSummary, formatEvents, PALETTE, homeSvg, downloadSvg, recordLink } from "./ui.js";

export function mountReplay(root, app, gameId) {
  const board = new Board(app.meta.layout);
  let data = null;
  let pos = 0;
  let destroyed = false;
  let token = 0;

  const screen = h("section", { class: "screen game-screen replay-screen" });
  root.replaceChildren(screen);
  const boardWrap = h("div", { class: "board-wrap" }, h("div", { class: "board-frame" }, board.svg));
  const controls = makeControls({ go, step: () => pos, total, ready: () => !!data, gone: () => destroyed });
  // what a screen reader hears at each step: where the replay is and what happened there
  const stepSaid = h("p", { class: "sr-only", "aria-live": "polite", "data-testid": "replay-said" });
  const turnCard = h("div", { class: "turn-card", "data-testid": "turn" });
  const dieSvg = dieFace(0);
  const dieBox = h("div", { class: "die die-static", "data-testid": "die", "data-state": "over" }, dieSvg);
  const log = makeReplayLog((n) => go(n));
  const rulesBox = h("div", {});
  const homeBtn = h("button", { class: "btn btn-ghost", type: "button", "data-testid": "home", onclick: () => app.go("#/") });
  const continueBox = h("div", { class: "continue-box" });
  const title = h("h1", { class: "replay-title" });  // the screen's one heading
  const logTitle = h("h2", { class: "card-title" });
  const rulesTitle = h("h2", { class: "card-title" });
  const review = makeReview({ app, gameId, go: (n) => go(n), gone: () => destroyed });
  const download = recordLink(gameId, { class: "btn btn-ghost", "data-testid": "download-record" });

  screen.append(boardWrap, h("aside", { class: "panel" },
    h("div", { class: "panel-bar" }, homeBtn, h("div", { class: "spacer" }), download),
    h("div", { class: "card play-card" }, title, turnCard, ...controls.rows(dieBox), stepSaid, review.verdict, continueBox),
    review.card,
    h("div", { class: "card log-card" }, logTitle, log.list),
    h("div", { class: "card" }, rulesTitle, rulesBox)));

  function total() { return data ? data.steps.length : 0; }
  function stateAt(n) { return n <= 0 ? data.initial : data.steps[n - 1].state; }

  function relabel() {
    homeBtn.replaceChildren(h("span", { class: "btn-glyph", "aria-hidden": "true" }, homeSvg()), t("nav.home"));
    download.replaceChildren(h("span", { class: "btn-glyph", "aria-hidden": "true" }, downloadSvg()), t("game.download"));
    controls.relabel();
    title.textContent = t("replay.title");
    logTitle.textContent = t("game.log");
    rulesTitle.textContent = t("game.rules");
    if (data) { log.render(data.steps, pos); renderInfo(); rulesBox.replaceChildren(rulesSummary(data.game.rules, data.game.rules_name)); renderContinue(); review.relabel(); }
  }

  function renderContinue() {
    continueBox.replaceChildren();
    if (data && !data.game.state.over) {
      continueBox.append(h("button", { class: "btn btn-primary", type: "button", "data-testid": "continue", onclick: () => app.go(`#/game/${encodeURIComponent(gameId)}`) }, t("replay.continue")));
    }
  }

  function renderInfo() {
    const st = stateAt(pos);
    const lines = pos > 0 ? formatEvents(data.steps[pos - 1].events).map((l) => l.node.textContent.replace(/\s+/g, " ").trim()) : [];
    stepSaid.textContent = [controls.show(), ...lines].join(". ");
    const colour = st.over ? st.winner : pos > 0 ? data.steps[pos - 1].events.find((e) => e.type === "roll")?.colour || st.turn : st.turn;
    showTurn(turnCard, colour, data.game.seats?.[colour], st.over ? t("game.winner") : pos > 0 ? t("replay.moved") : t("game.to-play"), false);
    const roll = pos > 0 ? data.steps[pos - 1].roll : 0;
    setDieFace(dieSvg, roll);
    dieBox.dataset.value = roll ? String(roll) : "";
    dieBox.style.setProperty("--c", PALETTE[colour || "red"].main);
    review.show(pos);
  }

  async function go(n, animate = false, byPlay = false) {
    if (!data) return;
    if (!byPlay) controls.pause();
    n = Math.max(0, Math.min(total(), n));
    const my = ++token;
    board.hurry = true;       // finish any running animation at once
    await Promise.resolve();
    board.hurry = false;
    const stepForward = animate && n === pos + 1;
    pos = n;
    renderInfo();
    log.mark(pos);
    if (stepForward) {
      app.setAnimating(true);
      await board.show(stateAt(n - 1).planes, 0);
      for (const ev of data.steps[n - 1].events) {
        if (my !== token || destroyed) break;
        await board.animate(ev, 0.8);
      }
      if (my === token && !destroyed) await board.show(stateAt(n).planes, 120);
      if (my === token) { app.setAnimating(false); }
    } else {
      await board.show(stateAt(n).planes, 0);
      if (my === token) { app.setAnimating(false); }
    }
  }

  document.addEventListener("keydown", controls.onKey);

  // busy (for screen readers, and for anyone waiting on it) until the steps are here:
  // a key pressed before then has nothing to step through
  async function load() {
    app.setAnimating(true);
    screen.setAttribute("aria-busy", "true");
    const res = await fetchReplay(gameId);
    if (destroyed) return;
    screen.removeAttribute("aria-busy");
    if (!res.ok) {
      app.setAnimating(false);
      screen.replaceChildren(missingCard(app, errorText(res.error.code, res.error.message)));
      return;
    }
    data = res.data;
    board.setPlayers(data.game.players);
    pos = 0;
    relabel();  // the play button too: there are steps to play now
    await board.show(stateAt(pos).planes, 0);
    app.setAnimating(false);
    review.load(data.game);
  }

  const off = onLangChange(relabel);
  relabel();
  load();
  return { destroy() { destroyed = true; controls.stop(); board.hurry = true; off(); document.removeEventListener("keydown", controls.onKey); } };
}
