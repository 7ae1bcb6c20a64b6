// Start-up, hash routing (#/, #/new, #/game/ID, #/join/ID, #/replay/ID), the header and the language switcher.
import { LANGS, detectLang, setLang, lang, t, onLangChange, prefetchLanguages } from "./i18n.js";
import { setBotLevels, h, api, logoSvg, toast, globeSvg, gearSvg, reportError, showFault } from "./ui.js";
import { mountHome } from "./home.js";
import { mountSetup } from "./setup.js";
import { mountGame } from "./game.js";
import { mountReplay } from "./replay.js";
import { mountJoin } from "./join.js";
import { unlockSound, showSoundState } from "./sound.js";
import { applyMotion, applyTheme } from "./settings.js";
import { mountPreferences } from "./preferences.js";
import { MODE } from "./transport.js";

// An error nothing caught is in the console already; the player sees a notice too.
window.addEventListener("error", showFault);
window.addEventListener("unhandledrejection", showFault);
// Sound may start with the first tap or key, never before.
window.addEventListener("pointerdown", unlockSound, { once: true });
window.addEventListener("keydown", unlockSound, { once: true });

const main = document.getElementById("main");
let current = null;

const app = {
  meta: null,
  /** @type {any} */
  site: null,  // site.js, on the static site
  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  setAnimating(on) {
    document.body.dataset.animating = on ? "true" : "false";
  },
};

function buildHeader() {
  const select = h("select", { class: "select lang-select", "data-testid": "lang-select", "aria-label": "Language" },
    ...LANGS.map((l) => h("option", { value: l.code }, l.label)));
  select.value = lang();
  for (const reach of ["pointerenter", "focus", "touchstart"]) select.addEventListener(reach, prefetchLanguages, { once: true, passive: true });
  select.addEventListener("change", () => {
    document.getElementById("toasts")?.replaceChildren();  // a toast in the old language goes
    setLang(select.value);
  });
  const brand = h("a", { class: "brand", href: "#/" }, logoSvg(34), h("span", { class: "brand-name" }));
  const gear = h("a", { class: "btn btn-ghost btn-icon settings-link", href: "#/settings", "data-testid": "settings" }, gearSvg(20));
  const header = h("header", { class: "top" }, brand, h("div", { class: "spacer" }),
    h("label", { class: "lang" }, h("span", { class: "lang-globe", "aria-hidden": "true" }, globeSvg(18)), select), gear);
  const relabel = () => {
    brand.querySelector(".brand-name").textContent = t("app.title");
    select.value = lang();
    select.setAttribute("aria-label", t("nav.language"));
    gear.setAttribute("aria-label", t("prefs.title"));
    gear.title = t("prefs.title");
    document.title = t("app.title");
  };
  onLangChange(relabel);
  relabel();
  document.getElementById("top").replaceWith(header);
}

function route() {
  const hash = location.hash || "#/";
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (current) { try { current.destroy(); } catch (err) { reportError(err); } current = null; }
  app.setAnimating(false);
  window.scrollTo(0, 0);
  let screen = "home";
  if (parts[0] === "new") { screen = "new"; current = mountSetup(main, app); }
  else if (parts[0] === "game" && parts[1]) { screen = "game"; current = mountGame(main, app, parts[1]); }
  else if (parts[0] === "join" && parts[1]) { screen = "join"; current = mountJoin(main, app, parts[1]); }
  else if (parts[0] === "replay" && parts[1]) { screen = "replay"; current = mountReplay(main, app, parts[1]); }
  else if (parts[0] === "settings") { screen = "settings"; current = mountPreferences(main, app); }
  else { current = mountHome(main, app); }
  document.body.dataset.screen = screen;
}

async function start() {
  document.body.dataset.animating = "false";
  showSoundState();
  applyMotion();
  window.matchMedia?.("(prefers-reduced-motion: reduce)").addEventListener?.("change", applyMotion);
  applyTheme();
  window.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", applyTheme);
  await setLang(detectLang(), false);
  buildHeader();
  if (MODE === "worker") {  // the static site: Python starts in the background; the home screen does not wait
    try {
      app.site = await import("./site.js");  // what only the static site does (the server's page never loads it)
      app.site.startSite();
      app.meta = await app.site.builtMeta();
    } catch (err) {
      reportError(err);
      return;
    }
    setBotLevels(app.meta.bots);
    window.addEventListener("hashchange", route);
    route();
    return;
  }
  let res = await api("GET", "/api/meta");
  for (let tries = 0; !res.ok && tries < 20; tries++) {
    main.replaceChildren(h("div", { class: "card missing" }, h("p", {}, t("error.offline"))));
    await new Promise((r) => setTimeout(r, 1000 + tries * 500));
    res = await api("GET", "/api/meta");
  }
  if (!res.ok) { toast(t("error.offline"), "error"); return; }
  app.meta = res.data;
  setBotLevels(app.meta.bots);
  window.addEventListener("hashchange", route);
  route();
}

start();
