// The chat card and the floating reactions of a shared game. Who may talk and which
// messages are this page's own are the game screen's to say (it knows the seats).
import { t, lang } from "./i18n.js";
import { h, toast, colourIcon, PALETTE } from "./ui.js";

const MAX_CHAT = 120;

/**
 * @param {object} o
 * @param {{ meta: any }} o.app
 * @param {{ send(msg: object): boolean }} o.socket
 * @param {HTMLElement} o.reactLayer  where reactions float (over the board)
 * @param {() => boolean} o.canTalk
 * @param {(msg: any) => boolean} o.isMine
 */
export function makeChat({ app, socket, reactLayer, canTalk, isMine }) {
  const REACTIONS = app.meta.reactions;
  const list = h("ol", { class: "chat-log", "data-testid": "chat-log", "aria-live": "polite" });
  const input = h("input", { class: "chat-input", type: "text", maxlength: String(app.meta.limits.chat), autocomplete: "off", enterkeyhint: "send", "data-testid": "chat-input" });
  const sendBtn = h("button", { class: "btn btn-primary chat-send", type: "submit", "data-testid": "chat-send" });
  const form = h("form", { class: "chat-form", onsubmit: (e) => { e.preventDefault(); send(); } }, input, sendBtn);
  const reactButtons = REACTIONS.map((emoji, i) => h("button", { class: "react-btn", type: "button", "data-testid": `react-${i}`, "data-emoji": emoji, onclick: () => react(emoji) }, emoji));
  const title = h("h2", { class: "card-title" });
  const note = h("small", { class: "muted chat-note" });
  const card = h("div", { class: "card chat-card", "data-testid": "chat" },
    h("div", { class: "card-head" }, title, note),
    list,
    h("div", { class: "react-row", role: "group" }, ...reactButtons),
    form);

  /** Labels in the current language, and what this page may do now. */
  function relabel() {
    title.textContent = t("chat.title");
    sendBtn.textContent = t("chat.send");
    sendBtn.setAttribute("aria-label", t("chat.send"));
    for (const b of reactButtons) b.setAttribute("aria-label", t("chat.react", { emoji: b.dataset.emoji }));
    refresh();
  }

  function refresh() {
    const talk = canTalk();
    input.disabled = !talk;
    sendBtn.disabled = !talk;
    for (const b of reactButtons) b.disabled = !talk;
    input.placeholder = talk ? t("chat.placeholder") : t("chat.spectator");
    input.setAttribute("aria-label", t("chat.placeholder"));
    note.textContent = talk ? "" : t("chat.read-only");
    if (!list.children.length) list.dataset.empty = t("chat.empty");
  }

  function send() {
    const text = input.value.trim().slice(0, app.meta.limits.chat);
    if (!text || !canTalk()) return;
    if (socket.send({ type: "chat", text })) input.value = "";
    else toast(t("error.offline"), "error");
  }

  let reactReady = 0;
  function react(emoji) {
    if (!canTalk()) return;
    const now = performance.now();
    if (now < reactReady) return;
    reactReady = now + 350;
    if (!socket.send({ type: "react", emoji })) toast(t("error.offline"), "error");
  }

  function speakerName(msg) {
    return msg.colour ? String(msg.name || t(`colour.${msg.colour}`)) : t("chat.host");
  }

  function item(msg) {
    const colour = PALETTE[msg.colour] ? msg.colour : null;
    let time = "";
    try { if (msg.at) time = new Intl.DateTimeFormat(lang() === "zh" ? "zh-CN" : lang(), { timeStyle: "short" }).format(new Date(msg.at)); } catch { time = ""; }
    // the name and the text are inserted as text nodes: never markup
    return h("li", { class: `chat-msg ${isMine(msg) ? "mine" : ""}`, "data-testid": "chat-message", style: colour ? `--c:${PALETTE[colour].main};--c-dark:${PALETTE[colour].dark}` : null },
      h("span", { class: "chat-who" }, colour ? colourIcon(colour, 12) : h("span", { class: "chat-star", "aria-hidden": "true" }, "★"),
        h("span", { class: "chat-name", text: speakerName(msg) }), time ? h("time", { class: "chat-time", text: time }) : null),
      h("span", { class: "chat-text", text: String(msg.text ?? "") }));
  }

  /** A message: `live` when it just arrived (the card blinks for others' messages). */
  function add(msg, live) {
    if (typeof msg.text !== "string") return;
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.append(item(msg));
    while (list.children.length > MAX_CHAT) list.firstElementChild.remove();
    if (live && !isMine(msg)) card.classList.add("chat-new");
    setTimeout(() => card.classList.remove("chat-new"), 900);
    if (atBottom || isMine(msg)) requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
  }

  /** The whole conversation so far (a snapshot carries it). */
  function load(messages) {
    list.replaceChildren();
    for (const m of messages.slice(-MAX_CHAT)) add(m, false);
  }

  function floatReaction(msg) {
    if (!REACTIONS.includes(msg.emoji)) return;
    while (reactLayer.children.length > 14) reactLayer.firstElementChild.remove();
    const colour = PALETTE[msg.colour] ? msg.colour : null;
    const el = h("div", { class: "react-float", style: `left:${12 + Math.random() * 76}%;--c:${colour ? PALETTE[colour].main : "#1d2540"};--drift:${(Math.random() * 40 - 20).toFixed(0)}px` },
      h("span", { class: "react-emoji", text: msg.emoji }),
      h("span", { class: "react-name", text: speakerName(msg) }));
    reactLayer.append(el);
    setTimeout(() => el.remove(), 2800);
  }

  return { card, relabel, refresh, add, load, floatReaction };
}
