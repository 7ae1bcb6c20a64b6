// The game screen's playback: states and events from the server, queued and played in
// order on the board (the die turning, banners, sounds, the move log), fast when the
// page falls behind or is hidden. It draws; it never decides anything about the game.
import { t } from "./i18n.js";
import { h, colourIcon, formatEvents } from "./ui.js";
import { playSound, vibrate } from "./sound.js";

export const SPEED_FACTOR = { slow: 1.7, normal: 1, fast: 0.45, instant: 0 };

/** The banners over the board ("Extra roll!", "Captured!"). */
export function makeBanners() {
  const layer = h("div", { class: "banner-layer", "aria-hidden": "true" });  // said by the announcer

  function flash(text, colour, f) {
    if (f <= 0) return;
    clear(colour);  // what happened to another player is old news
    const el = h("div", { class: `banner banner-${colour || "none"}`, "data-colour": colour || "" }, colour ? colourIcon(colour, 20) : null, h("span", {}, text));
    layer.append(el);
    const life = Math.max(900, 1400 * Math.min(f, 1.4));
    el.style.animationDuration = `${life}ms`;
    setTimeout(() => el.remove(), life + 50);
  }

  function clear(keep) {
    for (const el of [...layer.children]) if (el.dataset.colour !== keep) el.remove();
  }

  return { layer, flash, clear };
}

/** What each event shows besides the board's own animation (`f`: the pace, 0 = none). */
const ON_EVENT = {
  async roll(ev, f, view) { view.onTurn(ev.colour); await view.die.roll(ev.value, f, view.tween); },
  turn(ev, f, view) { view.onTurn(ev.colour); },
  "extra-roll"(ev, f, view) { view.banners.flash(t("banner.extra-roll"), ev.colour, f); },
  async pass(ev, f, view) { view.banners.flash(t("banner.pass"), ev.colour, f); await view.tween(500 * f); },
  async "three-sixes"(ev, f, view) { view.banners.flash(t("banner.three-sixes"), ev.colour, f); await view.tween(600 * f); },
  capture(ev, f, view) { view.banners.flash(t("banner.capture"), ev.by, f); },
  async "player-finished"(ev, f, view) {
    view.banners.flash(t("banner.player-finished", { colour: t(`colour.${ev.colour}`) }), ev.colour, f);
    await view.tween(700 * f);
  },
  flight(ev, f, view) { view.banners.flash(t("banner.flight"), ev.colour, f); },
};

/**
 * @param {object} o
 * @param {any} o.board  the Board
 * @param {any} o.die  the die view (dieview.js)
 * @param {any} o.banners  makeBanners()
 * @param {any} o.log  the move log (movelog.js)
 * @param {(colour: string) => void} o.onTurn  an event says whose turn it is
 * @param {(game: any) => void} o.onDrawn  a state is on the board
 * @param {(busy: boolean) => void} o.onBusy  playing starts or stops
 * @param {(err: any) => void} o.onError  an item failed to play (the next snapshot redraws)
 * @param {(line: any) => void} [o.onLine]  a log line, as the board shows its event (the announcer)
 */
export function makePlayback({ board, die, banners, log, onTurn, onDrawn, onBusy, onError, onLine = () => {} }) {
  const queue = [];
  let running = false;
  let stopped = false;
  let speed = "normal";
  let drawnOnce = false;
  const view = { die, banners, onTurn, tween: (ms, fn = () => {}) => board.tween(ms, fn) };

  /** Queue a state with the events that led to it (`gen`: the move log's history it belongs to). */
  function push(item) {
    queue.push(item);
    pump();
  }

  async function pump() {
    if (running) return;
    running = true;
    onBusy(true);
    try {
      while (queue.length && !stopped) {
        try {
          await play(queue.shift());
        } catch (err) {
          onError(err);  // said, and the queue goes on: the next snapshot redraws the board
        }
      }
    } finally {
      running = false;
      board.hurry = false;
      if (!stopped) onBusy(false);
    }
  }

  function tell(line) {
    log.append(line);
    onLine(line);
  }

  async function play(item) {
    const game = item.game;
    if (!drawnOnce) board.setPlayers(game.players);
    const logged = log.current(item.gen);
    if (logged && item.events.length) log.addBatch(item.events);
    if (game.speed) speed = game.speed;
    const f0 = SPEED_FACTOR[speed] ?? 1;
    const lines = formatEvents(item.events);
    let li = 0;
    for (let k = 0; k < item.events.length; k++) {
      const ev = item.events[k];
      const hurry = queue.length > 2 || f0 === 0 || document.hidden;
      board.hurry = hurry && f0 !== 0 ? true : board.hurry;
      const f = hurry ? 0 : f0;
      while (logged && li < lines.length && lines[li].index <= k) tell(lines[li++]);
      if (f > 0) playSound(ev.type);
      if (f > 0 && ev.type === "capture") vibrate(80);
      const shown = Object.hasOwn(ON_EVENT, ev.type) ? ON_EVENT[ev.type] : null;
      if (shown) await shown(ev, f, view);
      await board.animate(ev, f);
    }
    while (logged && li < lines.length) tell(lines[li++]);
    board.hurry = false;
    die.remember(game.roll, true);
    drawnOnce = true;
    onTurn(game.state.turn);
    await board.show(game.state.planes, item.fresh || f0 === 0 || queue.length > 2 ? 0 : 140);
    onDrawn(game);
  }

  return {
    push,
    /** Still playing, or more to play. */
    get busy() { return running || queue.length > 0; },
    get speed() { return speed; },
    set speed(value) { speed = value; },
    stop() { stopped = true; board.hurry = true; },
  };
}
