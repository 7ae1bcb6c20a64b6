// What only the static site does (docs/static-site.md): the server's facts from a file,
// the engine's progress while Python arrives, work offline (a service worker) and its
// updates, and a word on playing across devices, which needs a real server.
import { t, onLangChange } from "./i18n.js";
import { h, toast } from "./ui.js";
import { MODE, NETWORK_PLAY, prepare } from "./transport.js";
import { onEngine } from "./engine.js";

/** A server for games across devices, named when the site was built (or null). */
export const SERVER = MODE === "worker" ? (document.documentElement.dataset.server || null) : null;

/** The server's facts for the first paint: built into the site as meta.json (the same
 * answer the engine gives to GET /api/meta), so the home screen never waits for Python. */
export async function builtMeta() {
  const res = await fetch(new URL("./meta.json", import.meta.url));
  if (!res.ok) throw new Error(`meta.json: HTTP ${res.status}`);
  return res.json();
}

/** Start the engine, show its progress under the header, and go offline-ready. The
 * engine starts once the page itself has loaded: its 13 MB never hold up the first paint. */
export function startSite() {
  if (document.readyState === "complete") prepare();
  else window.addEventListener("load", () => prepare(), { once: true });
  const bar = h("div", { class: "engine-status", "data-testid": "engine-status", role: "status", "aria-live": "polite" });
  const fill = h("span", { class: "engine-fill" });
  const text = h("span", { class: "engine-text" });
  bar.append(h("span", { class: "engine-track", "aria-hidden": "true" }, fill), text);
  document.getElementById("main")?.before(bar);
  let storageWarned = false;
  let last = null;
  const paint = (state) => {
    last = state;
    bar.dataset.state = state.failed ? "failed" : state.ready ? "ready" : "loading";
    bar.hidden = state.ready && !state.failed;
    if (state.failed) {
      text.textContent = t("engine.failed", { reason: state.failed });
      fill.style.width = "0";
    } else if (!state.ready) {
      const share = state.total ? Math.min(1, state.done / state.total) : 0;
      const stageShare = { runtime: 0.1 + 0.6 * share, game: 0.75, python: 0.85 }[state.stage] ?? 0.05;
      fill.style.width = `${Math.round(stageShare * 100)}%`;
      text.textContent = state.total && state.stage === "runtime"
        ? t("engine.downloading", { done: (state.done / 1e6).toFixed(1), total: (state.total / 1e6).toFixed(1) })
        : t("engine.starting");
    }
    if (state.storage && !storageWarned) {
      storageWarned = true;
      toast(t("engine.no-storage"), "error");
    }
  };
  onEngine(paint);
  onLangChange(() => last && paint(last));
  registerServiceWorker();
}

async function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  let registration;
  try {
    registration = await navigator.serviceWorker.register(new URL("../sw.js", import.meta.url), { scope: new URL("../", import.meta.url).pathname });
  } catch (err) {
    console.warn("no offline copy: the service worker was refused", err);
    return;
  }
  // A new version installs in the background and takes over on the next visit, never in
  // the middle of a game: the player is told once it is ready.
  const tellWhenInstalled = (worker) => {
    if (!worker) return;
    worker.addEventListener("statechange", () => {
      if (worker.state === "installed" && navigator.serviceWorker.controller) toast(t("engine.update-ready"));
    });
  };
  if (registration.waiting && navigator.serviceWorker.controller) toast(t("engine.update-ready"));
  tellWhenInstalled(registration.installing);
  registration.addEventListener("updatefound", () => tellWhenInstalled(registration.installing));
}

/** A note saying that games across devices need a server: the one named when the site
 * was built, or how to run one (the command, to copy). */
export function networkPlayNote() {
  if (NETWORK_PLAY) return null;
  if (SERVER) {
    return h("p", { class: "muted site-note", "data-testid": "network-note" }, t("site.server-named"), " ",
      h("a", { href: SERVER, rel: "noopener", "data-testid": "server-link" }, SERVER));
  }
  return h("div", { class: "muted site-note", "data-testid": "network-note" },
    h("p", {}, t("site.needs-server")),
    h("code", { class: "site-command" }, "pip install 'flyingchess[web]' && flyingchess play --lan"),
    h("p", {}, t("site.needs-server-then")));
}
