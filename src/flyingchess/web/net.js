// One game's WebSocket: reconnects with backoff; every (re)connect brings a fresh snapshot
// and, when this browser holds a secret token for the game, says hello with it.
// Also: the tokens this browser holds (localStorage, one entry per game id).

import { reportError } from "./ui.js";
import { openSocket, isOpen, NETWORK_PLAY } from "./transport.js";

const TOKENS_KEY = "flyingchess.tokens";
const NAME_KEY = "flyingchess.name";
const MAX_TOKENS = 200;

// Reconnecting (docs/protocol.md, Connections). The first try comes at once (a room that
// moved to another process is served there already); after that the waits double up to
// RETRY_CAP_MS, each shortened at random by up to 40% so that pages hung up on together
// do not come back together. A connection counts as healthy, and the waits start over,
// only once it has stayed open HEALTHY_MS: a server that accepts and then drops each
// connection (or refuses it, 503) is not hammered. A handshake that takes longer than
// OPEN_TIMEOUT_MS (a process frozen behind the load balancer) is abandoned and retried.
const RETRY_FIRST_MS = 300;
const RETRY_BASE_MS = 500;
const RETRY_CAP_MS = 5000;
const HEALTHY_MS = 10000;
const OPEN_TIMEOUT_MS = 4000;

/** How long to wait before reconnection attempt number `attempt` (0 = the first). */
export function retryDelay(attempt, random = Math.random) {
  if (attempt <= 0) return 100 + random() * (RETRY_FIRST_MS - 100);
  const base = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * Math.pow(2, attempt - 1));
  return base * (0.6 + 0.4 * random());
}

/** Entries by game id kept in localStorage under `key` ({} when absent or unreadable). */
export function readByGame(key) {
  try {
    const data = JSON.parse(localStorage.getItem(key) || "{}");
    return data && typeof data === "object" && !Array.isArray(data) ? data : {};
  } catch { return {}; }
}

/** Store entries by game id, keeping the `kept` most recent (each entry's `at`). */
export function writeByGame(key, all, kept) {
  const ids = Object.keys(all);
  if (ids.length > kept) {
    ids.sort((a, b) => (all[a].at || 0) - (all[b].at || 0));
    for (const id of ids.slice(0, ids.length - kept)) delete all[id];
  }
  try { localStorage.setItem(key, JSON.stringify(all)); } catch { /* storage may be off */ }
}

function readTokens() { return readByGame(TOKENS_KEY); }

function writeTokens(all) { writeByGame(TOKENS_KEY, all, MAX_TOKENS); }

/** {token, role: "host" | "player", colour?} for a game, or null. */
export function getSeatToken(gameId) {
  const entry = readTokens()[gameId];
  return entry && typeof entry.token === "string" && entry.token ? entry : null;
}

export function saveSeatToken(gameId, token, role, colour = null) {
  if (!gameId || typeof token !== "string" || !token) return;
  const all = readTokens();
  all[gameId] = { token, role, colour, at: Date.now() };
  writeTokens(all);
}

export function dropSeatToken(gameId) {
  const all = readTokens();
  if (gameId in all) { delete all[gameId]; writeTokens(all); }
}

export function savedName() {
  try { return localStorage.getItem(NAME_KEY) || ""; } catch { return ""; }
}

export function saveName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch { /* ignore */ }
}

/** The ids of the games this browser holds a token for, newest first (a network server
 * lists only the games a page names). */
export function heldGameIds() {
  const all = readTokens();
  return Object.keys(all).sort((a, b) => (all[b].at || 0) - (all[a].at || 0));
}

/** The header that proves this browser hosts a game (network servers ask for it). */
export function hostHeaders(gameId) {
  const entry = getSeatToken(gameId);
  return entry && entry.role === "host" ? { "X-Host-Token": entry.token } : {};
}

/** Remember the host token a create/rematch/load answer carries. */
export function keepHostToken(data) {
  if (data && data.id && data.host_token) saveSeatToken(data.id, data.host_token, "host");
}

export class GameSocket {
  constructor(gameId, onMessage, onStatus, options = {}) {
    this.gameId = gameId;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.hello = options.hello !== false;
    this.ws = null;
    this.closed = false;
    this.attempt = 0;
    this.timer = null;
    this.fatal = false;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    let ws;
    try {
      ws = openSocket(`/ws/${encodeURIComponent(this.gameId)}`);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    let healthy = null;
    const opening = NETWORK_PLAY ? setTimeout(() => { if (this.ws === ws) ws.close(); }, OPEN_TIMEOUT_MS) : null;
    ws.addEventListener("open", () => {
      clearTimeout(opening);
      healthy = setTimeout(() => { this.attempt = 0; }, HEALTHY_MS);
      const seat = this.hello ? getSeatToken(this.gameId) : null;
      if (seat) ws.send(JSON.stringify({ type: "hello", token: seat.token }));
      this.onStatus("open", !!seat);
    });
    ws.addEventListener("message", (e) => {
      let msg;
      try { msg = JSON.parse(/** @type {MessageEvent} */ (e).data); } catch (err) { reportError(err); return; }
      if (msg && msg.type === "error" && msg.code === "unknown-game") this.fatal = true;
      try { this.onMessage(msg); } catch (err) { reportError(err); }
    });
    ws.addEventListener("close", () => {
      clearTimeout(opening);
      clearTimeout(healthy);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed || this.fatal) return;
      this.onStatus("closed");
      this.retry();
    });
    ws.addEventListener("error", () => { /* close follows */ });
  }

  retry() {
    if (this.closed) return;
    const delay = retryDelay(this.attempt++);
    this.retries = (this.retries || 0) + 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  send(data) {
    if (this.ws && isOpen(this.ws)) {
      this.ws.send(JSON.stringify(data));
      return true;
    }
    return false;
  }

  /** Drop this connection and open a fresh one (a new connection starts as a watcher). */
  reconnect() {
    if (this.closed) return;
    const ws = this.ws;
    this.ws = null;
    if (ws) { try { ws.close(); } catch { /* ignore */ } }
    this.attempt = 0;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), 50);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      try { ws.close(); } catch { /* ignore */ }
    }
  }
}
