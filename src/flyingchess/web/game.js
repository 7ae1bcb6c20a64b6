// The game screen: mounts the views of one game (the board, the play card, the seats,
// chat, dice, log, end) and keeps its model (gamemodel.js) as the server's messages come.
// What the page may do is the server's word (identity.js); the views draw the model.
import { Board } from "./board.js";
import { GameSocket } from "./net.js";
import { t, onLangChange } from "./i18n.js";
import { saveSetting } from "./settings.js";
import { vibrate } from "./sound.js";
import { howToCard } from "./howto.js";
import { makeChat } from "./chat.js";
import { makeInvite } from "./invite.js";
import { makeEnd } from "./endcard.js";
import { makeMoveLog } from "./movelog.js";
import { makeDiceCard } from "./fairdice.js";
import { NETWORK_PLAY } from "./transport.js";
import { h, api, errorText, looksLocal, reportError } from "./ui.js";
import { START, opened, closed, received, dieState, requestKey, oneChoice } from "./gamemodel.js";
import { makeDie } from "./dieview.js";
import { makeBanners, makePlayback } from "./playback.js";
import { makeSeatList, openSeats } from "./seatlist.js";
import { makeAdvice } from "./advice.js";
import { makePlayCard } from "./playcard.js";
import { makeSideCards } from "./sidecards.js";
import { makeAnnouncer } from "./announcer.js";
import { makeInput } from "./gameinput.js";
import { makeSender } from "./gamesend.js";
import { gameEffects } from "./gameeffects.js";

