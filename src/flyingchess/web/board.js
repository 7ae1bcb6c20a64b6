// The SVG board: drawn from the server's layout, planes placed from progress values,
// events animated, legal moves highlighted and previewed. It never decides a rule.
import { h, s, PALETTE, SHAPE, PLANE_PATH, shapePath, COLOURS, colourIcon } from "./ui.js";
import { t } from "./i18n.js";

const TAP_REACH_PX = 24;   // a tap this near a legal plane's centre picks it: a 48 px target
const AMBIGUOUS_PX = 8;    // two moves whose planes are this close in distance to the tap: ask

const BASE_MS = { launch: 380, step: 185, jump: 460, flight: 1000, capture: 560, bounce: 320, finish: 420, regroup: 160 };

const ease = (x) => (x < 0.5 ? 2 * x * x : 1 - Math.pow(-2 * x + 2, 2) / 2);
const lerp = (a, b, k) => a + (b - a) * k;
const angleTo = (from, to) => (Math.atan2(to[1] - from[1], to[0] - from[0]) * 180) / Math.PI + 90;
function angleLerp(a, b, k) {
  const d = ((b - a + 540) % 360) - 180;
  return a + d * k;
}
function quad(p0, c, p1, k) {
  const m = 1 - k;
  return [m * m * p0[0] + 2 * m * k * c[0] + k * k * p1[0], m * m * p0[1] + 2 * m * k * c[1] + k * k * p1[1]];
}

const GROUP_OFFSETS = {
  1: [[0, 0]],
  2: [[-0.17, -0.1], [0.17, 0.1]],
  3: [[-0.18, -0.15], [0.18, -0.15], [0, 0.18]],
  4: [[-0.18, -0.18], [0.18, -0.18], [-0.18, 0.18], [0.18, 0.18]],
};

export class Board {
  constructor(layout) {
    this.layout = layout;
    this.P = layout.progress;
    this.players = [];
    this.pos = {};        // colour -> [progress x4], what is drawn
    this.vis = {};        // "colour-i" -> {x, y, a, s}
    this.els = {};        // "colour-i" -> <g>
    this.hurry = false;   // finish running tweens at once
    this.legal = new Map();
    this.onPick = null;
    this.onPreview = null;
    this.svg = s("svg", {
      class: "board", "data-testid": "board", viewBox: "-0.55 -0.55 15.1 15.1",
      role: "group", tabindex: "-1", preserveAspectRatio: "xMidYMid meet",
    });
    this.svg.append(this._defs());
    this.gStatic = s("g", { class: "layer-static" });
    this.gPreview = s("g", { class: "layer-preview" });
    this.gPlanes = s("g", { class: "layer-planes" });
    this.gFx = s("g", { class: "layer-fx" });
    this.svg.append(this.gStatic, this.gPreview, this.gPlanes, this.gFx);
    this._drawStatic();
    this.chooser = null;
    this.svg.addEventListener("click", (e) => this._tapNear(e));
    // On a small board (a phone) the planes' numbers are drawn bigger, to stay readable.
    if (window.ResizeObserver) {
      new ResizeObserver(([entry]) => this.svg.classList.toggle("compact", entry.contentRect.width < 520)).observe(this.svg);
    }
  }

  // ------------------------------------------------------------ geometry (layout only)

  point(colour, progress, plane = 0) {
    const c = this.layout.colours[colour];
    if (progress === this.P.hangar || progress < 0) return c.hangar[plane];
    if (progress === this.P.takeoff) return c.takeoff;
    if (progress <= this.P.ring_last) return c.ring[progress - 1];
    return c.lane[Math.min(progress, this.P.centre) - this.P.lane_first];
  }

  heading(colour, progress, plane = 0) {
    const c = this.layout.colours[colour];
    const here = this.point(colour, progress, plane);
    if (progress < 0) return angleTo(here, this.layout.centre) ;
    if (progress === this.P.centre) return angleTo(c.lane[0], this.layout.centre);
    const next = this.point(colour, progress + 1, plane);
    return angleTo(here, next);
  }

  // ------------------------------------------------------------ static drawing

