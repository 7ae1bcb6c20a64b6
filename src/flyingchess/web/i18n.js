// Tiny i18n: one JSON catalogue per language, {name} placeholders, live switching.
// A message may have plural forms: `KEY#one`, `KEY#few`, ... (CLDR's categories, chosen
// by Intl.PluralRules from the number in {n}, else {count}); `KEY` itself is the `other`
// form. Numbers in placeholders are written by Intl.NumberFormat in the page's language.
export const LANGS = [
  { code: "en", label: "English" },
  { code: "zh", label: "简体中文", tag: "zh-CN" },
  { code: "vi", label: "Tiếng Việt" },
  { code: "hi", label: "हिन्दी" },
  { code: "es", label: "Español" },
  { code: "pt", label: "Português (Brasil)", tag: "pt-BR" },
  { code: "id", label: "Bahasa Indonesia" },
  { code: "ar", label: "العربية", dir: "rtl" },
];
const STORE_KEY = "flyingchess.lang";
const DEV_KEY = "flyingchess.dev";
const cache = {};
let dict = {};
let fallback = {};
let current = "en";
let plurals = new Intl.PluralRules("en");
let numbers = new Intl.NumberFormat("en");
const listeners = new Set();
const reported = new Set();

/** The language kept from the player's last choice, else the browser's first one this
 * page speaks (a whole tag such as pt-BR or its base, pt), else English. */
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
/** Fetch the other catalogues in the background, so switching language is instant:
 * when the player reaches for a language select (eight catalogues are not worth every
 * first visit's bytes). */
export function prefetchLanguages() {
  if (prefetched) return;
  prefetched = true;
  for (const l of LANGS) if (!cache[l.code]) load(l.code).catch(() => {});
}

/** Switch the page's language; `remember` keeps it as the player's choice (the first
 * visit's language, taken from the browser, is not a choice: it follows the browser). */
export async function setLang(code, remember = true) {
  if (!LANGS.some((l) => l.code === code)) code = "en";
  try {
    fallback = await load("en");
    dict = await load(code);
  } catch {
    dict = fallback;
    code = "en";
  }
  current = code;
  const info = LANGS.find((l) => l.code === code) || LANGS[0];
  plurals = new Intl.PluralRules(info.tag || code);
  numbers = new Intl.NumberFormat(info.tag || code);
  document.documentElement.lang = info.tag || code;
  document.documentElement.dir = info.dir || "ltr";
  if (remember) {
    try { localStorage.setItem(STORE_KEY, code); } catch { /* ignore */ }
  }
  for (const fn of listeners) {
    try { fn(code); } catch (err) { reportLater(err); }
  }
}

export function lang() { return current; }

/** Whether the page lays out right to left now (Arabic). */
export function isRtl() { return (LANGS.find((l) => l.code === current) || {}).dir === "rtl"; }

export function has(key) { return key in dict || key in fallback; }

/** Write a number the page's way (Arabic-Indic digits in Arabic, grouping everywhere). */
export function formatNumber(value) { return numbers.format(value); }

function isDev() {
  try { return localStorage.getItem(DEV_KEY) === "1"; } catch { return false; }
}

/** The message for `key` in the page's language: its plural form for the number in
 * {n} or {count}, else the English one (reported once in the console in development,
 * `localStorage["flyingchess.dev"] = "1"`), else the key itself. */
function message(key, params) {
  const count = typeof params.n === "number" ? params.n : (typeof params.count === "number" ? params.count : null);
  if (count !== null) {
    const variant = `${key}#${plurals.select(count)}`;
    if (variant in dict) return dict[variant];
    if (!(key in dict) && variant in fallback) return fallback[variant];
  }
  if (key in dict) return dict[key];
  if (isDev() && !reported.has(key)) {
    reported.add(key);
    console.warn(`flyingchess: no ${current} message for ${key}; the English one is shown`);
  }
  return key in fallback ? fallback[key] : key;
}

function shown(value) {
  return typeof value === "number" ? numbers.format(value) : String(value);
}

export function t(key, params = {}) {
  const text = message(key, params);
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? shown(params[name]) : m));
}

/** Like t(), but params may be DOM nodes; returns a DocumentFragment. */
export function tNodes(key, params = {}) {
  const text = message(key, params);
  const frag = document.createDocumentFragment();
  let last = 0;
  text.replace(/\{(\w+)\}/g, (m, name, offset) => {
    if (offset > last) frag.append(text.slice(last, offset));
    const value = params[name];
    if (value instanceof Node) frag.append(value.cloneNode(true));
    else frag.append(value === undefined ? m : shown(value));
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
