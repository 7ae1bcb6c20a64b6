// The replay's review (the ace bot's network, when the server can work it out): the
// chances across the game, the worst mistakes, and under the die the verdict on the
// decision of the step shown.
import { t } from "./i18n.js";
import { h, errorText } from "./ui.js";
import { fetchReview, chanceChart, mistakeList, percent, reasonText, costTexts } from "./insight.js";

/**
 * @param {object} o
 * @param {any} o.app
 * @param {string} o.gameId
 * @param {(step: number) => void} o.go  show that step (a point of the chart, a mistake)
 * @param {() => boolean} o.gone  the screen was left
 */
export function makeReview({ app, gameId, go, gone }) {
  let review = null;
  let chart = null;
  let shownStep = 0;
  const title = h("h2", { class: "card-title" });
  const body = h("div", { class: "review-body" });
  const card = h("div", { class: "card review-card", "data-testid": "review", hidden: true }, title, body);
  const verdict = h("div", { class: "verdict", "data-testid": "verdict", hidden: true });

  /** Ask for the review of a game (`game` as the replay has it). */
  async function load(game) {
    // a game with hints off is reviewed once it is over (the server says the same)
    if (!app.meta.analysis || !(game.state.over || game.hints)) return;
    card.hidden = false;
    body.replaceChildren(h("p", { class: "muted" }, t("review.working")));
    const res = await fetchReview(gameId);
    if (gone()) return;
    if (!res.ok) { body.replaceChildren(h("p", { class: "error-message" }, errorText(res.error.code, res.error.message))); return; }
    review = res.data.analysis;
    render();
    show(shownStep);
  }

  function render() {
    if (!review) return;
    chart = chanceChart(review, (n) => go(n));
    chart.mark(shownStep);
    body.replaceChildren(
      h("p", { class: "muted review-help" }, t("review.help")),
      chart.el,
      h("h3", { class: "review-sub" }, t("review.mistakes")),
      mistakeList(review, (n) => go(n)));
  }

  /** Mark `step` on the chart and say what the review thinks of the decision made there. */
  function show(step) {
    shownStep = step;
    if (chart) chart.mark(step);
    const d = review && step > 0 ? review.decisions.find((x) => x.index === step - 1) : null;
    verdict.hidden = !d;
    if (!d) return;
    const shown = costTexts(d);
    // a cost too small to show (both chances the same to a tenth of a point) is no inaccuracy
    const kind = d.cost === 0 ? "best" : shown.cost === "0.0%" ? "close" : d.cost >= 0.02 ? "mistake" : "inaccuracy";
    verdict.dataset.kind = kind;
    const why = reasonText(d.reasons);
    verdict.textContent = kind === "best" ? t("review.was-best", { why, chance: percent(d.chance_best) })
      : kind === "close" ? t("review.about-best", { best: d.best + 1, why, chance: shown.played })
        : t("review.was-not-best", { best: d.best + 1, why, chance: shown.best, played: shown.played, cost: shown.cost });
  }

  function relabel() {
    title.textContent = t("review.title");
    render();
    show(shownStep);
  }

  return { card, verdict, load, show, relabel };
}
