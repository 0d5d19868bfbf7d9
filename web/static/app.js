// The campaign ledger's page: home, campaign and battle views drawn from
// the HTTP API (docs/api.md) with the token kept in localStorage. Plain
// JavaScript, no build step.
"use strict";

const TEXTS = JSON.parse(document.getElementById("texts").textContent);
const LANG = document.documentElement.lang || "en";
const SVGNS = "http://www.w3.org/2000/svg";
const TOKEN_KEY = "ledger.token";

function t(key, vars) {
  let s = TEXTS[key] || key;
  for (const [k, v] of Object.entries(vars || {})) s = s.replaceAll("{" + k + "}", String(v));
  return s;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

function token() { return localStorage.getItem(TOKEN_KEY) || ""; }

function withLang(path) { return path + (path.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(LANG); }

// api fetches a JSON resource with the stored token; a failure throws the
// API's error object ({status, code, rule, message, numbers}).
async function api(path) {
  const headers = { "Accept": "application/json" };
  if (token()) headers["Authorization"] = "Bearer " + token();
  const res = await fetch(withLang(path), { headers });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw (body.error || { status: res.status, message: res.statusText });
  return body;
}

// apiSVG fetches a picture (web/svg's SVG) with the stored token, as text:
// an <img> could not send the Authorization header.
async function apiSVG(path) {
  const headers = { "Accept": "image/svg+xml" };
  if (token()) headers["Authorization"] = "Bearer " + token();
  const res = await fetch(withLang(path), { headers });
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    throw (body.error || { status: res.status, message: res.statusText });
  }
  return res.text();
}

// inlineSVG parses the server's SVG and returns its root element, ready to
// go into the page (the document's own SVG, not an image, so that tests and
// styles reach its elements).
function inlineSVG(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  if (doc.querySelector("parsererror") || doc.documentElement.localName !== "svg") throw { message: "bad SVG" };
  return document.importNode(doc.documentElement, true);
}

// apiPost posts a command ({id, dice, command}) with the stored token.
async function apiPost(path, body) {
  const headers = { "Accept": "application/json", "Content-Type": "application/json" };
  if (token()) headers["Authorization"] = "Bearer " + token();
  const res = await fetch(withLang(path), { method: "POST", headers, body: JSON.stringify(body) });
  const out = await res.json().catch(() => ({}));
  if (!res.ok) throw (out.error || { status: res.status, message: res.statusText });
  return out;
}

function showError(container, err) {
  const msg = (err.rule ? err.rule + ": " : "") + (err.message || String(err));
  container.replaceChildren(el("p", { class: "error", role: "alert", text: msg }));
}

// --- shell --------------------------------------------------------------

function initShell() {
  document.querySelectorAll("[data-t]").forEach(n => { n.textContent = t(n.dataset.t); });
  document.querySelectorAll(".langs a").forEach(a => {
    if (a.dataset.lang === LANG) a.classList.add("current");
  });
  const input = document.getElementById("token");
  input.value = token();
  input.title = t("token.hint");
  document.getElementById("token-form").addEventListener("submit", ev => {
    ev.preventDefault();
    localStorage.setItem(TOKEN_KEY, input.value.trim());
    route();
  });
  document.getElementById("token-clear").addEventListener("click", () => {
    localStorage.removeItem(TOKEN_KEY);
    input.value = "";
    route();
  });
  document.getElementById("brand").href = withLang("/");
}

function route() {
  const main = document.getElementById("main");
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "c" && parts.length === 2) return campaignView(main, parts[1]);
  if (parts[0] === "c" && parts[2] === "b" && parts.length === 4) return battleView(main, parts[1], parts[3]);
  return homeView(main);
}

