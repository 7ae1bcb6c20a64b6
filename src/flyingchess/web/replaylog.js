// The replay's log: each step's lines up to the step shown (marked, scrolled to), each
// step a way back to it.
import { h, formatEvents, PALETTE } from "./ui.js";

/** @param {(step: number) => void} go  show that step */
export function makeReplayLog(go) {
  const list = h("ol", { class: "log replay-log", "data-testid": "log" });

  /** Every step of `steps` (the replay's), in the current language; `shown` marked. */
  function render(steps, shown) {
    list.replaceChildren();
    steps.forEach((st, k) => {
      const li = h("li", { class: "log-step", "data-step": String(k + 1), onclick: () => go(k + 1) },
        h("span", { class: "step-no" }, String(k + 1)),
        h("div", { class: "step-lines" }, ...formatEvents(st.events).filter((l) => l.kind !== "turn").map((l) => h("div", { class: `log-line log-${l.kind}`, style: l.colour ? `--c:${PALETTE[l.colour]?.main}` : null }, l.node))));
      list.append(li);
    });
    mark(shown);
  }

  /** Show the steps up to `shown`, that one marked and scrolled into the list's view. */
  function mark(shown) {
    for (const li of list.children) {
      const n = Number(li.dataset.step);
      li.hidden = n > shown;
      li.classList.toggle("current", n === shown);
    }
    const cur = list.querySelector(".current");
    if (cur) {
      const top = cur.offsetTop;
      if (top < list.scrollTop) list.scrollTop = top - 4;
      else if (top + cur.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + cur.offsetHeight - list.clientHeight + 4;
    } else list.scrollTop = 0;
  }

  return { list, render, mark };
}
