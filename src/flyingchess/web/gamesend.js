// What the game screen sends that its model keeps: a roll or a move (until the game moves
// on) and, before a network game starts, this page's share of the dice.
import { t } from "./i18n.js";
import { newContribution, rememberDice } from "./fairdice.js";
import { sent, shareSent, shareWanted } from "./gamemodel.js";
import { toast } from "./ui.js";

/**
 * @param {object} o
 * @param {string} o.gameId
 * @param {(msg: object) => boolean} o.send  the socket's send: false when it could not
 * @param {() => any} o.model  the page's model (gamemodel.js)
 * @param {(model: any) => void} o.keep  the model once the message went
 * @param {() => any} o.snap  the game as drawn on the board
 * @param {() => void} o.onAct  a roll or move went: the controls change
 */
export function makeSender({ gameId, send, model, keep, snap, onAct }) {
  /** A roll or move, remembered until the game moves on (`at`: the moment it is meant
   *  for; the server refuses it, moved-on, once the game has moved on). */
  function act(action) {
    const request = { ...action, at: snap().actions };
    if (!send(request)) { toast(t("error.offline"), "error"); return; }
    keep(sent(model(), request, snap()));
    onAct();
  }

  /** Before a network game starts, each seated page adds a random share to its dice. */
  function contribute() {
    const key = shareWanted(model(), snap());
    if (!key) return;
    const share = newContribution();
    if (!send({ type: "contribute", value: share })) return;
    keep(shareSent(model()));
    rememberDice(gameId, snap().dice, { seats: snap().seats, share: { value: share, by: key } });  // checked to be in the record at the end
  }

  return { act, contribute };
}