function homeView(main) {
  const input = el("input", { id: "campaign-id", placeholder: "demo-1809", "aria-label": t("home.campaign_id") });
  const form = el("form", { class: "open", onsubmit: ev => {
    ev.preventDefault();
    if (input.value.trim()) location.href = withLang("/c/" + encodeURIComponent(input.value.trim()));
  } }, el("label", { for: "campaign-id", text: t("home.campaign_id") }), input, el("button", { type: "submit", text: t("home.go") }));
  main.replaceChildren(el("section", { class: "card" }, el("h1", { text: t("home.open") }), form,
    el("p", { class: "muted", text: t("token.hint") })));
}

// --- campaign -----------------------------------------------------------

async function campaignView(main, id) {
  main.replaceChildren(el("p", { text: t("page.loading") }));
  let c;
  try { c = await api("/api/campaigns/" + encodeURIComponent(id)); } catch (err) { return showError(main, err); }
  document.title = c.name + " · " + t("app.title");
  const sides = el("ul", { class: "legend" }, ...c.sides.map((s, i) => el("li", { class: "k" + (i % 4), "data-side": s.side },
    s.name + " (" + s.side + (s.nation ? ", " + s.nation : "") + ")")));
  const battles = c.battles.length === 0 ? el("p", { class: "muted", text: t("campaign.none") }) :
    el("table", {}, el("thead", {}, el("tr", {}, ...["col.number", "col.battle", "col.name", "col.status", "col.turn"].map(k => el("th", { text: t(k) })))),
      el("tbody", {}, ...c.battles.map(b => el("tr", {},
        el("td", { text: String(b.number) }),
        el("td", {}, el("a", { href: withLang("/c/" + encodeURIComponent(id) + "/b/" + encodeURIComponent(b.battle)), text: b.battle })),
        el("td", { text: b.name }),
        el("td", { text: b.status ? t("status." + b.status) : "–" }),
        el("td", { text: String(b.turn || "–") })))));
  const people = el("table", {}, el("thead", {}, el("tr", {}, ...["col.player", "col.role", "col.side"].map(k => el("th", { text: t(k) })))),
    el("tbody", {}, ...c.people.map(p => el("tr", {}, el("td", { text: p.name ? p.name + " (" + p.player + ")" : p.player }),
      el("td", { text: p.role }), el("td", { text: p.side || "–" })))));
  const standings = el("div", { id: "standings" }, el("p", { text: t("page.loading") }));
  main.replaceChildren(
    el("h1", { text: c.name + " · " + t("campaign.era") + " " + c.era }),
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
  box.replaceChildren(...[sides, battles.length ? el("ul", { class: "results" }, ...battles.map(b => el("li", {},
    "#" + b.number + " " + (b.name || b.battle) + ": " + b.points.map(p => p.side + " " + p.points).join(" · ")))) : null].filter(Boolean));
}

// --- battle -------------------------------------------------------------

async function battleView(main, cid, bid) {
  const base = "/api/campaigns/" + encodeURIComponent(cid) + "/battles/" + encodeURIComponent(bid);
  main.replaceChildren(el("p", { text: t("page.loading") }));
  let evs, you = {};
  try { evs = await api(base + "/events"); } catch (err) { return showError(main, err); }
  try { you = (await api("/api/campaigns/" + encodeURIComponent(cid))).you || {}; } catch (err) { /* the battle still shows */ }

  const st = { last: evs.last, current: 0, boards: new Map(), pictures: new Map(), events: evs.events };
  // The battlefield is web/svg's picture (GET .../battlefield.svg), inlined
  // at every step; the page draws none of it itself.
  const map = el("div", { class: "battlefield", id: "battlefield" });
  const slider = el("input", { type: "range", id: "timeline", min: "1", max: String(st.last), step: "1", value: String(st.last), "aria-label": t("battle.timeline") });
  const where = el("div", { class: "where", id: "where" });
  const status = el("div", { class: "status-line", id: "status-line" });
  const legend = el("div", { class: "legend", id: "legend" });
  const log = el("ol", { id: "log" });
  const live = el("span", { class: "live", id: "live" });
  const diceBox = el("div", { class: "dice-charts", id: "dice" });
  const disputesBox = el("div", { id: "disputes-box" }, el("p", { text: t("page.loading") }));
  const auditBox = el("div", { id: "audit-box" }, el("p", { text: t("page.loading") }));
  const btn = (key, label, fn) => el("button", { type: "button", id: "tl-" + key.split(".")[1], title: t(key), "aria-label": t(key), onclick: fn, text: label });

  main.replaceChildren(
    el("h1", { id: "battle-title", text: bid }),
    el("div", { class: "battle" },
      el("section", { class: "card" },
        el("h2", { text: t("battle.map") }), status, map, legend,
        el("div", { class: "timeline", role: "group", "aria-label": t("battle.timeline") },
          btn("battle.first", "«", () => goTo(1)), btn("battle.prev", "‹", () => goTo(st.current - 1)),
          slider,
          btn("battle.next", "›", () => goTo(st.current + 1)), btn("battle.last", "»", () => goTo(st.last)),
          where)),
      el("div", {},
        el("section", { class: "card" }, el("h2", {}, t("battle.events") + " ", live), log),
        el("section", { class: "card" }, el("h2", { text: t("battle.dice") }), el("p", { class: "muted", text: t("battle.dice_hint") }), diceBox),
        el("section", { class: "card", id: "disputes" }, el("h2", { text: t("battle.disputes") }), disputesBox),
        el("section", { class: "card", id: "audit" }, el("h2", {}, t("battle.audit") + " ",
          el("button", { type: "button", id: "audit-refresh", text: t("audit.refresh"), onclick: () => loadAudit() })),
          el("p", { class: "muted", text: t("audit.hint") }), auditBox))));

  for (const e of st.events) log.append(logEntry(e));
  slider.addEventListener("input", () => goTo(Number(slider.value)));
  slider.addEventListener("change", () => goTo(Number(slider.value)));
  log.addEventListener("click", ev => {
    const pic = ev.target.closest("button.picture[data-charge]");
    if (pic) { ev.preventDefault(); const v = Number(pic.dataset.charge); return goTo(commandEnd(st.events, v), v); }
    const link = ev.target.closest("[data-goto]");
    if (link) { ev.preventDefault(); return goTo(Number(link.dataset.goto)); }
    const li = ev.target.closest("li[data-version]");
    if (li) goTo(Number(li.dataset.version));
  });
  document.addEventListener("keydown", ev => {
    if (ev.target.tagName === "INPUT" && ev.target.type !== "range") return;
    if (ev.key === "ArrowLeft") { goTo(st.current - 1); ev.preventDefault(); }
    if (ev.key === "ArrowRight") { goTo(st.current + 1); ev.preventDefault(); }
  });

  // goTo shows the battle just after event v: the picture (with the
  // overlay of the charge declared at event charge, if given) and the
  // replay's status line.
  let pending = 0;
  async function goTo(v, charge) {
    v = Math.max(1, Math.min(st.last, v | 0));
    if (!v) return;
    charge = charge | 0;
    const ticket = ++pending;
    const key = v + ":" + charge;
    let b = st.boards.get(v), pic = st.pictures.get(key);
    try {
      [b, pic] = await Promise.all([
        b || api(base + "/replay?version=" + v),
        pic || apiSVG(base + "/battlefield.svg?version=" + v + (charge ? "&charge=" + charge : "")),
      ]);
    } catch (err) { return showError(where, err); }
    st.boards.set(v, b);
    st.pictures.set(key, pic);
    if (ticket !== pending) return; // a later step won
    let root;
    try { root = inlineSVG(pic); } catch (err) { return showError(where, err); }
    root.id = "map";
    root.setAttribute("role", "img");
    root.setAttribute("aria-label", t("battle.map"));
    map.replaceChildren(root);
    st.current = v;
    slider.value = String(v);
    document.getElementById("battle-title").textContent = (b.name || bid) + " · " + cid;
    status.replaceChildren(...[
      el("span", { text: t("status." + b.status) }),
      el("span", { text: t("battle.turn") + " " + b.turn }),
      b.phase ? el("span", { text: sideName(b, b.phasing_side) + ": " + t("battle.phase", { phase: TEXTS["phase." + b.phase] || b.phase }) }) : null].filter(Boolean));
    const shown = root.dataset.charge ? Number(root.dataset.charge) : 0;
    where.replaceChildren(...[el("b", { text: t("battle.event_of", { n: v, total: st.last }) }),
      b.event ? document.createTextNode(" · " + b.event.type + ": " + b.event.description) : null,
      shown ? el("div", { class: "picture-of", text: t("battle.picture_of", { n: shown }) }) : null].filter(Boolean));
    log.querySelectorAll("li.current, li.pictured").forEach(li => li.classList.remove("current", "pictured"));
    const li = log.querySelector('li[data-version="' + v + '"]');
    if (li) {
      li.classList.add("current");
      const top = li.offsetTop - log.offsetTop;
      if (top < log.scrollTop || top > log.scrollTop + log.clientHeight - li.offsetHeight) log.scrollTop = top - log.clientHeight / 3;
    }
    const pli = shown && log.querySelector('li[data-version="' + shown + '"]');
    if (pli) pli.classList.add("pictured");
  }

  async function loadDice() {
    try { drawDice(diceBox, await api(base + "/dice")); } catch (err) { showError(diceBox, err); }
  }

  async function loadDisputes() {
    let d;
    try { d = await api(base + "/disputes"); } catch (err) { return showError(disputesBox, err); }
    drawDisputes(disputesBox, d, { you, base, current: () => st.current, goTo, reload: loadDisputes, lastOwn: () => lastOwnCommand(st.events, you.player) });
    log.querySelectorAll("li.disputed").forEach(li => li.classList.remove("disputed"));
    for (const x of d.disputes) {
      const li = log.querySelector('li[data-version="' + x.event_version + '"]');
      if (li) { li.classList.add("disputed"); li.title = t("disputes.disputed", { n: x.dispute, status: t("dstatus." + x.status) }); }
    }
  }

  async function loadAudit() {
    try { drawAudit(auditBox, await api(base + "/audit")); } catch (err) { showError(auditBox, err); }
  }

  if (st.last > 0) await goTo(st.last);
  drawLegend(legend, st.boards.get(st.last));
  loadDice();
  loadDisputes();
  loadAudit();
  follow(base, st, e => {
    if (e.version <= st.last && st.events.some(x => x.version === e.version)) return;
    const atEnd = st.current === st.last;
    st.last = Math.max(st.last, e.version);
    st.events.push(e);
    slider.max = String(st.last);
    log.append(logEntry(e));
    if (e.type === "dice.rolled") loadDice();
    if (e.type.startsWith("dispute.") || e.type.startsWith("command.retract") || e.type === "unit.corrected") {
      st.boards.clear(); // a correction changes the boards after it
      st.pictures.clear();
      loadDisputes();
    }
    if (atEnd) goTo(st.last);
  }, on => { live.textContent = on ? "● " + t("battle.live") : ""; });
}

function sideName(b, id) {
  const s = (b.sides || []).find(s => s.side === id);
  return s ? s.name : id;
}

function logEntry(e) {
  const li = el("li", { "data-version": String(e.version), "data-type": e.type },
    el("span", { class: "v", text: String(e.version) }), " ",
    el("span", { class: "type", text: e.type }), " ",
    el("span", { class: "actor", text: e.actor }),
    el("div", { class: "desc", text: e.description }));
  if (e.refers && e.refers.length) {
    li.append(el("div", { class: "refers" }, t("battle.refers") + " ",
      ...e.refers.map(v => el("a", { href: "#", "data-goto": String(v), text: "#" + v }))));
  }
  if (e.type === "charge.declared") {
    const p = e.payload || {};
    li.append(el("div", { class: "actions" }, el("button", { type: "button", class: "picture", "data-charge": String(e.version),
      title: t("battle.picture_hint"), text: t("battle.picture") + (p.unit ? ": " + p.unit + " → " + p.target : "") })));
  }
  if (e.type === "order.resolved" && e.payload && e.payload.modifiers && e.payload.modifiers.length) {
    li.append(el("ul", { class: "mods", "aria-label": t("battle.modifiers") },
      ...e.payload.modifiers.map(m => el("li", { text: m.rule + ": " + (m.value > 0 ? "+" : "") + m.value + " " + m.reason }))));
  }
  return li;
}

// commandEnd is the version of the last event of the command that
// appended event v (a charge and the pushes back it caused): where its
// picture stands.
function commandEnd(events, v) {
  const i = events.findIndex(e => e.version === v);
  if (i < 0) return v;
  let end = v;
  for (let j = i + 1; j < events.length && events[j].command_id === events[i].command_id; j++) end = events[j].version;
  return end;
}

function drawLegend(legend, b) {
  if (!b) return;
  legend.replaceChildren(
    ...(b.sides || []).map((s, i) => el("span", { class: "k" + (i % 4), text: s.name })),
    el("span", { class: "gen", text: t("legend.general") }),
    el("span", { class: "gen cinc", text: t("legend.cinc") }));
}

// drawDice draws, for each person and die size, a bar per face and the
// line fair dice would average.
function drawDice(box, d) {
  if (!d.people.length) return box.replaceChildren(el("p", { class: "muted", text: t("battle.dice_none") }));
  box.replaceChildren(...d.people.map(p => diceChart(p, "")));
}

// diceChart draws one person's faces of one die size: a bar per face and
// the line fair dice would average.
function diceChart(p, note) {
  {
    const W = 30 * p.sides + 20, H = 110, top = 10, bottom = 20, h = H - top - bottom;
    const max = Math.max(p.expected * 1.5, ...p.faces, 1);
    const y = v => top + h - (v / max) * h;
    const bars = p.faces.map((n, i) => [
      svg("rect", { class: "bar", x: 14 + i * 30, y: y(n), width: 22, height: (n / max) * h, "data-face": i + 1, "data-count": n }, svg("title", { text: (i + 1) + ": " + n })),
      svg("text", { x: 25 + i * 30, y: H - 6, text: String(i + 1) }),
      svg("text", { x: 25 + i * 30, y: y(n) - 2, text: String(n) })]).flat();
    const chart = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", class: "dice-chart", "data-person": p.person },
      ...bars, svg("line", { class: "expected", x1: 8, x2: W - 4, y1: y(p.expected), y2: y(p.expected) }, svg("title", { text: t("battle.dice_expected") + " " + p.expected.toFixed(2) })));
    return el("figure", {}, chart, el("figcaption", { text: p.person + " · d" + p.sides + " · " + t("battle.dice_count", { n: p.dice }) + (note ? " · " + note : "") }));
  }
}

