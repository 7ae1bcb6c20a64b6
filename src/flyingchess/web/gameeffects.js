// What the game screen does for each effect of a server's message (gamemodel.js's
// `received`): one table, the seat token's effects kept with net.js.
import { getSeatToken, saveSeatToken, dropSeatToken } from "./net.js";
import { t } from "./i18n.js";
import { missingCard } from "./cards.js";
import { toast, errorText } from "./ui.js";

/**
 * @param {object} o
 * @param {any} o.app
 * @param {string} o.gameId
 * @param {HTMLElement} o.screen  what "game not here" replaces
 * @param {HTMLElement} o.conn  the "reconnecting" pill
 * @param {any} o.views  the views the effects reach: playback, log, chat, die, end
 * @param {(msg: object) => boolean} o.send  the socket's send
 * @param {() => any} o.snap  the game as drawn on the board
 * @param {() => boolean} o.isHost
 * @param {() => void} o.updateControls  redraw the die, the legal planes and the play card
 * @param {() => void} o.renderPanel  redraw everything beside the board
 */
export function gameEffects({ app, gameId, screen, conn, views, send, snap, isHost, updateControls, renderPanel }) {
  const { playback, log, chat, die, end } = views;
  return {
    draw({ events, game, fresh, chat: said }) {
      if (!fresh) { playback.push({ events, game, gen: log.token }); return; }
      if (Array.isArray(said)) chat.load(said);
      const gen = log.reload(game, (roll) => { die.remember(roll); updateControls(); });
      playback.push({ events: [], game, fresh: true, gen });
    },
    send({ message }) { send(message); },
    render() {
      if (!snap()) { updateControls(); return; }
      renderPanel();
      if (end.shown && !playback.busy) end.show(snap(), isHost());  // redrawn only if this page's role changed
    },
    ...seatTokenEffects(gameId),
    refused({ code, message }) { toast(errorText(code, message), "error"); },
    missing() { screen.replaceChildren(missingCard(app)); app.setAnimating(false); },
    away() { conn.hidden = false; },
    "pass-on"({ msg }) {
      if (msg.type === "chat") chat.add(msg, true);
      else if (msg.type === "react") chat.floatReaction(msg);
      else if (msg.type === "rematch" && msg.id && !isHost()) end.offerRematch(msg.id);
    },
  };
}

/** What the page keeps of its seat's token for each effect of gamemodel.js (net.js). */
function seatTokenEffects(gameId) {
  return {
    "keep-seat"({ colour }) {
      const seat = getSeatToken(gameId);
      if (seat && seat.colour !== colour) saveSeatToken(gameId, seat.token, "player", colour);
    },
    "save-seat"({ token, colour }) { saveSeatToken(gameId, token, "player", colour); },
    "drop-seat"({ tell }) {
      const held = getSeatToken(gameId);
      dropSeatToken(gameId);
      if (tell === true || (held && held.role === "player")) toast(t("seat.removed"), "error");
    },
  };
}
