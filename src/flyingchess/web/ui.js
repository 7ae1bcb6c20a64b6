// DOM helpers, colours and shapes, the die, toasts, the API and event formatting.
import { t, tNodes, has } from "./i18n.js";
import { send } from "./transport.js";

export const SVG_NS = "http://www.w3.org/2000/svg";
export const COLOURS = ["red", "yellow", "blue", "green"];
export const PALETTE = {
  red: { main: "#e5484d", dark: "#a51d26", light: "#fde5e4", mid: "#f4a6a6", glow: "#ffd0cf", on: "#fff" },
  yellow: { main: "#f5b400", dark: "#8a5a00", light: "#fff3c9", mid: "#fbd467", glow: "#ffe9a6", on: "#4d3300" },
  blue: { main: "#3e63dd", dark: "#1f3a96", light: "#e2e8fd", mid: "#9fb3f1", glow: "#cfdafc", on: "#fff" },
  green: { main: "#30a46c", dark: "#17643d", light: "#daf2e4", mid: "#8ed1ae", glow: "#c4ecd5", on: "#fff" },
};
// `on`: the mark drawn on a cell of the colour (white on yellow was about 1.9:1)
/** A distinct mark per colour, so colour-blind players can tell the planes apart. */
export const SHAPE = { red: "circle", yellow: "triangle", blue: "square", green: "diamond" };

export const PLANE_PATH =
  "M0,-0.44 C0.055,-0.44 0.075,-0.38 0.075,-0.31 L0.075,-0.13 L0.42,0.07 L0.42,0.15 " +
  "L0.075,0.06 L0.075,0.26 L0.18,0.34 L0.18,0.4 L0,0.355 L-0.18,0.4 L-0.18,0.34 " +
  "L-0.075,0.26 L-0.075,0.06 L-0.42,0.15 L-0.42,0.07 L-0.075,-0.13 L-0.075,-0.31 " +
  "C-0.075,-0.38 -0.055,-0.44 0,-0.44Z";

export function shapePath(kind, r) {
  switch (kind) {
    case "triangle": {
      const k = r * 1.25;
      return `M0,${-k} L${k * 0.94},${k * 0.68} L${-k * 0.94},${k * 0.68}Z`;
    }
    case "square": { const k = r * 0.86; return `M${-k},${-k} H${k} V${k} H${-k}Z`; }
    case "diamond": { const k = r * 1.18; return `M0,${-k} L${k},0 L0,${k} L${-k},0Z`; }
    default: return `M${-r},0 A${r},${r} 0 1,0 ${r},0 A${r},${r} 0 1,0 ${-r},0Z`;
  }
}

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") el.style.cssText = value;  // CSSOM: allowed by the page's CSP
    else el.setAttribute(key, value === true ? "" : value);
  }
  appendAll(el, children);
  return el;
}

export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.setAttribute("class", value);
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "style") el.style.cssText = value;
    else el.setAttribute(key, value);
  }
  appendAll(el, children);
  return el;
}

function appendAll(el, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** A small colour badge: the colour's mark in its colour. */
export function colourIcon(colour, size = 18) {
  const p = PALETTE[colour] || PALETTE.red;
  return s("svg", { class: "colour-icon", width: size, height: size, viewBox: "-1 -1 2 2", "aria-hidden": "true" },
    s("path", { d: shapePath(SHAPE[colour], 0.62), fill: p.main, stroke: p.dark, "stroke-width": 0.16, "stroke-linejoin": "round" }));
}

/** The first letter of a name as the reader sees it (a CJK character, a Vietnamese
 * letter with its marks, an emoji), not its first UTF-16 unit; quotes, brackets and
 * other marks before it are skipped. */
function initial(name) {
  const text = String(name).trim();
  const graphemes = typeof Intl !== "undefined" && Intl.Segmenter
    ? Array.from(new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text), (g) => g.segment)
    : Array.from(text);
  const letter = graphemes.find((g) => /[\p{L}\p{N}\p{Extended_Pictographic}]/u.test(g)) || graphemes[0] || "";
  return letter.toUpperCase();
}

