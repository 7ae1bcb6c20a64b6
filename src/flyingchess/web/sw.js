// The static site's service worker (docs/static-site.md): every file of the site is kept
// in a cache named after the site's version, so after the first visit the game opens and
// plays with no network at all. `flyingchess build-site` writes the version and the file
// list into the line below and puts this file at the site's root. A new version installs
// in the background and takes over once no tab of the old one is open (never in the
// middle of a game); the page says so (site.js).
const MANIFEST = { version: "dev", files: [] };
const CACHE = `flyingchess-${MANIFEST.version}`;
const PREFIX = "flyingchess-";
const worker = /** @type {any} */ (self);  // a ServiceWorkerGlobalScope (the page's type library knows windows only)

worker.addEventListener("install", (/** @type {any} */ event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(MANIFEST.files.map((file) => new URL(file, worker.registration.scope).href))),
  );
});

worker.addEventListener("activate", (/** @type {any} */ event) => {
  event.waitUntil(
    caches.keys()
      // older versions' files and Python snapshots go; this version's stay
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith(PREFIX) && !key.startsWith(CACHE)).map((key) => caches.delete(key))))
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener("fetch", (/** @type {any} */ event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== worker.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const hit = await cache.match(request, { ignoreSearch: true })
      || (request.mode === "navigate" ? await cache.match(new URL("./", worker.registration.scope).href) : undefined);
    return hit || fetch(request);
  })());
});
