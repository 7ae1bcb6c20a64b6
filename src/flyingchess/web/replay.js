// The replay viewer: step through a stored game action by action.
import { Board } from "./board.js";
import { t, onLangChange } from "./i18n.js";
import { showTurn, missingCard } from "./cards.js";
import { makeReview } from "./replayreview.js";
import { h, s, fetchReplay, errorText, dieFace, setDieFace, rulesSummary, formatEvents, PALETTE, homeSvg, downloadSvg, recordLink } from "./ui.js";

export function mountReplay(root, app, gameId) {
  const board = new Board(app.meta.layout);
  let data = null;
  let pos = 0;
  let destroyed = false;
  let token = 0;

  const screen = h("section", { class: "screen game-screen replay-screen" });
  root.replaceChildren(screen);
  const boardWrap = h("div", { class: "board-wrap" }, h("div", { class: "board-frame" }, board.svg));
  const btn = (id, label, fn, icon) => h("button", { class: "btn btn-icon", type: "button", "data-testid": id, "aria-label": label, title: label, onclick: fn }, icon);
  const icon = (d) => s("svg", { width: 20, height: 20, viewBox: "0 0 20 20", "aria-hidden": "true" }, s("path", { d, fill: "currentColor" }));
  const first = btn("replay-first", "", () => go(0), icon("M4 4h2.4v12H4z M16 4v12L7.5 10z"));
  const prev = btn("replay-prev", "", () => go(pos - 1), icon("M14 4v12L5.5 10z"));
  const next = btn("replay-next", "", () => go(pos + 1, true), icon("M6 4v12l8.5-6z"));
  const last = btn("replay-last", "", () => go(total()), icon("M13.6 4H16v12h-2.4z M4 4v12l8.5-6z"));
  const PLAY_ICON = "M6 4v12l10-6z";
  const PAUSE_ICON = "M5 4h3.5v12H5z M11.5 4H15v12h-3.5z";
  const playBtn = btn("replay-play", "", () => togglePlay(), icon(PLAY_ICON));
  playBtn.classList.add("btn-primary");
  let playing = false;
  const slider = h("input", { type: "range", min: "0", max: "0", value: "0", step: "1", class: "slider", "data-testid": "replay-slider", oninput: () => go(Number(slider.value)) });
  const position = h("span", { class: "position", "data-testid": "replay-position" }, "0 / 0");
  // what a screen reader hears at each step: where the replay is and what happened there
  const stepSaid = h("p", { class: "sr-only", "aria-live": "polite", "data-testid": "replay-said" });
  const turnCard = h("div", { class: "turn-card", "data-testid": "turn" });
  const dieSvg = dieFace(0);
  const dieBox = h("div", { class: "die die-static", "data-testid": "die", "data-state": "over" }, dieSvg);
  const logList = h("ol", { class: "log replay-log", "data-testid": "log" });
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
    h("div", { class: "card play-card" }, title, turnCard,
      h("div", { class: "replay-controls" }, first, prev, dieBox, next, last, playBtn),
      h("div", { class: "slider-row" }, slider, position), stepSaid, review.verdict, continueBox),
    review.card,
    h("div", { class: "card log-card" }, logTitle, logList),
    h("div", { class: "card" }, rulesTitle, rulesBox)));

  function total() { return data ? data.steps.length : 0; }
  function stateAt(n) { return n <= 0 ? data.initial : data.steps[n - 1].state; }

  function relabel() {
    homeBtn.replaceChildren(h("span", { class: "btn-glyph", "aria-hidden": "true" }, homeSvg()), t("nav.home"));
    download.replaceChildren(h("span", { class: "btn-glyph", "aria-hidden": "true" }, downloadSvg()), t("game.download"));
    first.setAttribute("aria-label", t("replay.first")); first.title = t("replay.first");
    prev.setAttribute("aria-label", t("replay.prev")); prev.title = t("replay.prev");
    next.setAttribute("aria-label", t("replay.next")); next.title = t("replay.next");
    last.setAttribute("aria-label", t("replay.last")); last.title = t("replay.last");
    renderPlay();
    slider.setAttribute("aria-label", t("replay.slider"));
    title.textContent = t("replay.title");
    logTitle.textContent = t("game.log");
    rulesTitle.textContent = t("game.rules");
    if (data) { renderLog(); renderInfo(); rulesBox.replaceChildren(rulesSummary(data.game.rules, data.game.rules_name)); renderContinue(); review.relabel(); }
  }

  function renderContinue() {
    continueBox.replaceChildren();
    if (data && !data.game.state.over) {
      continueBox.append(h("button", { class: "btn btn-primary", type: "button", "data-testid": "continue", onclick: () => app.go(`#/game/${encodeURIComponent(gameId)}`) }, t("replay.continue")));
    }
  }

  function renderLog() {
    logList.replaceChildren();
    data.steps.forEach((st, k) => {
      const li = h("li", { class: "log-step", "data-step": String(k + 1), onclick: () => go(k + 1) },
        h("span", { class: "step-no" }, String(k + 1)),
        h("div", { class: "step-lines" }, ...formatEvents(st.events).filter((l) => l.kind !== "turn").map((l) => h("div", { class: `log-line log-${l.kind}`, style: l.colour ? `--c:${PALETTE[l.colour]?.main}` : null }, l.node))));
      logList.append(li);
    });
    markLog();
  }

  function markLog() {
    for (const li of logList.children) {
      const n = Number(li.dataset.step);
      li.hidden = n > pos;
      li.classList.toggle("current", n === pos);
    }
    const cur = logList.querySelector(".current");
    if (cur) {
      const top = cur.offsetTop;
      if (top < logList.scrollTop) logList.scrollTop = top - 4;
      else if (top + cur.offsetHeight > logList.scrollTop + logList.clientHeight) logList.scrollTop = top + cur.offsetHeight - logList.clientHeight + 4;
    } else logList.scrollTop = 0;
  }

  function renderInfo() {
    const st = stateAt(pos);
    position.textContent = `${pos} / ${total()}`;
    const lines = pos > 0 ? formatEvents(data.steps[pos - 1].events).map((l) => l.node.textContent.replace(/\s+/g, " ").trim()) : [];
    stepSaid.textContent = [position.textContent, ...lines].join(". ");
    slider.max = String(total());
    slider.value = String(pos);
    const colour = st.over ? st.winner : pos > 0 ? data.steps[pos - 1].events.find((e) => e.type === "roll")?.colour || st.turn : st.turn;
    showTurn(turnCard, colour, data.game.seats?.[colour], st.over ? t("game.winner") : pos > 0 ? t("replay.moved") : t("game.to-play"), false);
    const roll = pos > 0 ? data.steps[pos - 1].roll : 0;
    setDieFace(dieSvg, roll);
    dieBox.dataset.value = roll ? String(roll) : "";
    dieBox.style.setProperty("--c", PALETTE[colour || "red"].main);
    review.show(pos);
    first.disabled = prev.disabled = pos <= 0;
    next.disabled = last.disabled = pos >= total();
  }

  function renderPlay() {
    const label = t(playing ? "replay.pause" : "replay.play");
    playBtn.setAttribute("aria-label", label);
    playBtn.title = label;
    playBtn.dataset.playing = playing ? "true" : "false";
    playBtn.replaceChildren(icon(playing ? PAUSE_ICON : PLAY_ICON));
    playBtn.disabled = !data;
  }

  // Play: one step after another, animated, until the end or a pause (any other
  // control pauses too).
  async function togglePlay() {
    if (playing) { pause(); return; }
    if (!data) return;
    if (pos >= total()) await go(0);
    playing = true;
    renderPlay();
    while (playing && !destroyed && pos < total()) {
      await go(pos + 1, true, true);
      if (playing) await new Promise((r) => setTimeout(r, 350));
    }
    pause();
  }

  function pause() {
    if (!playing) return;
    playing = false;
    if (!destroyed) renderPlay();
  }

  async function go(n, animate = false, byPlay = false) {
    if (!data) return;
    if (!byPlay) pause();
    n = Math.max(0, Math.min(total(), n));
    const my = ++token;
    board.hurry = true;       // finish any running animation at once
    await Promise.resolve();
    board.hurry = false;
    const stepForward = animate && n === pos + 1;
    pos = n;
    renderInfo();
    markLog();
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

  const onKey = replayKeys({ gone: () => destroyed, slider, step: () => pos, total, go, togglePlay });
  document.addEventListener("keydown", onKey);

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
    relabel();
    renderPlay();
    await board.show(stateAt(pos).planes, 0);
    app.setAnimating(false);
    review.load(data.game);
  }

  const off = onLangChange(relabel);
  relabel();
  load();
  return { destroy() { destroyed = true; playing = false; board.hurry = true; off(); document.removeEventListener("keydown", onKey); } };
}

/** The replay's keys: arrows step, Home and End jump, space plays (never while typing;
 *  the slider handles its own arrows). */
function replayKeys({ gone, slider, step, total, go, togglePlay }) {
  return (e) => {
    if (gone() || e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = (e.target && e.target.tagName) || "";
    if (["INPUT", "SELECT", "TEXTAREA"].includes(tag) || e.target === slider) return;
    if (e.key === "ArrowLeft") { e.preventDefault(); go(step() - 1); }
    else if (e.key === "ArrowRight") { e.preventDefault(); go(step() + 1, true); }
    else if (e.key === "Home") { e.preventDefault(); go(0); }
    else if (e.key === "End") { e.preventDefault(); go(total()); }
    else if (e.key === " " && !["BUTTON", "A"].includes(tag)) { e.preventDefault(); togglePlay(); }
  };
}