  _defs() {
    const defs = s("defs");
    defs.append(
      s("pattern", { id: "paper-dots", width: 0.5, height: 0.5, patternUnits: "userSpaceOnUse" },
        s("circle", { cx: 0.25, cy: 0.25, r: 0.022, fill: "#d9cdb4", opacity: 0.55 })),
      s("filter", { id: "plane-shadow", x: "-50%", y: "-50%", width: "200%", height: "200%" },
        s("feDropShadow", { dx: 0.03, dy: 0.06, stdDeviation: 0.05, "flood-color": "#1b2236", "flood-opacity": 0.35 })),
      s("radialGradient", { id: "centre-glow" },
        s("stop", { offset: "0%", "stop-color": "#ffffff", "stop-opacity": 0.95 }),
        s("stop", { offset: "100%", "stop-color": "#ffffff", "stop-opacity": 0 })),
    );
    for (const colour of COLOURS) {
      defs.append(s("marker", {
        id: `arrow-${colour}`, viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 5, markerHeight: 5,
        orient: "auto-start-reverse", markerUnits: "strokeWidth",
      }, s("path", { d: "M0,0 L10,5 L0,10 Z", fill: PALETTE[colour].dark })));
    }
    return defs;
  }

  _drawStatic() {
    const L = this.layout;
    const g = this.gStatic;
    g.append(s("rect", { x: -0.5, y: -0.5, width: 15, height: 15, rx: 0.7, class: "board-base" }));
    g.append(s("rect", { x: -0.5, y: -0.5, width: 15, height: 15, rx: 0.7, fill: "url(#paper-dots)" }));
    this.yards = {};
    for (const colour of COLOURS) {
      const c = L.colours[colour];
      const p = PALETTE[colour];
      const xs = c.hangar.map((q) => q[0]);
      const ys = c.hangar.map((q) => q[1]);
      const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
      const yard = s("g", { class: `yard yard-${colour}`, "data-colour": colour });
      yard.append(s("rect", { x: x0 - 1.86, y: y0 - 1.86, width: x1 - x0 + 3.72, height: y1 - y0 + 3.72, rx: 0.55, fill: p.light, stroke: p.mid, "stroke-width": 0.06 }));
      yard.append(s("rect", { class: "yard-turn", x: x0 - 1.74, y: y0 - 1.74, width: x1 - x0 + 3.48, height: y1 - y0 + 3.48, rx: 0.48, fill: "none", stroke: p.main }));
      yard.append(s("rect", { x: x0 - 1.0, y: y0 - 1.0, width: x1 - x0 + 2.0, height: y1 - y0 + 2.0, rx: 0.75, fill: "#fff", stroke: p.main, "stroke-width": 0.09, opacity: 0.96 }));
      for (const q of c.hangar) {
        yard.append(s("circle", { cx: q[0], cy: q[1], r: 0.6, fill: p.light, stroke: p.mid, "stroke-width": 0.06, "stroke-dasharray": "0.12 0.09" }));
      }
      // the colour's mark in the middle of the hangar apron
      const mx = (x0 + x1) / 2, my = (y0 + y1) / 2;
      yard.append(s("path", { d: shapePath(SHAPE[colour], 0.26), transform: `translate(${mx} ${my})`, fill: p.main, opacity: 0.35 }));
      // takeoff point with an arrow to the first ring cell
      const tk = c.takeoff, first = c.ring[0];
      const ang = angleTo(tk, first);
      yard.append(s("circle", { cx: tk[0], cy: tk[1], r: 0.4, fill: "#fff", stroke: p.main, "stroke-width": 0.09 }));
      yard.append(s("path", { d: "M-0.16,0.04 L0,-0.14 L0.16,0.04", fill: "none", stroke: p.main, "stroke-width": 0.08, "stroke-linecap": "round", "stroke-linejoin": "round", transform: `translate(${tk[0]} ${tk[1]}) rotate(${ang})` }));
      g.append(yard);
      this.yards[colour] = yard;
    }
    // home lanes
    for (const colour of COLOURS) {
      const c = L.colours[colour];
      const p = PALETTE[colour];
      const lane = c.lane;
      for (let i = 0; i < lane.length - 1; i++) {
        const q = lane[i];
        g.append(s("rect", { x: q[0] - 0.45, y: q[1] - 0.45, width: 0.9, height: 0.9, rx: 0.16, fill: p.mid, stroke: p.main, "stroke-width": 0.05 }));
        const ang = angleTo(q, lane[i + 1]);
        g.append(s("path", { d: "M-0.12,0.06 L0,-0.07 L0.12,0.06", fill: "none", stroke: p.dark, "stroke-width": 0.06, "stroke-linecap": "round", opacity: 0.85, transform: `translate(${q[0]} ${q[1]}) rotate(${ang})` }));
      }
    }
    // centre: four triangles pointing in, each colour on its own arm's side
    const [cx, cy] = L.centre;
    const R = 1.5;
    const corners = { tl: [cx - R, cy - R], tr: [cx + R, cy - R], br: [cx + R, cy + R], bl: [cx - R, cy + R] };
    for (const colour of COLOURS) {
      const [dx, dy] = L.colours[colour].arm;
      let a, b;
      if (dx < 0) { a = corners.tl; b = corners.bl; } else if (dx > 0) { a = corners.tr; b = corners.br; }
      else if (dy < 0) { a = corners.tl; b = corners.tr; } else { a = corners.bl; b = corners.br; }
      g.append(s("path", { d: `M${a[0]},${a[1]} L${b[0]},${b[1]} L${cx},${cy}Z`, fill: PALETTE[colour].main, stroke: "#fff", "stroke-width": 0.07, "stroke-linejoin": "round" }));
    }
    g.append(s("circle", { cx, cy, r: 0.42, fill: "url(#centre-glow)" }));
    g.append(s("path", { d: starPath(0.26, 0.11), transform: `translate(${cx} ${cy})`, fill: "#fff", opacity: 0.95 }));
    // the ring
    const n = L.ring.length;
    for (const cell of L.ring) {
      const q = cell.point;
      const p = PALETTE[cell.colour];
      const next = L.ring[(cell.cell + 1) % n].point;
      const ang = angleTo(q, next);
      g.append(s("rect", { x: q[0] - 0.46, y: q[1] - 0.46, width: 0.92, height: 0.92, rx: 0.18, fill: p.main, stroke: p.dark, "stroke-opacity": 0.35, "stroke-width": 0.04, class: "ring-cell" }));
      if (cell.pad) {
        g.append(s("path", { d: PLANE_PATH, fill: p.on, opacity: 0.92, transform: `translate(${q[0]} ${q[1]}) scale(0.78) rotate(${angleTo(q, L.colours[cell.colour].flight.control)})` }));
      } else if (cell.turn) {
        const lane0 = L.colours[cell.colour].lane[0];
        g.append(s("path", { d: "M0,0.2 L0,-0.16 M-0.14,-0.03 L0,-0.18 L0.14,-0.03", fill: "none", stroke: p.on, "stroke-width": 0.08, "stroke-linecap": "round", "stroke-linejoin": "round", transform: `translate(${q[0]} ${q[1]}) rotate(${angleTo(q, lane0)})` }));
      } else if (cell.jump) {
        g.append(s("path", { d: "M-0.13,0.02 L0,-0.1 L0.13,0.02 M-0.13,0.14 L0,0.02 L0.13,0.14", fill: "none", stroke: p.on, "stroke-width": 0.055, "stroke-linecap": "round", "stroke-linejoin": "round", opacity: 0.6, transform: `translate(${q[0]} ${q[1]}) rotate(${ang}) scale(0.85)` }));
      }
    }
    // flight curves (dashed) and the crossing cells they pass over
    for (const colour of COLOURS) {
      const f = L.colours[colour].flight;
      const p = PALETTE[colour];
      g.append(s("path", {
        d: `M${f.start[0]},${f.start[1]} Q${f.control[0]},${f.control[1]} ${f.end[0]},${f.end[1]}`,
        fill: "none", stroke: p.dark, "stroke-width": 0.07, "stroke-dasharray": "0.16 0.13", "stroke-linecap": "round",
        opacity: 0.7, "marker-end": `url(#arrow-${colour})`, class: "flight-line",
      }));
      const x = f.crossing;
      g.append(s("circle", { cx: x[0], cy: x[1], r: 0.25, fill: "none", stroke: p.dark, "stroke-width": 0.05, "stroke-dasharray": "0.08 0.06", opacity: 0.8, class: "crossing" }));
    }
  }

