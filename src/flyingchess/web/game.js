// The game screen: board, side panel, die, seats, invite, chat, move log, animation queue
// and end overlay. On a network server the page plays only the seats its token opens.
import { Board } from "./board.js";
import { GameSocket, getSeatToken, saveSeatToken, dropSeatToken, keepHostToken, hostHeaders } from "./net.js";
import { t, tNodes, lang, onLangChange } from "./i18n.js";
import { settings, saveSetting } from "./settings.js";
import { playSound, vibrate, showSoundState } from "./sound.js";
import { howToCard } from "./howto.js";
import {
  h, api, fetchReplay, toast, errorText, colourIcon, colourChip, dieFace, setDieFace, seatLabel, botLabel,
  rulesSummary, formatEvents, medal, trophySvg, looksLocal, copyText, presenceDot, seatAvatar, PALETTE,
  eyeSvg, clockSvg, copySvg, linkSvg, svgImageUrl, reportError, oneChoice, homeSvg, downloadSvg, replaySvg, plusSvg,
} from "./ui.js";

const SPEED_FACTOR = { slow: 1.7, normal: 1, fast: 0.45, instant: 0 };
const MAX_LOG = 400;
const MAX_CHAT = 120;
const AUTO_MOVE_MS = 450;  // long enough to see the roll before the plane goes

