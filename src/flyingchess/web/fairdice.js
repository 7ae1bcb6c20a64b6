// Dice a player can check: this page's share in a network game's dice, the commitment
// shown during the game, and the check of every roll once the seed is revealed; the
// construction of docs/records.md §6, recomputed here in the browser.
//
// Web Crypto (crypto.subtle) exists only in secure contexts (https, localhost); a game
// on a LAN is often plain http://192.168.x.y, so a small SHA-256 written out below
// (FIPS 180-4) takes over there. Both give the same bytes; the browser tests check both.
import { t } from "./i18n.js";
import { h } from "./ui.js";
import { readByGame, writeByGame } from "./net.js";

const SCHEME = "hmac-sha256-v1";
const HEX64 = /^[0-9a-f]{64}$/;
const CONTRIBUTION = /^[A-Za-z0-9_-]{8,64}$/;
const ACCEPT_BELOW = 252;
const MAX_CONTRIBUTIONS = 16;
const SEEN_KEY = "flyingchess.dice";
const SEEN_KEPT = 100;

// ------------------------------------------------------------ what this page saw
// A check against the record alone would take the server's word for the commitment: a
// dishonest server could hand out a new seed with a new commitment at the end. So the
// page keeps the commitment it was shown before the game and the share it sent, and the
// check holds the record to them.

function readSeen() { return readByGame(SEEN_KEY); }

/** What this browser saw of a game's dice: {commitment, from, shares: [{value, by}], seated}. */
export function seenDice(gameId) {
  const entry = readSeen()[gameId];
  return entry && typeof entry.commitment === "string" ? entry : null;
}

/** Colours a snapshot shows held by players who joined from their own devices. */
function playerSeats(seats) {
  return Object.entries(seats || {}).filter(([, seat]) => seat && seat.kind === "player").map(([colour]) => colour);
}

/**
 * Remember what this page was shown of a game's dice: the first commitment (and the
 * action it starts at), every colour it saw held by a player, and each share it sent
 * with the name it sent it as ("host" or its colour). The check holds the record to them.
 * @param {string} gameId
 * @param {{commitment: string, from?: number}} dice
 * @param {{seats?: object, share?: {value: string, by: string} | null}} [seen]
 */
export function rememberDice(gameId, dice, { seats = null, share = null } = {}) {
  const all = readSeen();
  const old = all[gameId];
  if (old && old.commitment !== dice.commitment) return;  // the first one seen is the one that counts
  const shares = Array.isArray(old && old.shares) ? old.shares.slice(-8) : [];
  if (share) shares.push(share);
  const seated = new Set(Array.isArray(old && old.seated) ? old.seated : []);
  for (const colour of playerSeats(seats)) seated.add(colour);
  const entry = { commitment: dice.commitment, from: old ? old.from : (dice.from ?? 0), shares, seated: [...seated], at: Date.now() };
  if (old && JSON.stringify({ ...old, at: 0 }) === JSON.stringify({ ...entry, at: 0 })) return;  // nothing new
  all[gameId] = entry;
  writeByGame(SEEN_KEY, all, SEEN_KEPT);
}

/** The share this page sent to a game's dice ({value, by}; by is null for an old entry),
 * or null: the one the server took, when `dice` (a snapshot's) lists it (a page that sent
 * one again after a reconnect had the second refused), else the last one sent. */
export function myShare(gameId, dice = null) {
  const seen = seenDice(gameId);
  const shares = (seen && Array.isArray(seen.shares) ? seen.shares : [])
    .map((share) => typeof share === "string" ? { value: share, by: null } : share);
  const taken = dice && Array.isArray(dice.contributions) ? shares.find((share) => dice.contributions.includes(share.value)) : null;
  return taken || shares[shares.length - 1] || null;
}

/** `flyingchess verify` holding the downloaded record to what this page saw (docs/records.md §6). */
export function verifyCommand(gameId, dice) {
  const seen = seenDice(gameId);
  const parts = ["flyingchess verify", `--commitment ${seen ? seen.commitment : dice.commitment}`];
  const first = seen ? (seen.from ?? 0) : (dice.from ?? 0);
  if (first) parts.push(`--from ${first}`);
  const mine = myShare(gameId, dice);
  if (mine) parts.push(`--share ${mine.value}`, ...(mine.by ? [`--as ${mine.by}`] : []));
  if (seen && Array.isArray(seen.seated)) parts.push(`--seated '${seen.seated.join(",")}'`);
  parts.push(`flyingchess-${gameId}.json`);
  return parts.join(" ");
}

/** A random share for the dice: 32 base64url characters (24 bytes from the OS). */
export function newContribution() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
}

// ------------------------------------------------------------ SHA-256 without Web Crypto
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 of a byte array, in plain JavaScript. @param {Uint8Array} data */
export function sha256Plain(data) {
  const length = data.length;
  const padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
  padded.set(data);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
  view.setUint32(padded.length - 4, (length << 3) >>> 0);
  const hash = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = hash;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    const next = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) hash[i] = (hash[i] + next[i]) >>> 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, hash[i]);
  return out;
}