// follow reads the battle's live stream (server-sent events) with fetch,
// so that the token travels in the Authorization header, not the URL; it
// reconnects after the last version seen.
async function follow(base, st, onEvent, onLive) {
  let after = st.last;
  for (;;) {
    try {
      const res = await fetch(withLang(base + "/events/stream"), {
        headers: { "Authorization": "Bearer " + token(), "Last-Event-ID": String(after), "Accept": "text/event-stream" },
      });
      if (!res.ok || !res.body) throw new Error(res.status);
      onLive(true);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = block.split("\n").filter(l => l.startsWith("data:")).map(l => l.slice(5).trim()).join("\n");
          if (!data) continue;
          const e = JSON.parse(data);
          after = Math.max(after, e.version);
          onEvent(e);
        }
      }
    } catch (err) { /* reconnect below */ }
    onLive(false);
    await new Promise(r => setTimeout(r, 3000));
  }
}

// lastOwnCommand is the id of the last command by player that changed the
// battle (not a retraction or a dispute): what they may ask to take back.
function lastOwnCommand(events, player) {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.actor === player && !e.type.startsWith("dispute.") && !e.type.startsWith("command.retract") && e.type !== "unit.corrected") return e.command_id;
  }
  return "";
}

// form builds a small command form: fields, a submit button, and the
// refusal (rule and message) shown under it.
function commandForm(id, fields, buttons) {
  const out = el("p", { class: "form-result", role: "status" });
  const f = el("form", { class: "cmd", id, onsubmit: ev => ev.preventDefault() }, ...fields, ...buttons, out);
  f.result = out;
  return f;
}

