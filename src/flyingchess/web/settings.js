// The player's settings, kept in this browser (localStorage) and read once a visit.
// A setting that cannot be saved (storage turned off) still holds for this visit.

const KEY = "flyingchess.settings";
const DEFAULTS = Object.freeze({
  autoMove: true,  // play the move when there is only one choice, as the popular apps do
  sound: true,     // sounds and vibration (after the first tap: browsers allow no sooner)
  motion: "system",  // animations: "system" (as the device says), "reduced" or "full"
  theme: "system",   // colours: "system" (as the device says), "light" or "dark"
  speed: "normal",   // the pace of new games (the host changes a game's own in the game)
  showChances: false,  // each player's chance to win, under their row (the server's estimate)
  seenHowTo: false,  // the four lines of how to play, shown beside the first game
  announce: "all",   // what a screen reader is told in a game: "all" events, "brief" (yours, captures, finishes) or "off"
});

let current = null;

export function settings() {
  if (!current) {
    let saved = {};
    try { saved = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { saved = {}; }  // unreadable: the defaults
    current = { ...DEFAULTS };
    for (const name of Object.keys(DEFAULTS)) {
      if (typeof saved[name] === typeof DEFAULTS[name]) current[name] = saved[name];
    }
  }
  return current;
}

export function saveSetting(name, value) {
  settings()[name] = value;
  try { localStorage.setItem(KEY, JSON.stringify(current)); } catch { /* storage off: kept for this visit */ }
}


/** Whether animations are reduced: the player's choice, else the device's setting. */
export function reducedMotion() {
  const choice = settings().motion;
  if (choice === "reduced" || choice === "full") return choice === "reduced";
  return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

/** html[data-motion] follows the setting: the style sheet stills animations by it. */
export function applyMotion() {
  document.documentElement.dataset.motion = reducedMotion() ? "reduced" : "full";
}

/** The theme in use: the player's choice, else the device's. */
export function darkTheme() {
  const choice = settings().theme;
  if (choice === "light" || choice === "dark") return choice === "dark";
  return !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
}

/** html[data-theme] and the browser's bar colour follow the setting (boot.js set them first). */
export function applyTheme() {
  const dark = darkTheme();
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  document.querySelector('meta[name="theme-color"]')?.setAttribute("content", dark ? "#121a33" : "#dfeefe");
}
