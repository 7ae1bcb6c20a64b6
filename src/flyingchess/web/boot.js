// Runs before the first paint (a classic script in <head>, not a module, so it blocks
// rendering for the microsecond it takes): the theme and the motion setting are on
// <html> before anything is drawn, so a dark-theme player never sees a white flash.
// settings.js keeps them right afterwards (a change in the settings, or in the device's).
(function () {
  var saved = {};
  try { saved = JSON.parse(localStorage.getItem("flyingchess.settings") || "{}") || {}; } catch (e) { saved = {}; }
  var media = function (q) { return !!(window.matchMedia && window.matchMedia(q).matches); };
  var root = document.documentElement;
  root.dataset.theme = saved.theme === "dark" || saved.theme === "light" ? saved.theme
    : (media("(prefers-color-scheme: dark)") ? "dark" : "light");
  root.dataset.motion = saved.motion === "reduced" || saved.motion === "full" ? saved.motion
    : (media("(prefers-reduced-motion: reduce)") ? "reduced" : "full");
})();
// The static site's engine (Python in a Web Worker) takes a second or two to start: a
// page opened on a game starts it now, before the page's modules have loaded; the home
// screen starts it after its first paint instead (engine.js takes this worker over).
(function () {
  var root = document.documentElement;
  if (root.dataset.transport !== "worker" || !/^#\/(game|replay)\//.test(location.hash) || !window.Worker) return;
  try {
    var script = /** @type {HTMLScriptElement} */ (document.currentScript);
    var worker = new Worker(new URL("engine-worker.js", script.src), { type: "module" });
    var early = [];  // what it says before engine.js listens: kept, and handed over with it
    worker.onmessage = function (event) { early.push(event.data); };
    worker.postMessage({ type: "init", version: root.dataset.version || "dev" });
    /** @type {any} */ (window).flyingchessEngine = { worker: worker, early: early };
  } catch (e) { /* engine.js starts it in the usual way */ }
})();
