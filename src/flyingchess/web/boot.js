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
