// Shared helpers of the page: the catalogue's texts, DOM builders, the
// token kept on this device, and the HTTP API (docs/api.md). Plain
// JavaScript modules, no build step.

export const TEXTS = JSON.parse(document.getElementById("texts").textContent);
export const LANG = document.documentElement.lang || "en";
export const SVGNS = "http://www.w3.org/2000/svg";

// t returns a text of the catalogue (i18n/en.json, ru.json) with {name}
// placeholders filled. A key the catalogue lacks shows as itself, so a
// missing text is visible, never silently English.
export function t(key, vars) {
  let s = Object.prototype.hasOwnProperty.call(TEXTS, key) ? TEXTS[key] : key;
  // {n:plural=one|other} (Russian: one|few|many) is the number and its
  // noun's form, as in the ledger's event templates (i18n/event.go).
  s = s.replace(/\{(\w+):plural=([^}]*)\}/g, (all, k, forms) => {
    const v = (vars || {})[k];
    return typeof v === "number" ? num(v) + " " + pluralForm(v, forms.split("|")) : all;
  });
  for (const [k, v] of Object.entries(vars || {})) s = s.replaceAll("{" + k + "}", String(v));
  return s;
}

// pluralForm picks a noun's form for v the way i18n/event.go does.
function pluralForm(v, forms) {
  const pick = i => forms[Math.min(i, forms.length - 1)];
  if (v !== Math.trunc(v)) return pick(1);
  const n = Math.abs(v);
  if (LANG !== "ru") return n === 1 ? pick(0) : pick(1);
  if (n % 10 === 1 && n % 100 !== 11) return pick(0);
  if (n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14)) return pick(1);
  return pick(2);
}

// term names a value of a kind (formation, status, role…) in the page's
// language: page.term.<kind>.<value>, else the value itself.
export function term(kind, value) {
  if (value == null || value === "") return "";
  const k = "page.term." + kind + "." + value;
  return Object.prototype.hasOwnProperty.call(TEXTS, k) ? TEXTS[k] : String(value);
}

// num prints a number in the page's language: at most one decimal, a
// decimal comma in Russian.
export function num(v, digits) {
  if (typeof v !== "number" || !isFinite(v)) return String(v);
  const d = digits == null ? 1 : digits;
  return v.toLocaleString(LANG === "ru" ? "ru-RU" : "en-GB", { maximumFractionDigits: d, minimumFractionDigits: 0, useGrouping: false });
}

// clock prints a moment (milliseconds since 1970) as the hour and minute
// of this device's day, in the page's language.
export function clock(ms) {
  return new Date(ms).toLocaleTimeString(LANG === "ru" ? "ru-RU" : "en-GB", { hour: "2-digit", minute: "2-digit" });
}

// length prints a distance in the battle's measurement: 6" or 10 cm.
export function length(v, measurement) {
  return measurement === "cm" ? num(v) + " " + t("page.unit.cm") : num(v) + t("page.unit.in");
}

export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c != null && c !== false) e.append(c);
  return e;
}

// fill replaces box's children with kids, leaving out null and false (the
// page builds optional parts as "cond ? part : null").
export function fill(box, ...kids) {
  box.replaceChildren(...kids.flat().filter(k => k != null && k !== false));
}

export function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null) continue;
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c != null) e.append(c);
  return e;
}

// --- the token on this device ---------------------------------------------
//
// The token is kept in localStorage (or, for a shared device, in
// sessionStorage: gone when the browser closes) with the time it was last
// used; it expires TOKEN_DAYS days after its last use. It travels only in
// the Authorization header, never in a URL. An organiser's link carries it
// in the fragment (#token=...), which browsers never send to the server:
// the page reads it once, keeps it and removes it from the address bar.

export const TOKEN_DAYS = 14;
const TOKEN_KEY = "ledger.token.v2";
const LEGACY_KEY = "ledger.token";
const DAY = 24 * 3600 * 1000;

let tokenNotice = "";

export function takeTokenNotice() { const n = tokenNotice; tokenNotice = ""; return n; }

function readStored(store) {
  try {
    const v = JSON.parse(store.getItem(TOKEN_KEY) || "null");
    return v && typeof v.token === "string" ? v : null;
  } catch (e) { return null; }
}

// loadToken returns the stored token, after adopting one of the page's
// earlier versions (kept under ledger.token) and dropping an expired one.
export function loadToken() {
  const legacy = localStorage.getItem(LEGACY_KEY);
  if (legacy) {
    localStorage.removeItem(LEGACY_KEY);
    if (legacy.trim()) storeToken(legacy.trim(), false);
  }
  for (const store of [sessionStorage, localStorage]) {
    const v = readStored(store);
    if (!v) continue;
    if (store === localStorage && Date.now() - (v.used || v.saved || 0) > TOKEN_DAYS * DAY) {
      store.removeItem(TOKEN_KEY);
      tokenNotice = t("page.token.expired", { days: TOKEN_DAYS });
      continue;
    }
    return v;
  }
  return null;
}

let current = null;

export function token() {
  if (current === null) current = loadToken() || { token: "" };
  return current.token || "";
}

export function tokenShared() { token(); return !!current.shared; }

