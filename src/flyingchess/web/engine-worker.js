// The game's server, run by Python in a Web Worker (the static site: docs/static-site.md).
// It loads the Python runtime (Pyodide) and the flyingchess package, mounts the browser's
// own storage (IndexedDB) where the games database lives, and answers the page's
// requests and socket messages with the very app `flyingchess play` serves
// (flyingchess/server/transport/in_browser.py). No rule of the game is written here.
//
// Page -> worker: {type: "init", version} first, then {type: "request", id, method, url, body, headers}
//   | {type: "open", socket, url}
//   | {type: "send", socket, text} | {type: "close", socket} | {type: "flush"}
// Worker -> page: {type: "progress", stage, done, total} | {type: "ready"} | {type: "failed", message}
//   | {type: "response", id, status, headers, body} | {type: "socket", socket, event, data}
//   | {type: "storage", ok, message}

const ENGINE = new URL("../engine/", import.meta.url);
const DATA = "/data";
const SAVE_DELAY_MS = 250;  // writes close together are saved to IndexedDB once
const PROGRESS_MS = 250;    // how often a download's progress is told

let app = null;             // the Python InBrowser object, once ready
const waiting = [];         // messages that arrived before it was
/** @type {ReturnType<typeof setTimeout> | undefined} */
let saveTimer;
let saving = Promise.resolve();
let storageOk = true;

const post = (message) => postMessage(message);

let initialised;
const init = new Promise((resolve) => { initialised = resolve; });

self.onmessage = (event) => {
  if (event.data.type === "init") initialised(event.data.version || "dev");
  else if (app) handle(event.data);
  else waiting.push(event.data);
};

async function handle(message) {
  try {
    if (message.type === "request") {
      const answer = await app.request(message.method, message.url, message.body ?? null, JSON.stringify(message.headers || {}));
      const result = answer.toJs({ dict_converter: Object.fromEntries });
      answer.destroy();
      post({ type: "response", id: message.id, ...result });
    } else if (message.type === "open") {
      app.open(message.socket, message.url);
    } else if (message.type === "send") {
      app.message(message.socket, message.text);
    } else if (message.type === "close") {
      app.close(message.socket);
    } else if (message.type === "flush") {
      await save();
    }
  } catch (err) {
    // an error of ours answering a request: the page hears it as a failed request
    if (message.type === "request") post({ type: "response", id: message.id, status: 500, headers: {}, body: JSON.stringify({ error: { code: "internal-error", message: String(err && err.message || err) } }) });
    else throw err;
  }
}