/** A seat's badge: a named player gets the first letter of the name on the colour (with
 * the colour's shape in the corner, for colour-blind eyes); anyone else the colour's shape. */
export function seatAvatar(colour, seat, size = 22) {
  const name = seat && (seat.kind === "player" || seat.kind === "human") ? seat.name : "";
  if (!name) return colourIcon(colour, size);
  const p = PALETTE[colour] || PALETTE.red;
  return s("svg", { class: "avatar", width: size, height: size, viewBox: "-1 -1 2 2", role: "img", "aria-label": String(name), "data-testid": `avatar-${colour}` },
    s("circle", { r: 0.94, fill: p.main, stroke: p.dark, "stroke-width": 0.1 }),
    s("text", { class: "avatar-letter", x: 0, y: 0.05, fill: p.on, "text-anchor": "middle", "dominant-baseline": "central" }, initial(name)),
    s("path", { d: shapePath(SHAPE[colour], 0.2), transform: "translate(0.68 0.68)", fill: p.dark, stroke: "#fff", "stroke-width": 0.08 }));
}

/** A colour's name in a coloured chip (for log lines and lists). */
export function colourChip(colour) {
  return h("span", { class: `chip chip-${colour}` }, colourIcon(colour, 14), t(`colour.${colour}`));
}

export function planeIcon(colour, size = 18) {
  const p = PALETTE[colour] || PALETTE.red;
  return s("svg", { class: "plane-icon", width: size, height: size, viewBox: "-0.5 -0.5 1 1", "aria-hidden": "true" },
    s("path", { d: PLANE_PATH, fill: p.main, stroke: p.dark, "stroke-width": 0.05, "stroke-linejoin": "round", transform: "rotate(45)" }));
}

let logoCount = 0;

export function logoSvg(size = 40) {
  const q = (c, d) => s("path", { d, fill: PALETTE[c].main });
  const clip = `logo-clip-${++logoCount}`;  // ids must be unique in the page
  return s("svg", { class: "logo", width: size, height: size, viewBox: "0 0 48 48", "aria-hidden": "true" },
    s("defs", {}, s("clipPath", { id: clip }, s("rect", { x: 2, y: 2, width: 44, height: 44, rx: 12 }))),
    s("g", { "clip-path": `url(#${clip})` },
      q("red", "M0 0H24V24H0Z"), q("yellow", "M24 0H48V24H24Z"), q("blue", "M24 24H48V48H24Z"), q("green", "M0 24H24V48H0Z")),
    s("rect", { x: 2, y: 2, width: 44, height: 44, rx: 12, fill: "none", stroke: "rgba(0,0,0,.18)", "stroke-width": 1.5 }),
    s("circle", { cx: 24, cy: 24, r: 15, fill: "#fff", opacity: 0.95 }),
    s("path", { d: PLANE_PATH, fill: "#1d2b4f", transform: "translate(24 24) scale(24) rotate(45)" }));
}

// ---------------------------------------------------------------- the die

const PIPS = {
  1: [[50, 50]], 2: [[28, 28], [72, 72]], 3: [[28, 28], [50, 50], [72, 72]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]], 5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
  6: [[28, 26], [72, 26], [28, 50], [72, 50], [28, 74], [72, 74]],
};

export function dieFace(value) {
  const svg = s("svg", { class: "die-face", viewBox: "0 0 100 100", "aria-hidden": "true" },
    s("rect", { x: 4, y: 4, width: 92, height: 92, rx: 20, class: "die-body" }));
  const pips = s("g", { class: "die-pips" });
  svg.append(pips);
  setDieFace(svg, value);
  return svg;
}

export function setDieFace(svg, value) {
  const pips = svg.querySelector(".die-pips");
  pips.replaceChildren();
  for (const [cx, cy] of PIPS[value] || []) {
    pips.append(s("circle", { cx, cy, r: value === 1 ? 11 : 9, class: value === 1 ? "pip pip-one" : "pip" }));
  }
  if (!PIPS[value]) pips.append(s("text", { x: 50, y: 62, "text-anchor": "middle", class: "die-q" }, "?"));
}

// ---------------------------------------------------------------- toasts

