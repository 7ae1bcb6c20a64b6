// Tiny i18n: one JSON catalogue per language, {name} placeholders, live switching.
export const LANGS = [
  { code: "en", label: "English" },
  { code: "zh", label: "简体中文" },
  { code: "vi", label: "Tiếng Việt" },
];
const STORE_KEY = "flyingchess.lang";
const cache = {};
let dict = {};
let fallback = {};
let current = "en";
const listeners = new Set();

export function detectLang() {
  let saved = null;
  try { saved = localStorage.getItem(STORE_KEY); } catch { /* storage may be off */ }
  if (saved && LANGS.some((l) => l.code === saved)) return saved;
  const wanted = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"]);
  for (const tag of wanted) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGS.some((l) => l.code === base)) return base;
  }
  return "en";
}

function load(code) {
  // one request per catalogue; a failed one is forgotten so it can be asked again
  if (!cache[code]) {
    cache[code] = fetch(new URL(`./i18n/${code}.json`, import.meta.url), { cache: "no-cache" }).then((res) => {
      if (!res.ok) throw new Error(`catalogue ${code} missing`);
      return res.json();
    });
    cache[code].catch(() => { delete cache[code]; });
  }
  return cache[code];
}

let prefetched = false;
/** Fetch the other catalogues in the background, so switching language is instant. */
function prefetchOthers() {
  if (prefetched) return;
  prefetched = true;
  for (const l of LANGS) if (!cache[l.code]) load(l.code).catch(() => {});
}

export async function setLang(code) {
  if (!LANGS.some((l) => l.code === code)) code = "en";
  try {
    fallback = await load("en");
    dict = await load(code);
  } catch {
    dict = fallback;
    code = "en";
  }
  current = code;
  prefetchOthers();
  document.documentElement.lang = code === "zh" ? "zh-CN" : code;
  try { localStorage.setItem(STORE_KEY, code); } catch { /* ignore */ }
  for (const fn of listeners) {
    try { fn(code); } catch (err) { reportLater(err); }
  }
}

export function lang() { return current; }

export function has(key) { return key in dict || key in fallback; }

export function t(key, params = {}) {
  const text = key in dict ? dict[key] : (key in fallback ? fallback[key] : key);
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Like t(), but params may be DOM nodes; returns a DocumentFragment. */
export function tNodes(key, params = {}) {
  const text = key in dict ? dict[key] : (key in fallback ? fallback[key] : key);
  const frag = document.createDocumentFragment();
  let last = 0;
  text.replace(/\{(\w+)\}/g, (m, name, offset) => {
    if (offset > last) frag.append(text.slice(last, offset));
    const value = params[name];
    if (value instanceof Node) frag.append(value.cloneNode(true));
    else frag.append(value === undefined ? m : String(value));
    last = offset + m.length;
    return m;
  });
  if (last < text.length) frag.append(text.slice(last));
  return frag;
}

export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function reportLater(err) {
  // The other listeners still run; the error then surfaces as an uncaught one (in the
  // console, and as the page's notice).
  setTimeout(() => { throw err; });
}
