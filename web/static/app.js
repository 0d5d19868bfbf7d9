// The campaign ledger's page: the shell (language, the token kept on this
// device), the landing page (the campaigns the token may see), a
// campaign's page and a battle's (battle.js), drawn from the HTTP API
// (docs/api.md). Plain JavaScript modules embedded in the binary: no build
// step.

import { fill, t, term, el, LANG, api, showError, withLang, token, storeToken, forgetToken, takeTokenFromLink, takeTokenNotice,
  tokenShared, touchToken, onUnauthorized, TOKEN_DAYS } from "./core.js";
import { battleView } from "./battle.js";

// --- shell --------------------------------------------------------------

function notice(id, cls, ...content) {
  const box = document.getElementById("notices");
  const old = document.getElementById(id);
  if (old) old.remove();
  const n = el("div", { class: "banner " + cls, id, role: "alert" }, ...content,
    el("button", { type: "button", class: "close", "aria-label": t("page.close"), text: "×", onclick: () => n.remove() }));
  box.append(n);
  return n;
}

// drawToken shows, when a token is kept, that it is (and "forget this
// device"); else the field to paste one. The field is plain text marked
// so that browsers neither offer to save it as a password nor fill it in.
function drawToken(editing) {
  const area = document.getElementById("token-area");
  if (token() && !editing) {
    fill(area, el("span", { class: "token-kept", id: "token-kept", title: t("page.token.kept_hint", { days: TOKEN_DAYS }) },
      (tokenShared() ? t("page.token.kept_shared") : t("page.token.kept"))),
    el("button", { type: "button", id: "token-change", class: "small", text: t("page.token.change"), onclick: () => drawToken(true) }),
    el("button", { type: "button", id: "forget-device", class: "small", text: t("page.token.forget"), title: t("page.token.forget_hint"), onclick: () => {
      forgetToken();
      notice("forgotten", "info", t("page.token.forgotten"));
      drawToken();
      route();
    } }));
    return;
  }
  const input = el("input", { id: "token", name: "ledger-access-code", type: "text", autocomplete: "off", autocapitalize: "off", autocorrect: "off",
    spellcheck: "false", "data-lpignore": "true", "data-1p-ignore": "true", "data-bwignore": "true", "data-form-type": "other",
    class: "secret", placeholder: "lt_…", "aria-describedby": "token-hint" });
  const shared = el("input", { type: "checkbox", id: "token-shared" });
  const form = el("form", { id: "token-form", class: "token", autocomplete: "off", onsubmit: ev => {
    ev.preventDefault();
    const v = input.value.trim();
    if (!v) return;
    storeToken(v, shared.checked);
    input.value = "";
    drawToken();
    route();
  } },
  el("label", { for: "token", text: t("token.label") }), input,
  el("label", { class: "shared", title: t("page.token.shared_hint") }, shared, " " + t("page.token.shared")),
  el("button", { type: "submit", text: t("token.save") }),
  token() ? el("button", { type: "button", text: t("page.play.cancel"), onclick: () => drawToken() }) : null,
  el("span", { id: "token-hint", class: "sr-only", text: t("token.hint") }));
  fill(area, form);
}

function initShell() {
  document.querySelectorAll("[data-t]").forEach(n => { n.textContent = t(n.dataset.t); });
  document.querySelectorAll(".langs a").forEach(a => {
    if (a.dataset.lang === LANG) a.classList.add("current");
    // The name a screen reader says holds the letters shown (EN: English).
    a.textContent = t("page.lang_short." + a.dataset.lang);
    a.setAttribute("aria-label", a.textContent + ": " + t("page.lang." + a.dataset.lang));
  });
  document.getElementById("brand").href = withLang("/");
  token(); // load it now: an expired one is dropped, and said so below
  if (takeTokenFromLink()) notice("token-from-link", "info", t("page.token.from_link", { days: TOKEN_DAYS }));
  const n = takeTokenNotice();
  if (n) notice("token-expired", "info", n);
  onUnauthorized(() => {
    notice("token-refused", "error", el("b", { text: t("page.token.refused_title") }), " ", token() ? t("page.token.refused") : t("page.token.needed"));
    drawToken(true);
  });
  drawToken();
}