/** HMAC-SHA-256 (RFC 2104) with a key of at most 64 bytes, in plain JavaScript. */
function hmacPlain(key) {
  const inner = new Uint8Array(64).fill(0x36);
  const outer = new Uint8Array(64).fill(0x5c);
  for (let i = 0; i < key.length; i++) { inner[i] ^= key[i]; outer[i] ^= key[i]; }
  return (message) => {
    const first = new Uint8Array(64 + message.length);
    first.set(inner);
    first.set(message, 64);
    const second = new Uint8Array(96);
    second.set(outer);
    second.set(sha256Plain(first), 64);
    return sha256Plain(second);
  };
}

// ------------------------------------------------------------ the two ways to hash
/** Web Crypto when the page may use it, else the plain implementation above. */
export function hasher(plain = !(globalThis.crypto && crypto.subtle)) {
  if (plain) {
    return {
      name: "plain",
      sha256: async (data) => sha256Plain(data),
      hmac: async (key) => { const sign = hmacPlain(key); return async (message) => sign(message); },
    };
  }
  return {
    name: "webcrypto",
    sha256: async (data) => new Uint8Array(await crypto.subtle.digest("SHA-256", data)),
    hmac: async (key) => {
      const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return async (message) => new Uint8Array(await crypto.subtle.sign("HMAC", imported, message));
    },
  };
}

