// The home screen's lobby: the rooms of this server with seats open to join or games to
// watch, asked for again every few seconds while the screen shows.
import { t } from "./i18n.js";
import { NETWORK_PLAY } from "./transport.js";
import { h, api, colourIcon, seatLabel, presetLabel, presenceDot, eyeSvg, PALETTE } from "./ui.js";
import { getSeatToken } from "./net.js";

const LOBBY_REFRESH_MS = 4000;
let lobbyMissing = !NETWORK_PLAY;  // no lobby behind the static site; an older server without GET /api/rooms: ask once per page load

/**
 * @param {object} o
 * @param {any} o.app
 * @param {() => void} o.onMissing  the home screen should draw itself again (no lobby here after all, or the card is not in it)
 * @param {() => boolean} o.gone  the screen was left
 */
export function makeLobby({ app, onMissing, gone }) {
  let rooms = null;        // null until the first answer
  let lobbyTimer = null;
  const lobbyCard = h("div", { class: "card lobby-card", "data-testid": "lobby" });

  function renderLobby() {
    const list = rooms || [];
    const title = h("h2", { class: "card-title" }, h("span", { class: "lobby-dot", "aria-hidden": "true" }), t("lobby.title"),
      h("span", { class: "count" }, rooms ? String(list.length) : ""));
    const body = rooms === null ? h("p", { class: "muted" }, t("home.loading"))
      : !list.length ? h("p", { class: "muted lobby-empty" }, t("lobby.empty"))
        : h("ul", { class: "game-list room-list" }, ...list.map(roomRow));
    lobbyCard.replaceChildren(h("div", { class: "card-head" }, title, h("small", { class: "muted" }, t("lobby.hint"))), body);
  }

  function roomRow(r) {
    const id = encodeURIComponent(r.id);
    const open = (r.open_seats || []).length;
    const mine = getSeatToken(r.id);
    const players = h("div", { class: "game-players" }, ...(r.players || []).map((c) => {
      const seat = r.seats?.[c];
      const free = seat?.kind === "open";
      return h("span", { class: `seat-pill ${free ? "seat-free" : ""}`, style: `--c:${PALETTE[c].main};--c-light:${PALETTE[c].light}`, title: `${t(`colour.${c}`)} · ${seatLabel(seat, true)}` },
        colourIcon(c, 14), h("span", { class: "pill-name" }, free ? t("lobby.free") : seatLabel(seat, true)),
        !free && seat && seat.kind !== "bot" && typeof seat.connected === "boolean" ? presenceDot(seat.connected) : null);
    }));
    const meta = h("div", { class: "game-meta" },
      h("span", {}, r.rules_name ? presetLabel(r.rules_name) : t("preset.custom")),
      open ? h("span", { class: "open-count" }, t("lobby.open-seats", { n: open })) : h("span", {}, t("lobby.full")),
      h("span", {}, t("home.actions", { n: r.actions || 0 })),
      r.watchers ? h("span", { class: "watchers" }, eyeSvg(14), t("lobby.watchers", { n: r.watchers })) : null);
    const action = mine
      ? h("button", { class: "btn btn-primary", type: "button", "data-testid": "lobby-resume", onclick: () => app.go(`#/game/${id}`) }, t("home.resume"))
      : open
        ? h("button", { class: "btn btn-primary", type: "button", "data-testid": "lobby-join", onclick: () => app.go(`#/join/${id}`) }, t("lobby.join"))
        : h("button", { class: "btn", type: "button", "data-testid": "lobby-watch", onclick: () => app.go(`#/game/${id}`) }, t("lobby.watch"));
    return h("li", { class: `game-item room-item ${open ? "has-open" : ""}`, "data-testid": "room-item", "data-id": r.id, "data-open": String(open) },
      h("div", { class: "game-info" }, players, meta), h("div", { class: "row-actions" }, action));
  }

  async function refreshLobby() {
    clearTimeout(lobbyTimer);
    if (gone() || lobbyMissing) return;
    const res = await api("GET", "/api/rooms");
    if (gone()) return;
    if (res.ok) rooms = Array.isArray(res.data?.rooms) ? res.data.rooms : [];
    else if (res.status === 404 || res.status === 405) { lobbyMissing = true; onMissing(); return; }
    else rooms = rooms || [];
    renderLobby();
    if (!lobbyCard.isConnected && !lobbyMissing) onMissing();  // the home screen draws itself again, with the card
    lobbyTimer = setTimeout(refreshLobby, document.hidden ? LOBBY_REFRESH_MS * 3 : LOBBY_REFRESH_MS);
  }

  return {
    card: lobbyCard,
    render: renderLobby,
    refresh: refreshLobby,
    stop() { clearTimeout(lobbyTimer); },
    get missing() { return lobbyMissing; },
  };
}