export function mountGame(root, app, gameId) {
  // the server's own lists and limits (GET /api/meta), so the page never drifts from it
  const SPEEDS = app.meta.speeds;
  const REACTIONS = app.meta.reactions;
  const board = new Board(app.meta.layout);
  let snap = null;          // the snapshot the page has drawn (the truth once drawn)
  const queue = [];
  let running = false;
  let pending = false;      // a roll or move sent, no answer yet
  let lastActions = -1;     // the action count of the newest game state received
  let destroyed = false;
  let lastRoll = null;
  let shownTurn = null;
  let rolling = false;
  let endShownFor = null;
  let historyToken = 0;
  let speed = "normal";
  let connected = false;
  // who this page is: the server's welcome, else what a fresh connection is by default
  const local = looksLocal(app.meta);
  // a phone or tablet: the hints speak of tapping, not of keys
  const touch = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
  let role = null;          // "host" | "player" | "spectator" from the last welcome
  let myColours = [];
  let learnedSpectator = false;
  let inviteOpen = false;   // the invite card shown by hand (no open seats)
  let turnKey = null;
  let turnStart = 0;
  let turnLeft = 0;
  let clock = null;
  const bots = (app.meta.bots || []).filter((b) => b.available !== false);

  // ------------------------------------------------------------ DOM
  const banner = h("div", { class: "banner-layer", "aria-live": "polite" });
  const endLayer = h("div", { class: "end-layer" });
  const conn = h("div", { class: "conn-pill", hidden: true });
  const reactLayer = h("div", { class: "react-layer", "aria-hidden": "true" });
  const boardWrap = h("div", { class: "board-wrap" }, h("div", { class: "board-frame" }, board.svg, banner, reactLayer, conn), endLayer);

  const homeBtn = h("button", { class: "btn btn-ghost", "data-testid": "home", type: "button", onclick: () => app.go("#/") });
  const download = h("a", { class: "btn btn-ghost", "data-testid": "download-record", href: `/api/games/${encodeURIComponent(gameId)}/record`, download: `flyingchess-${gameId}.json` });
  const replayLink = h("a", { class: "btn btn-ghost", href: `#/replay/${encodeURIComponent(gameId)}` });
  const turnCard = h("div", { class: "turn-card", "data-testid": "turn", "aria-live": "polite" });
  const timerBar = h("div", { class: "turn-timer", "data-testid": "turn-timer", hidden: true },
    clockSvg(15), h("span", { class: "turn-timer-track" }, h("span", { class: "turn-timer-fill" })), h("span", { class: "turn-timer-text" }));
  const roleLine = h("div", { class: "role-line", "data-testid": "role" });
  const inviteBtn = h("button", { class: "btn btn-ghost", type: "button", "data-testid": "invite-toggle", onclick: () => { inviteOpen = !inviteOpen; renderInvite(); } });
  const inviteCard = h("div", { class: "card invite-card", "data-testid": "invite", hidden: true });
  const chatList = h("ol", { class: "chat-log", "data-testid": "chat-log", "aria-live": "polite" });
  const chatInput = h("input", { class: "chat-input", type: "text", maxlength: String(app.meta.limits.chat), autocomplete: "off", enterkeyhint: "send", "data-testid": "chat-input" });
  const chatSend = h("button", { class: "btn btn-primary chat-send", type: "submit", "data-testid": "chat-send" });
  const chatForm = h("form", { class: "chat-form", onsubmit: (e) => { e.preventDefault(); sendChat(); } }, chatInput, chatSend);
  const reactButtons = REACTIONS.map((emoji, i) => h("button", { class: "react-btn", type: "button", "data-testid": `react-${i}`, "data-emoji": emoji, onclick: () => sendReact(emoji) }, emoji));
  const chatTitle = h("h3", { class: "card-title" });
  const chatNote = h("small", { class: "muted chat-note" });
  const chatCard = h("div", { class: "card chat-card", "data-testid": "chat" },
    h("div", { class: "card-head" }, chatTitle, chatNote),
    chatList,
    h("div", { class: "react-row", role: "group" }, ...reactButtons),
    chatForm);
  const dieSvg = dieFace(0);
  const dieBtn = h("button", { class: "die", type: "button", "data-testid": "die", "data-state": "waiting", disabled: true, onclick: () => doRoll() }, dieSvg);
  const hint = h("div", { class: "hint", "data-testid": "hint" });
  const autoMoveBox = h("input", { type: "checkbox", "data-testid": "auto-move", checked: settings().autoMove,
    onchange: () => { saveSetting("autoMove", autoMoveBox.checked); updateControls(); } });
  const autoMoveText = h("span", {});
  const autoMoveLabel = h("label", { class: "auto-move" }, autoMoveBox, autoMoveText);
  const soundBox = h("input", { type: "checkbox", "data-testid": "sound", checked: settings().sound,
    onchange: () => { saveSetting("sound", soundBox.checked); showSoundState(); } });
  const soundText = h("span", {});
  const soundLabel = h("label", { class: "auto-move" }, soundBox, soundText);
  let buzzedFor = null;
  let autoMoveTimer = null;
  let autoMoveFor = null;
  const startBtn = h("button", { class: "btn btn-primary start-game", type: "button", "data-testid": "start-game", hidden: true,
    onclick: () => { if (socket.send({ type: "start" })) { startBtn.disabled = true; } } });
  const playersBox = h("ul", { class: "players" });
  const speedSel = h("select", { "data-testid": "speed", class: "select", onchange: () => setSpeed(speedSel.value) });
  const speedLabel = h("label", { class: "field-inline" });
  const rulesBox = h("div", { class: "card rules-card" });
  const logList = h("ol", { class: "log", "data-testid": "log", "aria-live": "off" });
  const logTitle = h("h3", { class: "card-title" });
  const rulesTitle = h("h3", { class: "card-title" });

  const howTo = howToCard();  // the first game only
  const panel = h("aside", { class: "panel" },
    h("div", { class: "panel-bar" }, homeBtn, h("div", { class: "spacer" }), inviteBtn, replayLink, download),
    inviteCard,
    h("div", { class: "card play-card" }, h("div", { class: "turn-wrap" }, turnCard, timerBar), h("div", { class: "die-row" }, dieBtn, hint), h("div", { class: "toggles" }, autoMoveLabel, soundLabel), startBtn, roleLine, playersBox),
    howTo,  // below the die: on a phone nothing comes between the board and the die
    chatCard,
    h("div", { class: "card log-card" }, h("div", { class: "card-head" }, logTitle, speedLabel), logList),
    h("div", { class: "card" }, rulesTitle, rulesBox),
  );
  const screen = h("section", { class: "screen game-screen" }, boardWrap, panel);
  root.replaceChildren(screen);

  // ------------------------------------------------------------ labels
  function relabel() {
    homeBtn.replaceChildren(h("span", { class: "btn-glyph", "aria-hidden": "true" }, homeSvg()), t("nav.home"));
    download.replaceChildren(h("span", { class: "btn-glyph", "aria-hidden": "true" }, downloadSvg()), t("game.download"));
    replayLink.replaceChildren(h("span", { class: "btn-glyph", "aria-hidden": "true" }, replaySvg()), t("game.replay"));
    logTitle.textContent = t("game.log");
    rulesTitle.textContent = t("game.rules");
    const cur = speedSel.value || speed;
    speedSel.replaceChildren(...SPEEDS.map((v) => h("option", { value: v }, t(`speed.${v}`))));
    speedSel.value = cur;
    speedLabel.replaceChildren(h("span", {}, t("game.speed")), speedSel);
    dieBtn.setAttribute("aria-label", t("game.die-label"));
    autoMoveText.textContent = t("game.auto-move");
    soundText.textContent = t("game.sound");
    conn.textContent = t("game.reconnecting");
    inviteBtn.replaceChildren(h("span", { class: "btn-glyph", "aria-hidden": "true" }, plusSvg()), t("invite.button"));
    chatTitle.textContent = t("chat.title");
    chatSend.textContent = t("chat.send");
    chatSend.setAttribute("aria-label", t("chat.send"));
    for (const b of reactButtons) b.setAttribute("aria-label", t("chat.react", { emoji: b.dataset.emoji }));
    relabelChat();
    renderInvite(true);
    if (snap) { renderPanel(); renderLogAll(); if (endShownFor) renderEnd(); }
  }

  // ------------------------------------------------------------ connection
  const socket = new GameSocket(gameId, onMessage, (status, saidHello) => {
    connected = status === "open";
    conn.hidden = connected;
    if (connected && !saidHello) { role = null; myColours = []; }  // a fresh connection: the default role
    if (snap) { renderPanel(); updateControls(); }
  });

  // ------------------------------------------------------------ who am I
  function myRole() {
    if (role) return role;
    return local && !learnedSpectator ? "host" : "spectator";
  }

  /** Whether this page may roll and move for a colour. */
  function controls(colour) {
    const seat = seatOf(colour);
    if (!seat) return false;
    const r = myRole();
    if (r === "host") return seat.kind === "human";
    if (r === "player") return myColours.includes(colour);
    return false;
  }

  function checkStillSeated(game) {
    if (role !== "player" || !game || !game.seats) return;
    const lost = myColours.filter((c) => game.seats[c]?.kind !== "player");
    if (!lost.length) return;
    dropSeatToken(gameId);
    role = null;
    myColours = [];
    toast(t("seat.removed"), "error");
    socket.reconnect();  // a fresh connection watches
  }

  function onMessage(msg) {
    if (destroyed || !msg) return;
    if (msg.game) checkStillSeated(msg.game);
    if (msg.type === "snapshot") {
      pending = false;
      lastActions = msg.game && typeof msg.game.actions === "number" ? msg.game.actions : -1;
      if (Array.isArray(msg.chat || msg.game?.chat)) loadChat(msg.chat || msg.game.chat);
      loadHistory(msg.game);
      queue.push({ events: [], game: msg.game, fresh: true, gen: historyToken });
      pump();
    } else if (msg.type === "update") {
      pending = false;
      const actions = msg.game && typeof msg.game.actions === "number" ? msg.game.actions : -1;
      // an update went missing (several servers relay them): ask for the whole game again
      if (lastActions >= 0 && actions > lastActions + 1) socket.send({ type: "sync" });
      lastActions = Math.max(lastActions, actions);
      queue.push({ events: msg.events || [], game: msg.game, gen: historyToken });
      pump();
    } else if (msg.type === "welcome") {
      role = ["host", "player", "spectator"].includes(msg.role) ? msg.role : null;
      myColours = Array.isArray(msg.colours) ? msg.colours : [];
      if (role === "player" && myColours.length) {
        const seat = getSeatToken(gameId);
        if (seat && seat.colour !== myColours[0]) saveSeatToken(gameId, seat.token, "player", myColours[0]);
      }
      if (snap) renderPanel();
    } else if (msg.type === "joined") {
      saveSeatToken(gameId, msg.token, "player", msg.colour);
      role = "player";
      myColours = [msg.colour];
      if (snap) renderPanel();
    } else if (msg.type === "chat") {
      addChat(msg, true);
    } else if (msg.type === "react") {
      floatReaction(msg);
    } else if (msg.type === "seat-lost") {
      // the host gave this page's seat away: its token opens nothing any more
      dropSeatToken(gameId);
      role = null;
      myColours = [];
      toast(t("seat.removed"), "error");
      if (snap) renderPanel();
    } else if (msg.type === "rematch" && msg.id) {
      showRematchNotice(msg.id);
    } else if (msg.type === "error") {
      pending = false;
      if (msg.code === "unknown-game") {
        showMissing();
        return;
      }
      if (msg.code === "bad-token") {
        // the token no longer opens a seat (removed by the host, or an old game)
        const held = getSeatToken(gameId);
        dropSeatToken(gameId);
        role = null;
        myColours = [];
        if (held && held.role === "player") toast(t("seat.removed"), "error");
        if (snap) renderPanel();
        return;
      }
      if (msg.code === "not-your-seat" && !role) learnedSpectator = true;
      toast(errorText(msg.code, msg.message), "error");
      if (snap) renderPanel(); else updateControls();
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
        try {
          await playItem(item);
        } catch (err) {
          reportError(err);  // said, and the queue goes on: the next snapshot redraws the board
        }
      }
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
      if (f > 0) playSound(ev.type);
      if (f > 0 && ev.type === "capture") vibrate(80);
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
    const dur = 520 * f;
    dieBtn.style.setProperty("--roll-ms", `${Math.round(dur)}ms`);
    dieBtn.classList.add("rolling");
    const start = performance.now();
    let lastFace = 0;
    let shownAt = -Infinity;
    await board.tween(dur, () => {  // the face changes as the die turns over, not every frame
      const now = performance.now();
      if (now - start < dur * 0.7 && now - shownAt > 110) {
        let face = 1 + Math.floor(Math.random() * 6);
        if (face === lastFace) face = (face % 6) + 1;
        setDieFace(dieSvg, face);
        lastFace = face;
        shownAt = now;
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
    clearBanners(colour);  // what happened to another player is old news
    const el = h("div", { class: `banner banner-${colour || "none"}`, "data-colour": colour || "" }, colour ? colourIcon(colour, 20) : null, h("span", {}, text));
    banner.append(el);
    const life = Math.max(900, 1400 * Math.min(f, 1.4));
    el.style.animationDuration = `${life}ms`;
    setTimeout(() => el.remove(), life + 50);
  }

  function clearBanners(keep) {
    for (const el of [...banner.children]) if (el.dataset.colour !== keep) el.remove();
  }

  // ------------------------------------------------------------ panel
  function seatOf(colour) { return snap && snap.seats ? snap.seats[colour] : null; }

  function renderTurn() {
    const colour = snap && snap.phase === "over" && !running ? snap.state.winner : shownTurn;
    board.setTurn(snap && snap.phase === "over" && !running ? null : colour);
    turnCard.replaceChildren();
    if (!colour) return;
    turnCard.dataset.colour = colour;
    turnCard.style.setProperty("--c", PALETTE[colour].main);
    turnCard.style.setProperty("--c-light", PALETTE[colour].light);
    const over = snap && snap.phase === "over" && !running;
    turnCard.append(
      h("div", { class: "turn-icon" }, seatAvatar(colour, seatOf(colour), 30)),
      h("div", { class: "turn-text" },
        h("div", { class: "turn-label" }, over ? t("game.winner") : t("game.to-play")),
        h("div", { class: "turn-name" }, t(`colour.${colour}`), h("span", { class: "turn-seat" }, seatLabel(seatOf(colour), !local)))),
    );
  }

  function dieState() {
    if (!snap) return "waiting";
    if (running || queue.length || pending) return "waiting";
    if (snap.phase === "over") return "over";
    if (snap.started === false) return "waiting";  // the host is still gathering players
    if (!controls(snap.state.turn)) return "waiting";
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
    dieBtn.dataset.choices = state === "move" ? (oneChoice(snap.moves) ? "one" : "several") : "none";
    if (state === "ready") clearBanners(snap.state.turn);  // "No move" never hangs over the next player's roll
    if (state === "ready" && buzzedFor !== snap.actions) { buzzedFor = snap.actions; vibrate(40); }  // your turn
    autoMove(state);
    if (snap) {
      dieBtn.style.setProperty("--c", PALETTE[snap.state.turn || snap.state.winner || "red"].main);
      const colour = snap.state.turn;
      const seat = seatOf(colour);
      let text = "";
      let kind = state;
      const gathering = snap.started === false && snap.phase !== "over";
      startBtn.hidden = !(gathering && myRole() === "host");
      if (!gathering) startBtn.disabled = false;
      startBtn.textContent = t("game.start");
      if (gathering) { text = myRole() === "host" ? t("hint.start-when-ready") : t("hint.not-started"); kind = "open"; }
      else if (state === "ready") text = seat?.autopilot ? t("hint.autopilot-you") : t(touch ? "hint.roll-touch" : "hint.roll");
      else if (state === "move") text = t(touch ? "hint.move-touch" : "hint.move", { value: snap.roll });
      else if (state === "over") text = t("hint.over");
      else if (colour && seat && snap.phase !== "over" && !controls(colour)) {
        kind = "other";
        if (seat.kind === "open") { text = t("hint.open"); kind = "open"; }
        else if (seat.autopilot) text = t("hint.autopilot", { name: seatLabel(seat, !local) });
        else if (seat.kind === "bot") text = t("hint.bot", { name: seatLabel(seat, !local) });
        else if (seat.kind === "player") text = t("hint.waiting-for", { name: seatLabel(seat, !local) });
        else text = t("hint.waiting-host");
      }
      if (!connected && snap.phase !== "over") { text = t("hint.unreachable"); kind = "offline"; }  // not "a bot is thinking"
      hint.textContent = text;  // names are text, never markup
      hint.dataset.kind = kind;
    }
  }

  // Seat rows are kept between updates so an open seat menu survives the bots' moves.
  const rows = {};
  function renderPlayers() {
    const host = myRole() === "host" && snap.phase !== "over";
    const wanted = snap.players.map((colour) => seatRow(colour, host));
    if (wanted.length !== playersBox.children.length || wanted.some((li, k) => playersBox.children[k] !== li)) playersBox.replaceChildren(...wanted);
  }

  function seatRow(colour, host) {
    let row = rows[colour];
    if (!row) {
      const select = h("select", { class: "seat-menu-select", "data-testid": `seat-menu-${colour}`, onchange: () => seatAction(colour, select) });
      row = rows[colour] = {
        li: h("li", { class: "player", "data-testid": `player-${colour}`, "data-colour": colour, style: `--c:${PALETTE[colour].main};--c-light:${PALETTE[colour].light}` }),
        select,
        menu: h("label", { class: "seat-menu" }, h("span", { class: "seat-menu-icon", "aria-hidden": "true" }, "⋯"), select),
        sig: null,
      };
    }
    const seat = seatOf(colour) || { kind: "human" };
    const planes = snap.state.planes[colour] || [];
    const centre = app.meta.layout.progress.centre;
    const home = planes.filter((p) => p === centre).length;
    const place = snap.state.ranking.indexOf(colour);
    const mine = controls(colour) && (myRole() !== "host" || seat.kind === "human");
    row.li.className = `player seat-${seat.kind} ${colour === snap.state.turn && snap.phase !== "over" ? "current" : ""} ${mine ? "mine" : ""}`;
    row.li.dataset.kind = seat.kind;
    row.li.dataset.connected = seat.connected === undefined ? "" : String(!!seat.connected);
    row.li.dataset.autopilot = seat.autopilot ? "true" : "false";
    const showDot = typeof seat.connected === "boolean" && (seat.kind === "player" || (seat.kind === "human" && !local));
    const label = seat.kind === "open" ? t("seat.waiting") : seatLabel(seat, !local);
    const sig = JSON.stringify([seat.kind, seat.bot, seat.name, lang(), snap.phase === "over"]);
    if (host && row.sig !== sig) { fillSeatMenu(row.select, colour, seat); row.sig = sig; }
    row.menu.title = t("seat.menu-for", { colour: t(`colour.${colour}`) });
    row.select.setAttribute("aria-label", t("seat.menu-for", { colour: t(`colour.${colour}`) }));
    row.li.replaceChildren(...[
      seatAvatar(colour, seat, 22),
      h("span", { class: "player-name" }, t(`colour.${colour}`)),
      h("span", { class: "player-seat", title: label }, showDot ? presenceDot(seat.connected) : null, h("span", { class: "player-seat-name" }, label)),
      showDot && !seat.connected ? h("span", { class: "badge badge-away", "data-testid": `away-${colour}`, title: t("seat.disconnected") }, t("seat.away")) : null,
      mine ? h("span", { class: "badge badge-you" }, t("seat.you")) : null,
      seat.autopilot ? h("span", { class: "badge badge-auto", title: t("seat.autopilot-help") }, "⚙ ", t("seat.autopilot")) : null,
      place >= 0 ? h("span", { class: "player-medal", title: t("end.place", { n: place + 1 }) }, medal(place + 1)) : null,
      h("span", { class: "home-pips", title: t("game.home-count", { n: home }) },
        ...planes.map((p) => h("span", { class: `home-pip ${p === centre ? "on" : p >= 0 ? "out" : ""}` }))),
      host ? row.menu : null].filter(Boolean));
    return row.li;
  }

  function fillSeatMenu(select, colour, seat) {
    const opts = [h("option", { value: "", selected: true, hidden: true }, t("seat.menu"))];
    for (const b of bots) {
      if (!(seat.kind === "bot" && seat.bot === b.name)) opts.push(h("option", { value: `bot:${b.name}` }, t("seat.menu-bot", { name: botLabel(b.name) })));
    }
    if (seat.kind !== "human") opts.push(h("option", { value: "human" }, t("seat.menu-human")));
    if (seat.kind === "player") opts.push(h("option", { value: "kick" }, t("seat.menu-kick", { name: seatLabel(seat, !local) })));
    else if (seat.kind !== "open") opts.push(h("option", { value: "open" }, t("seat.menu-open")));
    select.replaceChildren(...opts);
    select.value = "";
  }

  function seatAction(colour, select) {
    const value = select.value;
    select.value = "";
    if (!value) return;
    const seat = seatOf(colour);
    let msg;
    if (value === "kick") msg = { type: "kick", colour };
    else if (value.startsWith("bot:")) msg = { type: "seat", colour, kind: "bot", bot: value.slice(4) };
    else msg = { type: "seat", colour, kind: value };
    if (!socket.send(msg)) { toast(t("error.offline"), "error"); return; }
    if (value === "kick") toast(t("seat.kicked", { name: seatLabel(seat, !local) }));
  }

  function renderRole() {
    const r = myRole();
    roleLine.dataset.role = r;
    roleLine.replaceChildren();
    if (r === "player" && myColours.length) {
      roleLine.append(h("span", { class: "role-text" }, tNodes("role.player", { player: colourChip(myColours[0]) })));
    } else if (r === "host" && !local) {
      roleLine.append(h("span", { class: "role-text" }, "★ ", t("role.host")));
    } else if (r === "spectator") {
      roleLine.append(h("span", { class: "role-text" }, eyeSvg(16), t("role.spectator")));
      if (openSeats().length && snap.phase !== "over") {
        roleLine.append(h("a", { class: "btn btn-small", href: `#/join/${encodeURIComponent(gameId)}`, "data-testid": "take-seat" }, t("role.take-seat")));
      }
    }
    roleLine.hidden = !roleLine.childNodes.length;
  }

  function openSeats() {
    return snap ? snap.players.filter((c) => seatOf(c)?.kind === "open") : [];
  }

  // ------------------------------------------------------------ invite
  function inviteUrl() {
    // opened through 127.0.0.1 on a LAN server: invite with the address phones can reach
    const loopback = /^(localhost|127\.|\[?::1\]?$)/.test(location.hostname);
    const meta = app.meta || {};
    const base = meta.public_url || (loopback && meta.invite_base ? meta.invite_base : location.origin);
    return `${base}/#/join/${encodeURIComponent(gameId)}`;
  }

  let inviteBuilt = false;
  const inviteLink = h("a", { class: "invite-link", "data-testid": "invite-link", target: "_blank", rel: "noopener" });
  const inviteQr = h("img", { class: "invite-qr", "data-testid": "invite-qr", width: "148", height: "148", alt: "" });
  inviteQr.addEventListener("error", () => { inviteQr.hidden = true; });
  inviteQr.addEventListener("load", () => { inviteQr.hidden = false; });
  function renderInvite(relabelOnly = false) {
    const open = openSeats();
    const over = snap && snap.phase === "over";
    const show = !!snap && !over && (open.length > 0 || inviteOpen);
    inviteBtn.hidden = !snap || over || open.length > 0 || myRole() === "spectator";
    inviteBtn.setAttribute("aria-expanded", String(show));
    inviteCard.hidden = !show;
    if (!show && !relabelOnly) return;
    if (!show) return;
    const url = inviteUrl();
    inviteLink.href = url;
    inviteLink.textContent = url;
    if (!inviteBuilt) {
      inviteBuilt = true;
      inviteQr.hidden = true;
      svgImageUrl(`/api/games/${encodeURIComponent(gameId)}/invite.svg`).then((src) => {
        if (src && !destroyed) inviteQr.src = src;
      });
    }
    inviteQr.alt = t("invite.qr-alt");
    const copy = h("button", { class: "btn btn-small", type: "button", "data-testid": "invite-copy", onclick: async () => {
      toast(await copyText(url) ? t("invite.copied") : t("invite.copy-failed"), "info");
    } }, copySvg(15), t("invite.copy"));
    const local127 = /^(localhost|127\.|\[?::1)/.test(location.hostname);
    inviteCard.replaceChildren(
      h("h3", { class: "card-title" }, linkSvg(18), t("invite.title"),
        open.length ? h("span", { class: "count open-count" }, t("lobby.open-seats", { n: open.length })) : null,
        inviteOpen && !open.length ? h("button", { class: "invite-close", type: "button", "aria-label": t("end.close"), title: t("end.close"), onclick: () => { inviteOpen = false; renderInvite(); } }, "×") : null),
      h("div", { class: "invite-body" },
        h("div", { class: "invite-text" },
          h("p", { class: "muted invite-help" }, open.length ? t("invite.help") : t("invite.help-full")),
          local127 && !(app.meta && app.meta.invite_base) && myRole() === "host" ? h("p", { class: "invite-warn" }, t("invite.loopback")) : null),
        inviteQr),
      h("div", { class: "invite-url" }, inviteLink, copy));
  }

  // ------------------------------------------------------------ chat and reactions
  function canTalk() {
    const r = myRole();
    return connected && (r === "host" || r === "player");
  }

  function relabelChat() {
    const talk = canTalk();
    chatInput.disabled = !talk;
    chatSend.disabled = !talk;
    for (const b of reactButtons) b.disabled = !talk;
    chatInput.placeholder = talk ? t("chat.placeholder") : t("chat.spectator");
    chatInput.setAttribute("aria-label", t("chat.placeholder"));
    chatNote.textContent = talk ? "" : t("chat.read-only");
    if (!chatList.children.length) chatList.dataset.empty = t("chat.empty");
  }

  function sendChat() {
    const text = chatInput.value.trim().slice(0, 200);
    if (!text || !canTalk()) return;
    if (socket.send({ type: "chat", text })) chatInput.value = "";
    else toast(t("error.offline"), "error");
  }

  let reactReady = 0;
  function sendReact(emoji) {
    if (!canTalk()) return;
    const now = performance.now();
    if (now < reactReady) return;
    reactReady = now + 350;
    if (!socket.send({ type: "react", emoji })) toast(t("error.offline"), "error");
  }

  function speakerName(msg) {
    return msg.colour ? String(msg.name || t(`colour.${msg.colour}`)) : t("chat.host");
  }

  function isMine(msg) {
    return msg.colour ? myColours.includes(msg.colour) : myRole() === "host";
  }

  function chatItem(msg) {
    const colour = PALETTE[msg.colour] ? msg.colour : null;
    let time = "";
    try { if (msg.at) time = new Intl.DateTimeFormat(lang() === "zh" ? "zh-CN" : lang(), { timeStyle: "short" }).format(new Date(msg.at)); } catch { time = ""; }
    // the name and the text are inserted as text nodes: never markup
    return h("li", { class: `chat-msg ${isMine(msg) ? "mine" : ""}`, "data-testid": "chat-message", style: colour ? `--c:${PALETTE[colour].main};--c-dark:${PALETTE[colour].dark}` : null },
      h("span", { class: "chat-who" }, colour ? colourIcon(colour, 12) : h("span", { class: "chat-star", "aria-hidden": "true" }, "★"),
        h("span", { class: "chat-name", text: speakerName(msg) }), time ? h("time", { class: "chat-time", text: time }) : null),
      h("span", { class: "chat-text", text: String(msg.text ?? "") }));
  }

  function addChat(msg, live) {
    if (typeof msg.text !== "string") return;
    const atBottom = chatList.scrollHeight - chatList.scrollTop - chatList.clientHeight < 40;
    chatList.append(chatItem(msg));
    while (chatList.children.length > MAX_CHAT) chatList.firstElementChild.remove();
    if (live && !isMine(msg)) chatCard.classList.add("chat-new");
    setTimeout(() => chatCard.classList.remove("chat-new"), 900);
    if (atBottom || isMine(msg)) requestAnimationFrame(() => { chatList.scrollTop = chatList.scrollHeight; });
  }

  function loadChat(list) {
    chatList.replaceChildren();
    for (const m of list.slice(-MAX_CHAT)) addChat(m, false);
  }

  function floatReaction(msg) {
    if (!REACTIONS.includes(msg.emoji)) return;
    while (reactLayer.children.length > 14) reactLayer.firstElementChild.remove();
    const colour = PALETTE[msg.colour] ? msg.colour : null;
    const el = h("div", { class: "react-float", style: `left:${12 + Math.random() * 76}%;--c:${colour ? PALETTE[colour].main : "#1d2540"};--drift:${(Math.random() * 40 - 20).toFixed(0)}px` },
      h("span", { class: "react-emoji", text: msg.emoji }),
      h("span", { class: "react-name", text: speakerName(msg) }));
    reactLayer.append(el);
    setTimeout(() => el.remove(), 2800);
  }

  function showRematchNotice(id) {
    if (myRole() === "host") return;
    const href = `#/join/${encodeURIComponent(id)}`;
    toast(t("end.rematch-started"));
    const actions = endLayer.querySelector(".end-actions");
    if (actions && !actions.querySelector("[data-testid=join-rematch]")) {
      actions.prepend(h("a", { class: "btn btn-primary", href, "data-testid": "join-rematch" }, t("end.join-rematch")));
    }
  }

  // ------------------------------------------------------------ turn timer
  function updateClock() {
    const timer = Number(snap && snap.timer) || 0;
    const colour = snap && snap.state.turn;
    const seat = colour ? seatOf(colour) : null;
    const people = seat && (seat.kind === "player" || seat.kind === "human") && !seat.autopilot;
    const key = snap ? `${snap.actions}:${snap.phase}:${snap.roll}:${colour}` : null;
    if (key !== turnKey) {
      turnKey = key;
      turnStart = performance.now();
      turnLeft = typeof snap?.turn_left === "number" ? snap.turn_left : timer;
    }
    const show = timer > 0 && people && snap.phase !== "over";
    timerBar.hidden = !show;
    if (!show) return;
    const left = Math.max(0, turnLeft - (performance.now() - turnStart) / 1000);
    timerBar.style.setProperty("--left", String(Math.min(1, left / timer)));
    timerBar.dataset.low = left <= Math.min(10, timer / 3) ? "true" : "false";
    timerBar.querySelector(".turn-timer-text").textContent = t("game.timer-left", { n: Math.ceil(left) });
  }

  function renderPanel() {
    if (!snap) return;
    renderTurn();
    renderPlayers();
    renderRole();
    renderInvite();
    relabelChat();
    // chat is for several devices: a game played on this one device alone has no one to read it
    const shared = !local || Object.values(snap.seats || {}).some((seat) => seat.kind === "player" || seat.kind === "open");
    chatCard.hidden = !shared;
    updateClock();
    rulesBox.replaceChildren(rulesSummary(snap.rules, snap.rules_name));
    speedSel.value = speed;
    const host = myRole() === "host";
    speedSel.disabled = !host;
    speedSel.title = host ? "" : t("game.speed-host");
    updateControls();
  }

  // ------------------------------------------------------------ actions
  function doRoll() {
    if (dieState() !== "ready") return;
    if (socket.send({ type: "roll" })) { pending = true; updateControls(); }
    else toast(t("error.offline"), "error");
  }

  // With one real choice the move plays itself after a moment (the setting, on by
  // default); the player still sees the roll and the plane it moves.
  function moveTurnKey() { return snap ? `${snap.actions}:${snap.state.turn}:${snap.roll}` : null; }

  function autoMove(state) {
    const key = moveTurnKey();
    if (state !== "move" || !settings().autoMove || !oneChoice(snap.moves)) {
      clearTimeout(autoMoveTimer);
      autoMoveTimer = null;
      autoMoveFor = null;
      return;
    }
    if (autoMoveFor === key) return;
    clearTimeout(autoMoveTimer);
    autoMoveFor = key;
    autoMoveTimer = setTimeout(() => {
      autoMoveTimer = null;
      if (dieState() === "move" && moveTurnKey() === key) doMove(snap.moves[0]);
    }, AUTO_MOVE_MS);
  }

  function doMove(move) {
    if (dieState() !== "move") return;
    board.clearPreview();
    if (socket.send({ type: "move", plane: move.plane })) { pending = true; updateControls(); }
    else toast(t("error.offline"), "error");
  }

  function setSpeed(value) {
    if (myRole() !== "host") return;
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
    const res = await fetchReplay(gameId);
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
      h("span", { class: "rank-medal" }, medal(k + 1)), seatAvatar(colour, seatOf(colour), 22),
      h("span", { class: "rank-name" }, t(`colour.${colour}`)), h("span", { class: "rank-seat" }, seatLabel(seatOf(colour), !local)))));
    for (const colour of rest) list.append(h("li", { class: "rank rank-unplaced", "data-colour": colour, style: `--c:${PALETTE[colour].main};--c-light:${PALETTE[colour].light}` },
      h("span", { class: "rank-medal" }, "·"), seatAvatar(colour, seatOf(colour), 22),
      h("span", { class: "rank-name" }, t(`colour.${colour}`)), h("span", { class: "rank-seat" }, t("end.unplaced"))));
    const winner = st.winner;
    const card = h("div", { class: "end-card", "data-testid": "end-screen", role: "dialog", "aria-modal": "false", "aria-labelledby": "end-title" },
      h("button", { class: "end-close", type: "button", "data-testid": "end-close", "aria-label": t("end.close"), title: t("end.close"), onclick: () => endLayer.classList.toggle("minimised") }, "–"),
      h("div", { class: "confetti", "aria-hidden": "true" }, ...Array.from({ length: 18 }, (_, k) => h("i", { style: `--k:${k};--c:${PALETTE[["red", "yellow", "blue", "green"][k % 4]].main}` }))),
      h("div", { class: "trophy", "aria-hidden": "true" }, trophySvg(64)),
      h("h2", { id: "end-title", class: "winner", "data-testid": "winner", "data-colour": winner || "", style: winner ? `--c:${PALETTE[winner].dark}` : null },
        winner ? tNodes("end.wins", { player: colourChip(winner) }) : t("hint.over")),
      list,
      h("div", { class: "end-actions" },
        myRole() === "host" ? h("button", { class: "btn btn-primary", type: "button", "data-testid": "rematch", onclick: rematch }, t("end.rematch")) : null,
        h("button", { class: "btn", type: "button", "data-testid": "new-game-end", onclick: () => app.go("#/new") }, t("end.new-game")),
        h("a", { class: "btn btn-ghost", href: `#/replay/${encodeURIComponent(gameId)}` }, t("end.watch-replay")),
        h("button", { class: "btn btn-ghost end-view-board", type: "button", "data-testid": "view-board", onclick: () => endLayer.classList.add("minimised") }, t("end.view-board"))));
    endLayer.replaceChildren(card);
    endLayer.classList.add("shown");
  }

  async function rematch() {
    const res = await api("POST", `/api/games/${encodeURIComponent(gameId)}/rematch`, {}, hostHeaders(gameId));
    if (!res.ok) { toast(errorText(res.error.code, res.error.message), "error"); return; }
    keepHostToken(res.data);
    app.go(`#/game/${encodeURIComponent(res.data.id)}`);
  }

  const offLang = onLangChange(relabel);
  relabel();
  clock = setInterval(() => { if (snap && snap.timer) updateClock(); }, 250);

  return {
    destroy() {
      destroyed = true;
      if (howTo) howTo.destroy();
      clearInterval(clock);
      clearTimeout(autoMoveTimer);
      if (inviteQr.src.startsWith("blob:")) URL.revokeObjectURL(inviteQr.src);
      socket.close();
      offLang();
      document.removeEventListener("keydown", onKey);
      board.hurry = true;
    },
  };
}
