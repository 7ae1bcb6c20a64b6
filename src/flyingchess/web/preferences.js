// The settings screen (#/settings): language, theme, sound, pace, auto-move and animations, kept in
// this browser. The game screen has the sound and auto-move switches too; both read
// and write the same settings (settings.js).
import { LANGS, lang, setLang, t, onLangChange, prefetchLanguages } from "./i18n.js";
import { h } from "./ui.js";
import { settings, saveSetting, applyMotion, applyTheme } from "./settings.js";
import { showSoundState } from "./sound.js";

const MOTIONS = ["system", "reduced", "full"];
const THEMES = ["system", "light", "dark"];
const ANNOUNCE = ["all", "brief", "off"];

export function mountPreferences(root, app) {
  const language = h("select", { class: "select", "data-testid": "pref-language",
    onchange: () => setLang(language.value) }, ...LANGS.map((l) => h("option", { value: l.code }, l.label)));
  language.addEventListener("focus", prefetchLanguages, { once: true });
  const sound = h("input", { type: "checkbox", "data-testid": "pref-sound", checked: settings().sound,
    onchange: () => { saveSetting("sound", sound.checked); showSoundState(); } });
  const autoMove = h("input", { type: "checkbox", "data-testid": "pref-auto-move", checked: settings().autoMove,
    onchange: () => saveSetting("autoMove", autoMove.checked) });
  const motion = h("select", { class: "select", "data-testid": "pref-motion",
    onchange: () => { saveSetting("motion", motion.value); applyMotion(); } });
  const theme = h("select", { class: "select", "data-testid": "pref-theme",
    onchange: () => { saveSetting("theme", theme.value); applyTheme(); } });
  const chances = h("input", { type: "checkbox", "data-testid": "pref-chances", checked: settings().showChances,
    onchange: () => saveSetting("showChances", chances.checked) });
  const announce = h("select", { class: "select", "data-testid": "pref-announce",
    onchange: () => saveSetting("announce", announce.value) });
  const speed = h("select", { class: "select", "data-testid": "pref-speed",
    onchange: () => saveSetting("speed", speed.value) });
  const howTo = h("button", { class: "btn", type: "button", "data-testid": "pref-howto",
    onclick: () => { saveSetting("seenHowTo", false); howTo.disabled = true; } });
  const back = h("button", { class: "btn btn-primary", type: "button", "data-testid": "pref-done",
    onclick: () => (history.length > 1 ? history.back() : app.go("#/")) });
  const title = h("h1", { class: "card-title" });  // the screen's one heading
  const labels = { language: h("span", {}), sound: h("span", {}), autoMove: h("span", {}), motion: h("span", {}), theme: h("span", {}), speed: h("span", {}), chances: h("span", {}), announce: h("span", {}) };
  const row = (label, control) => h("label", { class: "pref-row" }, label, control);
  root.replaceChildren(h("section", { class: "screen prefs-screen" },
    h("div", { class: "card prefs-card" }, title,
      row(labels.language, language),
      row(labels.theme, theme),
      row(labels.sound, sound),
      row(labels.speed, speed),
      row(labels.autoMove, autoMove),
      app.meta.analysis ? row(labels.chances, chances) : null,
      row(labels.motion, motion),
      row(labels.announce, announce),
      h("div", { class: "prefs-actions" }, howTo, back))));

  function relabel() {
    title.textContent = t("prefs.title");
    labels.language.textContent = t("nav.language");
    labels.sound.textContent = t("game.sound");
    labels.autoMove.textContent = t("game.auto-move");
    labels.motion.textContent = t("prefs.motion");
    language.value = lang();
    motion.replaceChildren(...MOTIONS.map((m) => h("option", { value: m }, t(`prefs.motion-${m}`))));
    motion.value = settings().motion;
    labels.theme.textContent = t("prefs.theme");
    labels.speed.textContent = t("prefs.speed");
    labels.chances.textContent = t("game.show-chances");
    speed.replaceChildren(...app.meta.speeds.map((v) => h("option", { value: v }, t(`speed.${v}`))));
    speed.value = app.meta.speeds.includes(settings().speed) ? settings().speed : "normal";
    theme.replaceChildren(...THEMES.map((m) => h("option", { value: m }, t(`prefs.theme-${m}`))));
    theme.value = settings().theme;
    labels.announce.textContent = t("prefs.announce");
    announce.replaceChildren(...ANNOUNCE.map((m) => h("option", { value: m }, t(`prefs.announce-${m}`))));
    announce.value = settings().announce;
    back.textContent = t("prefs.done");
    howTo.textContent = t("prefs.howto");
    howTo.disabled = !settings().seenHowTo;
  }
  const off = onLangChange(relabel);
  relabel();
  return { destroy() { off(); } };
}