  setPlayers(players) {
    this.players = players.slice();
    for (const colour of COLOURS) this.yards[colour].classList.toggle("yard-absent", !players.includes(colour));
    this.gPlanes.replaceChildren();
    this.els = {};
    this.vis = {};
    for (const colour of players) {
      this.pos[colour] = [-1, -1, -1, -1];
      for (let i = 0; i < 4; i++) {
        const el = this._makePlane(colour, i);
        this.els[`${colour}-${i}`] = el;
        this.gPlanes.append(el);
      }
    }
  }

  _makePlane(colour, i) {
    const p = PALETTE[colour];
    const el = s("g", { class: `plane plane-${colour}`, "data-testid": `plane-${colour}-${i}`, "data-colour": colour, "data-index": i, "data-progress": -1 });
    const inner = s("g", { class: "plane-inner" });
    inner.append(
      s("rect", { class: "bbox-guard", x: -0.6, y: -0.6, width: 1.2, height: 1.2 }),
      s("circle", { class: "plane-hit", r: 0.44 }),
      s("circle", { class: "legal-ring", r: 0.47, stroke: p.dark }),
      s("circle", { class: "threat-ring", r: 0.5 }),
    );
    inner.append(s("circle", { class: "plane-disc", r: 0.34, fill: "#fff", stroke: p.main, "stroke-width": 0.05 }));
    const body = s("g", { class: "plane-body" });
    body.append(s("path", { d: PLANE_PATH, fill: p.main, stroke: p.dark, "stroke-width": 0.045, "stroke-linejoin": "round", filter: "url(#plane-shadow)", transform: "scale(1.02)" }));
    body.append(s("path", { d: "M0,-0.36 L0,0.2", stroke: "#fff", "stroke-opacity": 0.35, "stroke-width": 0.05, "stroke-linecap": "round" }));
    inner.append(body);
    const badge = s("g", { class: "plane-badge", transform: "translate(0.23 0.22)" });
    badge.append(s("path", { d: shapePath(SHAPE[colour], 0.15), fill: p.dark, stroke: "#fff", "stroke-width": 0.035, "stroke-linejoin": "round" }));
    badge.append(s("text", { class: "plane-num", y: SHAPE[colour] === "triangle" ? 0.065 : 0.045, "text-anchor": "middle" }, String(i + 1)));
    inner.append(badge);
    const stack = s("g", { class: "stack-badge", transform: "translate(-0.3 -0.33)", visibility: "hidden" });
    stack.append(s("rect", { x: -0.23, y: -0.15, width: 0.46, height: 0.3, rx: 0.15 }), s("text", { y: 0.075, "text-anchor": "middle" }, "×2"));
    inner.append(stack);
    el.append(inner);
    el.addEventListener("click", () => this._pick(colour, i));
    el.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); e.stopPropagation(); this._pick(colour, i); }
    });
    el.addEventListener("mouseenter", () => this._hover(colour, i, true));
    el.addEventListener("mouseleave", () => this._hover(colour, i, false));
    el.addEventListener("focus", () => this._hover(colour, i, true));
    el.addEventListener("blur", () => this._hover(colour, i, false));
    return el;
  }

  _place(key, v) {
    const el = this.els[key];
    if (!el) return;
    this.vis[key] = v;
    el.setAttribute("transform", `translate(${v.x.toFixed(4)} ${(v.y - (v.lift || 0)).toFixed(4)})`);
    const inner = el.firstChild;
    inner.setAttribute("transform", `scale(${(v.s * (1 + (v.lift || 0) * 0.45)).toFixed(4)})`);
    inner.querySelector(".plane-body").setAttribute("transform", `rotate(${v.a.toFixed(2)})`);
  }

  /** Where every plane rests (with offsets when several share a place). */
  _targets() {
    const groups = new Map();
    for (const colour of this.players) {
      this.pos[colour].forEach((progress, i) => {
        const q = this.point(colour, progress, i);
        const key = `${q[0].toFixed(3)},${q[1].toFixed(3)}`;
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push({ colour, i, progress, q });
      });
    }
    const out = {};
    for (const members of groups.values()) {
      const n = Math.min(members.length, 4);
      const offsets = GROUP_OFFSETS[n] || GROUP_OFFSETS[4];
      members.forEach((m, k) => {
        const off = members.length > 1 ? offsets[k % offsets.length] : [0, 0];
        const sameColour = members.filter((o) => o.colour === m.colour).length;
        out[`${m.colour}-${m.i}`] = {
          x: m.q[0] + off[0], y: m.q[1] + off[1], a: this.heading(m.colour, m.progress, m.i),
          s: members.length > 1 ? 0.74 : 1, stack: sameColour > 1 ? sameColour : 0, top: k === members.length - 1,
          lead: members.findIndex((o) => o.colour === m.colour) === k,
        };
      });
    }
    return out;
  }

  /** Put every plane where `pos` says; animate the regrouping unless instant. */
  async settle(ms = 0) {
    const targets = this._targets();
    const moves = [];
    for (const [key, target] of Object.entries(targets)) {
      const el = this.els[key];
      const [colour, i] = key.split("-");
      el.dataset.progress = String(this.pos[colour][+i]);
      const stack = el.querySelector(".stack-badge");
      stack.setAttribute("visibility", target.stack > 1 && target.lead ? "visible" : "hidden");
      stack.querySelector("text").textContent = `×${target.stack}`;
      el.classList.toggle("finished", this.pos[colour][+i] === this.P.centre);
      const from = this.vis[key];
      if (!from || ms <= 0) this._place(key, { x: target.x, y: target.y, a: target.a, s: target.s });
      else if (Math.abs(from.x - target.x) + Math.abs(from.y - target.y) + Math.abs(from.s - target.s) > 1e-3 || Math.abs(from.a - target.a) > 0.5) {
        moves.push([key, { ...from }, target]);
      }
    }
    if (moves.length) {
      await this.tween(ms, (k) => {
        for (const [key, a, b] of moves) this._place(key, { x: lerp(a.x, b.x, k), y: lerp(a.y, b.y, k), a: angleLerp(a.a, b.a, k), s: lerp(a.s, b.s, k) });
      });
    }
    this._raiseLegal();
  }

  /** Draw planes exactly as a canonical state says. */
  async show(planes, ms = 0) {
    for (const colour of this.players) {
      if (planes && planes[colour]) this.pos[colour] = planes[colour].slice();
    }
    await this.settle(ms);
  }

  tween(ms, fn) {
    return new Promise((resolve) => {
      if (ms <= 0 || this.hurry || document.hidden || document.documentElement.dataset.motion === "reduced") { fn(1); resolve(); return; }
      const t0 = performance.now();
      const frame = (now) => {
        let k = Math.min(1, (now - t0) / ms);
        if (this.hurry || document.hidden) k = 1;
        fn(k);
        if (k < 1) requestAnimationFrame(frame); else resolve();
      };
      requestAnimationFrame(frame);
    });
  }

  // ------------------------------------------------------------ events

  /** Animate one event; `f` scales durations (0 = instant). */
  async animate(ev, f) {
    const colour = ev.colour;
    if (!this.players.includes(colour) && ev.type !== "game-over") return;
    const ms = (name) => BASE_MS[name] * f;
    switch (ev.type) {
      case "launch": {
        await this._moveTo(colour, [ev.plane], 0, ms("launch"), { lift: 0.2 });
        break;
      }
      case "step": {
        await this._moveTo(colour, ev.planes, ev.progress, ms("step"), { lift: 0.12 });
        break;
      }
      case "jump": {
        this._flash(this.point(colour, ev.start), colour, "jump", f);
        await this._moveTo(colour, ev.planes, ev.end, ms("jump"), { lift: 0.55 });
        break;
      }
      case "flight": {
        const fl = this.layout.colours[colour].flight;
        await this._flyCurve(colour, ev.planes, fl, ev.end, ms("flight"));
        break;
      }
      case "bounce": {
        this._flash(this.point(colour, this.P.centre), colour, "bounce", f);
        await this.tween(ms("bounce"), () => {});
        break;
      }
      case "capture": {
        const where = this.point(ev.colour, ev.progress, ev.planes[0]);
        this._burst(where, ev.by || colour, f);
        await this.tween(ms("capture") * 0.35, () => {});
        await this._sendHome(colour, ev.planes, ms("capture"));
        break;
      }
      case "three-sixes": {
        if (ev.planes && ev.planes.length) await this._sendHome(colour, ev.planes, ms("capture"));
        break;
      }
      case "plane-finished": {
        this._sparkle(this.point(colour, this.P.centre), colour, f);
        await this.tween(ms("finish"), () => {});
        break;
      }
      default:
        break;
    }
  }

  async _moveTo(colour, planes, progress, ms, { lift = 0 } = {}) {
    const keys = planes.map((i) => `${colour}-${i}`);
    const starts = keys.map((k) => ({ ...(this.vis[k] || { x: 0, y: 0, a: 0, s: 1 }) }));
    const dest = planes.map((i) => this.point(colour, progress, i));
    const heading = planes.map((i, k) => {
      const d = dest[k], st = starts[k];
      return Math.hypot(d[0] - st.x, d[1] - st.y) > 0.05 ? angleTo([st.x, st.y], d) : st.a;
    });
    for (const i of planes) this._raise(`${colour}-${i}`);
    await this.tween(ms, (k) => {
      const e = ease(k);
      keys.forEach((key, n) => {
        const st = starts[n];
        const spread = planes.length > 1 ? (n - (planes.length - 1) / 2) * 0.12 : 0;
        this._place(key, {
          x: lerp(st.x, dest[n][0] + spread, e), y: lerp(st.y, dest[n][1] + spread, e),
          a: angleLerp(st.a, heading[n], Math.min(1, k * 3)), s: lerp(st.s, planes.length > 1 ? 0.8 : 1, e),
          lift: lift * Math.sin(Math.PI * k),
        });
      });
    });
    for (const i of planes) this.pos[colour][i] = progress;
    for (const i of planes) this.els[`${colour}-${i}`].dataset.progress = String(progress);
  }

  async _flyCurve(colour, planes, fl, endProgress, ms) {
    const keys = planes.map((i) => `${colour}-${i}`);
    for (const key of keys) this._raise(key);
    const trail = s("path", { d: `M${fl.start[0]},${fl.start[1]} Q${fl.control[0]},${fl.control[1]} ${fl.end[0]},${fl.end[1]}`, class: "flight-trail", stroke: PALETTE[colour].main, pathLength: 1 });
    this.gFx.append(trail);
    await this.tween(ms, (k) => {
      const e = ease(k);
      const q = quad(fl.start, fl.control, fl.end, e);
      const q2 = quad(fl.start, fl.control, fl.end, Math.min(1, e + 0.02));
      const q1 = quad(fl.start, fl.control, fl.end, Math.max(0, e - 0.02));
      const a = angleTo(q1, q2);
      trail.style.strokeDashoffset = String(1 - e);
      keys.forEach((key, n) => this._place(key, { x: q[0] + n * 0.1, y: q[1] + n * 0.1, a, s: 1, lift: 0.5 * Math.sin(Math.PI * k) }));
    });
    trail.classList.add("fade");
    setTimeout(() => trail.remove(), 600);
    for (const i of planes) this.pos[colour][i] = endProgress;
  }

  async _sendHome(colour, planes, ms) {
    const keys = planes.map((i) => `${colour}-${i}`);
    const starts = keys.map((k) => ({ ...(this.vis[k] || { x: 0, y: 0, a: 0, s: 1 }) }));
    const dest = planes.map((i) => this.point(colour, -1, i));
    for (const key of keys) this.els[key]?.classList.add("captured");
    await this.tween(ms, (k) => {
      const e = ease(k);
      keys.forEach((key, n) => this._place(key, {
        x: lerp(starts[n].x, dest[n][0], e), y: lerp(starts[n].y, dest[n][1], e),
        a: starts[n].a + 360 * e, s: lerp(starts[n].s, 1, e), lift: 0.3 * Math.sin(Math.PI * k),
      }));
    });
    for (const key of keys) this.els[key]?.classList.remove("captured");
    for (const i of planes) this.pos[colour][i] = -1;
  }

  _raise(key) {
    const el = this.els[key];
    if (el && el.parentNode) el.parentNode.append(el);
  }

  _raiseLegal() {
    for (const key of this.legal.keys()) this._raise(key);
  }

  _fxDone(el, ms) { setTimeout(() => el.remove(), Math.max(60, ms)); }

  _flash(q, colour, kind, f) {
    if (f <= 0 || this.hurry) return;
    const el = s("circle", { cx: q[0], cy: q[1], r: 0.45, class: `fx-ring fx-${kind}`, stroke: PALETTE[colour].dark });
    this.gFx.append(el);
    this._fxDone(el, 700);
  }

  _burst(q, colour, f) {
    if (f <= 0 || this.hurry) return;
    const g = s("g", { class: "fx-burst", transform: `translate(${q[0]} ${q[1]})` });
    for (let k = 0; k < 8; k++) {
      const a = (k * Math.PI) / 4;
      g.append(s("line", { x1: Math.cos(a) * 0.25, y1: Math.sin(a) * 0.25, x2: Math.cos(a) * 0.6, y2: Math.sin(a) * 0.6, stroke: PALETTE[colour].dark }));
    }
    this.gFx.append(g);
    this._fxDone(g, 700);
  }

  _sparkle(q, colour, f) {
    if (f <= 0 || this.hurry) return;
    const g = s("g", { class: "fx-sparkle", transform: `translate(${q[0]} ${q[1]})` });
    g.append(s("path", { d: starPath(0.55, 0.2), fill: PALETTE[colour].glow, stroke: PALETTE[colour].main, "stroke-width": 0.05 }));
    this.gFx.append(g);
    this._fxDone(g, 900);
  }

  // ------------------------------------------------------------ legal moves and preview

  /** Whose turn it is, on the board itself (the side panel sits below it on a phone):
   *  that colour's corner glows. */
  setTurn(colour) {
    if ((this.svg.dataset.turn || "") === (colour || "")) return;
    this.svg.dataset.turn = colour || "";
    for (const [c, yard] of Object.entries(this.yards)) yard.classList.toggle("turn", c === colour);
  }

  /** moves: the snapshot's list for `colour`; onPick(move) is called on a click or key. */
  setLegal(colour, moves, onPick) {
    const focused = this.svg.contains(document.activeElement) && document.activeElement !== this.svg;
    this.clearPreview();
    this._closeChooser();
    for (const el of Object.values(this.els)) {
      el.removeAttribute("data-legal");
      el.removeAttribute("tabindex");
      el.removeAttribute("role");
      el.removeAttribute("aria-label");
      el.classList.remove("legal");
    }
    this.legal = new Map();
    this.legalColour = colour;
    this.onPick = onPick;
    for (const move of moves || []) {
      for (const i of move.planes || [move.plane]) {
        const key = `${colour}-${i}`;
        const el = this.els[key];
        if (!el) continue;
        this.legal.set(key, move);
        el.setAttribute("data-legal", "true");
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "button");
        el.setAttribute("aria-label", t("board.plane-label", { colour: t(`colour.${colour}`), n: i + 1 }));
        el.classList.add("legal");
      }
    }
    this._raiseLegal();
    // a plane that had the keyboard's focus and is no longer to be moved hands it on
    // (the first plane to move now, else the board): focus never falls to the page
    if (focused && !(document.activeElement instanceof Element && document.activeElement.getAttribute("tabindex") === "0")) {
      const next = this.svg.querySelector(".plane.legal");
      (next || this.svg).focus();
    }
  }

  legalMoveFor(index) {
    return this.legal.get(`${this.legalColour}-${index}`) || null;
  }

  _pick(colour, i) {
    const move = this.legal.get(`${colour}-${i}`);
    if (move && this.onPick) { this.clearPreview(); this.onPick(move); }
  }

  /** A tap that misses every plane picks the legal plane nearest to it, within reach:
   *  on a phone a plane is about 22 px across, a finger needs 44. When two different
   *  moves are about as near, a chooser asks which. */
  _tapNear(e) {
    if (!this.legal.size || !this.onPick) return;
    if (e.target.closest && e.target.closest(".plane.legal")) return;  // the plane's own click
    this._closeChooser();
    const cell = this.svg.getBoundingClientRect().width / 15.1;
    const reach = Math.max(TAP_REACH_PX, cell * 0.6);
    const near = [];
    for (const [key, move] of this.legal) {
      const box = this.els[key].querySelector(".plane-hit").getBoundingClientRect();
      const d = Math.hypot(e.clientX - (box.left + box.width / 2), e.clientY - (box.top + box.height / 2));
      if (d <= reach) near.push({ key, move, d });
    }
    near.sort((a, b) => a.d - b.d);
    const seen = new Set();
    const choices = near.filter(({ move }) => {  // planes moving together, or alike, are one choice
      const same = move.choice;  // the server's word: moves alike are one choice (docs/protocol.md)
      return !seen.has(same) && seen.add(same);
    });
    if (!choices.length) return;
    if (choices.length === 1 || choices[1].d - choices[0].d > AMBIGUOUS_PX) {
      this.clearPreview();
      this.onPick(choices[0].move);
      return;
    }
    this._openChooser(choices.slice(0, 4), e);
  }

  _openChooser(choices, e) {
    const frame = this.svg.parentElement;
    if (!frame) return;
    const at = frame.getBoundingClientRect();
    const colour = this.legalColour;
    const below = e.clientY - at.top < 140 ? " below" : "";  // near the top edge: open downwards
    this.chooser = h("div", { class: `plane-chooser${below}`, role: "group", "data-testid": "plane-chooser", "aria-label": t("board.choose"),
      style: `left:${e.clientX - at.left}px;top:${e.clientY - at.top}px` },
      ...choices.map(({ key, move }) => h("button", { class: "btn", type: "button", "data-testid": `choose-${key}`,
        onclick: (ev) => { ev.stopPropagation(); this._closeChooser(); this.clearPreview(); this.onPick(move); },
        onmouseenter: () => this.preview(colour, move) },
        colourIcon(colour, 16), t("board.plane-label", { colour: t(`colour.${colour}`), n: Number(key.split("-")[1]) + 1 }))));
    frame.append(this.chooser);
  }

  _closeChooser() {
    if (this.chooser) { this.chooser.remove(); this.chooser = null; }
  }

  _hover(colour, i, on) {
    const move = this.legal.get(`${colour}-${i}`);
    if (!on || !move) { this.clearPreview(); return; }
    this.preview(colour, move);
  }

  clearPreview() {
    this.gPreview.replaceChildren();
    for (const el of this.svg.querySelectorAll(".plane.threatened")) el.classList.remove("threatened");
    this.svg.classList.remove("previewing");
  }

  /** Show where a legal move goes: its path, a ghost at `to`, captures and specials. */
  preview(colour, move) {
    this.clearPreview();
    const p = PALETTE[colour];
    const plane = move.plane;
    let cur = this.point(colour, move.from, plane);
    let d = `M${cur[0]},${cur[1]}`;
    const dots = [];
    const tags = [];
    for (const ev of move.events || []) {
      if (ev.type === "launch") {
        const q = this.point(colour, 0, plane); d += ` L${q[0]},${q[1]}`; cur = q;
      } else if (ev.type === "step") {
        const q = this.point(colour, ev.progress, plane); d += ` L${q[0]},${q[1]}`; dots.push(q); cur = q;
      } else if (ev.type === "jump") {
        const q = this.point(colour, ev.end, plane);
        const mx = (cur[0] + q[0]) / 2, my = (cur[1] + q[1]) / 2;
        const nx = -(q[1] - cur[1]) * 0.35, ny = (q[0] - cur[0]) * 0.35;
        d += ` Q${mx + nx},${my + ny} ${q[0]},${q[1]}`; tags.push(["jump", q]); cur = q;
      } else if (ev.type === "flight") {
        const fl = this.layout.colours[colour].flight;
        d += ` L${fl.start[0]},${fl.start[1]} Q${fl.control[0]},${fl.control[1]} ${fl.end[0]},${fl.end[1]}`;
        tags.push(["flight", fl.control]); cur = fl.end;
      } else if (ev.type === "bounce") {
        tags.push(["bounce", this.point(colour, this.P.centre)]);
      }
    }
    this.gPreview.append(s("path", { d, class: "preview-path", stroke: p.dark }));
    for (const q of dots) this.gPreview.append(s("circle", { cx: q[0], cy: q[1], r: 0.09, fill: p.dark, opacity: 0.55 }));
    // the ghost plane where the move ends
    const to = this.point(colour, move.to, plane);
    const ghost = s("g", { class: "ghost", transform: `translate(${to[0]} ${to[1]})` });
    ghost.append(s("circle", { r: 0.46, fill: p.glow, stroke: p.dark, "stroke-width": 0.05, "stroke-dasharray": "0.1 0.07" }));
    ghost.append(s("path", { d: PLANE_PATH, fill: p.main, opacity: 0.55, transform: `rotate(${this.heading(colour, move.to, plane)})` }));
    this.gPreview.append(ghost);
    // captures
    for (const cap of move.captures || []) {
      for (const i of cap.planes) {
        const el = this.els[`${cap.colour}-${i}`];
        if (el) el.classList.add("threatened");
        const q = this.point(cap.colour, cap.progress, i);
        this.gPreview.append(targetMark(q));
      }
    }
    if ((move.captures || []).length) tags.push(["capture", to]);
    let stackY = 0;
    for (const [kind, q] of tags) {
      const up = q[1] > 2.5;
      const dy = up ? -0.72 - stackY : 0.72 + stackY;
      const label = t(`board.tag.${kind}`);
      const w = 0.3 + textWidth(label, 0.26);
      const g = s("g", { class: `tag tag-${kind}`, transform: `translate(${Math.min(14.2 - w / 2, Math.max(-0.2 + w / 2, q[0]))} ${q[1] + (kind === "flight" ? 0 : dy)})` });
      g.append(s("rect", { x: -w / 2, y: -0.2, width: w, height: 0.4, rx: 0.2 }), s("text", { y: 0.09, "text-anchor": "middle" }, label));
      this.gPreview.append(g);
      if (kind !== "flight") stackY += 0.46;
    }
    this.svg.classList.add("previewing");
  }
}

function textWidth(text, size) {
  let w = 0;
  for (const ch of text) w += ch.codePointAt(0) > 0x2e80 ? size : size * 0.56;
  return w;
}

function targetMark(q) {
  const g = s("g", { class: "target-mark", transform: `translate(${q[0]} ${q[1]})` });
  g.append(s("circle", { r: 0.42 }), s("path", { d: "M-0.55,0 H-0.28 M0.28,0 H0.55 M0,-0.55 V-0.28 M0,0.28 V0.55" }));
  return g;
}

function starPath(R, r) {
  let d = "";
  for (let k = 0; k < 10; k++) {
    const a = (Math.PI / 5) * k - Math.PI / 2;
    const rad = k % 2 ? r : R;
    d += `${k ? "L" : "M"}${(Math.cos(a) * rad).toFixed(3)},${(Math.sin(a) * rad).toFixed(3)}`;
  }
  return d + "Z";
}