export function toast(message, kind = "info") {
  const box = document.getElementById("toasts");
  if (!box) return;
  const el = h("div", { class: `toast toast-${kind}`, role: "status", "data-testid": "toast" }, message);
  box.append(el);
  while (box.children.length > 2) box.firstElementChild.remove();  // two at most: notices never pile up
  setTimeout(() => el.classList.add("toast-out"), 3600);
  setTimeout(() => el.remove(), 4000);
}

/** A fault of the page itself: in the console (where tests look) and on the screen,
 *  once, with a way out. Nothing the page does hides its own errors. */
export function reportError(err) {
  console.error(err);
  showFault();
}

/** The notice for a fault already in the console (an uncaught error or rejection). */
export function showFault() {
  if (document.getElementById("fault")) return;
  const bar = h("div", { id: "fault", class: "fault", role: "alert", "data-testid": "fault" },
    h("span", {}, t("error.unexpected")),
    h("button", { class: "btn btn-small", type: "button", onclick: () => location.reload() }, t("action.reload")));
  document.body.append(bar);
}

export function errorText(code, message) {
  const key = `error.${code}`;
  if (has(key)) return t(key, { message: message || "" });
  return t("error.generic", { message: message || code || "" });
}

// ---------------------------------------------------------------- API

/** A JSON request to the server (transport.js says how it gets there); never throws:
 * {ok, status, data, error:{code,message}}. */
export async function api(method, url, body, headers = {}) {
  const sent = { headers: { ...headers }, body: null };
  if (body !== undefined) {
    sent.body = typeof body === "string" ? body : JSON.stringify(body);
    sent.headers["Content-Type"] = "application/json";
  }
  const res = await send(method, url, sent);
  if (res.status === 0) return { ok: false, status: 0, data: null, error: { code: "network", message: res.error || "" } };
  let data = null;
  try { data = JSON.parse(res.body); } catch { data = null; }
  if (res.status < 200 || res.status >= 300) {
    const error = (data && data.error) || { code: "network", message: `HTTP ${res.status}` };
    return { ok: false, status: res.status, data, error };
  }
  return { ok: true, status: res.status, data, error: null };
}

/** A link that downloads a game's record (fetched through the transport, so the static
 * site's worker serves it as the server does). */