function route() {
  const main = document.getElementById("main");
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "c" && parts.length === 2) return campaignView(main, parts[1]);
  if (parts[0] === "c" && parts[2] === "b" && parts.length === 4) return battleView(main, parts[1], parts[3]);
  return homeView(main);
}

// --- home ---------------------------------------------------------------

// homeView lists the campaigns the token may see (GET /api/campaigns),
// and a form to open another by its id.
async function homeView(main) {
  const input = el("input", { id: "campaign-id", placeholder: "demo-1809", "aria-label": t("home.campaign_id") });
  const form = el("form", { class: "open", onsubmit: ev => {
    ev.preventDefault();
    if (input.value.trim()) location.href = withLang("/c/" + encodeURIComponent(input.value.trim()));
  } }, el("label", { for: "campaign-id", text: t("home.campaign_id") }), input, el("button", { type: "submit", text: t("home.go") }));
  const list = el("div", { id: "campaigns" });
  fill(main, 
    el("section", { class: "card" }, el("h1", { text: t("page.home.yours") }), list),
    el("section", { class: "card" }, el("h2", { text: t("home.open") }), form, el("p", { class: "muted", text: t("token.hint") })));
  if (!token()) { fill(list, el("p", { class: "muted", text: t("page.home.no_token") })); return; }
  fill(list, el("p", { text: t("page.loading") }));
  // The server lists the campaigns the token may see (GET /api/campaigns);
  // each is then read for its sides and battles.
  let ids;
  try {
    ids = (await api("/api/campaigns")).map(c => c.id);
  } catch (err) {
    if (err.status !== 401) return showError(list, err);
    ids = [];
  }
  let found = await Promise.all(ids.map(async id => {
    try { return { id, c: await api("/api/campaigns/" + encodeURIComponent(id)) }; } catch (err) { return null; }
  }));
  found = found.filter(Boolean);
  if (found.length) touchToken();
  fill(list, found.length ? el("ul", { class: "campaign-list" }, ...found.map(({ id, c }) => el("li", { "data-campaign": id },
    el("a", { href: withLang("/c/" + encodeURIComponent(id)), text: c.name || id }), " ",
    el("span", { class: "muted", text: [term("era", c.era), c.you ? you(c.you, c.sides) : ""].filter(Boolean).join(" · ") }),
    (c.battles || []).length ? el("ul", { class: "battle-links" }, ...c.battles.map(b => el("li", {},
      el("a", { href: withLang("/c/" + encodeURIComponent(id) + "/b/" + encodeURIComponent(b.battle)), text: b.name || b.battle }),
      " ", el("span", { class: "status s-" + b.status, text: term("status", b.status) })))) : null)))
    : el("p", { class: "muted", text: t("page.home.none") }));
}

function you(y, sides) {
  const side = (sides || []).find(s => s.side === y.side);
  return t("page.you", { who: y.player, role: term("role", y.role) }) + (y.side ? " · " + (side ? side.name : y.side) : "");
}

// --- campaign -----------------------------------------------------------