function field(name, label, attrs) {
  const input = el(attrs && attrs.tag === "textarea" ? "textarea" : "input", Object.assign({ name, id: name, "aria-label": label }, attrs || {}));
  input.removeAttribute("tag");
  return el("label", { class: "field" }, el("span", { text: label }), input);
}

// drawDisputes lists the battle's disputes and retraction requests, each
// linked to the events it concerns, with the forms the caller's role
// allows: raise a dispute and ask to take back a command (players), agree
// or decline a request (the opponent), uphold or dismiss (the umpire).
function drawDisputes(box, d, ctx) {
  const { you, base } = ctx;
  const player = you.role === "player", umpire = you.role === "umpire";
  const send = async (form, name, command) => {
    form.result.className = "form-result";
    form.result.textContent = "…";
    try {
      await apiPost(base + "/commands/" + name, { command });
      form.result.textContent = t("disputes.done");
      ctx.reload();
    } catch (err) {
      form.result.className = "form-result error";
      form.result.textContent = (err.rule ? err.rule + ": " : "") + (err.message || String(err));
    }
  };
  const go = v => el("a", { href: "#", text: "#" + v, onclick: ev => { ev.preventDefault(); ctx.goTo(v); } });
  const items = [];
  for (const x of d.disputes) {
    const li = el("li", { class: "dispute s-" + x.status, "data-dispute": String(x.dispute) },
      el("b", { text: t("disputes.dispute", { n: x.dispute }) + " · " + t("dstatus." + x.status) }), " ",
      t("disputes.on_event") + " ", go(x.event_version), " (" + x.event_type + ")",
      el("div", { text: t("disputes.raised_by", { who: x.raised_by, v: x.raised_at }) + ": " + x.reason }),
      x.ruling ? el("div", { text: t("disputes.ruled_by", { who: x.ruled_by, v: x.ruled_at }) + ": " + x.ruling }) : null,
      x.corrections.length ? el("ul", { class: "corrections" }, ...x.corrections.map(c => el("li", {}, go(c.version), " " + c.description))) : null);
    if (umpire && x.status === "open") {
      const ruling = field("ruling-" + x.dispute, t("disputes.ruling"), { tag: "textarea", rows: "2" });
      const corr = field("corrections-" + x.dispute, t("disputes.corrections"), { tag: "textarea", rows: "2", placeholder: '[{"unit": "…", "base": {"center": {"x": 0, "y": 0}, "facing": 0}, "actions_left": 1}]' });
      const f = commandForm("rule-" + x.dispute, [ruling, corr], []);
      const text = () => f.querySelector("textarea[name^=ruling]").value;
      f.insertBefore(el("button", { type: "button", class: "uphold", text: t("disputes.uphold"), onclick: () => {
        let corrections = [];
        const raw = f.querySelector("textarea[name^=corrections]").value.trim();
        if (raw) {
          try { corrections = JSON.parse(raw); } catch (err) { f.result.className = "form-result error"; f.result.textContent = String(err); return; }
        }
        send(f, "dispute.uphold", { dispute: x.dispute, ruling: text(), corrections });
      } }), f.result);
      f.insertBefore(el("button", { type: "button", class: "dismiss", text: t("disputes.dismiss"), onclick: () => send(f, "dispute.dismiss", { dispute: x.dispute, ruling: text() }) }), f.result);
      li.append(f);
    }
    items.push(li);
  }
  for (const q of d.retractions) {
    const li = el("li", { class: "retraction s-" + q.status, "data-request": String(q.request) },
      el("b", { text: t("disputes.request", { n: q.request }) + " · " + t("dstatus." + q.status) }), " ",
      t("disputes.take_back", { command: q.command_id, who: q.requested_by }) + " ", ...q.versions.map(go),
      el("div", { class: "muted", text: q.description }),
      q.answered_by ? el("div", { text: t("disputes.answered_by", { who: q.answered_by, v: q.answered_at }) + (q.reason ? ": " + q.reason : "") }) : null);
    if (q.status === "pending" && (umpire || player)) {
      const f = commandForm("answer-" + q.request, [], [
        el("button", { type: "button", class: "agree", text: t("disputes.agree"), onclick: () => send(f, "command.retract_agree", { request: q.request }) }),
        el("button", { type: "button", class: "decline", text: t("disputes.decline"), onclick: () => send(f, "command.retract_decline", { request: q.request }) })]);
      li.append(f);
    }
    items.push(li);
  }
  const parts = [items.length ? el("ul", { id: "disputes-list" }, ...items) : el("p", { class: "muted", text: t("battle.disputes_none") })];
  if (player || umpire) {
    const version = field("dispute-version", t("disputes.event"), { type: "number", min: "1", value: String(ctx.current() || 1) });
    const reason = field("dispute-reason", t("disputes.reason"), { tag: "textarea", rows: "2" });
    const raise = commandForm("raise", [version, reason], []);
    raise.insertBefore(el("button", { type: "submit", text: t("disputes.raise") }), raise.result);
    raise.addEventListener("submit", () => send(raise, "dispute.raise", {
      event_version: Number(raise.querySelector("#dispute-version").value), reason: raise.querySelector("#dispute-reason").value }));
    parts.push(el("h3", { text: t("disputes.raise_title") }), raise);
  }
  if (player) {
    const cmd = field("retract-command", t("disputes.command_id"), { value: ctx.lastOwn() });
    const ask = commandForm("retract", [cmd], []);
    ask.insertBefore(el("button", { type: "submit", text: t("disputes.ask") }), ask.result);
    ask.addEventListener("submit", () => send(ask, "command.retract_request", { command_id: ask.querySelector("#retract-command").value.trim() }));
    parts.push(el("h3", { text: t("disputes.retract_title") }), el("p", { class: "muted", text: t("disputes.retract_hint") }), ask);
  }
  box.replaceChildren(...parts);
}

