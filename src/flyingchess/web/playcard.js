// The play card of the game screen: whose turn it is, the turn timer, the die with the
// line that says what to do, the toggles (auto-move, sound, chances) and the host's start
// button. It shows what the model says (gamemodel.js); it decides nothing itself.
import { t } from "./i18n.js";
import { h, seatLabel, clockSvg } from "./ui.js";
import { settings, saveSetting } from "./settings.js";
import { showSoundState } from "./sound.js";
import { showTurn } from "./cards.js";

/** The bar that runs down while a person has the turn (a game with a turn timer). */
export function makeTurnTimer() {
  const bar = h("div", { class: "turn-timer", "data-testid": "turn-timer", hidden: true },
    clockSvg(15), h("span", { class: "turn-timer-track" }, h("span", { class: "turn-timer-fill" })), h("span", { class: "turn-timer-text" }));
  let key = null;
  let since = 0;
  let left = 0;

  /** Show the time left of the turn in `snap` (the server's `turn_left`, counted down here). */
  function update(snap) {
    const timer = Number(snap && snap.timer) || 0;
    const colour = snap && snap.state.turn;
    const seat = colour ? snap.seats?.[colour] : null;
    const people = seat && (seat.kind === "player" || seat.kind === "human") && !seat.autopilot;
    const now = snap ? `${snap.actions}:${snap.phase}:${snap.roll}:${colour}` : null;
    if (now !== key) {
      key = now;
      since = performance.now();
      left = typeof snap?.turn_left === "number" ? snap.turn_left : timer;
    }
    const show = timer > 0 && people && snap.phase !== "over";
    bar.hidden = !show;
    if (!show) return;
    const remaining = Math.max(0, left - (performance.now() - since) / 1000);
    bar.style.setProperty("--left", String(Math.min(1, remaining / timer)));
    bar.dataset.low = remaining <= Math.min(10, timer / 3) ? "true" : "false";
    bar.querySelector(".turn-timer-text").textContent = t("game.timer-left", { n: Math.ceil(remaining) });
  }

  return { bar, update };
}

/** What the hint line says, and its kind (for its colour), for the page's view. */
export function hintLine({ snap, state, me, connected, local, touch }) {
  const colour = snap.state.turn;
  const seat = snap.seats?.[colour];
  const gathering = snap.started === false && snap.phase !== "over";
  const name = () => seatLabel(seat, !local);
  if (!connected && snap.phase !== "over") return [t("hint.unreachable"), "offline"];  // not "a bot is thinking"
  if (gathering) return [me.role === "host" ? t("hint.start-when-ready") : t("hint.not-started"), "open"];
  if (state === "ready") return [seat?.autopilot ? t("hint.autopilot-you") : t(touch ? "hint.roll-touch" : "hint.roll"), state];
  if (state === "move") return [t(touch ? "hint.move-touch" : "hint.move", { value: snap.roll }), state];
  if (state === "over") return [t("hint.over"), state];
  if (!colour || !seat || snap.phase === "over" || me.controls.includes(colour)) return ["", state];
  if (seat.kind === "open") return [t("hint.open"), "open"];
  if (seat.autopilot) return [t("hint.autopilot", { name: name() }), "other"];
  if (seat.kind === "bot") return [t("hint.bot", { name: name() }), "other"];
  if (seat.kind === "player") return [t("hint.waiting-for", { name: name() }), "other"];
  return [t("hint.waiting-host"), "other"];
}

/**
 * @param {object} o
 * @param {any} o.die  the die view (dieview.js)
 * @param {any} o.advice  the advice (advice.js): its hint button, hint and chances toggle
 * @param {HTMLElement} o.endDock  where the end card goes when minimised
 * @param {() => void} o.onStart  the host starts the game
 * @param {() => void} o.onAutoMove  the auto-move setting changed
 */
export function makePlayCard({ die, advice, endDock, onStart, onAutoMove }) {
  const turnCard = h("div", { class: "turn-card", "data-testid": "turn" });  // its news is said by the announcer
  const timer = makeTurnTimer();
  const hint = h("div", { class: "hint", "data-testid": "hint" });
  const autoMoveBox = h("input", { type: "checkbox", "data-testid": "auto-move", checked: settings().autoMove,
    onchange: () => { saveSetting("autoMove", autoMoveBox.checked); onAutoMove(); } });
  const autoMoveText = h("span", {});
  const soundBox = h("input", { type: "checkbox", "data-testid": "sound", checked: settings().sound,
    onchange: () => { saveSetting("sound", soundBox.checked); showSoundState(); } });
  const soundText = h("span", {});
  const startButton = h("button", { class: "btn btn-primary start-game", type: "button", "data-testid": "start-game", hidden: true,
    onclick: () => onStart() });
  const toggles = h("div", { class: "toggles" },
    h("label", { class: "auto-move" }, autoMoveBox, autoMoveText), h("label", { class: "auto-move" }, soundBox, soundText), advice.chancesLabel);

  /** The card, with the page's own rows (the role line, the seats) at its foot. */
  function card(...foot) {
    return h("div", { class: "card play-card" },
      h("div", { class: "turn-wrap" }, turnCard, timer.bar), endDock,
      h("div", { class: "die-row" }, die.button, h("div", { class: "die-side" }, hint, advice.hintButton)), advice.hintText,
      toggles, startButton, ...foot);
  }

  /** Whose turn (or who won): `label` says which. */
  function showWhose(colour, seat, over, local) {
    showTurn(turnCard, colour, seat, over ? t("game.winner") : t("game.to-play"), !local);
  }

  /** Everything but the turn card, for the page's view (see hintLine). */
  function render(view) {
    const { snap, state, me } = view;
    const gathering = snap.started === false && snap.phase !== "over";
    startButton.hidden = !(gathering && me.role === "host");
    if (!gathering) startButton.disabled = false;
    const [text, kind] = hintLine(view);
    hint.textContent = text;  // names are text, never markup
    hint.dataset.kind = kind;
    advice.render(snap, state);
    timer.update(snap);
  }

  function relabel() {
    die.relabel();
    autoMoveText.textContent = t("game.auto-move");
    soundText.textContent = t("game.sound");
    startButton.textContent = t("game.start");
    advice.relabel();
  }

  return { card, render, showWhose, relabel, timer, startButton };
}
