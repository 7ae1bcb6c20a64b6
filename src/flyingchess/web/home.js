// Home: the title, new game, the lobby of open rooms, the saved games, and loading a record file.
import { t, tNodes, lang, onLangChange } from "./i18n.js";
import { h, api, toast, errorText, colourIcon, colourChip, seatLabel, presetLabel, logoSvg, medal, PALETTE, recordLink } from "./ui.js";
import { keepHostToken, hostHeaders, heldGameIds } from "./net.js";
import { makeLobby } from "./lobby.js";

export function mountHome(root, app) {
  let games = null;
  let stats = null;        // GET /api/stats: who played and won, over the finished games
  let destroyed = false;
  let loaded = null;      // {id} of a just-loaded record
  let loadError = null;

  const screen = h("section", { class: "screen home-screen" });
  root.replaceChildren(screen);

  const lobby = makeLobby({ app, onMissing: () => render(), gone: () => destroyed });

  const fileInput = h("input", { type: "file", accept: ".json,application/json,text/plain", "data-testid": "load-record", id: "load-record", class: "file-input", onchange: onFile });

  function render() {
    const hero = h("div", { class: "hero" },
      h("div", { class: "hero-logo" }, logoSvg(88)),
      h("div", { class: "hero-text" },
        h("h1", {}, t("app.title")),
        h("p", { class: "tagline" }, t("home.tagline"))),
      h("div", { class: "hero-actions" },
        h("button", { class: "btn btn-primary btn-big", type: "button", "data-testid": "new-game", onclick: () => app.go("#/new") },
          h("span", { "aria-hidden": "true" }, "✈ "), t("home.new-game")),
        h("label", { class: "btn btn-big file-label", for: "load-record" }, h("span", { "aria-hidden": "true" }, "⤒ "), t("home.load-record"), fileInput)));

    const loadBox = h("div", { class: "load-result", "aria-live": "polite" });
    if (loaded) {
      loadBox.append(h("div", { class: "card notice notice-ok" },
        h("strong", {}, t("home.loaded")),
        h("div", { class: "row-actions" },
          h("button", { class: "btn", type: "button", "data-testid": "loaded-watch", onclick: () => app.go(`#/replay/${encodeURIComponent(loaded.id)}`) }, t("home.watch")),
          loaded.over ? null : h("button", { class: "btn btn-primary", type: "button", "data-testid": "loaded-continue", onclick: () => app.go(`#/game/${encodeURIComponent(loaded.id)}`) }, t("home.continue")))));
    }
    if (loadError) {
      loadBox.append(h("div", { class: "card notice notice-error", role: "alert", "data-testid": "load-error" },
        h("strong", {}, t("home.load-failed")), h("p", { class: "error-message" }, loadError.text),
        loadError.detail ? h("details", { class: "error-detail", "data-testid": "load-error-detail" },
          h("summary", {}, t("home.error-details")), h("code", {}, loadError.detail)) : null));
    }

    const unfinished = (games || []).filter((g) => !g.over);
    const finished = (games || []).filter((g) => g.over);
    lobby.render();
    screen.replaceChildren(...[hero, loadBox, lobby.missing ? null : lobby.card,
      section(t("home.unfinished"), unfinished, t("home.none-unfinished")),
      section(t("home.finished"), finished, t("home.none-finished")),
      statsCard()].filter(Boolean));
  }

  function statsCard() {
    if (!stats || !stats.games) return null;
    const line = (label, row) => h("li", { class: "stats-row", "data-testid": "stats-row" }, label,
      h("span", { class: "stats-figure" }, t("home.stats-won", { won: row.won, played: row.played })));
    const playerLabel = (row) => h("span", { class: "stats-who" },
      row.kind === "bot" ? seatLabel({ kind: "bot", bot: row.name }) : row.kind === "player" ? row.name : t("seat.human"));
    return h("div", { class: "card stats-card", "data-testid": "stats" },
      h("h2", { class: "card-title" }, t("home.stats"), h("span", { class: "count" }, t("home.stats-games", { n: stats.games }))),
      h("ul", { class: "stats-list" }, ...stats.players.slice(0, 12).map((row) => line(playerLabel(row), row))),
      h("ul", { class: "stats-list stats-colours" }, ...stats.colours.map((row) =>
        line(h("span", { class: "stats-who" }, colourIcon(row.colour, 14), t(`colour.${row.colour}`)), row))));
  }

  function section(title, list, empty) {
    const box = h("div", { class: "card games-card" }, h("h2", { class: "card-title" }, title, h("span", { class: "count" }, games ? String(list.length) : "")));
    if (games === null) box.append(h("p", { class: "muted" }, t("home.loading")));
    else if (!list.length) box.append(h("p", { class: "muted" }, empty));
    else box.append(h("ul", { class: "game-list" }, ...list.map(row)));
    return box;
  }


  function row(g) {
    const id = encodeURIComponent(g.id);
    const players = h("div", { class: "game-players" }, ...g.players.map((c) => {
      const place = (g.ranking || []).indexOf(c);
      return h("span", { class: `seat-pill ${g.winner === c ? "pill-winner" : ""}`, style: `--c:${PALETTE[c].main};--c-light:${PALETTE[c].light}`, title: `${t(`colour.${c}`)} · ${seatLabel(g.seats?.[c])}` },
        colourIcon(c, 14), h("span", {}, seatLabel(g.seats?.[c])), place >= 0 && g.over ? h("span", { class: "pill-medal" }, medal(place + 1)) : null);
    }));
    const meta = h("div", { class: "game-meta" },
      h("span", {}, g.rules_name ? presetLabel(g.rules_name) : t("preset.custom")),
      h("span", {}, t("home.actions", { n: g.actions })),
      h("span", {}, when(g.updated)),
      g.over && g.winner ? h("span", { class: "won" }, tNodes("home.won", { player: colourChip(g.winner) })) : null);
    const del = h("button", { class: "btn btn-ghost btn-danger", type: "button", "data-testid": "delete", onclick: () => confirmDelete(del, g) }, t("home.delete"));
    const actions = h("div", { class: "row-actions" },
      g.over
        ? h("button", { class: "btn btn-primary", type: "button", "data-testid": "replay", onclick: () => app.go(`#/replay/${id}`) }, t("home.replay"))
        : h("button", { class: "btn btn-primary", type: "button", "data-testid": "resume", onclick: () => app.go(`#/game/${id}`) }, t("home.resume")),
      recordLink(g.id, { class: "btn", "data-testid": "download" }, t("home.download")),
      del);
    return h("li", { class: "game-item", "data-testid": "game-item", "data-id": g.id, "data-over": g.over ? "true" : "false" },
      h("div", { class: "game-info" }, players, meta), actions);
  }

  function confirmDelete(btn, g) {
    if (btn.dataset.armed !== "true") {
      btn.dataset.armed = "true";
      btn.textContent = t("home.delete-confirm");
      btn.classList.add("armed");
      setTimeout(() => { if (btn.isConnected) { btn.dataset.armed = "false"; btn.textContent = t("home.delete"); btn.classList.remove("armed"); } }, 3500);
      return;
    }
    remove(g);
  }

  async function remove(g) {
    const res = await api("DELETE", `/api/games/${encodeURIComponent(g.id)}`, undefined, hostHeaders(g.id));
    if (!res.ok && res.status !== 404) { toast(errorText(res.error.code, res.error.message), "error"); return; }
    toast(t("home.deleted"));
    refresh();
  }

  async function onFile() {
    const file = fileInput.files && fileInput.files[0];
    if (!file) return;
    loaded = null;
    loadError = null;
    let text;
    try { text = await file.text(); } catch { text = null; }
    fileInput.value = "";
    if (destroyed) return;
    let ok = text !== null;
    if (ok) { try { JSON.parse(text); } catch { ok = false; } }
    if (!ok) {
      loadError = { text: t("home.not-json"), detail: "" };
      render();
      toast(t("home.load-failed"), "error");
      return;
    }
    // asked first, so that a refused file is an answer, not a failed request
    const check = await api("POST", "/api/records/check", text);
    if (destroyed) return;
    if (check.ok && !check.data.valid) {
      loadError = { text: t("home.record-refused"), detail: check.data.error.message || "" };
      toast(t("home.load-failed"), "error");
      render();
      return;
    }
    const res = check.ok ? await api("POST", "/api/records", text) : check;
    if (destroyed) return;
    if (!res.ok) {
      loadError = { text: errorText(res.error.code, ""), detail: res.error.message || "" };
      toast(t("home.load-failed"), "error");
      render();
      return;
    }
    keepHostToken(res.data);
    loaded = { id: res.data.id, over: !!res.data.game?.state?.over };
    toast(t("home.loaded"));
    await refresh();
  }

  // On a network server a page sees only the games it holds a token for; the server
  // answers a page of games at a time.
  async function refresh() {
    const network = app.meta && app.meta.local === false;
    const ids = network ? heldGameIds() : null;
    const list = [];
    let offset = 0;
    for (let pages = 0; pages < 10; pages++) {
      if (ids && !ids.length) break;
      const query = new URLSearchParams({ limit: "200", offset: String(offset) });
      if (ids) query.set("ids", ids.join(","));
      const res = await api("GET", `/api/games?${query}`);
      if (destroyed) return;
      if (!res.ok) { toast(errorText(res.error.code, res.error.message), "error"); break; }
      list.push(...(res.data.games || []));
      if (res.data.next == null) break;
      offset = res.data.next;
    }
    games = list;
    render();  // the list first; the statistics follow
    const statsQuery = ids ? `?ids=${encodeURIComponent(ids.slice(0, 200).join(","))}` : "";
    const counted = !ids || ids.length ? await api("GET", `/api/stats${statsQuery}`) : null;
    if (destroyed) return;
    stats = counted && counted.ok ? counted.data : null;
    render();
  }

  const off = onLangChange(render);
  render();
  refresh();
  lobby.refresh();
  return { destroy() { destroyed = true; lobby.stop(); off(); } };
}

/** A time the server gave (ISO text or Unix seconds) in the page's language, or "". */
function when(iso) {
  try {
    const d = typeof iso === "number" ? new Date(iso * 1000) : new Date(iso);
    if (Number.isNaN(d.getTime())) return "";
    return new Intl.DateTimeFormat(lang() === "zh" ? "zh-CN" : lang(), { dateStyle: "medium", timeStyle: "short" }).format(d);
  } catch { return ""; }
}
