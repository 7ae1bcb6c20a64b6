// The game screen's advice, when the server can work it out (meta.analysis): each
// player's chance to win beside its seat (a setting), and a hint for the move to play
// (the game's option). Asked for the position on the board, shown only while it is.
import { t } from "./i18n.js";
import { h, toast, errorText } from "./ui.js";
import { settings, saveSetting } from "./settings.js";
import { fetchChances, fetchHint, percent, reasonText } from "./insight.js";

/**
 * @param {object} o
 * @param {string} o.gameId
 * @param {boolean} o.analysis  the server works out chances and hints
 * @param {any} o.board  to preview the hinted move
 * @param {() => {snap: any, state: string, busy: boolean}} o.current  the game on the board
 * @param {() => void} o.onChances  new chances came (or were turned off): redraw the seats
 */
export function makeAdvice({ gameId, analysis, board, current, onChances }) {
  let chances = null;       // {actions, values} as the server last answered
  let chanceAsked = -1;     // the position last asked about
  let hintFor = -1;         // the position whose hint is shown
  let stopped = false;
  const chancesBox = h("input", { type: "checkbox", "data-testid": "show-chances", checked: settings().showChances,
    onchange: () => { saveSetting("showChances", chancesBox.checked); chances = null; chanceAsked = -1; onChances(); } });
  const chancesText = h("span", {});
  const chancesLabel = h("label", { class: "auto-move", hidden: !analysis }, chancesBox, chancesText);
  const hintButton = h("button", { class: "btn btn-small hint-btn", type: "button", "data-testid": "hint-button", hidden: true, onclick: () => askHint() });
  const hintText = h("div", { class: "hint-best", "data-testid": "hint-best", hidden: true, "aria-live": "polite" });

  function showChances() { return analysis && settings().showChances; }

  /** Ask for the chances of the position just drawn (once each); shown when they come. */
  async function askChances() {
    const { snap, busy } = current();
    if (!showChances() || !snap || busy || chanceAsked === snap.actions) return;
    chanceAsked = snap.actions;
    const res = await fetchChances(gameId, snap.actions);
    if (stopped || !showChances()) return;
    if (!res.ok) {
      if (res.error.code !== "network") toast(errorText(res.error.code, res.error.message), "error");
      return;
    }
    chances = { actions: res.data.actions, values: res.data.chances };
    onChances();
  }

  async function askHint() {
    if (current().state !== "move") return;
    const at = current().snap.actions;
    hintButton.disabled = true;
    const res = await fetchHint(gameId, at);
    hintButton.disabled = false;
    if (stopped) return;
    if (!res.ok) { toast(errorText(res.error.code, res.error.message), "error"); return; }
    const given = res.data.hint;
    const { snap, state } = current();
    // only about the position on the board: the game may have moved on meanwhile
    if (!given || res.data.actions !== snap.actions || state !== "move") return;
    hintFor = at;
    const move = snap.moves.find((m) => m.plane === given.best);
    if (move) board.preview(snap.state.turn, move);
    hintText.textContent = t("game.hint-best", {
      plane: given.best + 1, why: reasonText(given.reasons), chance: percent(given.moves[String(given.best)]),
    });
    hintText.hidden = false;
  }

  /** The hint button while a move is awaited; a shown hint goes once the position does. */
  function render(snap, state) {
    hintButton.hidden = !(analysis && snap.hints && state === "move");
    if (hintFor !== snap.actions || state !== "move") { hintText.hidden = true; hintFor = -1; }
  }

  function relabel() {
    chancesText.textContent = t("game.show-chances");
    hintButton.textContent = t("game.hint");
  }

  return {
    chancesLabel, hintButton, hintText, askChances, render, relabel,
    /** The chances to show beside the seats, or null. */
    get chances() { return showChances() ? chances : null; },
    stop() { stopped = true; },
  };
}
