// The page's side of the engine worker (engine-worker.js): the static site's game server
// runs there, in Python. Started on first use; requests made before it is ready wait for
// it. Its sockets behave like WebSockets (open, message, close), so the client that talks
// to a network server talks to this one unchanged.

let worker = null;
let nextId = 1;
const pending = new Map();     // request id -> resolve
const sockets = new Map();     // socket number -> EngineSocket
const listeners = new Set();   // progress / ready / failed / storage listeners
let state = { stage: "idle", done: 0, total: 0, failed: null, ready: false };

function tell() {
  for (const fn of listeners) fn(state);
}

/** Be told how the engine is getting on ({stage, done, total, ready, failed, storage}). */
export function onEngine(fn) {
  listeners.add(fn);
  fn(state);
  return () => listeners.delete(fn);
}

export function engineState() { return state; }

/** The worker, started on the first call. */
function start() {
  if (worker) return worker;
  const early = /** @type {any} */ (window).flyingchessEngine;  // started by boot.js on a game's page
  if (early && early.worker instanceof Worker) {
    worker = early.worker;
  } else {
    worker = new Worker(new URL("./engine-worker.js", import.meta.url), { type: "module" });
    // the site's version (set by build-site) names the worker's caches, its Python snapshot among them
    worker.postMessage({ type: "init", version: document.documentElement.dataset.version || "dev" });
  }
  state = { ...state, stage: "runtime" };
  worker.onmessage = (event) => receive(event.data);
  if (early) for (const message of early.early.splice(0)) receive(message);
  worker.onerror = (event) => {
    state = { ...state, failed: event.message || "the engine could not start" };
    tell();
    for (const resolve of pending.values()) resolve({ status: 0, headers: {}, body: "", error: state.failed });
    pending.clear();
  };
  // the page may be closed at any moment: what the engine stored goes to IndexedDB first
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") worker.postMessage({ type: "flush" }); });
  tell();
  return worker;
}

function receive(message) {
  if (message.type === "response") {
    const resolve = pending.get(message.id);
    pending.delete(message.id);
    if (resolve) resolve(message);
  } else if (message.type === "socket") {
    const socket = sockets.get(message.socket);
    if (socket) socket.receive(message.event, message.data);
  } else if (message.type === "progress") {
    state = { ...state, stage: message.stage, done: message.done, total: message.total };
    tell();
  } else if (message.type === "ready") {
    state = { ...state, stage: "ready", ready: true, marks: message.marks };  // how long each step of its start took
    tell();
  } else if (message.type === "failed") {
    state = { ...state, failed: message.message };
    tell();
    for (const resolve of pending.values()) resolve({ status: 0, headers: {}, body: "", error: message.message });
    pending.clear();
  } else if (message.type === "storage") {
    state = { ...state, storage: message.ok ? null : message.message };
    tell();
  }
}

/** An HTTP request to the engine: {status, headers, body} (status 0 if the engine failed). */
export function engineFetch(method, url, { body = null, headers = {} } = {}) {
  if (state.failed) return Promise.resolve({ status: 0, headers: {}, body: "", error: state.failed });
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    start().postMessage({ type: "request", id, method, url, body, headers });
  });
}

/** A WebSocket to the engine: the same events and methods the page uses of a real one. */
export class EngineSocket extends EventTarget {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 3;

  constructor(url) {
    super();
    this.number = nextId++;
    this.readyState = EngineSocket.CONNECTING;
    sockets.set(this.number, this);
    if (state.failed) {
      queueMicrotask(() => this.receive("close", 1011));
      return;
    }
    start().postMessage({ type: "open", socket: this.number, url });
  }

  receive(event, data) {
    if (event === "open") {
      this.readyState = EngineSocket.OPEN;
      this.dispatchEvent(new Event("open"));
    } else if (event === "message") {
      this.dispatchEvent(new MessageEvent("message", { data }));
    } else if (event === "close") {
      this.readyState = EngineSocket.CLOSED;
      sockets.delete(this.number);
      this.dispatchEvent(new CloseEvent("close", { code: Number(data) || 1000 }));
    }
  }

  send(text) {
    if (this.readyState !== EngineSocket.OPEN) throw new Error("the socket is not open");
    worker.postMessage({ type: "send", socket: this.number, text });
  }

  close() {
    if (this.readyState === EngineSocket.CLOSED) return;
    this.readyState = EngineSocket.CLOSED;
    sockets.delete(this.number);
    worker.postMessage({ type: "close", socket: this.number });
  }
}

/** Start the engine now (the page calls it at once, so it is ready when a game starts). */
export function warmUp() { start(); }