export function mountGame(root, app, gameId) {
  const local = looksLocal(app.meta);  // a game served to this machine alone
  const touch = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;  // hints speak of tapping
  const board = new Board(app.meta.layout);
  let model = START;       // the connection, the requests and who this page is (gamemodel.js)
  let snap = null;         // the game as drawn on the board (the truth once drawn)
  let shownTurn = null;    // whose turn the board shows (ahead of `snap` while events play)
  let destroyed = false;
  let buzzedFor = null;

  // ------------------------------------------------------------ views
  const socket = new GameSocket(gameId, onMessage, (status, saidHello) => {
    model = status === "open" ? opened(model, saidHello) : closed(model);
    conn.hidden = model.connected;
    if (snap) renderPanel();
  });
  const send = (msg) => socket.send(msg);
  const isHost = () => model.me.role === "host";
  const current = () => dieState(model, snap, playback.busy);
  const conn = h("div", { class: "conn-pill", hidden: true });
  const reactLayer = h("div", { class: "react-layer", "aria-hidden": "true" });
  const banners = makeBanners();
  const die = makeDie({ onRoll: () => input.roll() });
  const log = makeMoveLog(gameId);
  const invite = makeInvite(app, gameId);
  const chat = makeChat({ app, socket: { send }, reactLayer, canTalk, isMine });
  const howTo = howToCard();  // the first game only
  const dice = makeDiceCard({ gameId, fetchRecord: () => fetchRecord(gameId) });  // the commitment while playing, every roll checked after
  const end = makeEnd({ app, gameId, local, verify: () => dice.verify() });
  const seats = makeSeatList({ app, gameId, local, send });
  const advice = makeAdvice({ gameId, analysis: app.meta.analysis === true, board, current: () => ({ snap, state: current(), busy: playback.busy }), onChances: () => renderPanel() });
  const playCard = makePlayCard({ die, advice, endDock: end.dock, onStart, onAutoMove: () => updateControls() });
  const side = makeSideCards({ app, gameId, log, inviteButton: invite.button, onSpeed: setSpeed });
  const announcer = makeAnnouncer({ mine: (line) => model.me.controls.includes(line.colour), progress: app.meta.layout.progress });
  const playback = makePlayback({
    board, die, banners, log, onError: reportError, onLine: (line) => announcer.line(line),
    onTurn: (colour) => { shownTurn = colour; renderTurn(); },
    onDrawn: (game) => { snap = game; renderPanel(); },
    onBusy: (busy) => {
      if (busy) app.setAnimating(true);
      updateControls();
      if (busy || destroyed) return;
      app.setAnimating(false);
      if (end.show(snap, isHost())) renderPanel();
      advice.askChances();
    },
  });
  const heading = h("h1", { class: "sr-only" });  // the screen's name for a screen reader's headings list
  const screen = h("section", { class: "screen game-screen" },
    heading, announcer.region,
    h("div", { class: "board-wrap" }, h("div", { class: "board-frame" }, board.svg, banners.layer, reactLayer, conn), end.layer),
    h("aside", { class: "panel" }, side.bar, invite.card, playCard.card(seats.roleLine, seats.list),
      howTo,  // below the die: on a phone nothing comes between the board and the die
      chat.card, dice.card, side.logCard, side.rulesCard));
  root.replaceChildren(screen);

  // ------------------------------------------------------------ the server's messages, what the page sends
  const sender = makeSender({ gameId, send, model: () => model, keep: (next) => { model = next; }, snap: () => snap, onAct: () => updateControls() });
  const input = makeInput({ state: current, snap: () => snap, board, announcer, act: sender.act, gone: () => destroyed });
  const EFFECTS = gameEffects({ app, gameId, screen, conn, views: { playback, log, chat, die, end }, send, snap: () => snap, isHost, updateControls, renderPanel });

  function onMessage(msg) {
    if (destroyed || !msg) return;
    let effects;
    [model, effects] = received(model, msg);
    for (const effect of effects) EFFECTS[effect.kind](effect);
  }

  function onStart() { if (socket.send({ type: "start" })) playCard.startButton.disabled = true; }

  function setSpeed(value) {
    if (!isHost()) return;
    playback.speed = value;
    saveSetting("speed", value);  // the next new game starts at this pace too
    socket.send({ type: "speed", speed: value });
  }

  // ------------------------------------------------------------ drawing the model
  function relabel() {
    board.svg.setAttribute("aria-label", t("board.label"));
    heading.textContent = t("app.title");
    side.relabel(playback.speed);
    playCard.relabel();
    conn.textContent = t("game.reconnecting");
    chat.relabel();
    renderInvite();
    if (snap) { renderPanel(); log.renderAll(); if (end.shown) end.show(snap, isHost(), true); }
  }

  function renderTurn() {
    const over = !!snap && snap.phase === "over" && !playback.busy;
    const colour = over ? snap.state.winner : shownTurn;
    board.setTurn(over ? null : colour);
    playCard.showWhose(colour, snap?.seats?.[colour], over, local);
  }

  function updateControls() {
    const state = current();
    die.show(state, state === "move" ? (oneChoice(snap) ? "one" : "several") : "none", snap && (snap.state.turn || snap.state.winner || "red"));
    if (state === "move") board.setLegal(snap.state.turn, snap.moves, (move) => input.move(move));
    else board.setLegal(null, [], null);
    if (state === "ready") banners.clear(snap.state.turn);  // "No move" never hangs over the next player's roll
    if (state === "ready" && buzzedFor !== snap.actions) { buzzedFor = snap.actions; vibrate(40); }  // your turn
    input.autoMove.consider(state === "move" && oneChoice(snap), requestKey(snap));
    if (state === "ready") announcer.prompt(`${requestKey(snap)}:roll`, t("sr.your-roll"));
    if (state === "move") announcer.prompt(`${requestKey(snap)}:move`, t("sr.your-move", { value: snap.state.roll ?? snap.roll, moves: announcer.moves(snap.moves) }));
    if (snap) playCard.render({ snap, state, me: model.me, connected: model.connected, local, touch });
  }

  function renderInvite() {
    // no network behind the static site: nobody to invite (site.js says how to play across devices)
    invite.render({ playing: NETWORK_PLAY && !!snap && snap.phase !== "over", openSeats: openSeats(snap).length, role: model.me.role });
  }

  function renderPanel() {
    if (!snap) return;
    renderTurn();
    seats.render({ snap, me: model.me, chances: advice.chances });
    renderInvite();
    chat.refresh();
    // chat is for several devices: a game played on this one device alone has no one to read it
    chat.card.hidden = local && !Object.values(snap.seats || {}).some((seat) => seat.kind === "player" || seat.kind === "open");
    side.render(snap, playback.speed, isHost());
    updateControls();
    advice.askChances();
    dice.render(snap);
    sender.contribute();
  }

  function canTalk() { return model.connected && (isHost() || model.me.role === "player"); }
  function isMine(msg) { return msg.colour ? model.me.colours.includes(msg.colour) : isHost(); }

  document.addEventListener("keydown", input.onKey);
  const offLang = onLangChange(relabel);
  relabel();
  const clock = setInterval(() => { if (snap && snap.timer) playCard.timer.update(snap); }, 250);

  return {
    destroy() {
      destroyed = true;
      if (howTo) howTo.destroy();
      clearInterval(clock);
      input.autoMove.consider(false, null);
      invite.destroy();
      log.stop();
      advice.stop();
      socket.close();
      offLang();
      document.removeEventListener("keydown", input.onKey);
      playback.stop();
      announcer.stop();
    },
  };
}

/** The game's record (the one the download link serves), for the check of its dice. */
async function fetchRecord(gameId) {
  const res = await api("GET", `/api/games/${encodeURIComponent(gameId)}/record`);
  if (!res.ok) throw new Error(errorText(res.error.code, res.error.message));
  return res.data;
}
