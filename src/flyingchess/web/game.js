// The game screen: board, side panel, die, seats, invite, chat, move log, animation queue
// and end overlay. On a network server the page plays only the seats its token opens.
import { Board } from "./board.js";
import { GameSocket, getSeatToken, saveSeatToken, dropSeatToken, keepHostToken, hostHeaders } from "./net.js";
import { t, tNodes, lang, onLangChange } from "./i18n.js";
import { settings, saveSetting } from "./settings.js";
import { playSound, vibrate, showSoundState } from "./sound.js";
import { howToCard } from "./howto.js";
import { showTurn, missingCard } from "./cards.js";
import { makeChat } from "./chat.js";
import { makeInvite } from "./invite.js";
import { showEndCard, hideEndCard, offerRematch } from "./endcard.js";
import { makeMoveLog } from "./movelog.js";
import { fetchChances, fetchHint, chanceBar, percent, reasonText } from "./insight.js";
import { makeDiceCard, newContribution, rememberDice } from "./fairdice.js";
import { NETWORK_PLAY } from "./transport.js";
import { NOBODY, welcomed, seated, unseated, refusedSeat, roleOf, playsFor, seatsLost } from "./identity.js";
import {
  h, api, toast, errorText, colourIcon, colourChip, dieFace, setDieFace, seatLabel, botLabel,
  rulesSummary, formatEvents, medal, looksLocal, presenceDot, seatAvatar, PALETTE,
  eyeSvg, clockSvg, reportError, oneChoice, homeSvg, downloadSvg, replaySvg, recordLink,
} from "./ui.js";

const SPEED_FACTOR = { slow: 1.7, normal: 1, fast: 0.45, instant: 0 };
const AUTO_MOVE_MS = 450;  // long enough to see the roll before the plane goes