async function campaignView(main, id) {
  fill(main, el("p", { text: t("page.loading") }));
  let c;
  try { c = await api("/api/campaigns/" + encodeURIComponent(id)); } catch (err) { return showError(main, err); }
  touchToken();
  document.title = c.name + " · " + t("app.title");
  const sides = el("ul", { class: "legend" }, ...c.sides.map((s, i) => el("li", { class: "k" + (i % 4), "data-side": s.side },
    s.name + (s.nation ? " (" + s.nation + ")" : ""))));
  const battles = c.battles.length === 0 ? el("p", { class: "muted", text: t("campaign.none") }) :
    el("table", {}, el("thead", {}, el("tr", {}, ...["col.number", "col.battle", "col.name", "col.status", "col.turn"].map(k => el("th", { text: t(k) })))),
      el("tbody", {}, ...c.battles.map(b => el("tr", {},
        el("td", { text: String(b.number) }),
        el("td", {}, el("a", { href: withLang("/c/" + encodeURIComponent(id) + "/b/" + encodeURIComponent(b.battle)), text: b.battle })),
        el("td", { text: b.name }),
        el("td", {}, el("span", { class: "status s-" + b.status, text: b.status ? term("status", b.status) : "–" })),
        el("td", { text: String(b.turn || "–") })))));
  const sideOf = sid => { const s = c.sides.find(x => x.side === sid); return s ? s.name : sid; };
  const people = el("table", {}, el("thead", {}, el("tr", {}, ...["col.player", "col.role", "col.side"].map(k => el("th", { text: t(k) })))),
    el("tbody", {}, ...c.people.map(p => el("tr", {}, el("td", { text: p.name ? p.name + " (" + p.player + ")" : p.player }),
      el("td", { text: term("role", p.role) }), el("td", { text: p.side ? sideOf(p.side) : "–" })))));
  const standings = el("div", { id: "standings" }, el("p", { text: t("page.loading") }));
  fill(main, 
    el("h1", { text: c.name + " · " + term("era", c.era) }),
    c.you ? el("p", { class: "muted", id: "you" }, you(c.you, c.sides)) : null,
    el("section", { class: "card" }, el("h2", { text: t("campaign.sides") }), sides),
    el("section", { class: "card" }, el("h2", { text: t("campaign.standings") }), standings),
    el("section", { class: "card" }, el("h2", { text: t("campaign.battles") }), battles),
    el("section", { class: "card" }, el("h2", { text: t("campaign.people") }), people));
  try { drawStandings(standings, await api("/api/campaigns/" + encodeURIComponent(id) + "/standings")); } catch (err) { showError(standings, err); }
}

// drawStandings shows each side's campaign points and record, and each
// battle's points by side (campaign/standings.go).
function drawStandings(box, s) {
  const sides = el("table", {}, el("thead", {}, el("tr", {}, ...["col.side", "col.points", "col.played", "col.won", "col.drawn", "col.lost"].map(k => el("th", { text: t(k) })))),
    el("tbody", {}, ...(s.sides || []).map(x => el("tr", { "data-side": x.side }, el("td", { text: x.name || x.side }),
      ...[x.points, x.played, x.won, x.drawn, x.lost].map(n => el("td", { text: String(n) }))))));
  const battles = (s.battles || []).filter(b => (b.points || []).length);
  const name = new Map((s.sides || []).map(x => [x.side, x.name || x.side]));
  fill(box, ...[sides, battles.length ? el("ul", { class: "results" }, ...battles.map(b => el("li", {},
    "#" + b.number + " " + (b.name || b.battle) + ": " + b.points.map(p => (name.get(p.side) || p.side) + " " + p.points).join(" · ")))) : null].filter(Boolean));
}

// A view that could not load for want of a network (its error is the
// whole view: #main > [data-offline]) loads by itself when the network
// returns: on the browser's "online", and every 10 s in case the browser
// does not know.
function reloadWhenOnline() {
  const again = () => { if (document.querySelector("#main > [data-offline]")) route(); };
  window.addEventListener("online", again);
  setInterval(again, 10000);
}

// The service worker (sw.js) keeps the page's shell, so that the page
// opens without a network and loads the battle when it returns. Browsers
// allow one only in a secure context (HTTPS, or localhost).
function registerWorker() {
  if ("serviceWorker" in navigator && window.isSecureContext) navigator.serviceWorker.register("/sw.js").catch(() => {});
}

initShell();
route();
reloadWhenOnline();
registerWorker();
