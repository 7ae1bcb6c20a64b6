// What a screen reader says during a game: one polite live region, fed the move log's
// lines as the board shows their events (batched, so a fast bot turn is one
// announcement rather than a flood), the player's prompts (your roll; your move, with
// what each move would do), and on request where every plane is. The visual banners and
// the turn card stay silent: each event is said once, here.
import { t } from "./i18n.js";
import { h } from "./ui.js";
import { settings } from "./settings.js";

const BATCH_MS = 250;  // lines this close together are said as one
const KEPT = 20;       // announcements kept in the region (a screen reader reads additions)

/** Where a plane is, in words. `P`: the layout's progress values (GET /api/meta's
 * `layout.progress`: hangar, takeoff, ring_last, lane_first, centre), the board's own. */
export function placeText(plane, progress, P) {
  const n = plane + 1;
  if (progress === P.hangar || progress < 0) return t("sr.plane-hangar", { plane: n });
  if (progress === P.takeoff) return t("sr.plane-takeoff", { plane: n });
  if (progress >= P.centre) return t("sr.plane-home", { plane: n });
  if (progress <= P.ring_last) return t("sr.plane-ring", { plane: n, square: progress });
  return t("sr.plane-lane", { plane: n, left: P.centre - progress });
}

/** What a legal move (a snapshot's `moves` entry) does, in words. */
export function moveText(move, P) {
  const parts = [];
  if (move.launch) parts.push(t("preview.launch"));
  else parts.push(t("preview.steps", { count: move.events.filter((ev) => ev.type === "step").length }));
  if (move.bounce) parts.push(t("preview.bounce"));
  if (move.jump) parts.push(t("preview.jump"));
  if (move.flight) parts.push(t("preview.flight"));
  for (const hit of move.captures) {
    parts.push(t("preview.capture", { planes: `${t(`colour.${hit.colour}`)} ${hit.planes.map((p) => p + 1).join("+")}` }));
  }
  if (move.to === P.centre) parts.push(t("preview.finish"));
  return t("sr.move-option", { plane: move.planes.map((p) => p + 1).join("+"), what: parts.join(t("list-separator")) });
}

/** Where every plane of every player is, one sentence a player. */
export function whereText(snap, P) {
  const planes = snap.state.planes;
  return snap.players.map((colour) => t("sr.where", {
    colour: t(`colour.${colour}`),
    planes: planes[colour].map((progress, plane) => placeText(plane, progress, P)).join(t("list-separator")),
  })).join(" ");
}

/** One choice a line: moves that are the same choice (`choice`) are said once. */
export function movesText(moves, P) {
  const seen = new Set();
  const said = [];
  for (const move of moves) {
    if (seen.has(move.choice)) continue;
    seen.add(move.choice);
    said.push(moveText(move, P));
  }
  return said.join(" ");
}

/**
 * @param {object} o
 * @param {(line: any) => boolean} o.mine  a log line about this page's own colours
 * @param {any} o.progress  the layout's progress values (`placeText`)
 */
export function makeAnnouncer({ mine, progress }) {
  const region = h("div", { class: "sr-only", role: "log", "aria-live": "polite", "aria-relevant": "additions", "data-testid": "announcer" });
  let pending = [];
  let timer = null;
  let prompted = null;

  function flush() {
    clearTimeout(timer);
    timer = null;
    if (!pending.length) return;
    const said = h("p", {});
    pending.forEach(([text, kind], k) => said.append(k ? " " : "", h("span", { "data-kind": kind }, text)));
    pending = [];
    region.append(said);
    while (region.children.length > KEPT) region.firstElementChild?.remove();
  }

  /** Say `text` with whatever else comes in the next moment (`asked`: even with
   *  announcements off, since the player asked for it). */
  function say(text, kind, asked = false) {
    if (!text || (settings().announce === "off" && !asked)) return;
    pending.push([text, kind]);
    if (!timer) timer = setTimeout(flush, BATCH_MS);
  }

  return {
    region,
    flush,
    /** A line of the move log (ui.js formatEvents), as the board shows its event. */
    line(line) {
      const level = settings().announce;
      if (level === "off") return;
      if (level === "brief" && !(line.kind === "capture" || line.kind === "player-finished" || line.kind === "game-over" || line.kind === "three-sixes" || mine(line))) return;
      say(line.node.textContent.replace(/\s+/g, " ").trim(), "event");
    },
    /** The page's turn to act: said once per moment of the game (`key`). */
    prompt(key, text) {
      if (key === prompted) return;
      prompted = key;
      say(text, "prompt");
      flush();
    },
    /** Say it now, whatever the batch (the player asked). */
    now(text) { say(text, "asked", true); flush(); },
    /** Where every plane is (`whereText`) and what each legal move does (`movesText`). */
    where: (snap) => whereText(snap, progress),
    moves: (moves) => movesText(moves, progress),
    stop() { clearTimeout(timer); timer = null; pending = []; },
  };
}