// storeToken keeps tok on this device: in sessionStorage when shared (the
// device is not the player's own), else in localStorage.
export function storeToken(tok, shared) {
  forgetToken();
  const v = { token: tok, saved: Date.now(), used: Date.now(), shared: !!shared };
  (shared ? sessionStorage : localStorage).setItem(TOKEN_KEY, JSON.stringify(v));
  current = v;
}

// touchToken records that the token was just accepted by the server: its
// lifetime starts again.
export function touchToken() {
  if (!current || !current.token) return;
  current.used = Date.now();
  (current.shared ? sessionStorage : localStorage).setItem(TOKEN_KEY, JSON.stringify(current));
}

// forgetToken removes the token from this device. The heads a page
// witnessed stay: they are what lets this device notice a rewritten
// history (docs/api.md).
export function forgetToken() {
  localStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(LEGACY_KEY);
  current = { token: "" };
}

// takeTokenFromLink reads #token=... from the address, keeps it and takes
// it out of the address bar (and the history entry), before anything is
// fetched.
export function takeTokenFromLink() {
  const h = location.hash.replace(/^#/, "");
  if (!h) return false;
  const params = new URLSearchParams(h);
  const tok = params.get("token");
  if (!tok) return false;
  params.delete("token");
  const rest = params.toString();
  history.replaceState(null, "", location.pathname + location.search + (rest ? "#" + rest : ""));
  storeToken(tok.trim(), params.get("shared") === "1");
  return true;
}

// --- the API -------------------------------------------------------------

export function withLang(path) { return path + (path.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(LANG); }

// Listeners told when the server refuses the token (401): the page then
// asks for a new one (a reissued token makes the old one fail at once).
const unauthorized = new Set();
export function onUnauthorized(fn) { unauthorized.add(fn); }

function headers(accept, json) {
  const h = { "Accept": accept };
  if (json) h["Content-Type"] = "application/json";
  if (token()) h["Authorization"] = "Bearer " + token();
  return h;
}

async function failure(res) {
  const body = await res.json().catch(() => ({}));
  const err = body.error || { status: res.status, message: res.statusText };
  if (!err.status) err.status = res.status;
  if (res.status === 401) unauthorized.forEach(fn => fn(err));
  return err;
}

// api fetches a JSON resource with the token; a failure throws the API's
// error object ({status, code, rule, message, numbers}).
export async function api(path) {
  const res = await fetch(withLang(path), { headers: headers("application/json") });
  if (!res.ok) throw await failure(res);
  return res.json();
}

// apiSVG fetches a picture as text: an <img> could not send the header.
export async function apiSVG(path) {
  const res = await fetch(withLang(path), { headers: headers("image/svg+xml") });
  if (!res.ok) throw await failure(res);
  return res.text();
}

// apiBlob fetches a file (a report) as a Blob, with the token: a plain
// link could not send it.
export async function apiBlob(path, accept) {
  const res = await fetch(withLang(path), { headers: headers(accept) });
  if (!res.ok) throw await failure(res);
  return res.blob();
}

// apiPost posts a body; a refusal throws the API's error.
export async function apiPost(path, body) {
  const res = await fetch(withLang(path), { method: "POST", headers: headers("application/json", true), body: JSON.stringify(body) });
  if (!res.ok) throw await failure(res);
  return res.json().catch(() => ({}));
}

// randomHex returns n random bytes in hex, from the device's own secure
// random source.
export function randomHex(n) {
  const b = new Uint8Array(n);
  crypto.getRandomValues(b);
  return Array.from(b, x => x.toString(16).padStart(2, "0")).join("");
}

// errorText is an error as a person reads it: the rule it cites and the
// server's message in the page's language.
// failedHeading heads a command that did not go through: refused by the
// ledger, or not sent at all (no network: a TypeError from fetch).
export function failedHeading(command, err) {
  return t(err instanceof TypeError ? "page.result.not_sent" : "page.result.refused", { command });
}

export function errorText(err) {
  if (!err) return "";
  if (err instanceof TypeError) return t("page.error.network");
  const msg = err.message || (err.code ? t("error." + err.code) : String(err));
  return (err.rule ? err.rule + ": " : "") + msg;
}

// errorBox shows an error: the rule and message, and the numbers the rules
// gave, each named. Words the server wrote (in the request's language)
// carry the class srv.
export function errorBox(err, cls) {
  const box = el("div", { class: cls || "error", role: "alert", "data-rule": err && err.rule, "data-code": err && err.code,
    "data-offline": err instanceof TypeError ? "true" : null },
    el("span", { class: "msg srv", text: errorText(err) }));
  if (err && err.numbers && Object.keys(err.numbers).length) {
    box.append(el("ul", { class: "numbers", "aria-label": t("page.refusal.numbers") },
      ...Object.keys(err.numbers).sort().map(k => el("li", {}, el("span", { class: "k", text: term("number", k) }), " ", el("b", { text: num(err.numbers[k], 2) })))));
  }
  return box;
}

export function showError(container, err) {
  if (err instanceof TypeError) {
    // A view that could not load: it loads by itself when the network
    // returns (app.js).
    fill(container, el("div", { class: "error", role: "alert", "data-offline": "true" }, el("span", { class: "msg", text: t("page.error.offline_view") })));
    return;
  }
  fill(container, errorBox(err));
}

// outcomeText names an order's outcome: failed, blunder, success or N actions.
export function outcomeText(o) {
  return o.outcome === "actions" ? t("page.odds.actions", { n: o.actions }) : term("outcome", o.outcome);
}
