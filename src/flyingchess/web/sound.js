// Sounds made on the spot with Web Audio: nothing to download. Silent until the
// player's first tap or key (browsers allow sound only after one) and while muted
// (the setting is remembered). A browser without Web Audio simply stays silent.
import { settings } from "./settings.js";

let ctx = null;

/** Called on the first user gesture: from then on sounds may play. */
export function unlockSound() {
  const Context = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;  // older Safari
  if (ctx || !Context) return;
  ctx = new Context();
  if (ctx.state === "suspended") ctx.resume();
  showSoundState();
}

/** body[data-sound]: locked (no gesture yet), on, or muted; for the page's own tests too. */
export function showSoundState() {
  document.body.dataset.sound = !ctx ? "locked" : settings().sound ? "on" : "muted";
}

function tone(freq, seconds, { type = "sine", gain = 0.07, to = null, at = 0 } = {}) {
  const start = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, start + seconds);
  amp.gain.setValueAtTime(0.0001, start);
  amp.gain.exponentialRampToValueAtTime(gain, start + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, start + seconds);
  osc.connect(amp).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + seconds + 0.02);
}

function rattle(count, at = 0) {
  for (let k = 0; k < count; k++) tone(180 + Math.random() * 220, 0.035, { type: "square", gain: 0.025, at: at + k * 0.06 });
}

/** One entry per event of the engine that has a sound (docs/protocol.md lists the events). */
const SOUNDS = {
  roll: () => rattle(6),
  launch: () => tone(300, 0.25, { type: "triangle", to: 700 }),
  step: () => tone(620, 0.05, { type: "triangle", gain: 0.035 }),
  jump: () => tone(500, 0.18, { type: "sine", to: 1000 }),
  flight: () => tone(260, 0.6, { type: "sawtooth", gain: 0.03, to: 1200 }),
  capture: () => { tone(140, 0.25, { type: "square", gain: 0.06, to: 60 }); tone(900, 0.08, { type: "triangle", at: 0.02 }); },
  "plane-finished": () => { tone(660, 0.12); tone(880, 0.18, { at: 0.1 }); },
  "player-finished": () => [523, 659, 784].forEach((f, k) => tone(f, 0.2, { at: k * 0.12 })),
  "game-over": () => [523, 659, 784, 1047].forEach((f, k) => tone(f, k === 3 ? 0.5 : 0.18, { type: "triangle", gain: 0.08, at: k * 0.14 })),
};

export function playSound(name) {
  if (!ctx || ctx.state !== "running" || !settings().sound) return;
  const sound = SOUNDS[name];
  if (sound) sound();
}

/** Buzz on devices that can (a capture, one's own turn), unless sound is off. */
export function vibrate(pattern) {
  if (ctx && settings().sound && navigator.vibrate) navigator.vibrate(pattern);  // after a gesture only
}
