// The invite card of a game screen: the link (and QR code) that brings friends to the
// game's open seats, with the button that shows it when no seat is open.
import { t } from "./i18n.js";
import { h, toast, copyText, copySvg, linkSvg, plusSvg, svgImageUrl } from "./ui.js";

/** The address to invite with: opened through 127.0.0.1 on a LAN server, the one phones can reach. */
function inviteUrl(meta, gameId) {
  const loopback = /^(localhost|127\.|\[?::1\]?$)/.test(location.hostname);
  const base = meta.public_url || (loopback && meta.invite_base ? meta.invite_base : location.origin);
  return `${base}/#/join/${encodeURIComponent(gameId)}`;
}

export function makeInvite(app, gameId) {
  const meta = app.meta || {};
  let open = false;  // shown by hand (no open seats)
  let last = null;   // what render() was last told
  let qrAsked = false;
  const button = h("button", { class: "btn btn-ghost", type: "button", "data-testid": "invite-toggle", onclick: () => { open = !open; if (last) render(last); } });
  const card = h("div", { class: "card invite-card", "data-testid": "invite", hidden: true });
  const link = h("a", { class: "invite-link", "data-testid": "invite-link", target: "_blank", rel: "noopener" });
  const qr = h("img", { class: "invite-qr", "data-testid": "invite-qr", width: "148", height: "148", alt: "" });
  qr.addEventListener("error", () => { qr.hidden = true; });
  qr.addEventListener("load", () => { qr.hidden = false; });
  let destroyed = false;

  /**
   * @param {{ playing: boolean, openSeats: number, role: string }} view
   *   playing: a game is shown and not over; openSeats: seats waiting for a player
   */
  function render(view) {
    last = view;
    const show = view.playing && (view.openSeats > 0 || open);
    button.hidden = !view.playing || view.openSeats > 0 || view.role === "spectator";
    button.replaceChildren(h("span", { class: "btn-glyph", "aria-hidden": "true" }, plusSvg()), t("invite.button"));
    button.setAttribute("aria-expanded", String(show));
    card.hidden = !show;
    if (!show) return;
    const url = inviteUrl(meta, gameId);
    link.href = url;
    link.textContent = url;
    if (!qrAsked) {
      qrAsked = true;
      qr.hidden = true;
      svgImageUrl(`/api/games/${encodeURIComponent(gameId)}/invite.svg`).then((src) => {
        if (src && !destroyed) qr.src = src;
      });
    }
    qr.alt = t("invite.qr-alt");
    const copy = h("button", { class: "btn btn-small", type: "button", "data-testid": "invite-copy", onclick: async () => {
      toast(await copyText(url) ? t("invite.copied") : t("invite.copy-failed"), "info");
    } }, copySvg(15), t("invite.copy"));
    const local127 = /^(localhost|127\.|\[?::1)/.test(location.hostname);
    card.replaceChildren(
      h("h2", { class: "card-title" }, linkSvg(18), t("invite.title"),
        view.openSeats ? h("span", { class: "count open-count" }, t("lobby.open-seats", { n: view.openSeats })) : null,
        open && !view.openSeats ? h("button", { class: "invite-close", type: "button", "aria-label": t("end.close"), title: t("end.close"), onclick: () => { open = false; render(view); } }, "×") : null),
      h("div", { class: "invite-body" },
        h("div", { class: "invite-text" },
          h("p", { class: "muted invite-help" }, view.openSeats ? t("invite.help") : t("invite.help-full")),
          local127 && !meta.invite_base && view.role === "host" ? h("p", { class: "invite-warn" }, t("invite.loopback")) : null),
        qr),
      h("div", { class: "invite-url" }, link, copy));
  }

  function destroy() {
    destroyed = true;
    if (qr.src.startsWith("blob:")) URL.revokeObjectURL(qr.src);
  }

  return { button, card, render, destroy };
}