export function recordLink(gameId, attrs = {}, ...children) {
  const name = `flyingchess-${gameId}.json`;
  const link = h("a", { ...attrs, href: `api/games/${encodeURIComponent(gameId)}/record`, download: name }, ...children);
  link.addEventListener("click", async (event) => {
    event.preventDefault();
    const res = await send("GET", `/api/games/${encodeURIComponent(gameId)}/record`);
    if (res.status !== 200) { toast(errorText("network", res.error || `HTTP ${res.status}`), "error"); return; }
    const url = URL.createObjectURL(new Blob([res.body], { type: "application/json" }));
    const save = h("a", { href: url, download: name, hidden: true });
    document.body.append(save);
    save.click();
    save.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  return link;
}

/** A game's whole replay, fetched a page of steps at a time: {ok, data: {game, initial,
 * steps}} as api() answers, or its error. */
export async function fetchReplay(gameId) {
  const url = `/api/games/${encodeURIComponent(gameId)}/replay`;
  const first = await api("GET", `${url}?from=0`);
  if (!first.ok) return first;
  const data = { game: first.data.game, initial: first.data.initial, steps: [...(first.data.steps || [])] };
  let next = first.data.next;
  while (next != null) {
    const res = await api("GET", `${url}?from=${next}`);
    if (!res.ok) return res;
    data.steps.push(...(res.data.steps || []));
    data.game = res.data.game;
    next = res.data.next;
  }
  return { ok: true, status: 200, data, error: null };
}

// ---------------------------------------------------------------- seats and rules

const botLevels = new Map();  // bot name -> level name (gentle .. master), from GET /api/meta

/** The server's bots and their levels (once, at start-up). */
export function setBotLevels(bots) {
  botLevels.clear();
  for (const bot of bots || []) if (bot.level_name) botLevels.set(bot.name, bot.level_name);
}

/** A bot as a player reads it: its level ("Master") when it has one, else its own name. */
export function botLabel(name) {
  const level = botLevels.get(name);
  if (level && has(`level.${level}`)) return t(`level.${level}`);
  const key = `bot.${name}`;
  return has(key) ? t(key) : name.charAt(0).toUpperCase() + name.slice(1);
}

/** A seat in a few words: a bot's name, a player's own name (plain text), or open. */
export function seatLabel(seat, network = false) {
  if (seat && seat.kind === "bot") return t("seat.bot", { name: botLabel(seat.bot) });
  if (seat && seat.kind === "player") return String(seat.name || t("seat.player"));
  if (seat && seat.kind === "open") return t("seat.open-short");
  if (seat && seat.kind === "human" && seat.name) return String(seat.name);  // a local player's name
  return network ? t("seat.host") : t("seat.human");
}

/** Whether this page talks to a server only this machine can reach (every page is host). */
export function looksLocal(meta) {
  if (meta && typeof meta.local === "boolean") return meta.local;
  if (meta && typeof meta.network === "boolean") return !meta.network;
  const host = location.hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

/** Copy text to the clipboard; works on plain http (LAN addresses) too. */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch { /* fall back below */ }
  const area = h("textarea", { readonly: true, style: "position:fixed;top:-1000px;left:-1000px;opacity:0" });
  area.value = text;
  document.body.append(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand("copy"); } catch { ok = false; }
  area.remove();
  return ok;
}

/** A presence dot: connected (green) or away (grey ring). */
export function presenceDot(connected) {
  return h("span", { class: `presence ${connected ? "on" : "off"}`, role: "img",
    "aria-label": connected ? t("seat.connected") : t("seat.disconnected"),
    title: connected ? t("seat.connected") : t("seat.disconnected") });
}

function icon(size, ...paths) {
  return s("svg", { class: "icon", width: size, height: size, viewBox: "0 0 24 24", "aria-hidden": "true", fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round" },
    ...paths.map((d) => s("path", { d })));
}
export const eyeSvg = (size = 16) => icon(size, "M2 12 C5 6 9 4.5 12 4.5 C15 4.5 19 6 22 12 C19 18 15 19.5 12 19.5 C9 19.5 5 18 2 12Z", "M12 9 A3 3 0 1 0 12.01 9Z");
export const clockSvg = (size = 16) => icon(size, "M12 3 A9 9 0 1 0 12.01 3Z", "M12 7.5 V12 L15 14");
export const copySvg = (size = 16) => icon(size, "M9 9 H19 V19 H9Z", "M5 15 V5 H15");
export const homeSvg = (size = 16) => icon(size, "M3.5 11 L12 4 L20.5 11", "M6 9.5 V20 H18 V9.5 M10 20 V14 H14 V20");
export const downloadSvg = (size = 16) => icon(size, "M12 4 V15 M7 10.5 L12 15.5 L17 10.5", "M5 19.5 H19");
export const replaySvg = (size = 16) => icon(size, "M4.5 12 A7.5 7.5 0 1 0 7 6.4", "M3.5 4.5 L7.5 6.5 L5.8 10.4");
// a cog with eight teeth (rays around a circle read as a sun: a theme switch)
export const gearSvg = (size = 16) => icon(size, "M12 9 A3 3 0 1 0 12.01 9Z",
  "M19.1 10.2 L21.8 10.8 L21.8 13.2 L19.1 13.8 L18.3 15.8 L19.8 18.1 L18.1 19.8 L15.8 18.3 L13.8 19.1 L13.2 21.8 L10.8 21.8 L10.2 19.1 L8.2 18.3 L5.9 19.8 L4.2 18.1 L5.7 15.8 L4.9 13.8 L2.2 13.2 L2.2 10.8 L4.9 10.2 L5.7 8.2 L4.2 5.9 L5.9 4.2 L8.2 5.7 L10.2 4.9 L10.8 2.2 L13.2 2.2 L13.8 4.9 L15.8 5.7 L18.1 4.2 L19.8 5.9 L18.3 8.2Z");
export const plusSvg = (size = 16) => icon(size, "M12 5 V19", "M5 12 H19");
export const linkSvg = (size = 16) => icon(size, "M10 14 A4 4 0 0 0 15.7 14 L18.5 11.2 A4 4 0 0 0 12.8 5.5 L11.5 6.8", "M14 10 A4 4 0 0 0 8.3 10 L5.5 12.8 A4 4 0 0 0 11.2 18.5 L12.5 17.2");

/** An SVG image from the server, drawn through a Blob URL (never as page markup), fixing a
 * missing namespace or viewBox so it scales. Resolves to the object URL or null. */
export async function svgImageUrl(url) {
  try {
    const res = await fetch(url, { cache: "no-store" });
    if (!res.ok) return null;
    let text = await res.text();
    const open = /<svg\b[^>]*>/.exec(text);
    if (!open) return null;
    let tag = open[0];
    if (!/\sxmlns=/.test(tag)) tag = tag.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"');
    const w = /\swidth="([\d.]+)"/.exec(tag);
    const hgt = /\sheight="([\d.]+)"/.exec(tag);
    if (!/\sviewBox=/.test(tag) && w && hgt) tag = tag.replace("<svg", `<svg viewBox="0 0 ${w[1]} ${hgt[1]}"`);
    text = text.slice(0, open.index) + tag + text.slice(open.index + open[0].length);
    return URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  } catch { return null; }
}


export function optionValueLabel(name, value) {
  if (Array.isArray(value)) return value.length ? value.join(" · ") : t("opt.none");
  if (typeof value === "boolean") return value ? t("opt.on") : t("opt.off");
  const key = `opt.${name}.${value}`;
  return has(key) ? t(key) : String(value);
}

export function rulesSummary(rules, rulesName) {
  const box = h("div", { class: "rules-summary", "data-testid": "rules-summary" });
  box.append(h("div", { class: "rules-name" },
    h("span", { class: "rules-badge" }, rulesName ? presetLabel(rulesName) : t("preset.custom"))));
  const dl = h("dl", { class: "rules-list" });
  for (const [name, value] of Object.entries(rules || {})) {
    dl.append(h("dt", {}, t(`opt.${name}`)), h("dd", { title: has(`opt.${name}.${value}.help`) ? t(`opt.${name}.${value}.help`) : null }, optionValueLabel(name, value)));
  }
  box.append(dl);
  return box;
}

export function presetLabel(name) {
  const key = `preset.${name}`;
  return has(key) ? t(key) : name;
}

// ---------------------------------------------------------------- event log

function planesText(colour, planes) {
  return planes.map((p) => `✈${p + 1}`).join("+");
}

/** Turn an event list into log lines: [{kind, colour, node}] (steps of one move merged). */
export function formatEvents(events) {
  const lines = [];
  let i = 0;
  while (i < events.length) {
    const ev = events[i];
    if (ev.type === "step") {
      let count = 0;
      let j = i;
      const key = JSON.stringify(ev.planes);
      while (j < events.length && events[j].type === "step" && JSON.stringify(events[j].planes) === key && events[j].colour === ev.colour) { count++; j++; }
      // a bounce inside the run splits it naturally (bounce is not a step)
      const l = line(ev, "log.step", { player: colourChip(ev.colour), planes: planesText(ev.colour, ev.planes), count });
      l.index = i;
      lines.push(l);
      i = j;
      continue;
    }
    const l = formatOne(ev);
    if (l) { l.index = i; lines.push(l); }
    i++;
  }
  return lines;
}

function miniDie(value) {
  const svg = dieFace(value);
  svg.setAttribute("class", "die-face mini-die");
  return h("span", { class: "mini-die-wrap", title: String(value) }, svg, h("span", { class: "sr-only" }, String(value)));
}

function line(ev, key, params, extra = "") {
  return { kind: ev.type, colour: ev.colour || ev.winner, node: h("span", { class: `log-text ${extra}` }, tNodes(key, params)) };
}

function formatOne(ev) {
  const player = ev.colour ? colourChip(ev.colour) : null;
  switch (ev.type) {
    case "roll": return line(ev, "log.roll", { player, value: miniDie(ev.value) });
    case "launch": return line(ev, "log.launch", { player, planes: planesText(ev.colour, [ev.plane]) });
    case "bounce": return line(ev, "log.bounce", { player, planes: planesText(ev.colour, ev.planes) });
    case "jump": return line(ev, "log.jump", { player, planes: planesText(ev.colour, ev.planes) });
    case "flight": return line(ev, "log.flight", { player, planes: planesText(ev.colour, ev.planes) });
    case "capture": return line(ev, ev.cause === "flight" ? "log.capture-flight" : "log.capture",
      { by: colourChip(ev.by), player, planes: planesText(ev.colour, ev.planes) }, "log-strong");
    case "plane-finished": return line(ev, "log.plane-finished", { player, planes: planesText(ev.colour, [ev.plane]) });
    case "player-finished": return line(ev, "log.player-finished", { player, place: ev.place }, "log-strong");
    case "three-sixes": return line(ev, ev.planes && ev.planes.length ? "log.three-sixes" : "log.three-sixes-none",
      { player, planes: planesText(ev.colour, ev.planes || []) }, "log-strong");
    case "pass": return line(ev, "log.pass", { player });
    case "extra-roll": return line(ev, "log.extra-roll", { player });
    case "turn": return line(ev, "log.turn", { player }, "log-turn");
    case "game-over": return line(ev, "log.game-over", { player: colourChip(ev.winner) }, "log-strong");
    default: return null;
  }
}

const MEDAL = [["#f5c542", "#b8860b"], ["#d5dae3", "#8a93a6"], ["#e3a36b", "#9c5a24"]];
/** A place medal (gold, silver, bronze, then a plain number). */
export function medal(place) {
  const [fill, edge] = MEDAL[place - 1] || ["#eef1f8", "#a5acc4"];
  return s("svg", { class: "medal", width: 26, height: 26, viewBox: "-13 -13 26 26", role: "img", "aria-label": String(place) },
    place <= 3 ? s("path", { d: "M-7,-13 L-2,-3 L2,-3 L-3,-13Z M7,-13 L2,-3 L-2,-3 L3,-13Z", fill: ["#3e63dd", "#e5484d", "#30a46c"][place - 1], opacity: 0.85 }) : null,
    s("circle", { cx: 0, cy: 3, r: 9, fill, stroke: edge, "stroke-width": 1.6 }),
    s("text", { x: 0, y: 7, "text-anchor": "middle", "font-size": 11, "font-weight": 800, fill: place <= 3 ? "#4a3300" : "#4a5475", "font-family": "system-ui, sans-serif" }, String(place)));
}

export function trophySvg(size = 64) {
  return s("svg", { class: "trophy-svg", width: size, height: size, viewBox: "0 0 64 64", "aria-hidden": "true" },
    s("path", { d: "M18 10 H46 V24 C46 34 40 40 32 40 C24 40 18 34 18 24Z", fill: "#f5c542", stroke: "#b8860b", "stroke-width": 2.5, "stroke-linejoin": "round" }),
    s("path", { d: "M18 14 H10 C10 24 14 28 20 29 M46 14 H54 C54 24 50 28 44 29", fill: "none", stroke: "#b8860b", "stroke-width": 3, "stroke-linecap": "round" }),
    s("path", { d: "M28 40 H36 L37 48 H27Z", fill: "#e0ad2e", stroke: "#b8860b", "stroke-width": 2, "stroke-linejoin": "round" }),
    s("rect", { x: 20, y: 48, width: 24, height: 7, rx: 2.5, fill: "#8a5a00" }),
    s("path", { d: "M24 15 C24 24 25 30 29 34", fill: "none", stroke: "#fff", "stroke-width": 3, "stroke-linecap": "round", opacity: 0.6 }));
}

export function globeSvg(size = 18) {
  return s("svg", { class: "globe", width: size, height: size, viewBox: "0 0 24 24", "aria-hidden": "true", fill: "none", stroke: "currentColor", "stroke-width": 1.8 },
    s("circle", { cx: 12, cy: 12, r: 9 }), s("path", { d: "M3 12 H21 M12 3 C15 6 15 18 12 21 C9 18 9 6 12 3" }));
}
