// The game screen's model: what the page knows of its connection, its requests and
// itself, as pure functions of what the server said and what the page did. Each takes a
// model and returns the next one, `received` with the effects the screen carries out
// (draw a state, send, tell the player). The views draw from it; none of them decides
// who may act (the server says: identity.js) or what a move is (the snapshot says).
import { NOBODY, told, connecting, snapshotSaid, helloRefused, controls } from "./identity.js";

/**
 * @typedef {{me: import("./identity.js").Identity, connected: boolean, pending: boolean,
 *   unanswered: null | {request: any, key: string|null, lost: boolean}, lastActions: number,
 *   sharing: boolean}} Model
 *  pending: a roll or move sent, no answer yet; unanswered: that request, until the game
 *  moves on (see `snapshot` below); lastActions: the action count of the newest state
 *  received; sharing: this connection sent its dice share and has not seen it counted.
 * @typedef {{kind: string, [field: string]: any}} Effect
 */

/** @type {Model} */
export const START = Object.freeze({ me: NOBODY, connected: false, pending: false, unanswered: null, lastActions: -1, sharing: false });

/** Refusals of a dice share that came too late or twice (another tab, the game just
 *  started): nothing to tell the player. */
const LATE_SHARE = ["already-contributed", "wrong-phase", "no-commitment"];

/** Where a game stands for a roll or move: a request (a resend, an auto-move) is still
 *  wanted only while this holds. */
export function requestKey(game) {
  return game && game.state ? `${game.actions}:${game.state.turn}:${game.phase}` : null;
}

function actionsOf(game) {
  return game && typeof game.actions === "number" ? game.actions : -1;
}

/** @returns {Model} */
export function opened(model, saidHello) {
  return { ...model, connected: true, sharing: false, me: connecting(model.me, saidHello) };
}

/** The connection dropped: a request still unanswered may never be (see `snapshot`). */
export function closed(model) {
  return { ...model, connected: false, unanswered: model.unanswered && { ...model.unanswered, lost: true } };
}

/** A roll or move sent for `game`: remembered until the game moves on. */
export function sent(model, request, game) {
  return { ...model, pending: true, unanswered: { request, key: requestKey(game), lost: false } };
}

export function shareSent(model) {
  return { ...model, sharing: true };
}

/** What the die offers this page for the game it shows (`busy`: still drawing). */
export function dieState(model, game, busy) {
  if (!game || busy || model.pending) return "waiting";
  if (game.phase === "over") return "over";
  if (game.started === false) return "waiting";  // the host is still gathering players
  if (!controls(model.me, game.state.turn)) return "waiting";
  return game.phase === "roll" ? "ready" : "move";
}

/** Who this page should add a dice share as now ("host" or its colour), or null. */
export function shareWanted(model, game) {
  const key = model.me.diceShare;
  if (!game || !game.dice || game.started || !model.connected || !key || model.sharing) return null;
  return (game.dice.contributors || []).includes(key) ? null : key;
}

/**
 * One message from the server: the next model and what the screen must do about it.
 * @returns {[Model, Effect[]]}
 */
export function received(model, msg) {
  const handle = Object.hasOwn(RECEIVED, msg.type) ? RECEIVED[msg.type] : null;
  // a type the model does not keep (chat, a rematch) or know (a newer server): the views'
  return handle ? handle(model, msg) : [model, [{ kind: "pass-on", msg }]];
}

const RENDER = { kind: "render" };

const RECEIVED = {
  /** The whole truth now. A roll or move sent on a connection that dropped before its
   * answer (or refused `reconnecting`: the room was moving, nothing changed) is sent
   * again, once, if the game still waits for it (same action count, turn and phase: had
   * it been played, they would differ). The player clicked once; a restart or failover
   * under the click should not ask for another. */
  snapshot(model, msg) {
    const lost = model.unanswered && model.unanswered.lost ? model.unanswered : null;
    let next = { ...model, pending: false, unanswered: null, lastActions: actionsOf(msg.game), me: snapshotSaid(model.me, msg.you) };
    /** @type {Effect[]} */
    const effects = [{ kind: "draw", events: [], game: msg.game, fresh: true, chat: msg.chat || msg.game?.chat }];
    if (lost && requestKey(msg.game) === lost.key) {
      next = { ...next, pending: true, unanswered: { ...lost, lost: false } };
      effects.push({ kind: "send", message: lost.request });
    }
    return [next, effects];
  },
  update(model, msg) {
    const actions = actionsOf(msg.game);
    const events = msg.events || [];
    /** @type {Effect[]} */
    const effects = [];
    // an update went missing (several servers relay them): ask for the whole game again
    if (model.lastActions >= 0 && actions > model.lastActions + 1) effects.push({ kind: "send", message: { type: "sync" } });
    effects.push({ kind: "draw", events, game: msg.game });
    const unanswered = events.length ? null : model.unanswered;
    return [{ ...model, pending: false, unanswered, lastActions: Math.max(model.lastActions, actions) }, effects];
  },
  welcome(model, msg) {
    const me = told(model.me, msg);
    const effects = me.role === "player" && me.colours.length ? [{ kind: "keep-seat", colour: me.colours[0] }] : [];
    return [{ ...model, me }, [...effects, RENDER]];
  },
  joined(model, msg) {
    return [model, [{ kind: "save-seat", token: msg.token, colour: msg.colour }]];  // the welcome follows
  },
  "seat-lost"(model) {
    // the host gave this page's seat away: its token opens nothing any more (a welcome follows)
    return [model, [{ kind: "drop-seat", tell: true }, RENDER]];
  },
  error(model, msg) {
    // refused for now, nothing changed: sent again with the room back (see `snapshot`)
    const again = msg.code === "reconnecting" && model.unanswered;
    const next = { ...model, pending: false, unanswered: again ? { ...model.unanswered, lost: true } : null };
    if (model.sharing && LATE_SHARE.includes(msg.code)) return [{ ...next, sharing: false }, []];
    const handle = Object.hasOwn(ON_ERROR, msg.code) ? ON_ERROR[msg.code] : null;
    return handle ? handle(next, msg) : [next, [{ kind: "refused", code: msg.code, message: msg.message }, RENDER]];
  },
};

/** Refusals the page answers by itself rather than by telling the player. */
const ON_ERROR = {
  "unknown-game"(model) { return [model, [{ kind: "missing" }]]; },
  // a roll or move sent again after a reconnection had been carried out after all: the
  // update that shows it is on its way, nothing to tell the player
  "moved-on"(model) { return [model, [RENDER]]; },
  // the room is moving to another server process (a restart, a failover): nothing was
  // changed; the connection is closed next and the page reconnects by itself
  reconnecting(model) { return [model, [{ kind: "away" }, RENDER]]; },
  // the token opens no seat (removed by the host, or an old game): the connection is
  // what its snapshot said
  "bad-token"(model) { return [{ ...model, me: helloRefused(model.me) }, [{ kind: "drop-seat", tell: "if-player" }, RENDER]]; },
};

/** Whether the move awaited in `game` is one real choice (the server's `choices`: moves
 *  that differ only in which alike plane goes are one). */
export function oneChoice(game) {
  return !!game && game.choices === 1;
}
