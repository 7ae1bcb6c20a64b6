// Who this page is in a game: a pure model of what the server last said of it
// (docs/protocol.md: welcome, joined, seat-lost, and the refusals that say a token opens
// nothing). Each function takes an identity and gives a new one; the game screen keeps
// the current one and asks `roleOf` and `playsFor` instead of working authority out.

/** @typedef {{role: string|null, colours: string[], learnedSpectator: boolean}} Identity */

/** A fresh connection: nothing said yet. @type {Identity} */
export const NOBODY = Object.freeze({ role: null, colours: [], learnedSpectator: false });

const ROLES = ["host", "player", "spectator"];

/** The server's welcome: the role and the colours this page plays. */
export function welcomed(me, msg) {
  return {
    ...me,
    role: ROLES.includes(msg.role) ? msg.role : null,
    colours: Array.isArray(msg.colours) ? msg.colours.filter((c) => typeof c === "string") : [],
  };
}

/** This page took a seat (joined). */
export function seated(me, colour) {
  return { ...me, role: "player", colours: [colour] };
}

/** This page's seat is gone (given away, a token that opens nothing, a fresh connection). */
export function unseated(me) {
  return { ...me, role: null, colours: [] };
}

/** Refused `not-your-seat` before any welcome: this page is a spectator here. */
export function refusedSeat(me) {
  return me.role ? me : { ...me, learnedSpectator: true };
}

/** The page's role: the server's word, else the default of a connection that said no
 *  token (the host on a game served to this machine alone, a spectator elsewhere). */
export function roleOf(me, local) {
  if (me.role) return me.role;
  return local && !me.learnedSpectator ? "host" : "spectator";
}

/** Whether this page rolls and moves for `colour`, whose seat is `seat`: the host plays
 *  the seats kept on its device, a player the seats the server named. */
export function playsFor(me, seat, colour, local) {
  if (!seat) return false;
  const role = roleOf(me, local);
  if (role === "host") return seat.kind === "human";
  if (role === "player") return me.colours.includes(colour);
  return false;
}

/** The colours of this page's seats that the game no longer gives to a player. */
export function seatsLost(me, game) {
  if (me.role !== "player" || !game || !game.seats) return [];
  return me.colours.filter((c) => game.seats[c]?.kind !== "player");
}