/** Fetch a file with its progress told to the page (so the cache holds it for Pyodide). */
async function fetchWithProgress(url, stage) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url.pathname}: HTTP ${res.status}`);
  const total = Number(res.headers.get("content-length")) || 0;
  if (!res.body) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const chunks = [];
  let done = 0;
  let told = 0;
  for (;;) {
    const part = await reader.read();
    if (part.done) break;
    chunks.push(part.value);
    done += part.value.length;
    if (performance.now() - told > PROGRESS_MS) {  // a few words a second: the page has its own work
      told = performance.now();
      post({ type: "progress", stage, done, total });
    }
  }
  post({ type: "progress", stage, done, total });
  const out = new Uint8Array(done);
  let at = 0;
  for (const chunk of chunks) { out.set(chunk, at); at += chunk.length; }
  return out;
}

function syncfs(pyodide, populate) {
  return new Promise((resolve, reject) => pyodide.FS.syncfs(populate, (err) => (err ? reject(err) : resolve())));
}

let pyodideRef = null;

/** Copy the database file to IndexedDB; a failure is told to the page once, play goes on in memory. */
function save() {
  clearTimeout(saveTimer);
  saving = saving.then(async () => {
    try {
      await syncfs(pyodideRef, false);
      if (!storageOk) { storageOk = true; post({ type: "storage", ok: true, message: "" }); }
    } catch (err) {
      if (storageOk) post({ type: "storage", ok: false, message: String(err && err.message || err) });
      storageOk = false;
    }
  });
  return saving;
}

function saveSoon() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(save, SAVE_DELAY_MS);
}

const marks = [];
const mark = (name) => marks.push([name, Math.round(performance.now())]);
let VERSION = "dev";  // the site's version, told by the page first ({type: "init", version})
let SNAPSHOT_CACHE = "";
const SNAPSHOT = new URL("python-snapshot", ENGINE).href;
const ARCHIVE = "/home/pyodide/flyingchess.zip";
const IMPORTS = `import sys\nsys.path.insert(0, "${ARCHIVE}")\nimport flyingchess.server.transport.in_browser\n`;

/** Python as this site's version left it, imports done (a memory snapshot, made on the
 * first visit and kept in the browser's cache): starting from it skips seconds of work. */
async function readSnapshot() {
  if (VERSION === "dev" || !self.caches) return null;
  try {
    const hit = await (await caches.open(SNAPSHOT_CACHE)).match(SNAPSHOT);
    return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
  } catch { return null; }
}

async function keepSnapshot(bytes) {
  if (VERSION === "dev" || !self.caches) return;
  try {
    await (await caches.open(SNAPSHOT_CACHE)).put(SNAPSHOT, new Response(bytes));
  } catch (err) {
    console.warn("no snapshot kept (the next start takes longer):", err);
  }
}

async function cached(url) {
  try { return self.caches ? !!(await caches.match(url.href)) : false; } catch { return false; }
}

async function startPython(loadPyodide, archive) {
  const options = { indexURL: new URL("pyodide/", ENGINE).href, stdout: () => {}, stderr: (text) => console.warn(text) };
  const snapshot = await readSnapshot();
  if (snapshot) {
    try {
      const pyodide = await loadPyodide({ ...options, _loadSnapshot: snapshot });
      mark("pyodide from snapshot");
      return pyodide;
    } catch (err) {
      mark("snapshot failed: " + String(err).slice(0, 200));
      console.warn("the snapshot did not load: starting afresh", err);
      await caches.delete(SNAPSHOT_CACHE);
    }
  }
  const pyodide = await loadPyodide({ ...options, _makeSnapshot: VERSION !== "dev" });
  mark("pyodide loaded");
  pyodide.FS.writeFile(ARCHIVE, archive);
  pyodide.runPython(IMPORTS);
  mark("imported");
  if (VERSION !== "dev") {
    try {
      keepSnapshot(pyodide.makeMemorySnapshot());
    } catch (err) {
      console.warn("no snapshot made (the next start takes longer):", err);
    }
  }
  return pyodide;
}

async function boot() {
  VERSION = await init;
  SNAPSHOT_CACHE = `flyingchess-${VERSION}-python`;
  mark("boot");
  if (typeof WebAssembly !== "object") throw new Error("this browser has no WebAssembly");
  post({ type: "progress", stage: "runtime", done: 0, total: 0 });
  // the runtime's big file first, with progress (Pyodide then finds it in the cache);
  // from the cache, as on every visit after the first, there is nothing to watch
  const wasm = new URL("pyodide/pyodide.asm.wasm", ENGINE);
  if (!(await cached(wasm))) await fetchWithProgress(wasm, "runtime");
  const archive = await fetchWithProgress(new URL("python.zip", ENGINE), "game");
  mark("fetched");
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", ENGINE).href);
  post({ type: "progress", stage: "python", done: 0, total: 0 });
  const pyodide = await startPython(loadPyodide, archive);
  pyodideRef = pyodide;
  // the package, imported from its zip as needed (a snapshot holds the modules already
  // imported, not the file the others come from)
  pyodide.FS.writeFile(ARCHIVE, archive);
  mark("archive in place");
  pyodide.FS.mkdirTree(DATA);
  try {
    pyodide.FS.mount(pyodide.FS.filesystems.IDBFS, {}, DATA);
    await syncfs(pyodide, true);  // the games saved by earlier visits
  } catch (err) {
    storageOk = false;
    post({ type: "storage", ok: false, message: String(err && err.message || err) });
  }
  mark("storage mounted");
  post({ type: "progress", stage: "game", done: 1, total: 1 });
  const toPage = (socket, event, data) => post({ type: "socket", socket, event, data });
  pyodide.globals.set("to_page", toPage);
  pyodide.globals.set("saved", saveSoon);
  app = await pyodide.runPythonAsync(`
from flyingchess.server.transport.in_browser import InBrowser
app = InBrowser("${DATA}", to_page, saved)
await app.start()
app
`);
  mark("app started");
  post({ type: "ready", marks });
  for (const message of waiting.splice(0)) handle(message);
}

boot().catch((err) => post({ type: "failed", message: String(err && err.message || err) }));
