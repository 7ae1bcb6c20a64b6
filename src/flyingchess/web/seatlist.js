// The seats of the game screen: one row per colour (who plays it, present or away, the
// autopilot, place, planes home, win chance) with the host's menu to give a seat away,
// and the line that says who this page is. Rows are kept between updates, so an open
// seat menu survives the bots' moves. What this page controls is the server's word.
import { t, tNodes, lang } from "./i18n.js";
import { h, toast, colourChip, seatLabel, botLabel, medal, presenceDot, seatAvatar, eyeSvg, PALETTE } from "./ui.js";
import { chanceBar } from "./insight.js";
import { NETWORK_PLAY } from "./transport.js";

/** The colours whose seat waits for a player to join. */
export function openSeats(snap) {
  return snap ? snap.players.filter((c) => snap.seats?.[c]?.kind === "open") : [];
}

/**
 * @param {object} o
 * @param {any} o.app
 * @param {string} o.gameId
 * @param {boolean} o.local  a game served to this machine alone
 * @param {(msg: object) => boolean} o.send  a message to the room (false: not connected)
 */
export function makeSeatList({ app, gameId, local, send }) {
  const bots = (app.meta.bots || []).filter((b) => b.available !== false);
  const centre = app.meta.layout.progress.centre;
  const list = h("ul", { class: "players" });
  const roleLine = h("div", { class: "role-line", "data-testid": "role" });
  const rows = {};

  /** @param {{snap: any, me: any, chances: any}} view  chances: {actions, values} or null */
  function render({ snap, me, chances }) {
    const host = me.role === "host" && snap.phase !== "over";
    const wanted = snap.players.map((colour) => row(colour, host, snap, me, chances));
    if (wanted.length !== list.children.length || wanted.some((li, k) => list.children[k] !== li)) list.replaceChildren(...wanted);
    renderRole(snap, me);
  }

  function row(colour, host, snap, me, chances) {
    let kept = rows[colour];
    if (!kept) {
      const select = h("select", { class: "seat-menu-select", "data-testid": `seat-menu-${colour}`, onchange: () => seatAction(colour, select) });
      kept = rows[colour] = {
        li: h("li", { class: "player", "data-testid": `player-${colour}`, "data-colour": colour, style: `--c:${PALETTE[colour].main};--c-light:${PALETTE[colour].light}` }),
        select,
        menu: h("label", { class: "seat-menu" }, h("span", { class: "seat-menu-icon", "aria-hidden": "true" }, "⋯"), select),
        sig: null,
        seat: null,
      };
    }
    const seat = snap.seats?.[colour] || { kind: "human" };
    kept.seat = seat;
    const planes = snap.state.planes[colour] || [];
    const home = planes.filter((p) => p === centre).length;
    const place = snap.state.ranking.indexOf(colour);
    const mine = me.controls.includes(colour);
    kept.li.className = `player seat-${seat.kind} ${colour === snap.state.turn && snap.phase !== "over" ? "current" : ""} ${mine ? "mine" : ""}`;
    kept.li.dataset.kind = seat.kind;
    kept.li.dataset.connected = seat.connected === undefined ? "" : String(!!seat.connected);
    kept.li.dataset.autopilot = seat.autopilot ? "true" : "false";
    const showDot = typeof seat.connected === "boolean" && (seat.kind === "player" || (seat.kind === "human" && !local));
    const label = seat.kind === "open" ? t("seat.waiting") : seatLabel(seat, !local);
    const sig = JSON.stringify([seat.kind, seat.bot, seat.name, lang(), snap.phase === "over"]);
    if (host && kept.sig !== sig) { fillMenu(kept.select, seat); kept.sig = sig; }
    kept.menu.title = t("seat.menu-for", { colour: t(`colour.${colour}`) });
    kept.select.setAttribute("aria-label", t("seat.menu-for", { colour: t(`colour.${colour}`) }));
    kept.li.replaceChildren(...[
      seatAvatar(colour, seat, 22),
      h("span", { class: "player-name" }, t(`colour.${colour}`)),
      h("span", { class: "player-seat", title: label }, showDot ? presenceDot(seat.connected) : null, h("span", { class: "player-seat-name" }, label)),
      showDot && !seat.connected ? h("span", { class: "badge badge-away", "data-testid": `away-${colour}`, title: t("seat.disconnected") }, t("seat.away")) : null,
      mine ? h("span", { class: "badge badge-you" }, t("seat.you")) : null,
      seat.autopilot ? h("span", { class: "badge badge-auto", title: t("seat.autopilot-help") }, "⚙ ", t("seat.autopilot")) : null,
      place >= 0 ? h("span", { class: "player-medal", title: t("end.place", { n: place + 1 }) }, medal(place + 1)) : null,
      chances && typeof chances.values[colour] === "number" ? chanceBar(colour, chances.values[colour], chances.actions !== snap.actions) : null,
      h("span", { class: "home-pips", title: t("game.home-count", { n: home }) },
        ...planes.map((p) => h("span", { class: `home-pip ${p === centre ? "on" : p >= 0 ? "out" : ""}` }))),
      host ? kept.menu : null].filter(Boolean));
    return kept.li;
  }

  function fillMenu(select, seat) {
    const opts = [h("option", { value: "", selected: true, hidden: true }, t("seat.menu"))];
    for (const b of bots) {
      if (!(seat.kind === "bot" && seat.bot === b.name)) opts.push(h("option", { value: `bot:${b.name}` }, t("seat.menu-bot", { name: botLabel(b.name) })));
    }
    if (seat.kind !== "human") opts.push(h("option", { value: "human" }, t("seat.menu-human")));
    if (seat.kind === "player") opts.push(h("option", { value: "kick" }, t("seat.menu-kick", { name: seatLabel(seat, !local) })));
    else if (seat.kind !== "open" && NETWORK_PLAY) opts.push(h("option", { value: "open" }, t("seat.menu-open")));
    select.replaceChildren(...opts);
    select.value = "";
  }

  function seatAction(colour, select) {
    const value = select.value;
    select.value = "";
    if (!value) return;
    const seat = rows[colour].seat;
    let msg;
    if (value === "kick") msg = { type: "kick", colour };
    else if (value.startsWith("bot:")) msg = { type: "seat", colour, kind: "bot", bot: value.slice(4) };
    else msg = { type: "seat", colour, kind: value };
    if (!send(msg)) { toast(t("error.offline"), "error"); return; }
    if (value === "kick") toast(t("seat.kicked", { name: seatLabel(seat, !local) }));
  }

  function renderRole(snap, me) {
    roleLine.dataset.role = me.role;
    roleLine.replaceChildren();
    if (me.role === "player" && me.colours.length) {
      roleLine.append(h("span", { class: "role-text" }, tNodes("role.player", { player: colourChip(me.colours[0]) })));
    } else if (me.role === "host" && !local) {
      roleLine.append(h("span", { class: "role-text" }, "★ ", t("role.host")));
    } else if (me.role === "spectator") {
      roleLine.append(h("span", { class: "role-text" }, eyeSvg(16), t("role.spectator")));
      if (openSeats(snap).length && snap.phase !== "over") {
        roleLine.append(h("a", { class: "btn btn-small", href: `#/join/${encodeURIComponent(gameId)}`, "data-testid": "take-seat" }, t("role.take-seat")));
      }
    }
    roleLine.hidden = !roleLine.childNodes.length;
  }

  return { list, roleLine, render };
}
