// Join a room (#/join/ID): see who plays and the rules, type a name, take a free seat or watch.
import { GameSocket, getSeatToken, saveSeatToken, savedName, saveName } from "./net.js";
import { t, has, onLangChange } from "./i18n.js";
import { missingCard } from "./cards.js";
import { h, toast, errorText, colourIcon, seatLabel, rulesSummary, presenceDot, eyeSvg, clockSvg, PALETTE } from "./ui.js";


export function mountJoin(root, app, gameId) {
  const NAME_LIMIT = app.meta.limits.name;  // the server's (GET /api/meta)
  let destroyed = false;
  let game = null;
  let missing = false;
  let chosen = null;
  let busy = false;
  let error = "";
  let name = savedName();
  const held = getSeatToken(gameId);
  const gameHref = `#/game/${encodeURIComponent(gameId)}`;

  const screen = h("section", { class: "screen join-screen" });
  root.replaceChildren(screen);

  const nameInput = h("input", { class: "text-input", id: "join-name", type: "text", maxlength: String(NAME_LIMIT), autocomplete: "nickname",
    "data-testid": "join-name", enterkeyhint: "go",
    oninput: () => { name = nameInput.value; if (error) { error = ""; paintError(); } paintSubmit(); } });
  nameInput.value = name;
  const errorBox = h("p", { class: "join-error", role: "alert", "data-testid": "join-error", hidden: true });
  const submit = h("button", { class: "btn btn-primary btn-big", type: "submit", "data-testid": "join-submit" });

  // Live seats while the visitor chooses (no hello: this connection only watches, then joins).
  const socket = new GameSocket(gameId, onMessage, null, { hello: false });

  function onMessage(msg) {
    if (destroyed || !msg) return;
    if (msg.type === "snapshot" || msg.type === "update") {
      game = msg.game;
      if (chosen && game.seats?.[chosen]?.kind !== "open") {
        if (!busy) chosen = null;
      }
      const free = freeSeats();
      if (!chosen && free.length === 1) chosen = free[0];  // the only free seat: nothing to choose
      render();
    } else if (msg.type === "joined") {
      busy = false;
      saveSeatToken(gameId, msg.token, "player", msg.colour);
      saveName(name.trim());
      toast(t("join.welcome", { colour: t(`colour.${msg.colour}`) }));
      app.go(gameHref);
    } else if (msg.type === "error") {
      if (msg.code === "unknown-game") { missing = true; render(); return; }
      busy = false;
      error = msg.code === "seat-taken" ? t("join.seat-taken")
        : msg.code === "bad-message" ? t("join.bad-name", { n: NAME_LIMIT })
          : errorText(msg.code, msg.message);
      if (msg.code === "seat-taken") chosen = null;
      render();
      toast(error, "error");
    }
  }

  function freeSeats() {
    return game ? game.players.filter((c) => game.seats?.[c]?.kind === "open") : [];
  }

  function cleanName() {
    return name.replace(/\s+/g, " ").trim();
  }

  function paintError() {
    errorBox.textContent = error;
    errorBox.hidden = !error;
  }

  function paintSubmit() {
    const n = cleanName().length;
    submit.disabled = busy || !chosen || n < 1 || n > NAME_LIMIT;
  }

  function join() {
    const clean = cleanName();
    if (clean.length < 1 || clean.length > NAME_LIMIT) { error = t("join.bad-name", { n: NAME_LIMIT }); paintError(); nameInput.focus(); return; }
    if (!chosen) { error = t("join.pick-seat"); paintError(); return; }
    if (busy) return;
    name = clean;
    if (!socket.send({ type: "join", colour: chosen, name: clean })) { toast(t("error.offline"), "error"); return; }
    busy = true;
    paintSubmit();
  }

  function seatButton(colour) {
    const seat = game.seats?.[colour] || { kind: "human" };
    const free = seat.kind === "open";
    const on = chosen === colour;
    const who = free ? t("join.free") : seatLabel(seat, true);
    return h("button", {
      class: `join-seat ${free ? "free" : "taken"} ${on ? "on" : ""}`, type: "button", "data-testid": `join-seat-${colour}`,
      "data-colour": colour, "aria-pressed": free ? String(on) : null, disabled: !free || busy,
      style: `--c:${PALETTE[colour].main};--c-light:${PALETTE[colour].light};--c-dark:${PALETTE[colour].dark}`,
      onclick: () => { chosen = colour; error = ""; render(); nameInput.value || nameInput.focus(); },
    },
    h("span", { class: "join-seat-icon" }, colourIcon(colour, 26)),
    h("span", { class: "join-seat-text" },
      h("strong", {}, t(`colour.${colour}`)),
      h("span", { class: "join-seat-who" },
        !free && seat.kind !== "bot" && typeof seat.connected === "boolean" ? presenceDot(seat.connected) : null,
        h("span", { text: who }))),
    free ? h("span", { class: "join-check", "aria-hidden": "true" }, on ? "✓" : "") : null);
  }

  function render() {
    if (destroyed) return;
    const focused = document.activeElement === nameInput;
    submit.replaceChildren(h("span", { "aria-hidden": "true" }, "✈ "), t("join.submit"));
    nameInput.placeholder = t("join.name-placeholder");
    const head = h("div", { class: "setup-head" },
      h("button", { class: "btn btn-ghost", type: "button", onclick: () => app.go("#/") }, h("span", { class: "back-arrow", "aria-hidden": "true" }, "← "), t("nav.home")),
      h("h1", {}, t("join.title")));
    if (missing) {
      screen.replaceChildren(head, missingCard(app));
      return;
    }
    if (!game) {
      screen.replaceChildren(head, h("div", { class: "card" }, h("p", { class: "muted" }, t("home.loading"))));
      return;
    }
    const free = freeSeats();
    const over = game.phase === "over" || game.state?.over;
    const watch = h("button", { class: "btn btn-big", type: "button", "data-testid": "watch", onclick: () => app.go(gameHref) },
      eyeSvg(18), t("join.watch"));

    let formCard;
    if (held) {
      formCard = h("div", { class: "card join-card" },
        h("h2", { class: "card-title" }, t("join.already-title")),
        h("p", { class: "muted" }, held.role === "host" ? t("join.already-host")
          : t("join.already-player", { colour: held.colour ? t(`colour.${held.colour}`) : "" })),
        h("div", { class: "join-actions" }, h("a", { class: "btn btn-primary btn-big", href: gameHref, "data-testid": "join-back" }, t("join.back-to-game")), watch));
    } else if (over || !free.length) {
      formCard = h("div", { class: "card join-card" },
        h("h2", { class: "card-title" }, over ? t("join.over-title") : t("join.full-title")),
        h("p", { class: "muted" }, over ? t("join.over") : t("join.full")),
        h("div", { class: "join-actions" }, over ? h("a", { class: "btn btn-big", href: `#/replay/${encodeURIComponent(gameId)}` }, t("home.replay")) : watch));
    } else {
      paintSubmit();
      paintError();
      formCard = h("form", { class: "card join-card", onsubmit: (e) => { e.preventDefault(); join(); } },
        h("h2", { class: "card-title" }, t("join.your-name")),
        h("label", { class: "join-field", for: "join-name" }, h("span", { class: "sr-only" }, t("join.your-name")), nameInput,
          h("small", { class: "muted" }, t("join.name-help", { n: NAME_LIMIT }))),
        h("h2", { class: "card-title join-pick" }, t("join.pick")),
        h("div", { class: "join-seats" }, ...game.players.map(seatButton)),
        errorBox,
        h("div", { class: "join-actions" }, submit, h("span", { class: "muted join-or" }, t("join.or")), watch));
    }

    const info = h("div", { class: "card join-info" },
      h("h2", { class: "card-title" }, t("join.room"), h("span", { class: "count" }, t("home.actions", { n: game.actions || 0 }))),
      h("p", { class: "muted join-lead" }, free.length && !over ? t("lobby.open-seats", { n: free.length }) : over ? t("hint.over") : t("lobby.full"),
        game.timer ? h("span", { class: "join-timer" }, clockSvg(14), has(`setup.timer-${game.timer}`) ? t(`setup.timer-${game.timer}`) : t("game.timer-left", { n: game.timer })) : null),
      h("ul", { class: "players join-players" }, ...game.players.map((c) => {
        const seat = game.seats?.[c] || { kind: "human" };
        return h("li", { class: `player seat-${seat.kind}`, style: `--c:${PALETTE[c].main};--c-light:${PALETTE[c].light}` },
          colourIcon(c, 18), h("span", { class: "player-name" }, t(`colour.${c}`)),
          h("span", { class: "player-seat" },
            seat.kind !== "open" && seat.kind !== "bot" && typeof seat.connected === "boolean" ? presenceDot(seat.connected) : null,
            h("span", { class: "player-seat-name", text: seat.kind === "open" ? t("seat.waiting") : seatLabel(seat, true) })));
      })),
      h("h2", { class: "card-title join-rules-title" }, t("game.rules")),
      rulesSummary(game.rules, game.rules_name));

    screen.replaceChildren(head, h("div", { class: "join-grid" }, formCard, info));
    if (focused) nameInput.focus({ preventScroll: true });
  }

  const off = onLangChange(render);
  render();
  return { destroy() { destroyed = true; socket.close(); off(); } };
}
