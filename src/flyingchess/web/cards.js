// Small views shared by the screens: the turn card (game and replay) and the card that
// says a game is not there (game, replay and join).
import { t } from "./i18n.js";
import { h, seatAvatar, seatLabel, PALETTE } from "./ui.js";

/** Fill the turn card: whose turn (or who won), with the seat's badge and label.
 * `label`: the line above the name ("Now playing", "Winner", "Moved"). */
export function showTurn(card, colour, seat, label, network) {
  card.replaceChildren();
  if (!colour) return;
  card.dataset.colour = colour;
  card.style.setProperty("--c", PALETTE[colour].main);
  card.style.setProperty("--c-light", PALETTE[colour].light);
  card.append(
    h("div", { class: "turn-icon" }, seatAvatar(colour, seat, 30)),
    h("div", { class: "turn-text" },
      h("div", { class: "turn-label" }, label),
      h("div", { class: "turn-name" }, t(`colour.${colour}`), h("span", { class: "turn-seat" }, seatLabel(seat, network)))),
  );
}

/** "This game is not here", with the reason and the way home. */
export function missingCard(app, reason = t("game.missing-text")) {
  return h("div", { class: "missing card" },
    h("h2", {}, t("game.missing")),
    h("p", {}, reason),
    h("button", { class: "btn btn-primary", type: "button", onclick: () => app.go("#/") }, t("nav.home")));
}
