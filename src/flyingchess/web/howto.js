// How to play, in four lines: shown beside the game the first time (never over the
// board or the die), gone once the player says so; the settings screen brings it back.
import { t, onLangChange } from "./i18n.js";
import { h } from "./ui.js";
import { settings, saveSetting } from "./settings.js";

const POINTS = ["howto.roll", "howto.move", "howto.jump", "howto.win", "howto.keys"];

/** The card, or null when the player has seen it. Call `destroy` when the screen goes. */
export function howToCard() {
  if (settings().seenHowTo) return null;
  const title = h("h2", { class: "card-title" });  // under the screen's h1
  const list = h("ol", { class: "howto-list" });
  const done = h("button", { class: "btn btn-primary", type: "button", "data-testid": "howto-done",
    onclick: () => { saveSetting("seenHowTo", true); card.remove(); off(); } });
  const card = h("div", { class: "card howto-card", "data-testid": "howto", role: "note" }, title, list,
    h("div", { class: "howto-actions" }, done));
  function relabel() {
    title.textContent = t("howto.title");
    list.replaceChildren(...POINTS.map((key) => h("li", {}, t(key))));
    done.textContent = t("howto.done");
  }
  const off = onLangChange(relabel);
  relabel();
  card.destroy = off;
  return card;
}
