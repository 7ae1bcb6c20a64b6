// The card over the board when a game is over: the ranking, and what to do next.
import { t, tNodes } from "./i18n.js";
import { h, api, toast, errorText, colourChip, medal, trophySvg, seatAvatar, seatLabel, PALETTE } from "./ui.js";
import { verdictText } from "./fairdice.js";
import { hostHeaders, keepHostToken } from "./net.js";

/**
 * The game screen's end: the card once a finished game's last state is drawn (once per
 * game; again when the language changes), a guest's way to the host's rematch, and the
 * host's rematch itself.
 * @param {object} o
 * @param {any} o.app
 * @param {string} o.gameId
 * @param {boolean} o.local  a game served to this machine alone
 * @param {null | (() => Promise<any>)} o.verify  check the revealed dice (a network game)
 */
export function makeEnd({ app, gameId, local, verify }) {
  const layer = h("div", { class: "end-layer" });
  const dock = h("div", { class: "end-dock", "data-testid": "end-dock", hidden: true });  // the end card, minimised
  let shownFor = null;
  let shownAsHost = null;

  /** Show the card for `snap` if it is over and not shown yet, or shown for another role
   * (the welcome that says this page is the host's can come after the last state is
   * drawn: the host's card has the rematch). `again`: redraw a shown one. */
  function show(snap, host, again = false) {
    if (!snap || snap.phase !== "over") { if (again) hideEndCard(layer, dock); return false; }
    if (!again && shownFor === snap.id && shownAsHost === host) return false;
    shownFor = snap.id;
    shownAsHost = host;
    showEndCard(layer, dock, snap, { gameId, network: !local, host, go: (hash) => app.go(hash), rematch,
      verify: snap.dice && snap.dice.seed ? verify : null, settled: again });
    return true;
  }

  async function rematch() {
    const res = await api("POST", `/api/games/${encodeURIComponent(gameId)}/rematch`, {}, hostHeaders(gameId));
    if (!res.ok) { toast(errorText(res.error.code, res.error.message), "error"); return; }
    keepHostToken(res.data);
    app.go(`#/game/${encodeURIComponent(res.data.id)}`);
  }

  return {
    layer, dock, show,
    /** Whether the card was shown for this game. */
    get shown() { return shownFor !== null; },
    /** The host started a rematch: a guest is offered to join it. */
    offerRematch(id) { toast(t("end.rematch-started")); offerRematch(layer, dock, id); },
  };
}

/**
 * Put the end card in `layer` for a finished game's snapshot. Minimised, the card leaves
 * the board entirely (nothing of the board stays covered) and `dock`, a slot in the side
 * panel, offers what it offered: the result again, a rematch, a new game, the replay.
 * @param {HTMLElement} layer
 * @param {HTMLElement} dock
 * @param {any} snap  the game as the server sent it (phase "over")
 * @param {{ gameId: string, network: boolean, host: boolean, go(hash: string): void, rematch(): void,
 *   verify?: null | (() => Promise<any>), settled?: boolean }} o  verify: check the revealed dice (a network
 *   game); settled: the card is drawn again (a new language), without its entrance and confetti
 */