export function mountGame(root, app, gameId) {
  // the server's own lists and limits (GET /api/meta), so the page never drifts from it
  const SPEEDS = app.meta.speeds;
  const board = new Board(app.meta.layout);
  let snap = null;          // the snapshot the page has drawn (the truth once drawn)
  const queue = [];
  let running = false;
  let pending = false;      // a roll or move sent, no answer yet
  let unanswered = null;    // {request, key, lost}: the roll or move sent, until the game moves on
  let lastActions = -1;     // the action count of the newest game state received
  let destroyed = false;
  let lastRoll = null;
  let shownTurn = null;
  let rolling = false;
  let endShownFor = null;
  let speed = "normal";
  let connected = false;
  // who this page is: the server's welcome, else what a fresh connection is by default
  const local = looksLocal(app.meta);
  // a phone or tablet: the hints speak of tapping, not of keys
  const touch = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
  let me = NOBODY;          // who this page is, as the server last said (identity.js)
  let turnKey = null;
  let turnStart = 0;
  let turnLeft = 0;
  let clock = null;
  const bots = (app.meta.bots || []).filter((b) => b.available !== false);

  // ------------------------------------------------------------ DOM
  const banner = h("div", { class: "banner-layer", "aria-live": "polite" });
  const endLayer = h("div", { class: "end-layer" });
  const endDock = h("div", { class: "end-dock", "data-testid": "end-dock", hidden: true });  // the end card, minimised
  const conn = h("div", { class: "conn-pill", hidden: true });
  const reactLayer = h("div", { class: "react-layer", "aria-hidden": "true" });
  const boardWrap = h("div", { class: "board-wrap" }, h("div", { class: "board-frame" }, board.svg, banner, reactLayer, conn), endLayer);

  const homeBtn = h("button", { class: "btn btn-ghost", "data-testid": "home", type: "button", onclick: () => app.go("#/") });
  const download = recordLink(gameId, { class: "btn btn-ghost", "data-testid": "download-record" });
  const replayLink = h("a", { class: "btn btn-ghost", href: `#/replay/${encodeURIComponent(gameId)}` });
  const turnCard = h("div", { class: "turn-card", "data-testid": "turn", "aria-live": "polite" });
  const timerBar = h("div", { class: "turn-timer", "data-testid": "turn-timer", hidden: true },
    clockSvg(15), h("span", { class: "turn-timer-track" }, h("span", { class: "turn-timer-fill" })), h("span", { class: "turn-timer-text" }));
  const roleLine = h("div", { class: "role-line", "data-testid": "role" });
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
  // win chances (a setting) and hints (the game's option), when the server can work them out
  const analysis = app.meta.analysis === true;
  const chancesBox = h("input", { type: "checkbox", "data-testid": "show-chances", checked: settings().showChances,
    onchange: () => { saveSetting("showChances", chancesBox.checked); chances = null; chanceAsked = -1; renderPanel(); } });
  const chancesText = h("span", {});
  const chancesLabel = h("label", { class: "auto-move", hidden: !analysis }, chancesBox, chancesText);
  let chances = null;       // {actions, values} as the server last answered
  let chanceAsked = -1;     // the position last asked about
  const hintBtn = h("button", { class: "btn btn-small hint-btn", type: "button", "data-testid": "hint-button", hidden: true, onclick: () => askHint() });
  const hintText = h("div", { class: "hint-best", "data-testid": "hint-best", hidden: true, "aria-live": "polite" });
  let hintFor = -1;         // the position whose hint is shown
  let buzzedFor = null;
  let autoMoveTimer = null;
  let autoMoveFor = null;
  const startBtn = h("button", { class: "btn btn-primary start-game", type: "button", "data-testid": "start-game", hidden: true,
    onclick: () => { if (socket.send({ type: "start" })) { startBtn.disabled = true; } } });
  const playersBox = h("ul", { class: "players" });
  const speedSel = h("select", { "data-testid": "speed", class: "select", onchange: () => setSpeed(speedSel.value) });
  const speedLabel = h("label", { class: "field-inline" });
  const rulesBox = h("div", { class: "card rules-card" });
  const log = makeMoveLog(gameId);
  const logTitle = h("h3", { class: "card-title" });
  const rulesTitle = h("h3", { class: "card-title" });

  const invite = makeInvite(app, gameId);
  const chat = makeChat({ app, socket: { send: (msg) => socket.send(msg) }, reactLayer, canTalk, isMine });
  const howTo = howToCard();  // the first game only
  // a network game's dice: the commitment while playing, the check of every roll after
  const dice = makeDiceCard({ gameId, fetchRecord });
  let contributing = false;     // this connection sent its share and has not seen it counted
  const panel = h("aside", { class: "panel" },
    h("div", { class: "panel-bar" }, homeBtn, h("div", { class: "spacer" }), invite.button, replayLink, download),
    invite.card,
    h("div", { class: "card play-card" }, h("div", { class: "turn-wrap" }, turnCard, timerBar), endDock, h("div", { class: "die-row" }, dieBtn, h("div", { class: "die-side" }, hint, hintBtn)), hintText, h("div", { class: "toggles" }, autoMoveLabel, soundLabel, chancesLabel), startBtn, roleLine, playersBox),
    howTo,  // below the die: on a phone nothing comes between the board and the die
    chat.card,
    dice.card,
    h("div", { class: "card log-card" }, h("div", { class: "card-head" }, logTitle, speedLabel), log.list),
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
    chancesText.textContent = t("game.show-chances");
    hintBtn.textContent = t("game.hint");
    conn.textContent = t("game.reconnecting");
    chat.relabel();
    renderInvite();
    if (snap) { renderPanel(); log.renderAll(); if (endShownFor) renderEnd(); }
  }

  // ------------------------------------------------------------ connection
  const socket = new GameSocket(gameId, onMessage, (status, saidHello) => {
    connected = status === "open";
    if (!connected && unanswered) unanswered.lost = true;  // its answer may never come: see resendLost
    conn.hidden = connected;
    if (connected && !saidHello) me = unseated(me);  // a fresh connection: the default role
    if (connected) contributing = false;
    if (snap) { renderPanel(); updateControls(); }
  });

  // ------------------------------------------------------------ who am I
  function myRole() {
    return roleOf(me, local);
  }

  /** Whether this page may roll and move for a colour. */
  function controls(colour) {
    return playsFor(me, seatOf(colour), colour, local);
  }

  function checkStillSeated(game) {
    if (!seatsLost(me, game).length) return;
    dropSeatToken(gameId);
    me = unseated(me);
    toast(t("seat.removed"), "error");
    socket.reconnect();  // a fresh connection watches
  }

  function onMessage(msg) {
    if (destroyed || !msg) return;
    if (msg.game) checkStillSeated(msg.game);
    const handle = Object.hasOwn(ON_MESSAGE, msg.type) ? ON_MESSAGE[msg.type] : null;
    if (handle) handle(msg);  // a type this page does not know (a newer server): nothing to do
  }

  /** What the page does with each message the server sends (docs/protocol.md). */
  const ON_MESSAGE = {
    snapshot(msg) {
      pending = false;
      resendLost(msg.game);
      lastActions = msg.game && typeof msg.game.actions === "number" ? msg.game.actions : -1;
      if (Array.isArray(msg.chat || msg.game?.chat)) chat.load(msg.chat || msg.game.chat);
      const gen = log.reload(msg.game, (roll) => { if (!lastRoll) { lastRoll = roll; updateControls(); } });
      queue.push({ events: [], game: msg.game, fresh: true, gen });
      pump();
    },
    update(msg) {
      pending = false;
      if (msg.events && msg.events.length) unanswered = null;
      const actions = msg.game && typeof msg.game.actions === "number" ? msg.game.actions : -1;
      // an update went missing (several servers relay them): ask for the whole game again
      if (lastActions >= 0 && actions > lastActions + 1) socket.send({ type: "sync" });
      lastActions = Math.max(lastActions, actions);
      queue.push({ events: msg.events || [], game: msg.game, gen: log.token });
      pump();
    },
    welcome(msg) {
      me = welcomed(me, msg);
      if (me.role === "player" && me.colours.length) {
        const seat = getSeatToken(gameId);
        if (seat && seat.colour !== me.colours[0]) saveSeatToken(gameId, seat.token, "player", me.colours[0]);
      }
      if (snap) renderPanel();
    },
    joined(msg) {
      saveSeatToken(gameId, msg.token, "player", msg.colour);
      me = seated(me, msg.colour);
      if (snap) renderPanel();
    },
    chat(msg) { chat.add(msg, true); },
    react(msg) { chat.floatReaction(msg); },
    "seat-lost"() {
      // the host gave this page's seat away: its token opens nothing any more
      dropSeatToken(gameId);
      me = unseated(me);
      toast(t("seat.removed"), "error");
      if (snap) renderPanel();
    },
    rematch(msg) { if (msg.id) showRematchNotice(msg.id); },
    error(msg) {
      pending = false;
      // refused for now, nothing changed: sent again with the room back (resendLost)
      if (msg.code === "reconnecting" && unanswered) unanswered.lost = true;
      else unanswered = null;
      // a share that came too late or twice (another tab, the game just started): nothing to tell
      if (contributing && ["already-contributed", "wrong-phase", "no-commitment"].includes(msg.code)) {
        contributing = false;
        return;
      }
      const handle = Object.hasOwn(ON_ERROR, msg.code) ? ON_ERROR[msg.code] : null;
      if (handle) { handle(msg); return; }
      if (msg.code === "not-your-seat") me = refusedSeat(me);
      toast(errorText(msg.code, msg.message), "error");
      if (snap) renderPanel(); else updateControls();
    },
  };

  /** Refusals the page answers by itself rather than with a toast. */
  const ON_ERROR = {
    "unknown-game"() { showMissing(); },
    "moved-on"() {
      // a roll or move sent again after a reconnection had been carried out after all:
      // the update that shows it is on its way, nothing to tell the player
      if (snap) renderPanel(); else updateControls();
    },
    reconnecting() {
      // the room is moving to another server process (a restart, a failover): nothing
      // was changed; the connection is closed next and the page reconnects by itself
      conn.hidden = false;
      if (snap) renderPanel(); else updateControls();
    },
    "bad-token"() {
      // the token no longer opens a seat (removed by the host, or an old game)
      const held = getSeatToken(gameId);
      dropSeatToken(gameId);
      me = unseated(me);
      if (held && held.role === "player") toast(t("seat.removed"), "error");
      if (snap) renderPanel();
    },
  };

  function showMissing() {
    screen.replaceChildren(missingCard(app));
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
        askChances();
      }
    }
  }

  async function playItem(item) {
    const game = item.game;
    if (!snap) board.setPlayers(game.players);
    const logged = log.current(item.gen);
    if (logged && item.events.length) log.addBatch(item.events);
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
      while (logged && li < lines.length && lines[li].index <= k) log.append(lines[li++]);
      if (f > 0) playSound(ev.type);
      if (f > 0 && ev.type === "capture") vibrate(80);
      await uiEvent(ev, f);
      await board.animate(ev, f);
    }
    while (logged && li < lines.length) log.append(lines[li++]);
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
    const over = snap && snap.phase === "over" && !running;
    const colour = over ? snap.state.winner : shownTurn;
    board.setTurn(over ? null : colour);
    showTurn(turnCard, colour, seatOf(colour), over ? t("game.winner") : t("game.to-play"), !local);
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
      hintBtn.hidden = !(analysis && snap.hints && state === "move");
      if (hintFor !== snap.actions || state !== "move") { hintText.hidden = true; hintFor = -1; }
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
      showChances() && chances && typeof chances.values[colour] === "number"
        ? chanceBar(colour, chances.values[colour], chances.actions !== snap.actions) : null,
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
    else if (seat.kind !== "open" && NETWORK_PLAY) opts.push(h("option", { value: "open" }, t("seat.menu-open")));
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
    if (r === "player" && me.colours.length) {
      roleLine.append(h("span", { class: "role-text" }, tNodes("role.player", { player: colourChip(me.colours[0]) })));
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

  function renderInvite() {
    // no network behind the static site: nobody to invite (site.js says how to play across devices)
    invite.render({ playing: NETWORK_PLAY && !!snap && snap.phase !== "over", openSeats: openSeats().length, role: myRole() });
  }

  // ------------------------------------------------------------ chat and reactions
  function canTalk() {
    const r = myRole();
    return connected && (r === "host" || r === "player");
  }

  function isMine(msg) {
    return msg.colour ? me.colours.includes(msg.colour) : myRole() === "host";
  }

  function showRematchNotice(id) {
    if (myRole() === "host") return;
    toast(t("end.rematch-started"));
    offerRematch(endLayer, endDock, id);
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

  // ------------------------------------------------------------ chances and hints
  function showChances() { return analysis && settings().showChances; }

  /** Ask for the chances of the position just drawn (once each); shown when they come. */
  async function askChances() {
    if (!showChances() || !snap || running || queue.length || chanceAsked === snap.actions) return;
    chanceAsked = snap.actions;
    const res = await fetchChances(gameId, snap.actions);
    if (destroyed || !showChances()) return;
    if (!res.ok) {
      if (res.error.code !== "network") toast(errorText(res.error.code, res.error.message), "error");
      return;
    }
    chances = { actions: res.data.actions, values: res.data.chances };
    if (snap) renderPlayers();
  }

  async function askHint() {
    if (dieState() !== "move") return;
    const at = snap.actions;
    hintBtn.disabled = true;
    const res = await fetchHint(gameId, at);
    hintBtn.disabled = false;
    if (destroyed) return;
    if (!res.ok) { toast(errorText(res.error.code, res.error.message), "error"); return; }
    const given = res.data.hint;
    // only about the position on the board: the game may have moved on meanwhile
    if (!given || res.data.actions !== snap.actions || dieState() !== "move") return;
    hintFor = at;
    const move = snap.moves.find((m) => m.plane === given.best);
    if (move) board.preview(snap.state.turn, move);
    hintText.textContent = t("game.hint-best", {
      plane: given.best + 1, why: reasonText(given.reasons), chance: percent(given.moves[String(given.best)]),
    });
    hintText.hidden = false;
  }

  function renderPanel() {
    if (!snap) return;
    renderTurn();
    renderPlayers();
    renderRole();
    renderInvite();
    chat.refresh();
    // chat is for several devices: a game played on this one device alone has no one to read it
    const shared = !local || Object.values(snap.seats || {}).some((seat) => seat.kind === "player" || seat.kind === "open");
    chat.card.hidden = !shared;
    updateClock();
    rulesBox.replaceChildren(rulesSummary(snap.rules, snap.rules_name));
    speedSel.value = speed;
    const host = myRole() === "host";
    speedSel.disabled = !host;
    speedSel.title = host ? "" : t("game.speed-host");
    updateControls();
    askChances();
    dice.render(snap);
    contribute();
  }

  /** Who this page contributes to the dice as ("host" or its colour), or null. */
  function contributorKey() {
    const r = myRole();
    if (r === "host") return "host";
    return r === "player" && me.colours.length ? me.colours[0] : null;
  }

  /** Before a network game starts, each seated page adds a random share to its dice. */
  function contribute() {
    const key = contributorKey();
    if (!snap || !snap.dice || snap.started || !connected || !key) return;
    if ((snap.dice.contributors || []).includes(key)) { contributing = false; return; }
    if (contributing) return;
    const share = newContribution();
    contributing = socket.send({ type: "contribute", value: share });
    if (contributing) rememberDice(gameId, snap.dice, { seats: snap.seats, share: { value: share, by: key } });  // checked to be in the record at the end
  }

  async function fetchRecord() {
    const res = await api("GET", `/api/games/${encodeURIComponent(gameId)}/record`);
    if (!res.ok) throw new Error(errorText(res.error.code, res.error.message));
    return res.data;
  }

  // ------------------------------------------------------------ actions
  /** Where the game stands for a roll or move (a resend, an auto-move): it is still wanted
   * only while this holds. */
  function requestKey(game) {
    return game && game.state ? `${game.actions}:${game.state.turn}:${game.phase}` : null;
  }

  /** Send a roll or move, remembered until the game moves on (see resendLost). */
  function sendAction(action) {
    // `at`: the moment it is meant for; the server refuses it (moved-on) once the game has moved on
    const request = { ...action, at: snap.actions };
    if (!socket.send(request)) { toast(t("error.offline"), "error"); return; }
    unanswered = { request, key: requestKey(snap), lost: false };
    pending = true;
    updateControls();
  }

  /** A roll or move sent on a connection that dropped before its answer came (or refused
   * with `reconnecting`: the room was moving, nothing changed) is sent again, once, with
   * the next fresh snapshot, if that shows the game still waiting for it (same action
   * count, turn and phase: had it been played, they would differ). The player clicked
   * once; a server restart or failover under the click should not ask for another. */
  function resendLost(game) {
    const lost = unanswered && unanswered.lost ? unanswered : null;
    if (!lost) return;
    unanswered = null;
    if (requestKey(game) === lost.key && socket.send(lost.request)) {
      unanswered = { ...lost, lost: false };
      pending = true;
    }
  }

  function doRoll() {
    if (dieState() !== "ready") return;
    sendAction({ type: "roll" });
  }

  // With one real choice the move plays itself after a moment (the setting, on by
  // default); the player still sees the roll and the plane it moves.
  function autoMove(state) {
    const key = requestKey(snap);
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
      if (dieState() === "move" && requestKey(snap) === key) doMove(snap.moves[0]);
    }, AUTO_MOVE_MS);
  }

  function doMove(move) {
    if (dieState() !== "move") return;
    board.clearPreview();
    sendAction({ type: "move", plane: move.plane });
  }

  function setSpeed(value) {
    if (myRole() !== "host") return;
    speed = value;
    saveSetting("speed", value);  // the next new game starts at this pace too
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

  // ------------------------------------------------------------ end
  function maybeShowEnd() {
    if (!snap || snap.phase !== "over" || running || queue.length) return;
    if (endShownFor === snap.id) return;
    endShownFor = snap.id;
    renderEnd();
    renderPanel();
  }

  function renderEnd() {
    if (!snap || snap.phase !== "over") { hideEndCard(endLayer, endDock); return; }
    const verify = snap.dice && snap.dice.seed ? () => dice.verify() : null;
    showEndCard(endLayer, endDock, snap, { gameId, network: !local, host: myRole() === "host", go: (hash) => app.go(hash), rematch, verify });
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
      invite.destroy();
      log.stop();
      socket.close();
      offLang();
      document.removeEventListener("keydown", onKey);
      board.hurry = true;
    },
  };
}
