// The die of the game screen: a button that rolls, turns over when a roll is shown, and
// says by its state what it offers (waiting, ready to roll, a move to choose, over).
import { t } from "./i18n.js";
import { h, dieFace, setDieFace, PALETTE } from "./ui.js";

const TURN_MS = 520;

/** @param {{ onRoll(): void }} o */
export function makeDie({ onRoll }) {
  const face = dieFace(0);
  const button = h("button", { class: "die", type: "button", "data-testid": "die", "data-state": "waiting", "aria-disabled": "true", onclick: () => onRoll() }, face);
  let rolling = false;
  let lastRoll = null;

  /** Turn the die over to `value` (`f`: the pace, 0 = at once). */
  async function roll(value, f, tween) {
    lastRoll = value;
    button.dataset.value = String(value);
    if (f <= 0) { setDieFace(face, value); return; }
    rolling = true;
    const dur = TURN_MS * f;
    button.style.setProperty("--roll-ms", `${Math.round(dur)}ms`);
    button.classList.add("rolling");
    const start = performance.now();
    let lastFace = 0;
    let shownAt = -Infinity;
    await tween(dur, () => {  // the face changes as the die turns over, not every frame
      const now = performance.now();
      if (now - start < dur * 0.7 && now - shownAt > 110) {
        let next = 1 + Math.floor(Math.random() * 6);
        if (next === lastFace) next = (next % 6) + 1;
        setDieFace(face, next);
        lastFace = next;
        shownAt = now;
      }
    });
    setDieFace(face, value);
    button.classList.remove("rolling");
    button.classList.add("landed");
    setTimeout(() => button.classList.remove("landed"), 400);
    rolling = false;
  }

  /** Show what the die offers: `state` (dieState), `choices` ("one", "several", "none"),
   *  in the colour to play. */
  function show(state, choices, colour) {
    button.dataset.state = state;
    // aria-disabled, not disabled: a disabled button loses the keyboard's focus, and the
    // player who rolled with it keeps their place for the next roll
    button.setAttribute("aria-disabled", String(state !== "ready"));
    if (lastRoll) button.dataset.value = String(lastRoll);
    if (!rolling) setDieFace(face, state === "ready" ? 0 : lastRoll || 0);
    button.dataset.choices = choices;
    if (colour) button.style.setProperty("--c", PALETTE[colour].main);
  }

  function relabel() { button.setAttribute("aria-label", t("game.die-label")); }

  return {
    button, roll, show, relabel,
    /** The roll the game last showed (a snapshot, the history), unless one is known already. */
    remember(value, always = false) { if (value && (always || !lastRoll)) lastRoll = value; },
    get lastRoll() { return lastRoll; },
  };
}