// drawAudit shows the audit's checks, then each player's faces against the
// line fair dice give and their orders' outcomes against the exact odds.
function drawAudit(box, rep) {
  const checks = el("ul", { class: "checks" }, ...(rep.checks || []).map(c => el("li", { class: "check s-" + c.status, "data-check": c.id },
    el("b", { text: c.id + ": " + c.status }), " " + (c.summary || ""))));
  const players = (rep.players || []).map(p => {
    const faces = (p.faces || []).filter(f => f.source === "all").map(f => diceChart({ person: p.player, sides: f.sides, faces: f.counts, dice: f.dice, expected: f.dice / f.sides },
      "χ² " + f.chi_square.toFixed(2) + (f.exceeds ? " > " + f.critical_999.toFixed(2) + " !" : "") + (f.small_sample ? " · " + t("audit.small") : "")));
    const outcomes = (p.outcomes || []).length ? el("table", { class: "outcomes" },
      el("thead", {}, el("tr", {}, ...["audit.outcome", "audit.observed", "audit.expected"].map(k => el("th", { text: t(k) })))),
      el("tbody", {}, ...p.outcomes.map(o => el("tr", {}, el("td", { text: o.outcome + (o.outcome === "actions" ? " " + o.actions : "") }),
        el("td", { text: String(o.observed) }), el("td", { text: o.expected.toFixed(2) }))))) : null;
    return el("div", { class: "audit-player", "data-player": p.player }, el("h3", { text: p.player + " · " + t("audit.orders", { n: p.orders }) }),
      el("div", { class: "dice-charts" }, ...faces), outcomes);
  });
  box.replaceChildren(checks, ...players);
}

initShell();
route();