function fromHex(text) {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function message(nonce, index, attempt) {
  const out = new Uint8Array(44);
  out.set(nonce);
  const view = new DataView(out.buffer);
  view.setUint32(32, Math.floor(index / 0x100000000));
  view.setUint32(36, index >>> 0);
  view.setUint32(40, attempt);
  return out;
}

/** `count` rolls from roll number `first`, as docs/records.md §6 defines them. */
export async function deriveRolls(seedHex, contributions, first, count, use = hasher()) {
  // sorted: the order the server received them in must not matter
  const nonce = await use.sha256(new TextEncoder().encode([...contributions].sort().join("\n")));
  const sign = await use.hmac(fromHex(seedHex));
  const face = async (index) => {
    for (let attempt = 0; ; attempt++) {
      const block = await sign(message(nonce, index, attempt));
      const byte = block.find((b) => b < ACCEPT_BELOW);
      if (byte !== undefined) return 1 + (byte % 6);
    }
  };
  return Promise.all(Array.from({ length: count }, (_, k) => face(first + k)));
}

/**
 * Check a record's rolls against its dice proof, as `flyingchess verify` does, and
 * against what this page saw before the game (`seen`: {commitment, from, shares}).
 * @returns {Promise<{ok: boolean, rolls?: number, first?: number, key?: string, params?: object, text?: string, mine?: boolean}>}
 */
export async function verifyRecord(record, use = hasher(), seen = null) {
  const proof = record && record.dice;
  const actions = record && Array.isArray(record.actions) ? record.actions : [];
  const players = record && Array.isArray(record.players) ? record.players : [];
  if (!proof || typeof proof !== "object") return { ok: false, key: "dice.no-proof" };
  const bad = (field) => ({ ok: false, key: "dice.malformed", params: { field } });
  if (proof.scheme !== SCHEME) return bad("scheme");
  if (typeof proof.commitment !== "string" || !HEX64.test(proof.commitment)) return bad("commitment");
  const first = proof.from === undefined ? 0 : proof.from;
  if (!Number.isInteger(first) || first < 0 || first > actions.length) return bad("from");
  const seated = proof.seated === undefined ? [] : proof.seated;
  if (!Array.isArray(seated) || new Set(seated).size !== seated.length || !seated.every((c) => players.includes(c))) return bad("seated");
  const shares = proof.contributions;
  if (!Array.isArray(shares) || shares.length > MAX_CONTRIBUTIONS || !shares.every((c) => typeof c === "string" && CONTRIBUTION.test(c))) return bad("contributions");
  // each share from the host or a seat a player held, one each: no name of the server's own
  const who = proof.contributors === undefined ? [] : proof.contributors;
  if (!Array.isArray(who) || who.length !== shares.length || new Set(who).size !== who.length || !who.every((w) => w === "host" || seated.includes(w))) return bad("contributors");
  if (seen) {
    if (seen.commitment !== proof.commitment || (seen.from ?? 0) !== first) return { ok: false, key: "dice.not-seen" };
    const stranger = Array.isArray(seen.seated) ? who.find((w) => w !== "host" && !seen.seated.includes(w)) : undefined;
    if (stranger !== undefined) return { ok: false, key: "dice.unseen-contributor", params: { colour: t(`colour.${stranger}`) } };
    const mine = Array.isArray(seen.shares) ? seen.shares : [];
    const filed = (share) => typeof share === "string" ? shares.includes(share) : who[shares.indexOf(share.value)] === share.by;
    if (mine.length && !mine.some(filed)) return { ok: false, key: "dice.share-missing" };
  }
  if (proof.seed === undefined || proof.seed === null) return { ok: false, key: "dice.secret-hidden" };
  if (typeof proof.seed !== "string" || !HEX64.test(proof.seed)) return bad("seed");
  if (toHex(await use.sha256(fromHex(proof.seed))) !== proof.commitment) return { ok: false, key: "dice.bad-seed" };
  const rolls = await deriveRolls(proof.seed, proof.contributions, first, actions.length - first, use);
  for (let k = 0; k < rolls.length; k++) {
    const recorded = actions[first + k] && actions[first + k].roll;
    if (recorded !== rolls[k]) return { ok: false, key: "dice.mismatch", params: { action: first + k, rolled: recorded, expected: rolls[k] } };
  }
  return { ok: true, rolls: rolls.length, first, mine: !!(seen && Array.isArray(seen.shares) && seen.shares.length) };
}

/** The words for a verification's outcome. */
export function verdictText(result) {
  if (result.text) return result.text;
  if (!result.ok) return t(result.key, result.params || {});
  const base = result.first ? t("dice.ok-from", { n: result.rolls, from: result.first }) : t("dice.ok", { n: result.rolls });
  return result.mine ? `${base} ${t("dice.ok-mine")}` : base;
}

// ------------------------------------------------------------ the card in the game panel
/**
 * The fair-dice card: the commitment while the game is played, the check once the seed
 * is out. `fetchRecord` gives the game's record (the one the download link serves).
 * @param {{ gameId: string, fetchRecord(): Promise<any> }} o
 */
export function makeDiceCard({ gameId, fetchRecord }) {
  const title = h("h2", { class: "card-title" });
  const lead = h("p", { class: "dice-lead" });
  const fingerprint = h("code", { class: "dice-fingerprint", "data-testid": "dice-commitment" });
  const status = h("p", { class: "dice-status", "data-testid": "dice-status" });
  const shareLine = h("p", { class: "dice-share", "data-testid": "dice-share", hidden: true });
  const result = h("p", { class: "dice-result", "data-testid": "dice-result", "aria-live": "polite", hidden: true });
  const button = h("button", { class: "btn btn-small", type: "button", "data-testid": "verify-dice", hidden: true, onclick: () => verify() });
  const why = h("summary", {});
  const explain = h("p", { class: "dice-explain" });
  const commandLead = h("p", { class: "dice-explain" });
  const command = h("code", { class: "dice-command", "data-testid": "dice-command" });
  const card = h("div", { class: "card dice-card", "data-testid": "dice-card", hidden: true },
    title, lead, fingerprint, status, shareLine, h("div", { class: "dice-actions" }, button), result,
    h("details", { class: "dice-why" }, why, explain, commandLead, command));
  let dice = null;
  let over = false;
  let last = null;  // the last verification's outcome, kept across a language change

  function render(snap) {
    dice = snap && snap.dice ? snap.dice : null;
    over = !!snap && snap.phase === "over";
    card.hidden = !dice;
    if (!dice) return;
    title.textContent = t("dice.title");
    lead.textContent = t("dice.committed");
    fingerprint.textContent = `${dice.commitment.slice(0, 16)}…${dice.commitment.slice(-8)}`;
    fingerprint.title = dice.commitment;
    const shares = Array.isArray(dice.contributors) ? dice.contributors.length : 0;
    const parts = [t("dice.shares", { n: shares })];
    if (dice.from) parts.push(t("dice.from-action", { from: dice.from }));
    if (!dice.seed) parts.push(t("dice.secret-hidden"));
    else parts.push(over ? t("dice.revealed") : t("dice.abandoned"));
    status.textContent = parts.join(" ");
    rememberDice(gameId, dice, { seats: snap.seats });  // what to hold the record to
    const mine = myShare(gameId, dice);
    shareLine.hidden = !mine;
    if (mine) {
      const code = h("code", { class: "dice-share-value" }, mine.value);
      shareLine.replaceChildren(t("dice.your-share"), " ", code);
    }
    commandLead.textContent = t("dice.command");
    command.textContent = verifyCommand(gameId, dice);
    button.hidden = !dice.seed;
    button.textContent = t("dice.verify");
    why.textContent = t("dice.why");
    explain.textContent = t("dice.explain");
    if (last) showResult(last);
  }

  function showResult(outcome) {
    last = outcome;
    result.hidden = false;
    result.dataset.ok = String(!!outcome.ok);
    result.textContent = `${outcome.ok ? "✓" : "✗"} ${verdictText(outcome)}`;
  }

  async function verify() {
    if (!dice || !dice.seed) return null;
    button.disabled = true;
    result.hidden = false;
    result.textContent = t("dice.checking");
    let outcome;
    try {
      outcome = await verifyRecord(await fetchRecord(), hasher(), seenDice(gameId));
    } catch (err) {  // the record could not be fetched: say why, here and on the end card
      outcome = { ok: false, text: err && err.message ? err.message : String(err) };
    } finally {
      button.disabled = false;
    }
    showResult(outcome);
    return outcome;
  }

  return { card, render, verify };
}
