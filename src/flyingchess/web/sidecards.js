// The game screen's frame around play: the bar at the top of the panel (home, invite,
// replay, the record), the move log with the bots' pace, and the rules of the game.
import { t } from "./i18n.js";
import { h, rulesSummary, homeSvg, downloadSvg, replaySvg, recordLink } from "./ui.js";

/**
 * @param {object} o
 * @param {any} o.app
 * @param {string} o.gameId
 * @param {any} o.log  the move log (movelog.js)
 * @param {HTMLElement} o.inviteButton
 * @param {(speed: string) => void} o.onSpeed  the host picked a pace
 */
export function makeSideCards({ app, gameId, log, inviteButton, onSpeed }) {
  const speeds = app.meta.speeds;  // the server's own list (GET /api/meta)
  const home = h("button", { class: "btn btn-ghost", "data-testid": "home", type: "button", onclick: () => app.go("#/") });
  const download = recordLink(gameId, { class: "btn btn-ghost", "data-testid": "download-record" });
  const replay = h("a", { class: "btn btn-ghost", href: `#/replay/${encodeURIComponent(gameId)}` });
  // disabled until the server says this page is the host's (its first snapshot)
  const speedSelect = h("select", { "data-testid": "speed", class: "select", disabled: true, onchange: () => onSpeed(speedSelect.value) });
  const speedLabel = h("label", { class: "field-inline" });
  const logTitle = h("h2", { class: "card-title" });
  const rulesTitle = h("h2", { class: "card-title" });
  const rulesBox = h("div", { class: "card rules-card" });
  const glyph = (svg) => h("span", { class: "btn-glyph", "aria-hidden": "true" }, svg);

  const bar = h("div", { class: "panel-bar" }, home, h("div", { class: "spacer" }), inviteButton, replay, download);
  const logCard = h("div", { class: "card log-card" }, h("div", { class: "card-head" }, logTitle, speedLabel), log.list);
  const rulesCard = h("div", { class: "card" }, rulesTitle, rulesBox);

  function relabel(speed) {
    home.replaceChildren(glyph(homeSvg()), t("nav.home"));
    download.replaceChildren(glyph(downloadSvg()), t("game.download"));
    replay.replaceChildren(glyph(replaySvg()), t("game.replay"));
    logTitle.textContent = t("game.log");
    rulesTitle.textContent = t("game.rules");
    const current = speedSelect.value || speed;
    speedSelect.replaceChildren(...speeds.map((v) => h("option", { value: v }, t(`speed.${v}`))));
    speedSelect.value = current;
    speedLabel.replaceChildren(h("span", {}, t("game.speed")), speedSelect);
  }

  /** The game's rules and pace; only the host may change the pace. */
  function render(snap, speed, host) {
    rulesBox.replaceChildren(rulesSummary(snap.rules, snap.rules_name));
    speedSelect.value = speed;
    speedSelect.disabled = !host;
    speedSelect.title = host ? "" : t("game.speed-host");
  }

  return { bar, logCard, rulesCard, relabel, render };
}