export function showEndCard(layer, dock, snap, { gameId, network, host, go, rematch, verify = null, settled = false }) {
  const seatOf = (colour) => snap.seats?.[colour];
  const style = (colour) => `--c:${PALETTE[colour].main};--c-light:${PALETTE[colour].light}`;
  const ranking = snap.state.ranking.slice();
  const rest = snap.players.filter((c) => !ranking.includes(c));
  const list = h("ol", { class: "ranking", "data-testid": "ranking" });
  ranking.forEach((colour, k) => list.append(h("li", { class: "rank", "data-colour": colour, style: style(colour) },
    h("span", { class: "rank-medal" }, medal(k + 1)), seatAvatar(colour, seatOf(colour), 22),
    h("span", { class: "rank-name" }, t(`colour.${colour}`)), h("span", { class: "rank-seat" }, seatLabel(seatOf(colour), network)))));
  for (const colour of rest) list.append(h("li", { class: "rank rank-unplaced", "data-colour": colour, style: style(colour) },
    h("span", { class: "rank-medal" }, "·"), seatAvatar(colour, seatOf(colour), 22),
    h("span", { class: "rank-name" }, t(`colour.${colour}`)), h("span", { class: "rank-seat" }, t("end.unplaced"))));
  const winner = snap.state.winner;
  const verdict = h("p", { class: "end-verdict dice-result", "data-testid": "end-dice-result", "aria-live": "polite", hidden: true });
  async function check() {
    if (!verify) return;
    verdict.hidden = false;
    verdict.textContent = t("dice.checking");
    try {
      const outcome = await verify();
      if (!outcome) return;
      verdict.dataset.ok = String(!!outcome.ok);
      verdict.textContent = `${outcome.ok ? "✓" : "✗"} ${verdictText(outcome)}`;
    } catch (err) {
      verdict.dataset.ok = "false";
      verdict.textContent = `✗ ${err && err.message ? err.message : String(err)}`;
    }
    verdict.scrollIntoView({ block: "nearest" });  // on a phone the card scrolls: show the answer
  }
  const reopen = h("button", { class: "btn", type: "button", "data-testid": "end-reopen", onclick: () => minimise(false) }, t("end.show-result"));
  function minimise(on) {
    layer.classList.toggle("minimised", on);
    dock.hidden = !on;
    (on ? reopen : card.querySelector(".end-close"))?.focus({ preventScroll: true });
  }
  /** What to do next, for the card and again for the dock (`prefix` keeps test ids apart). */
  const actions = (prefix = "") => [
    host ? h("button", { class: "btn btn-primary", type: "button", "data-testid": `${prefix}rematch`, onclick: rematch }, t("end.rematch")) : null,
    h("button", { class: "btn", type: "button", "data-testid": `${prefix}new-game-end`, onclick: () => go("#/new") }, t("end.new-game")),
    h("a", { class: "btn btn-ghost", href: `#/replay/${encodeURIComponent(gameId)}` }, t("end.watch-replay")),
  ];
  // A card drawn again (the language changed) is already there: no second entrance, no second confetti.
  const card = h("div", { class: settled ? "end-card settled" : "end-card", "data-testid": "end-screen", role: "dialog", "aria-modal": "false", "aria-labelledby": "end-title" },
    h("button", { class: "end-close", type: "button", "data-testid": "end-close", "aria-label": t("end.close"), title: t("end.close"), onclick: () => minimise(true) }, "–"),
    settled ? null : h("div", { class: "confetti", "aria-hidden": "true" }, ...Array.from({ length: 18 }, (_, k) => h("i", { style: `--k:${k};--c:${PALETTE[["red", "yellow", "blue", "green"][k % 4]].main}` }))),
    h("div", { class: "trophy", "aria-hidden": "true" }, trophySvg(64)),
    h("h2", { id: "end-title", class: "winner", "data-testid": "winner", "data-colour": winner || "", style: winner ? `--c:${PALETTE[winner].dark}` : null },
      winner ? tNodes("end.wins", { player: colourChip(winner) }) : t("hint.over")),
    list,
    h("div", { class: "end-actions" },
      ...actions(),
      verify ? h("button", { class: "btn btn-ghost", type: "button", "data-testid": "end-verify-dice", onclick: () => check() }, t("dice.verify")) : null,
      h("button", { class: "btn btn-ghost end-view-board", type: "button", "data-testid": "view-board", onclick: () => minimise(true) }, t("end.view-board"))),
    verdict);
  layer.replaceChildren(card);
  layer.classList.remove("minimised");
  layer.classList.add("shown");
  dock.replaceChildren(reopen, ...actions("dock-").filter((action) => action !== null));
  dock.hidden = true;
}

/** No end card (a game not over, or another game shown). */
export function hideEndCard(layer, dock) {
  layer.replaceChildren();
  layer.classList.remove("shown", "minimised");
  dock.replaceChildren();
  dock.hidden = true;
}

/** A guest's way to the rematch the host started (added to the end card and its dock, if shown). */
export function offerRematch(layer, dock, id) {
  const join = (testid) => h("a", { class: "btn btn-primary", href: `#/join/${encodeURIComponent(id)}`, "data-testid": testid }, t("end.join-rematch"));
  const actions = layer.querySelector(".end-actions");
  if (actions && !actions.querySelector("[data-testid=join-rematch]")) actions.prepend(join("join-rematch"));
  if (dock.childElementCount && !dock.querySelector("[data-testid=dock-join-rematch]")) dock.prepend(join("dock-join-rematch"));
}
