// The replay's controls: first, back, next, last, and play or pause around the die, the
// slider with the position under them, and their keys.
import { t } from "./i18n.js";
import { h, s } from "./ui.js";

const PLAY_ICON = "M6 4v12l10-6z";
const PAUSE_ICON = "M5 4h3.5v12H5z M11.5 4H15v12h-3.5z";
const PLAYED_STEP_MS = 350;  // the pause after each step while playing

/**
 * @param {object} o
 * @param {(step: number, animate?: boolean, byPlay?: boolean) => Promise<void>} o.go  show
 *   that step (`animate`: one step forward is played on the board; `byPlay`: playing asked)
 * @param {() => number} o.step  the step shown
 * @param {() => number} o.total  how many steps the game has
 * @param {() => boolean} o.ready  the steps are here
 * @param {() => boolean} o.gone  the screen was left
 */
export function makeControls({ go, step, total, ready, gone }) {
  let playing = false;
  const btn = (id, fn, icon) => h("button", { class: "btn btn-icon", type: "button", "data-testid": id, "aria-label": "", title: "", onclick: fn }, icon);
  const icon = (d) => s("svg", { width: 20, height: 20, viewBox: "0 0 20 20", "aria-hidden": "true" }, s("path", { d, fill: "currentColor" }));
  const first = btn("replay-first", () => go(0), icon("M4 4h2.4v12H4z M16 4v12L7.5 10z"));
  const prev = btn("replay-prev", () => go(step() - 1), icon("M14 4v12L5.5 10z"));
  const next = btn("replay-next", () => go(step() + 1, true), icon("M6 4v12l8.5-6z"));
  const last = btn("replay-last", () => go(total()), icon("M13.6 4H16v12h-2.4z M4 4v12l8.5-6z"));
  const playBtn = btn("replay-play", () => togglePlay(), icon(PLAY_ICON));
  playBtn.classList.add("btn-primary");
  const slider = h("input", { type: "range", min: "0", max: "0", value: "0", step: "1", class: "slider", "data-testid": "replay-slider", oninput: () => go(Number(slider.value)) });
  const position = h("span", { class: "position", "data-testid": "replay-position" }, "0 / 0");

  /** The buttons around `die` (the replay draws it), then the slider and the position. */
  function rows(die) {
    return [h("div", { class: "replay-controls" }, first, prev, die, next, last, playBtn), h("div", { class: "slider-row" }, slider, position)];
  }

  /** Show the step the replay is at; returns the position as written ("3 / 60"). */
  function show() {
    const at = step();
    position.textContent = `${at} / ${total()}`;
    slider.max = String(total());
    slider.value = String(at);
    first.disabled = prev.disabled = at <= 0;
    next.disabled = last.disabled = at >= total();
    return position.textContent;
  }

  function relabel() {
    for (const [button, key] of [[first, "replay.first"], [prev, "replay.prev"], [next, "replay.next"], [last, "replay.last"]]) {
      button.setAttribute("aria-label", t(key));
      button.title = t(key);
    }
    renderPlay();
    slider.setAttribute("aria-label", t("replay.slider"));
  }

  function renderPlay() {
    const label = t(playing ? "replay.pause" : "replay.play");
    playBtn.setAttribute("aria-label", label);
    playBtn.title = label;
    playBtn.dataset.playing = playing ? "true" : "false";
    playBtn.replaceChildren(icon(playing ? PAUSE_ICON : PLAY_ICON));
    playBtn.disabled = !ready();
  }

  // Play: one step after another, animated, until the end or a pause (any other
  // control pauses too).
  async function togglePlay() {
    if (playing) { pause(); return; }
    if (!ready()) return;
    if (step() >= total()) await go(0);
    playing = true;
    renderPlay();
    while (playing && !gone() && step() < total()) {
      await go(step() + 1, true, true);
      if (playing) await new Promise((r) => setTimeout(r, PLAYED_STEP_MS));
    }
    pause();
  }

  function pause() {
    if (!playing) return;
    playing = false;
    if (!gone()) renderPlay();
  }

  /** The screen is left: playing stops, drawing nothing. */
  function stop() { playing = false; }

  const onKey = replayKeys({ gone, slider, step, total, go, togglePlay });
  return { rows, show, relabel, pause, stop, onKey };
}

/** The replay's keys: arrows step, Home and End jump, space plays (never while typing;
 *  the slider handles its own arrows). */
function replayKeys({ gone, slider, step, total, go, togglePlay }) {
  return (e) => {
    if (gone() || e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = (e.target && e.target.tagName) || "";
    if (["INPUT", "SELECT", "TEXTAREA"].includes(tag) || e.target === slider) return;
    if (e.key === "ArrowLeft") { e.preventDefault(); go(step() - 1); }
    else if (e.key === "ArrowRight") { e.preventDefault(); go(step() + 1, true); }
    else if (e.key === "Home") { e.preventDefault(); go(0); }
    else if (e.key === "End") { e.preventDefault(); go(total()); }
    else if (e.key === " " && !["BUTTON", "A"].includes(tag)) { e.preventDefault(); togglePlay(); }
  };
}
