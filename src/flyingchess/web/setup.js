// New game: players, colours, seats (human or a bot from /api/meta), preset and every option.
import { t, has, onLangChange } from "./i18n.js";
import { NETWORK_PLAY } from "./transport.js";
import { settings } from "./settings.js";
import { h, api, toast, errorText, colourIcon, botLabel, presetLabel, optionValueLabel, dieFace, clockSvg, COLOURS, PALETTE } from "./ui.js";
import { keepHostToken } from "./net.js";

const TIMERS = [0, 30, 60, 120];

const NAMES_KEY = "flyingchess.local-names";

function savedNames() {
  try { return JSON.parse(localStorage.getItem(NAMES_KEY) || "{}") || {}; } catch { return {}; }  // unreadable: none
}

function saveNames(names) {
  try { localStorage.setItem(NAMES_KEY, JSON.stringify(names)); } catch { /* storage off: typed again next time */ }
}

export function mountSetup(root, app) {
  const meta = app.meta;
  const bots = (meta.bots || []).filter((b) => b.available !== false);  // a bot whose extra is missing cannot play here
  const missingBots = (meta.bots || []).filter((b) => b.available === false && b.level_name);  // levels not offered here: say so
  // New seats get the "sensible" heuristic bot (kind to newcomers); the strongest otherwise.
  const bestBot = bots.find((b) => b.name === "heuristic") || (bots.length ? bots.reduce((a, b) => (b.level > a.level ? b : a)) : null);
  const presetNames = Object.keys(meta.presets || {});
  const firstPreset = presetNames.includes("classic") ? "classic" : presetNames[0];
  let destroyed = false;
  let busy = false;

  const form = {
    colours: new Set(meta.default_players["4"]),  // four, with bots: the game as it is played
    seats: {},
    names: savedNames(),  // the names typed last time, by colour
    preset: firstPreset,
    rules: clone(meta.presets[firstPreset] || {}),
    timer: 0,
    hints: false,  // a hint button and a review during the game (the ace bot's advice)
  };
  for (const c of COLOURS) form.seats[c] = c === "red" || !bestBot ? "human" : `bot:${bestBot.name}`;

  const screen = h("section", { class: "screen setup-screen" });
  root.replaceChildren(screen);

  function matchPreset() {
    return presetNames.find((n) => sameRules(meta, form.rules, meta.presets[n])) || "custom";
  }
  function ordered() { return COLOURS.filter((c) => form.colours.has(c)); }

  function render() {
    const fk = focusKey(screen);
    draw();
    restoreFocus(screen, fk);
  }

  function draw() {
    const count = form.colours.size;
    const countSel = h("select", { class: "select", id: "player-count", "data-testid": "player-count", onchange: () => {
      const n = Number(countSel.value);
      form.colours = new Set(meta.default_players[String(n)]);
      render();
    } }, ...[2, 3, 4].map((n) => h("option", { value: String(n), selected: n === count }, t("setup.n-players", { n }))));

    const seatRows = COLOURS.map((c) => {
      const on = form.colours.has(c);
      const use = h("input", { type: "checkbox", "data-testid": `use-${c}`, id: `use-${c}`, checked: on, onchange: () => {
        if (use.checked) form.colours.add(c);
        else if (form.colours.size > 2) form.colours.delete(c);
        else { use.checked = true; toast(t("setup.min-two")); return; }
        render();
      } });
      const seat = h("select", { class: "select", "data-testid": `seat-${c}`, "aria-label": t("setup.seat-for", { colour: t(`colour.${c}`) }), disabled: !on, onchange: () => { form.seats[c] = seat.value; render(); } },
        h("option", { value: "human" }, t("seat.human")),
        NETWORK_PLAY ? h("option", { value: "open" }, t("seat.open")) : null,
        ...bots.map((b) => h("option", { value: `bot:${b.name}` }, t("seat.bot", { name: botLabel(b.name) }))));
      seat.value = form.seats[c];
      const bot = form.seats[c].startsWith("bot:") ? bots.find((b) => `bot:${b.name}` === form.seats[c]) : null;
      const desc = bot ? (has(`bot.${bot.name}.desc`) ? t(`bot.${bot.name}.desc`) : bot.description)
        : form.seats[c] === "open" ? t("seat.open-desc") : t("seat.human-desc");
      const name = on && form.seats[c] === "human"
        ? h("input", { class: "input seat-name", type: "text", maxlength: String(meta.limits.name), autocomplete: "off", "data-testid": `name-${c}`,
          placeholder: t("setup.name-placeholder"), "aria-label": t("setup.name-for", { colour: t(`colour.${c}`) }),
          value: form.names[c] || "", oninput: (e) => { form.names[c] = e.target.value; } })
        : null;
      return h("div", { class: `seat-row ${on ? "on" : "off"}`, style: `--c:${PALETTE[c].main};--c-light:${PALETTE[c].light};--c-dark:${PALETTE[c].dark}` },
        h("label", { class: "seat-use", for: `use-${c}` }, use, colourIcon(c, 22), h("span", { class: "seat-colour" }, t(`colour.${c}`))),
        h("div", { class: "seat-choice" }, seat, name, h("small", { class: "muted" }, on ? desc : t("setup.not-playing"))));
    });

    const order = ordered();
    const orderNote = h("p", { class: "muted order-note" }, t("setup.order"), " ",
      ...order.flatMap((c, k) => [k ? h("span", { class: "arrow" }, " → ") : null, h("span", { class: "order-chip", style: `--c:${PALETTE[c].main}` }, colourIcon(c, 12), t(`colour.${c}`))]));

    // rules
    const current = matchPreset();
    const presetSel = h("select", { class: "select", "data-testid": "preset", id: "preset", onchange: () => {
      if (presetSel.value !== "custom" && meta.presets[presetSel.value]) form.rules = clone(meta.presets[presetSel.value]);
      render();
    } },
      ...presetNames.map((n) => h("option", { value: n }, presetLabel(n))),
      h("option", { value: "custom" }, t("preset.custom")));
    presetSel.value = current;
    const presetHelp = h("p", { class: "muted preset-help" }, current !== "custom" && has(`preset.${current}.desc`) ? t(`preset.${current}.desc`) : t("preset.custom.desc"));

    const options = Object.entries(meta.options).map(([name, spec]) => optionControl(name, spec));

    const start = h("button", { class: "btn btn-primary btn-big", type: "button", "data-testid": "start", disabled: busy, onclick: startGame },
      h("span", { "aria-hidden": "true" }, "✈ "), t("setup.start"));

    screen.replaceChildren(
      h("div", { class: "setup-head" },
        h("button", { class: "btn btn-ghost", type: "button", onclick: () => app.go("#/") }, h("span", { class: "back-arrow", "aria-hidden": "true" }, "← "), t("nav.back")),
        h("h1", {}, t("setup.title"))),
      h("div", { class: "setup-grid" },
        h("div", { class: "card" },
          h("h2", { class: "card-title" }, t("setup.players")),
          h("label", { class: "field", for: "player-count" }, h("span", {}, t("setup.player-count")), countSel),
          h("div", { class: "seats" }, ...seatRows),
          orderNote,
          missingBots.length ? h("p", { class: "muted", "data-testid": "bots-missing" },
            t("setup.bots-missing", { names: missingBots.map((b) => botLabel(b.name)).join(", ") })) : null,
          app.site ? app.site.networkPlayNote() : null,
          timerField(),
          app.meta.analysis ? hintsField() : null),
        h("div", { class: "card" },
          h("h2", { class: "card-title" }, t("setup.rules"),
            h("span", { class: `rules-badge ${current === "custom" ? "custom" : ""}`, "data-testid": "rules-state" }, current === "custom" ? t("preset.custom") : presetLabel(current))),
          h("label", { class: "field", for: "preset" }, h("span", {}, t("setup.preset")), presetSel),
          presetHelp,
          h("div", { class: "options" }, ...options))),
      h("div", { class: "setup-actions" }, start));
  }

  function timerField() {
    const sel = h("select", { class: "select", id: "turn-timer", "data-testid": "timer", onchange: () => { form.timer = Number(sel.value); render(); } },
      ...TIMERS.map((v) => h("option", { value: String(v) }, t(`setup.timer-${v}`))));
    sel.value = String(form.timer);
    return h("div", { class: "option option-choice timer-field" },
      h("label", { class: "option-label", for: "turn-timer" }, h("span", { class: "with-icon" }, clockSvg(16), t("setup.timer")), h("small", { class: "muted" }, t("setup.timer-help"))),
      sel);
  }

  function hintsField() {
    const cb = h("input", { type: "checkbox", id: "game-hints", "data-testid": "hints", checked: form.hints, onchange: () => { form.hints = cb.checked; render(); } });
    return h("div", { class: "option option-bool hints-field" },
      h("label", { class: "switch", for: "game-hints" }, cb, h("span", { class: "switch-track", "aria-hidden": "true" }),
        h("span", { class: "option-label" }, h("span", {}, t("setup.hints")), h("small", { class: "muted" }, t("setup.hints-help")))));
  }

  function optionControl(name, spec) {
    const value = form.rules[name];
    const label = t(`opt.${name}`);
    const help = has(`opt.${name}.help`) ? h("small", { class: "muted" }, t(`opt.${name}.help`)) : null;
    if (spec.kind === "set") {
      const set = new Set(value || []);
      const box = h("div", { class: "die-toggles", "data-testid": `option-${name}`, role: "group", "aria-label": label },
        ...spec.values.map((v) => {
          const cb = h("input", { type: "checkbox", value: String(v), checked: set.has(v), "aria-label": `${label}: ${v}`, onchange: () => {
            const now = new Set(form.rules[name] || []);
            if (cb.checked) now.add(v); else now.delete(v);
            form.rules[name] = [...now].sort((a, b) => a - b);
            render();
          } });
          return h("label", { class: `die-toggle ${set.has(v) ? "on" : ""}` }, cb, dieFace(v));
        }));
      return h("div", { class: "option option-set" }, h("div", { class: "option-label" }, h("span", {}, label), help), box);
    }
    if (spec.kind === "bool") {
      const cb = h("input", { type: "checkbox", id: `option-${name}`, "data-testid": `option-${name}`, checked: !!value, onchange: () => { form.rules[name] = cb.checked; render(); } });
      return h("div", { class: "option option-bool" },
        h("label", { class: "switch", for: `option-${name}` }, cb, h("span", { class: "switch-track", "aria-hidden": "true" }), h("span", { class: "option-label" }, h("span", {}, label), help)));
    }
    const sel = h("select", { class: "select", id: `option-${name}`, "data-testid": `option-${name}`, onchange: () => { form.rules[name] = sel.value; render(); } },
      ...spec.values.map((v) => h("option", { value: String(v) }, optionValueLabel(name, v))));
    sel.value = String(value);
    return h("div", { class: "option option-choice" }, h("label", { class: "option-label", for: `option-${name}` }, h("span", {}, label), help), sel);
  }

  async function startGame() {
    if (busy) return;
    const players = ordered();
    const seats = {};
    for (const c of players) {
      const v = form.seats[c];
      seats[c] = v.startsWith("bot:") ? { kind: "bot", bot: v.slice(4) } : { kind: v === "open" ? "open" : "human" };
      const name = (form.names[c] || "").trim();
      if (v === "human" && name) seats[c].name = name;
    }
    const preset = matchPreset();
    const rules = preset !== "custom" ? preset : clone(form.rules);
    busy = true;
    render();
    const body = { players, seats, rules };
    if (app.meta.speeds.includes(settings().speed)) body.speed = settings().speed;  // the pace the player chose last
    if (form.timer) body.timer = form.timer;
    if (form.hints) body.hints = true;
    saveNames(form.names);
    const res = await api("POST", "/api/games", body);
    busy = false;
    if (destroyed) return;
    if (!res.ok) {
      toast(errorText(res.error.code, res.error.message), "error");
      render();
      return;
    }
    keepHostToken(res.data);
    app.go(`#/game/${encodeURIComponent(res.data.id)}`);
  }

  const off = onLangChange(render);
  render();
  return { destroy() { destroyed = true; off(); } };
}

function clone(x) { return JSON.parse(JSON.stringify(x)); }

/** Whether two rule sets agree on every option the server knows. */
function sameRules(meta, a, b) {
  return Object.keys(meta.options).every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

/** Which control of `screen` has the focus (by test id, and a checkbox's value), so a
 *  redraw can give it back (restoreFocus). */
function focusKey(screen) {
  const el = /** @type {HTMLInputElement | null} */ (document.activeElement);
  if (!el || !screen.contains(el)) return null;
  const box = /** @type {HTMLElement | null} */ (el.closest("[data-testid]"));
  return { testid: box ? box.dataset.testid : null, value: el.type === "checkbox" ? el.value : null };
}

function restoreFocus(screen, key) {
  if (!key || !key.testid) return;
  const box = screen.querySelector(`[data-testid="${key.testid}"]`);
  if (!box) return;
  const target = box.matches("input,select,button") ? box : box.querySelector(`input[value="${key.value}"]`);
  if (target) target.focus({ preventScroll: true });
}
