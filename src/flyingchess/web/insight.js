// Win chances, hints and the review, as the server works them out with the ace bot's
// network (GET /api/games/{id}/chances, /hint, /analysis). Each answer says which
// position it is about (`actions`); the screens only show an answer about the position
// they show.
import { t } from "./i18n.js";
import { h, s, api, PALETTE, colourChip } from "./ui.js";

const enc = encodeURIComponent;

export function fetchChances(gameId, actions) {
  return api("GET", `/api/games/${enc(gameId)}/chances?actions=${actions}`);
}

export function fetchHint(gameId, actions) {
  return api("GET", `/api/games/${enc(gameId)}/hint?actions=${actions}`);
}

export function fetchReview(gameId) {
  return api("GET", `/api/games/${enc(gameId)}/analysis`);
}

/** A chance as the page writes it: "37%", "<1%" and ">99%" at the ends. */
export function percent(chance) {
  if (chance > 0 && chance < 0.005) return "<1%";
  if (chance < 1 && chance > 0.995) return ">99%";
  return `${Math.round(chance * 100)}%`;
}

/**
 * A decision's best and played chances and what the played move cost, written so the
 * three agree on the page: the cost is the difference of the chances as shown ("59%
 * instead of 46% (−13%)", never "−14%" beside them). Where whole percents would show the
 * same chance twice, one decimal.
 * @param {{chance_best: number, chance_played: number}} d
 */
export function costTexts(d) {
  const whole = [Math.round(d.chance_best * 100), Math.round(d.chance_played * 100)];
  if (whole[0] !== whole[1]) return { best: percent(d.chance_best), played: percent(d.chance_played), cost: `${whole[0] - whole[1]}%` };
  const tenths = [Math.round(d.chance_best * 1000), Math.round(d.chance_played * 1000)];
  const shown = (n) => `${(n / 10).toFixed(1)}%`;
  return { best: shown(tenths[0]), played: shown(tenths[1]), cost: shown(Math.max(0, tenths[0] - tenths[1])) };
}

/** Why a move is good, in words: "captures, safer". */
export function reasonText(reasons) {
  return (reasons || []).map((r) => t(`reason.${r}`)).join(t("reason.joiner"));
}

/** The thin bar under a player's row: their chance to finish first. */
export function chanceBar(colour, chance, stale) {
  const p = PALETTE[colour];
  return h("span", { class: "chance", "data-testid": `chance-${colour}`, "data-stale": stale ? "true" : "false", title: t("game.chance-title", { chance: percent(chance) }), style: `--p:${chance.toFixed(4)};--c:${p.main}` },
    h("span", { class: "chance-track" }, h("span", { class: "chance-fill" })),
    h("span", { class: "chance-text" }, percent(chance)));
}

/**
 * Every player's chance across the game, as lines over the actions, with the big swings
 * marked; a click or a key picks an action. `mark(pos)` shows where the viewer is.
 */
export function chanceChart(review, onPick) {
  const players = review.players;
  const rows = review.chances;
  const n = Math.max(1, rows.length - 1);
  const W = 100, H = 40;
  const x = (i) => (i / n) * W;
  const y = (p) => H - p * H;
  const svg = s("svg", { class: "chance-chart", viewBox: `-1 -2 ${W + 2} ${H + 4}`, preserveAspectRatio: "none", role: "img", "data-testid": "chance-chart", "aria-label": t("review.chart-label") });
  svg.append(s("line", { class: "chart-even", x1: 0, x2: W, y1: y(1 / players.length), y2: y(1 / players.length) }));
  for (const colour of players) {
    const d = rows.map((row, i) => `${i ? "L" : "M"}${x(i).toFixed(2)},${y(row[colour]).toFixed(2)}`).join(" ");
    svg.append(s("path", { class: "chart-line", d, stroke: PALETTE[colour].main, "data-colour": colour }));
  }
  for (const swing of review.swings) {
    const i = swing.index + 1;
    const who = Object.entries(swing.change).reduce((a, b) => (Math.abs(b[1]) > Math.abs(a[1]) ? b : a))[0];
    const mark = s("circle", { class: "chart-swing", cx: x(i), cy: y(rows[i][who]), r: 1.3, fill: PALETTE[swing.colour].main, "data-testid": "swing", "data-step": String(i) });
    mark.append(s("title", {}, `${t(`review.kind.${swing.kinds[0]}`)} · ${t(`colour.${swing.colour}`)}`));
    svg.append(mark);
  }
  const cursor = s("line", { class: "chart-cursor", x1: 0, x2: 0, y1: 0, y2: H });
  svg.append(cursor);
  svg.addEventListener("click", (e) => {
    const box = svg.getBoundingClientRect();
    if (!box.width) return;
    onPick(Math.round(((e.clientX - box.left) / box.width) * n));
  });
  const legend = h("div", { class: "chart-legend" }, ...players.map((c) => colourChip(c)));
  const el = h("div", { class: "chart-box" }, svg, legend);
  return {
    el,
    mark(pos) {
      const at = x(Math.min(pos, n));
      cursor.setAttribute("x1", String(at));
      cursor.setAttribute("x2", String(at));
    },
  };
}

/** The game's worst mistakes, each a button that goes to the action. */
export function mistakeList(review, onPick) {
  const byIndex = new Map(review.decisions.map((d) => [d.index, d]));
  const list = h("ol", { class: "mistakes", "data-testid": "mistakes" });
  for (const index of review.mistakes) {
    const d = byIndex.get(index);
    if (!d) continue;
    const played = d.played === null ? t("review.passed") : t("review.plane", { n: d.played + 1 });
    list.append(h("li", {},
      h("button", { class: "mistake", type: "button", "data-testid": "mistake", "data-step": String(d.index + 1), onclick: () => onPick(d.index + 1) },
        h("span", { class: "mistake-head" }, colourChip(d.colour), h("span", { class: "mistake-roll" }, t("review.rolled", { n: d.roll }))),
        h("span", { class: "mistake-text" }, t("review.mistake", {
          played, best: t("review.plane", { n: d.best + 1 }), why: reasonText(d.reasons), cost: costTexts(d).cost,
        })))));
  }
  if (!list.children.length) list.append(h("li", { class: "muted" }, t("review.no-mistakes")));
  return list;
}
