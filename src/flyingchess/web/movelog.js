// The game screen's move log: the stored history (fetched once a snapshot arrives) and
// the live events after it, re-worded when the language changes.
import { h, fetchReplay, formatEvents, PALETTE } from "./ui.js";
import { t } from "./i18n.js";

const MAX_LOG = 400;

export function makeMoveLog(gameId) {
  // focusable: a list that scrolls must be scrollable with the keyboard too
  const list = h("ol", { class: "log", "data-testid": "log", "aria-live": "off", tabindex: "0" });
  let lines = [];
  let history = [];
  let live = [];
  let token = 0;  // the history request in flight: an older one's answer is dropped

  function item(line) {
    return h("li", { class: `log-line log-${line.kind}`, style: line.colour ? `--c:${PALETTE[line.colour]?.main || "#999"}` : null }, line.node);
  }

  // Reading scrollHeight forces a layout: do it once per frame, not once per line.
  let scrollQueued = false;
  function scroll() {
    if (scrollQueued) return;
    scrollQueued = true;
    requestAnimationFrame(() => {
      scrollQueued = false;
      list.scrollTop = list.scrollHeight;
    });
  }

  /** One formatted line of a live batch (played as its event is animated). */
  function append(line) {
    lines.push(line);
    if (lines.length > MAX_LOG) lines = lines.slice(-MAX_LOG);
    list.append(item(line));
    while (list.children.length > MAX_LOG) list.firstElementChild.remove();
    scroll();
  }

  /** Every line again, in the current language. */
  function renderAll() {
    list.setAttribute("aria-label", t("game.log"));
    lines = [];
    for (const batch of [history, ...live]) lines.push(...formatEvents(batch));
    lines = lines.slice(-MAX_LOG);
    list.replaceChildren(...lines.map(item));
    scroll();
  }

  /** Start again from the stored history of `game` (a snapshot): returns the history's
   * token, which live batches carry so that none is logged twice or into an old history.
   * `onLoaded(lastRoll)` gets the last roll of the history once it is fetched. */
  function reload(game, onLoaded) {
    const mine = ++token;
    live = [];
    history = [];
    lines = [];
    list.replaceChildren();
    fetchReplay(gameId).then((res) => {
      if (mine !== token || !res.ok) return;
      history = (res.data.steps || []).slice(0, game.actions).flatMap((st) => st.events);
      if (game.phase === "move" && game.roll) history.push({ type: "roll", colour: game.state.turn, value: game.roll });
      const rolls = history.filter((ev) => ev.type === "roll");
      if (rolls.length) onLoaded(rolls[rolls.length - 1].value);
      renderAll();
    });
    return mine;
  }

  /** Whether a batch tagged `gen` belongs to the history now shown. */
  function current(gen) { return gen === token; }

  function addBatch(events) { live.push(events); }

  function stop() { token++; }

  return { list, append, renderAll, reload, current, addBatch, stop, get token() { return token; } };
}
