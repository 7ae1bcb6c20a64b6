// The game screen: board, side panel, die, move log, animation queue and end overlay.
import { Board } from "./board.js";
import { GameSocket } from "./net.js";
import { t, tNodes, onLangChange } from "./i18n.js";
import {
  h, s, api, toast, errorText, colourIcon, colourChip, dieFace, setDieFace, seatLabel,
  rulesSummary, formatEvents, medal, trophySvg, PALETTE,
} from "./ui.js";

const SPEED_FACTOR = { slow: 1.7, normal: 1, fast: 0.45, instant: 0 };
const SPEEDS = ["slow", "normal", "fast", "instant"];
const MAX_LOG = 400;

export function mountGame(root, app, gameId) {
  const board = new Board(app.meta.layout);
  let snap = null;          // the snapshot the page has drawn (the truth once drawn)
  let queue = [];
  let running = false;
  let pending = false;      // a roll or move sent, no answer yet
  let destroyed = false;
  let lastRoll = null;
  let shownTurn = null;
  let rolling = false;
  let endShownFor = null;
  let historyToken = 0;
  let speed = "normal";
  let connected = false;

  // ------------------------------------------------------------ DOM
  const banner = h("div", { class: "banner-layer", "aria-live": "polite" });
  const endLayer = h("div", { class: "end-layer" });
  const conn = h("div", { class: "conn-pill", hidden: true });
  const boardWrap = h("div", { class: "board-wrap" }, h("div", { class: "board-frame" }, board.svg, banner, conn), endLayer);

  const homeBtn = h("button", { class: "btn btn-ghost", "data-testid": "home", type: "button", onclick: () => app.go("#/") });
  const download = h("a", { class: "btn btn-ghost", "data-testid": "download-record", href: `/api/games/${encodeURIComponent(gameId)}/record`, download: `flyingchess-${gameId}.json` });
  const replayLink = h("a", { class: "btn btn-ghost", href: `#/replay/${encodeURIComponent(gameId)}` });
  const turnCard = h("div", { class: "turn-card", "data-testid": "turn", "aria-live": "polite" });
  const dieSvg = dieFace(0);
  const dieBtn = h("button", { class: "die", type: "button", "data-testid": "die", "data-state": "waiting", disabled: true, onclick: () => doRoll() }, dieSvg);
  const hint = h("div", { class: "hint" });
  const playersBox = h("ul", { class: "players" });
  const speedSel = h("select", { "data-testid": "speed", class: "select", onchange: () => setSpeed(speedSel.value) });
  const speedLabel = h("label", { class: "field-inline" });
  const rulesBox = h("div", { class: "card rules-card" });
  const logList = h("ol", { class: "log", "data-testid": "log", "aria-live": "off" });
  const logTitle = h("h3", { class: "card-title" });
  const rulesTitle = h("h3", { class: "card-title" });

  const panel = h("aside", { class: "panel" },
    h("div", { class: "panel-bar" }, homeBtn, h("div", { class: "spacer" }), replayLink, download),
    h("div", { class: "card play-card" }, turnCard, h("div", { class: "die-row" }, dieBtn, hint), playersBox),
    h("div", { class: "card log-card" }, h("div", { class: "card-head" }, logTitle, speedLabel), logList),
    h("div", { class: "card" }, rulesTitle, rulesBox),
  );
  const screen = h("section", { class: "screen game-screen" }, boardWrap, panel);
  root.replaceChildren(screen);

  // ------------------------------------------------------------ labels
  function relabel() {
    homeBtn.replaceChildren(h("span", { "aria-hidden": "true" }, "⌂ "), t("nav.home"));
    download.replaceChildren(h("span", { "aria-hidden": "true" }, "⤓ "), t("game.download"));
    replayLink.replaceChildren(h("span", { "aria-hidden": "true" }, "⟲ "), t("game.replay"));
    logTitle.textContent = t("game.log");
    rulesTitle.textContent = t("game.rules");
    const cur = speedSel.value || speed;
    speedSel.replaceChildren(...SPEEDS.map((v) => h("option", { value: v }, t(`speed.${v}`))));
    speedSel.value = cur;
    speedLabel.replaceChildren(h("span", {}, t("game.speed")), speedSel);
    dieBtn.setAttribute("aria-label", t("game.die-label"));
    conn.textContent = t("game.reconnecting");
    if (snap) { renderPanel(); renderLogAll(); if (endShownFor) renderEnd(); }
  }

  // ------------------------------------------------------------ connection
  const socket = new GameSocket(gameId, onMessage, (status) => {
    connected = status === "open";
    conn.hidden = connected;
  });

  function onMessage(msg) {
    if (destroyed || !msg) return;
    if (msg.type === "snapshot") {
      pending = false;
      loadHistory(msg.game);
      queue.push({ events: [], game: msg.game, fresh: true, gen: historyToken });
      pump();
    } else if (msg.type === "update") {
      pending = false;
      queue.push({ events: msg.events || [], game: msg.game, gen: historyToken });
      pump();
    } else if (msg.type === "error") {
      pending = false;
      if (msg.code === "unknown-game") {
        showMissing();
        return;
      }
      toast(errorText(msg.code, msg.message), "error");
      updateControls();
    }
  }

  function showMissing() {
    screen.replaceChildren(h("div", { class: "missing card" },
      h("h2", {}, t("game.missing")),
      h("p", {}, t("game.missing-text")),
      h("button", { class: "btn btn-primary", type: "button", onclick: () => app.go("#/") }, t("nav.home"))));
    app.setAnimating(false);
  }

  // ------------------------------------------------------------ the queue
  async function pump() {
    if (running) return;
    running = true;
    app.setAnimating(true);
    updateControls();
    try {
      while (queue.length && !destroyed) {
        const item = queue.shift();
        await playItem(item);
      }
    } catch (err) {
      (window.__fcDebug ||= []).push(String(err && err.stack || err));
    } finally {
      running = false;
      board.hurry = false;
      if (!destroyed) {
        updateControls();
        app.setAnimating(false);
        maybeShowEnd();
      }
    }
  }

  async function playItem(item) {
    const game = item.game;
    if (!snap) board.setPlayers(game.players);
    const logged = item.gen === historyToken;
    if (logged && item.events.length) liveEvents.push(item.events);
    if (game.speed && game.speed !== speed) {
      speed = game.speed;
      speedSel.value = speed;
    }
    const f0 = SPEED_FACTOR[speed] ?? 1;
    const lines = formatEvents(item.events);
    let li = 0;
    for (let k = 0; k < item.events.length; k++) {
      const ev = item.events[k];
      const hurry = queue.length > 2 || f0 === 0 || document.hidden;
      board.hurry = hurry && f0 !== 0 ? true : board.hurry;
      const f = hurry ? 0 : f0;
      while (logged && li < lines.length && lines[li].index <= k) appendLog(lines[li++]);
      await uiEvent(ev, f);
      await board.animate(ev, f);
    }
    while (logged && li < lines.length) appendLog(lines[li++]);
    board.hurry = false;
    snap = game;
    if (game.roll) lastRoll = game.roll;
    shownTurn = game.state.turn;
    await board.show(game.state.planes, item.fresh || f0 === 0 || queue.length > 2 ? 0 : 140);
    renderPanel();
  }

  async function uiEvent(ev, f) {
    switch (ev.type) {
      case "roll": {
        shownTurn = ev.colour;
        renderTurn();
        lastRoll = ev.value;
        await rollDie(ev.value, f);
        break;
      }
      case "turn":
        shownTurn = ev.colour;
        renderTurn();
        break;
      case "extra-roll": flashBanner(t("banner.extra-roll"), ev.colour, f); break;
      case "pass": flashBanner(t("banner.pass"), ev.colour, f); await pause(500 * f); break;
      case "three-sixes": flashBanner(t("banner.three-sixes"), ev.colour, f); await pause(600 * f); break;
      case "capture": flashBanner(t("banner.capture"), ev.by, f); break;
      case "player-finished": flashBanner(t("banner.player-finished", { colour: t(`colour.${ev.colour}`) }), ev.colour, f); await pause(700 * f); break;
      case "flight": flashBanner(t("banner.flight"), ev.colour, f); break;
      default: break;
    }
  }

  function pause(ms) { return board.tween(ms, () => {}); }

  async function rollDie(value, f) {
    dieBtn.dataset.value = String(value);
    if (f <= 0) { setDieFace(dieSvg, value); return; }
    rolling = true;
    dieBtn.classList.add("rolling");
    const start = performance.now();
    const dur = 520 * f;
    let lastFace = 0;
    await board.tween(dur, () => {
      const k = (performance.now() - start) / dur;
      if (k < 0.85) {
        const face = 1 + Math.floor(Math.random() * 6);
        if (face !== lastFace) { setDieFace(dieSvg, face); lastFace = face; }
      }
    });
    setDieFace(dieSvg, value);
    dieBtn.classList.remove("rolling");
    dieBtn.classList.add("landed");
    setTimeout(() => dieBtn.classList.remove("landed"), 400);
    rolling = false;
  }

  function flashBanner(text, colour, f) {
    if (f <= 0) return;
    const el = h("div", { class: `banner banner-${colour || "none"}` }, colour ? colourIcon(colour, 20) : null, h("span", {}, text));
    banner.append(el);
    const life = Math.max(900, 1400 * Math.min(f, 1.4));
    el.style.animationDuration = `${life}ms`;
    setTimeout(() => el.remove(), life + 50);
  }

  // ------------------------------------------------------------ panel
  function seatOf(colour) { return snap && snap.seats ? snap.seats[colour] : null; }

  function renderTurn() {
    const colour = snap && snap.phase === "over" && !running ? snap.state.winner : shownTurn;
    turnCard.replaceChildren();
    if (!colour) return;
    turnCard.dataset.colour = colour;
    turnCard.style.setProperty("--c", PALETTE[colour].main);
    turnCard.style.setProperty("--c-light", PALETTE[colour].light);
    const over = snap && snap.phase === "over" && !running;
    turnCard.append(
      h("div", { class: "turn-icon" }, colourIcon(colour, 30)),
      h("div", { class: "turn-text" },
        h("div", { class: "turn-label" }, over ? t("game.winner") : t("game.to-play")),
        h("div", { class: "turn-name" }, t(`colour.${colour}`), h("span", { class: "turn-seat" }, seatLabel(seatOf(colour))))),
    );
  }

  function dieState() {
    if (!snap) return "waiting";
    if (running || queue.length || pending) return "waiting";
    if (snap.phase === "over") return "over";
    const seat = seatOf(snap.state.turn);
    if (!seat || seat.kind !== "human") return "waiting";
    return snap.phase === "roll" ? "ready" : "move";
  }

  function updateControls() {
    const state = dieState();
    dieBtn.dataset.state = state;
    dieBtn.disabled = state !== "ready";
    if (lastRoll) dieBtn.dataset.value = String(lastRoll);
    if (!rolling) setDieFace(dieSvg, state === "ready" ? 0 : lastRoll || 0);
    if (state === "move") {
      board.setLegal(snap.state.turn, snap.moves, (move) => doMove(move));
    } else {
      board.setLegal(null, [], null);
    }
    if (snap) {
      dieBtn.style.setProperty("--c", PALETTE[snap.state.turn || snap.state.winner || "red"].main);
      const colour = snap.state.turn;
      let text = "";
      if (state === "ready") text = t("hint.roll");
      else if (state === "move") text = t("hint.move", { value: snap.roll });
      else if (state === "over") text = t("hint.over");
      else if (colour && seatOf(colour)?.kind === "bot" && snap.phase !== "over") text = t("hint.bot", { name: seatLabel(seatOf(colour)) });
      else text = "";
      hint.textContent = text;
    }
  }

  function renderPlayers() {
    playersBox.replaceChildren();
    for (const colour of snap.players) {
      const planes = snap.state.planes[colour] || [];
      const home = planes.filter((p) => p === app.meta.layout.progress.centre).length;
      const place = snap.state.ranking.indexOf(colour);
      const pips = h("span", { class: "home-pips", title: t("game.home-count", { n: home }) },
        ...planes.map((p) => h("span", { class: `home-pip ${p === app.meta.layout.progress.centre ? "on" : p >= 0 ? "out" : ""}` })));
      playersBox.append(h("li", { class: `player ${colour === snap.state.turn ? "current" : ""}`, style: `--c:${PALETTE[colour].main};--c-light:${PALETTE[colour].light}` },
        colourIcon(colour, 18),
        h("span", { class: "player-name" }, t(`colour.${colour}`)),
        h("span", { class: "player-seat" }, seatLabel(seatOf(colour))),
        place >= 0 ? h("span", { class: "player-medal", title: t("end.place", { n: place + 1 }) }, medal(place + 1)) : null,
        pips));
    }
  }

  function renderPanel() {
    if (!snap) return;
    renderTurn();
    renderPlayers();
    rulesBox.replaceChildren(rulesSummary(snap.rules, snap.rules_name));
    speedSel.value = speed;
    updateControls();
  }

  // ------------------------------------------------------------ actions
  function doRoll() {
    if (dieState() !== "ready") return;
    if (socket.send({ type: "roll" })) { pending = true; updateControls(); }
    else toast(t("error.offline"), "error");
  }

  function doMove(move) {
    if (dieState() !== "move") return;
    board.clearPreview();
    if (socket.send({ type: "move", plane: move.plane })) { pending = true; updateControls(); }
    else toast(t("error.offline"), "error");
  }

  function setSpeed(value) {
    speed = value;
    socket.send({ type: "speed", speed: value });
  }

  function onKey(e) {
    if (destroyed || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = (e.target && e.target.tagName) || "";
    if (["INPUT", "SELECT", "TEXTAREA"].includes(tag)) return;
    if (e.key === " " || e.code === "Space") {
      if (tag === "BUTTON" || tag === "A") return;
      if (dieState() === "ready") { e.preventDefault(); doRoll(); }
    } else if (/^[1-4]$/.test(e.key)) {
      if (dieState() !== "move") return;
      const move = board.legalMoveFor(Number(e.key) - 1);
      if (move) { e.preventDefault(); doMove(move); }
    }
  }
  document.addEventListener("keydown", onKey);

  // ------------------------------------------------------------ log
  let logLines = [];
  let historyEvents = [];
  let liveEvents = [];
  function appendLog(line) {
    logLines.push(line);
    if (logLines.length > MAX_LOG) logLines = logLines.slice(-MAX_LOG);
    logList.append(logItem(line));
    while (logList.children.length > MAX_LOG) logList.firstElementChild.remove();
    scrollLog();
  }

  function logItem(line) {
    return h("li", { class: `log-line log-${line.kind}`, style: line.colour ? `--c:${PALETTE[line.colour]?.main || "#999"}` : null }, line.node);
  }

  function renderLogAll() {
    // re-format every line in the current language
    logLines = [];
    logList.replaceChildren();
    for (const batch of [historyEvents, ...liveEvents]) {
      for (const line of formatEvents(batch)) { logLines.push(line); }
    }
    logLines = logLines.slice(-MAX_LOG);
    logList.replaceChildren(...logLines.map(logItem));
    scrollLog();
  }

  // Reading scrollHeight forces a layout: do it once per frame, not once per line.
  let scrollQueued = false;
  function scrollLog() {
    if (scrollQueued) return;
    scrollQueued = true;
    requestAnimationFrame(() => {
      scrollQueued = false;
      logList.scrollTop = logList.scrollHeight;
    });
  }

  async function loadHistory(game) {
    const token = ++historyToken;
    liveEvents = [];
    historyEvents = [];
    logList.replaceChildren();
    logLines = [];
    const res = await api("GET", `/api/games/${encodeURIComponent(gameId)}/replay`);
    if (destroyed || token !== historyToken || !res.ok) return;
    const steps = (res.data.steps || []).slice(0, game.actions);
    historyEvents = steps.flatMap((st) => st.events);
    if (game.phase === "move" && game.roll) historyEvents.push({ type: "roll", colour: game.state.turn, value: game.roll });
    for (let i = historyEvents.length - 1; i >= 0; i--) {
      if (historyEvents[i].type === "roll") { if (!lastRoll) { lastRoll = historyEvents[i].value; updateControls(); } break; }
    }
    renderLogAll();
  }

  // ------------------------------------------------------------ end
  function maybeShowEnd() {
    if (!snap || snap.phase !== "over" || running || queue.length) return;
    if (endShownFor === snap.id) return;
    endShownFor = snap.id;
    renderEnd();
    renderPanel();
  }

  function renderEnd() {
    if (!snap || snap.phase !== "over") { endLayer.replaceChildren(); return; }
    const st = snap.state;
    const ranking = st.ranking.slice();
    const rest = snap.players.filter((c) => !ranking.includes(c));
    const list = h("ol", { class: "ranking", "data-testid": "ranking" });
    ranking.forEach((colour, k) => list.append(h("li", { class: "rank", "data-colour": colour, style: `--c:${PALETTE[colour].main};--c-light:${PALETTE[colour].light}` },
      h("span", { class: "rank-medal" }, medal(k + 1)), colourIcon(colour, 20),
      h("span", { class: "rank-name" }, t(`colour.${colour}`)), h("span", { class: "rank-seat" }, seatLabel(seatOf(colour))))));
    for (const colour of rest) list.append(h("li", { class: "rank rank-unplaced", "data-colour": colour, style: `--c:${PALETTE[colour].main};--c-light:${PALETTE[colour].light}` },
      h("span", { class: "rank-medal" }, "·"), colourIcon(colour, 20),
      h("span", { class: "rank-name" }, t(`colour.${colour}`)), h("span", { class: "rank-seat" }, t("end.unplaced"))));
    const winner = st.winner;
    const card = h("div", { class: "end-card", "data-testid": "end-screen", role: "dialog", "aria-modal": "false", "aria-labelledby": "end-title" },
      h("button", { class: "end-close", type: "button", "aria-label": t("end.close"), title: t("end.close"), onclick: () => endLayer.classList.toggle("minimised") }, "–"),
      h("div", { class: "confetti", "aria-hidden": "true" }, ...Array.from({ length: 18 }, (_, k) => h("i", { style: `--k:${k};--c:${PALETTE[["red", "yellow", "blue", "green"][k % 4]].main}` }))),
      h("div", { class: "trophy", "aria-hidden": "true" }, trophySvg(64)),
      h("h2", { id: "end-title", class: "winner", "data-testid": "winner", "data-colour": winner || "", style: winner ? `--c:${PALETTE[winner].dark}` : null },
        winner ? tNodes("end.wins", { player: colourChip(winner) }) : t("hint.over")),
      list,
      h("div", { class: "end-actions" },
        h("button", { class: "btn btn-primary", type: "button", "data-testid": "rematch", onclick: rematch }, t("end.rematch")),
        h("button", { class: "btn", type: "button", "data-testid": "new-game-end", onclick: () => app.go("#/new") }, t("end.new-game")),
        h("a", { class: "btn btn-ghost", href: `#/replay/${encodeURIComponent(gameId)}` }, t("end.watch-replay"))));
    endLayer.replaceChildren(card);
    endLayer.classList.add("shown");
  }

  async function rematch() {
    const res = await api("POST", `/api/games/${encodeURIComponent(gameId)}/rematch`);
    if (!res.ok) { toast(errorText(res.error.code, res.error.message), "error"); return; }
    app.go(`#/game/${encodeURIComponent(res.data.id)}`);
  }

  const offLang = onLangChange(relabel);
  relabel();

  return {
    destroy() {
      destroyed = true;
      socket.close();
      offLang();
      document.removeEventListener("keydown", onKey);
      board.hurry = true;
    },
  };
}
