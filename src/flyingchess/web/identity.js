// Who this page is in a game, as the server last said it (docs/protocol.md: a snapshot's
// `you`, `welcome`): its role, the colours it rolls and moves for, who it adds dice as.
// The page never works authority out; it keeps what it was told, and these functions say
// what each new message makes of it.

/** @typedef {{role: string, colours: string[], controls: string[], diceShare: string|null,
 *   proving: boolean, otherwise: any}} Identity
 *  `proving`: a hello was sent on this connection and its welcome is awaited;
 *  `otherwise`: what the connection's snapshot said, kept in case the hello is refused. */

const ROLES = ["host", "player", "spectator"];

/** Nothing said yet: a spectator, who controls nothing. @type {Identity} */
export const NOBODY = Object.freeze({ role: "spectator", colours: [], controls: [], diceShare: null, proving: false, otherwise: null });

function strings(list) {
  return Array.isArray(list) ? list.filter((c) => typeof c === "string") : [];
}

/** What the server said this page may do (a `welcome`, or a snapshot's `you`). */
export function told(me, you) {
  if (!you || typeof you !== "object") return me;
  return {
    role: ROLES.includes(you.role) ? you.role : "spectator",
    colours: strings(you.colours),
    controls: strings(you.controls),
    diceShare: typeof you.dice_share === "string" ? you.dice_share : null,
    proving: false,
    otherwise: null,
  };
}

/** A connection opened. One that proves a token waits for its welcome and stays, until
 *  then, who it was (a reconnection does not flash the spectator's controls). */
export function connecting(me, saidHello) {
  return { ...me, proving: saidHello, otherwise: null };
}

/** A snapshot's `you`: adopted at once, unless a welcome is awaited (then kept for the
 *  case that the token is refused). */
export function snapshotSaid(me, you) {
  if (!you) return me;
  return me.proving ? { ...me, otherwise: you } : told(me, you);
}

/** The hello was refused (`bad-token`): the connection is what its snapshot said. */
export function helloRefused(me) {
  return me.otherwise ? told(me, me.otherwise) : { ...me, proving: false };
}

/** Whether this page rolls and moves for `colour`. */
export function controls(me, colour) {
  return me.controls.includes(colour);
}
