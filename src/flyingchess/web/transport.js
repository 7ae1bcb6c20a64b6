// How the page reaches the game server, chosen once, here: over the network (HTTP and
// a WebSocket to `flyingchess play` or `serve`), or in this page's own Web Worker, where
// Python runs the same server (the static site, docs/static-site.md). The choice is the
// page's <html data-transport>: "network" as the package serves it, "worker" once
// `flyingchess build-site` has built the static site. Every request and socket of the
// page goes through `send` and `openSocket`; nothing else knows which it is.

/** "network" or "worker". */
export const MODE = document.documentElement.dataset.transport === "worker" ? "worker" : "network";

/** Whether this page can seat players from other devices (open seats, invites, joins):
 * only with a server behind it. */
export const NETWORK_PLAY = MODE === "network";

// the worker's side is loaded only where it runs: the server's page never fetches it
const engine = MODE === "worker" ? await import("./engine.js") : null;

/** A request to the server: {status, body} (status 0: it could not be reached, `error` says why). */
export async function send(method, url, { body = null, headers = {} } = {}) {
  if (engine) return engine.engineFetch(method, url, { body, headers });
  try {
    const init = { method, headers };
    if (body !== null) init.body = body;
    const res = await fetch(url, init);
    return { status: res.status, body: await res.text() };
  } catch (err) {
    return { status: 0, body: "", error: String(err && err.message || err) };
  }
}

/** A WebSocket to `path` (for example /ws/ID): a real one, or the worker's. */
export function openSocket(path) {
  if (engine) return new engine.EngineSocket(path);
  const proto = location.protocol === "https:" ? "wss" : "ws";
  return new WebSocket(`${proto}://${location.host}${path}`);
}

/** Whether a socket from `openSocket` is open. */
export function isOpen(socket) {
  return socket.readyState === 1;  // WebSocket.OPEN and EngineSocket.OPEN alike
}

/** Start whatever the first request would start (the worker's Python), right away. */
export function prepare() {
  if (engine) engine.warmUp();
}
