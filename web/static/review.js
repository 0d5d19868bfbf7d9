// The review screen (docs/disputes.md, "The review"): one decision of the
// battle, opened from its entry in the log or from a dispute, drawn from
// GET .../review?version=N (the review as JSON) and its picture
// (&format=svg, package picture): the battle just before the decision and
// just after it as recorded, and as corrected when a ruling corrected it,
// each panel inlined as the battlefield is (map.js), zoomed and panned
// together, with the geometry that decided it drawn over the recorded
// panel; that geometry in words with its numbers, the rules the decision
// cites, the dice it used, the units it changed, the disputes raised on it
// and their rulings and corrections. The umpire rules from here: dismiss,
// or uphold with corrections (the disputed command undone, the order
// resolved again from the dice as thrown, units set), the ruling checked
// first by a dry run of the same service, whose refusal names the rule
// before anything is recorded. Players and readers see it all, read-only;
// every page with a review open redraws it when a ruling arrives.

import { fill, t, term, el, num, api, apiSVG, apiPost, errorBox, failedHeading, randomHex } from "./core.js";
import { BattleMap } from "./map.js";

const PANELS = ["before", "recorded", "corrected"];
const FORMATIONS = ["line", "attack_column", "march_column", "square", "open_order", "company_column", "division_column",
  "squadron_column", "half_squadron_column", "limbered", "unlimbered"];
const STATUSES = ["ok", "disordered", "retreating", "routed", "destroyed", "off_table"];
// What undo takes back (docs/disputes.md): a move, march, charge,
// formation change, flank marcher's entry or general's move.
const UNDOABLE = ["unit.moved", "unit.marched", "charge.declared", "unit.reformed", "flank.unit_entered", "general.moved", "blunder.carried_out"];
// Events that change what a review shows: rulings and their corrections.
export const RULING_EVENTS = ["dispute.raised", "dispute.upheld", "dispute.dismissed", "unit.corrected", "order.corrected", "command.undone",
  "general.corrected", "flank.corrected", "objective.corrected", "battle.rescored", "command.retracted"];

// mountReview makes box the review screen. ctx: base (the battle's API
// path), you (the caller's role), now() (the battle as it stands: the
// values a correction replaces), sideName(id), goTo(v) (the battlefield at
// event v), raise(v) (the dispute form, for event v), ruled() (after a
// ruling: the disputes list reads again), closed() (the screen closed).
export function mountReview(box, ctx) {
  const umpire = ctx.you.role === "umpire", player = ctx.you.role === "player";
  let current = 0, ticket = 0, rv = null, maps = [], view = null;
  const forms = new Map(); // open dispute -> its ruling form, kept across redraws

  async function open(v) {
    v = Number(v) | 0;
    if (v < 1) return;
    const mine = ++ticket;
    if (v !== current) { forms.clear(); view = null; }
    current = v;
    box.hidden = false;
    box.dataset.version = String(v);
    if (!rv || rv.version !== v) {
      fill(box, head(v, null), el("p", { class: "muted", text: t("page.loading") }));
      box.scrollIntoView({ block: "start" });
    }
    let answer, picture;
    try {
      [answer, picture] = await Promise.all([
        api(ctx.base + "/review?version=" + v),
        apiSVG(ctx.base + "/review?version=" + v + "&format=svg"),
      ]);
    } catch (err) {
      if (mine === ticket) fill(box, head(v, null), errorBox(err));
      return;
    }
    if (mine !== ticket) return; // another review was asked for meanwhile
    rv = answer;
    draw(picture);
  }

  function close() {
    ticket++;
    current = 0;
    rv = null;
    forms.clear();
    maps = [];
    box.hidden = true;
    delete box.dataset.version;
    fill(box);
    if (ctx.closed) ctx.closed();
  }

  // refresh reads the review shown again (a ruling arrived live).
  function refresh() { if (current) return open(current); }

  function head(v, r) {
    return el("div", { class: "review-head" },
      el("h2", { id: "review-title" }, t("page.review.title", { n: v }),
        r ? el("span", { class: "review-type", text: " · " + term("event", r.event.type) }) : null),
      el("button", { type: "button", id: "review-close", class: "close small", text: "×", title: t("page.review.close"), "aria-label": t("page.review.close"), onclick: close }));
  }

  // --- drawing ----------------------------------------------------------------

  function draw(picture) {
    const r = rv;
    const M = r.after.measurement;
    box.dataset.first = String(r.first);
    box.dataset.end = String(r.end);
    if (r.corrected_at) box.dataset.correctedAt = String(r.corrected_at); else delete box.dataset.correctedAt;
    const go = v => el("a", { href: "#", "data-goto": String(v), text: "#" + v, title: t("page.review.show_on_map"),
      onclick: ev => { ev.preventDefault(); ctx.goTo(v); } });
    const who = r.event.on_behalf_of ? t("page.review.for", { who: term("actor", r.event.actor), whom: r.event.on_behalf_of }) : term("actor", r.event.actor);
    const rules = r.rules.length
      ? el("ul", { class: "rule-chips", id: "review-rules" }, ...r.rules.map((x, i) => el("li", { class: "rule-chip" + (i === 0 ? " deciding" : ""), "data-rule": x,
        title: i === 0 ? t("page.review.deciding") : null, text: x })))
      : el("p", { class: "muted", id: "review-rules", text: t("page.review.rules_none") });
    const dice = r.dice.length
      ? el("ul", { class: "review-dice", id: "review-dice" }, ...r.dice.map(d => el("li", { "data-version": String(d.version) }, go(d.version), " ", el("span", { class: "srv", text: d.description }))))
      : el("p", { class: "muted", id: "review-dice", text: t("page.review.dice_none") });
    // The command's events: the one reviewed is the description above.
    const cmd = el("ul", { class: "review-command", id: "review-command" }, ...r.command.map(e => el("li", { "data-version": String(e.version), "data-type": e.type, class: e.version === r.version ? "reviewed" : "" },
      go(e.version), " ", el("span", { class: "type", text: term("event", e.type) }), e.version === r.version ? null : " ", e.version === r.version ? null : el("span", { class: "srv", text: e.description }))));

    const panelsBox = el("div", { class: "review-panels", id: "review-panels" });
    fill(box,
      head(r.version, r),
      el("p", { class: "review-desc srv", id: "review-desc", text: r.event.description }),
      el("div", { class: "review-facts" },
        el("div", { class: "fact" }, el("h3", { title: r.event.command_id, text: t("page.review.command", { id: shortId(r.event.command_id), first: r.first, end: r.end, who }) }), cmd),
        el("div", { class: "fact" }, el("h3", { text: t("page.review.rules") }), rules),
        el("div", { class: "fact" }, el("h3", { text: t("page.review.dice") }), dice)),
      panelsBox,
      keyOf(r.geometry),
      geometryList(r.geometry, M),
      changesTable(r),
      el("h3", { text: t("page.review.disputes") }),
      disputesPart(r, go));
    drawPanels(panelsBox, picture, r);
  }

  // drawPanels inlines each panel of the review picture in a map of its
  // own; zooming or panning one moves the others with it.
  function drawPanels(panelsBox, picture, r) {
    const doc = new DOMParser().parseFromString(picture, "image/svg+xml");
    if (doc.querySelector("parsererror")) { fill(panelsBox, errorBox({ message: "bad SVG" })); return; }
    maps = [];
    const at = { before: r.first - 1, recorded: r.end, corrected: r.corrected_at };
    for (const name of PANELS) {
      const node = doc.querySelector('svg[data-panel="' + name + '"]');
      if (!node) continue;
      const mapBox = el("div", { class: "battlefield review-map" });
      const caption = el("figcaption", {}, el("b", { text: t("page.review." + name) }), " " + t("page.review.after_event", { n: at[name] }));
      const fig = el("figure", { class: "review-panel p-" + name, "data-panel": name }, caption, mapBox);
      panelsBox.append(fig);
      const m = new BattleMap(mapBox, {
        view: v => { view = v; for (const o of maps) if (o !== m) o.setView(v); },
        tap: e => { if (e.point) picked(e.point); },
        overlay: (g, mm) => drawGhosts(g, mm),
      }, { id: "review-" + name, label: t("page.review." + name) });
      m.sideName = ctx.sideName;
      m.showNode(node);
      maps.push(m);
    }
    // Zoomed to the decision at first (the whole table: ⤢), or kept where
    // the reader had it when the review is drawn again.
    if (view) maps.forEach(m => m.setView(view));
    else if (maps.length) maps[0].focus(focusOf(r));
  }

  // focusOf is the part of the table the decision is about: its geometry
  // and the units it or its correction moved, with a margin.
  function focusOf(r) {
    const pts = [];
    const g = r.geometry;
    const add = p => { if (p && isFinite(p.x) && isFinite(p.y)) pts.push(p); };
    if (g.path) g.path.points.forEach(add);
    if (g.path && g.path.planned) add(g.path.planned);
    if (g.arc) { g.arc.wedge.forEach(add); add(g.arc.leader); add(g.arc.sight); }
    (g.nearest || []).forEach(n => { add(n.from); add(n.to); });
    (g.command || []).forEach(c => { add(c.at); add(c.point); });
    const boards = [r.before, r.after, r.corrected].filter(Boolean);
    const key = u => [u.x, u.y, u.facing, u.formation, u.status].join();
    for (const u of r.after.units || []) {
      const all = boards.map(b => (b.units || []).find(x => x.unit === u.unit)).filter(Boolean);
      if (u.unit !== g.unit && u.unit !== g.target && all.every(x => key(x) === key(u))) continue;
      for (const x of all) {
        if (x.status === "off_table") continue;
        const h = Math.hypot(x.width, x.depth) / 2;
        add({ x: x.x - h, y: x.y - h });
        add({ x: x.x + h, y: x.y + h });
      }
    }
    if (g.march_stop && g.unit) {
      const u = (r.after.units || []).find(x => x.unit === g.unit);
      if (u) { add({ x: u.x - g.march_stop.stop, y: u.y - g.march_stop.stop }); add({ x: u.x + g.march_stop.stop, y: u.y + g.march_stop.stop }); }
    }
    if (!pts.length) return null;
    const b = { x0: Math.min(...pts.map(p => p.x)), y0: Math.min(...pts.map(p => p.y)), x1: Math.max(...pts.map(p => p.x)), y1: Math.max(...pts.map(p => p.y)) };
    const pad = Math.max(r.after.table_width * 0.06, 0.2 * Math.max(b.x1 - b.x0, b.y1 - b.y0));
    return { x0: b.x0 - pad, y0: b.y0 - pad, x1: b.x1 + pad, y1: b.y1 + pad };
  }

  // keyOf says what the colours of the geometry mean, for what is drawn.
  function keyOf(g) {
    const items = [];
    if (g.path || g.arc) items.push(["path", "page.review.key.path"]);
    if ((g.nearest || []).length) items.push(["near", "page.review.key.near"]);
    if ((g.command || []).length) items.push(["command", "page.review.key.command"]);
    if (g.march_stop || (g.flank_edges || []).length) items.push(["zone", "page.review.key.zone"]);
    items.push(["was", "page.review.key.was"]);
    return el("ul", { class: "review-key", id: "review-key" }, ...items.map(([k, key]) => el("li", { class: "k-" + k, text: t(key) })));
  }

  // geometryList is the geometry that decided it, in words, with its
  // numbers (rules.ReviewOf).
  function geometryList(g, M) {
    // Lengths to the hundredth: the numbers the rules used (the picture
    // rounds its labels to the tenth).
    const L = v => M === "cm" ? num(v, 2) + " " + t("page.unit.cm") : num(v, 2) + t("page.unit.in");
    const items = [];
    const item = (kind, cls, text, data) => items.push(el("li", Object.assign({ class: "g-" + cls, "data-geometry": kind }, data || {}), text));
    if (g.path) {
      const p = g.path;
      const parts = [t("page.review.path", { unit: g.unit, length: L(p.length) })];
      if (p.allowed) parts.push(t("page.review.path_allowed", { allowed: L(p.allowed) }));
      if (p.turn_degrees) parts.push(t("page.review.path_turn", { deg: num(p.turn_degrees, 1) }));
      if (p.stopped_short) parts.push(t("page.review.path_short", { short: L(p.short), enemy: p.enemy }));
      item("path", "path", parts.join("; "), { "data-length": String(p.length), "data-allowed": String(p.allowed || 0) });
    }
    if (g.arc) {
      const a = g.arc;
      item("arc", "path", t(a.in_arc ? "page.review.arc_in" : "page.review.arc_out", { unit: g.unit, target: g.target }), { "data-in-arc": String(a.in_arc) });
      item("sight", "path", t(a.seen ? "page.review.sight_seen" : "page.review.sight_unseen", { x: num(a.sight.x, 2), y: num(a.sight.y, 2) }), { "data-seen": String(a.seen) });
      item("range", "path", t("page.review.range", { measured: L(a.measured), reach: L(a.reach) }) +
        (a.side ? "; " + t("page.review.side", { side: term("arc", a.side) }) : ""), { "data-measured": String(a.measured), "data-reach": String(a.reach) });
    }
    for (const c of g.command || []) {
      item("command", "command", t("page.review.command_distance", { general: c.general, unit: c.unit, distance: L(c.distance), steps: c.steps, step: L(c.step) }),
        { "data-unit": c.unit, "data-steps": String(c.steps) });
    }
    if (g.march_stop) {
      const s = g.march_stop;
      const parts = [t("page.review.march_stop", { unit: g.unit, stop: L(s.stop) })];
      if (s.enemy) parts.push(t("page.review.march_enemy", { enemy: s.enemy, distance: L(s.distance) }));
      if (s.ended) parts.push(t("page.review.march_ended"));
      item("march_stop", "zone", parts.join("; "));
    }
    for (const n of g.nearest || []) {
      item("nearest", "near", t("page.review.nearest", { unit: g.unit, enemy: n.enemy, distance: L(n.distance) }) +
        (n.within ? "; " + t("page.review.within", { gap: L(g.gap) }) : ""), { "data-enemy": n.enemy, "data-within": String(!!n.within) });
    }
    for (const z of g.flank_edges || []) {
      item("flank_edge", "zone", t("page.review.flank_edge", { edge: term("edge", z.edge), march: z.march, side: ctx.sideName(z.side), distance: L(z.distance) }), { "data-edge": z.edge });
    }
    return el("div", { class: "review-geometry-words" }, el("h3", { text: t("page.review.geometry") }),
      items.length ? el("ul", { id: "review-geometry" }, ...items) : el("p", { class: "muted", id: "review-geometry", text: t("page.review.geometry_none") }));
  }

  // changesTable lists the units and generals whose values differ between
  // the panels: before, as recorded, as corrected.
  function changesTable(r) {
    const boards = [r.before, r.after, r.corrected].filter(Boolean);
    const M = r.after.measurement;
    const unitText = u => !u ? "–" : "(" + num(u.x, 2) + ", " + num(u.y, 2) + ") " + num(u.facing, 1) + "° · " + term("formation", u.formation) +
      (u.markers ? " · " + t("page.unit.markers", { n: u.markers }) : "") + (u.status !== "ok" ? " · " + term("status", u.status) : "") +
      " · " + t("page.review.actions", { n: u.actions_left });
    const genText = g => !g ? "–" : "(" + num(g.x, 2) + ", " + num(g.y, 2) + ")" + (g.attached_to ? " · " + t("page.review.with", { unit: g.attached_to }) : "");
    const heads = PANELS.slice(0, boards.length).map((p, i) => t("page.review." + p) + " (" + [r.first - 1, r.end, r.corrected_at][i] + ")");
    const rows = [];
    const compare = (kind, key, lists, text) => {
      const ids = [...new Set(lists.flat().map(x => x[key]))].sort();
      for (const id of ids) {
        const vals = lists.map(list => text(list.find(x => x[key] === id)));
        if (vals.every(v => v === vals[0])) continue;
        rows.push(el("tr", { "data-kind": kind, "data-id": id }, el("th", { scope: "row", text: id }),
          ...vals.map((v, i) => el("td", { class: i > 0 && v !== vals[i - 1] ? "changed" : "", "data-label": heads[i], text: v }))));
      }
    };
    compare("unit", "unit", boards.map(b => b.units || []), unitText);
    compare("general", "general", boards.map(b => b.generals || []), genText);
    if (!rows.length) return el("p", { class: "muted", id: "review-changes", text: t("page.review.changes_none") });
    return el("div", { class: "review-changes-box" }, el("h3", { text: t("page.review.changes", { unit: M === "cm" ? t("page.unit.cm") : t("page.unit.in") }) }),
      el("table", { class: "review-changes", id: "review-changes" },
        el("thead", {}, el("tr", {}, el("th", { text: t("page.review.changes_who") }), ...heads.map(h => el("th", { text: h })))),
        el("tbody", {}, ...rows)));
  }

  // disputesPart lists the disputes raised on the command's events, their
  // rulings and corrections; the umpire's form under each open one.
  function disputesPart(r, go) {
    const items = r.disputes.map(d => {
      const li = el("li", { class: "dispute s-" + d.status, "data-dispute": String(d.dispute), "data-status": d.status },
        el("b", { text: t("disputes.dispute", { n: d.dispute }) + " · " + t("dstatus." + d.status) }), " ",
        t("disputes.on_event") + " ", go(d.event_version),
        el("div", { class: "raised" }, t("disputes.raised_by", { who: d.raised_by, v: d.raised_at }) + ": ", el("q", { class: "typed", text: d.reason })),
        d.ruling ? el("div", { class: "ruling", id: "review-ruling-" + d.dispute }, t("disputes.ruled_by", { who: d.ruled_by, v: d.ruled_at }) + ": ", el("q", { class: "typed", text: d.ruling })) : null,
        d.corrections.length ? el("ul", { class: "corrections" }, ...d.corrections.map(c => el("li", { "data-type": c.type, "data-version": String(c.version) },
          go(c.version), " ", el("span", { class: "type", text: term("event", c.type) }), " ", el("span", { class: "srv", text: c.description })))) : null);
      if (umpire && d.status === "open") {
        if (!forms.has(d.dispute)) forms.set(d.dispute, ruleForm(d, r));
        li.append(forms.get(d.dispute));
      }
      return li;
    });
    for (const n of [...forms.keys()]) if (!r.disputes.some(d => d.dispute === n && d.status === "open")) forms.delete(n);
    const parts = [items.length ? el("ul", { class: "review-disputes", id: "review-disputes" }, ...items)
      : el("p", { class: "muted", id: "review-disputes", text: t("page.review.undisputed") })];
    if ((player || umpire) && !r.disputes.some(d => d.status === "open")) {
      parts.push(el("button", { type: "button", id: "review-raise", class: "small", text: t("page.review.raise"), onclick: () => ctx.raise(r.version) }));
    }
    if (!umpire && r.disputes.some(d => d.status === "open")) parts.push(el("p", { class: "muted", text: t("page.review.umpire_rules") }));
    return el("div", {}, ...parts);
  }

  // --- the umpire's ruling ------------------------------------------------------

  // picking is the correction row waiting for a point of the table (a tap
  // on any panel), if any.
  let picking = null;
  function picked(pt) {
    if (!picking) return;
    picking.set(pt);
    picking = null;
    box.querySelectorAll("button.pick.on").forEach(b => b.classList.remove("on"));
  }

  // drawGhosts draws, over each panel, where the corrections being
  // written would put their units: green once the dry run allows them,
  // red when it refuses, grey while it is asked.
  function drawGhosts(g, m) {
    for (const f of forms.values()) {
      for (const gh of f.ghosts ? f.ghosts() : []) g.append(m.base(gh.base, "correction-ghost " + gh.state, gh.state === "ok" ? "#2e7d32" : gh.state === "refused" ? "#d32f2f" : "#9e9e9e"));
    }
  }
  const redrawOverlays = () => maps.forEach(m => m.drawOverlay());

  function ruleForm(d, r) {
    const n = d.dispute;
    const id = s => "rule-" + n + "-" + s;
    const types = r.command.map(e => e.type);
    const now = () => ctx.now() || r.after;
    const unitsNow = () => (now().units || []).filter(u => u.status !== "off_table" || (r.after.units || []).some(a => a.unit === u.unit));
    const generals = () => now().generals || [];
    const field = (key, input, hint) => el("label", { class: "field" }, el("span", { text: t(key) }), input, hint ? el("small", { class: "muted", text: hint }) : null);
    const numIn = (cls, placeholder) => el("input", { class: cls, type: "number", step: "any", inputmode: "decimal", placeholder: placeholder == null ? "" : String(placeholder) });

    const ruling = el("textarea", { id: id("ruling"), name: id("ruling"), rows: "2", maxlength: "2000" });

    // The disputed command: let it stand, undo it, or resolve the order again.
    const kinds = [["keep", "page.rule.keep"]];
    if (types.some(x => UNDOABLE.includes(x))) kinds.push(["undo", "page.rule.undo"]);
    if (types.includes("order.resolved")) kinds.push(["order", "page.rule.order"]);
    const kindBox = el("fieldset", { class: "rule-kind", id: id("kind") }, el("legend", { text: t("page.rule.command") }),
      ...kinds.map(([k, key], i) => el("label", {}, el("input", { type: "radio", name: id("kind"), value: k, id: id("kind-" + k), checked: i === 0 }), " " + t(key))));
    const kind = () => (kindBox.querySelector("input:checked") || {}).value || "keep";

    const order = (r.command.find(e => e.type === "order.resolved") || {}).payload || {};
    const dice = el("input", { id: id("dice"), type: "text", inputmode: "numeric", autocomplete: "off", placeholder: "2 3" });
    const blunder = el("input", { id: id("blunder"), type: "text", inputmode: "numeric", autocomplete: "off", placeholder: "4" });
    const general = el("select", { id: id("general") }, el("option", { value: "", text: t("page.rule.unchanged") + (order.general ? " (" + order.general + ")" : "") }),
      ...generals().map(g => el("option", { value: g.general, text: g.general + (g.name ? " · " + g.name : "") })));
    const gx = numIn("gx"), gy = numIn("gy");
    gx.id = id("gx"); gy.id = id("gy");
    const orderBox = el("fieldset", { class: "rule-order", id: id("order"), hidden: true }, el("legend", { text: t("page.rule.order_inputs") }),
      el("div", { class: "grid2" }, field("page.rule.dice", dice, t("page.rule.dice_hint")), field("page.rule.blunder_dice", blunder, t("page.rule.blunder_hint"))),
      field("page.rule.general", general),
      el("div", { class: "grid2" }, field("page.rule.general_x", gx), field("page.rule.general_y", gy)));

    // Units: each row sets only what is filled in.
    const rows = el("div", { class: "rule-units", id: id("units") });
    const unitRow = unitId => {
      const sel = el("select", { class: "u-unit" }, ...unitsNow().map(u => el("option", { value: u.unit, text: u.unit + (u.name && u.name !== u.unit ? " · " + u.name : "") })));
      if (unitId) sel.value = unitId;
      const x = numIn("u-x"), y = numIn("u-y"), facing = numIn("u-facing"), markers = numIn("u-markers"), actions = numIn("u-actions");
      markers.step = "1"; actions.step = "1"; markers.min = "0"; actions.min = "0";
      const formation = el("select", { class: "u-formation" }), status = el("select", { class: "u-status" });
      const row = el("fieldset", { class: "unit-row" });
      const placeholders = () => {
        const u = (now().units || []).find(v => v.unit === sel.value) || {};
        x.placeholder = u.x == null ? "" : String(u.x);
        y.placeholder = u.y == null ? "" : String(u.y);
        facing.placeholder = u.facing == null ? "" : String(u.facing);
        markers.placeholder = u.markers == null ? "" : String(u.markers);
        actions.placeholder = u.actions_left == null ? "" : String(u.actions_left);
        const keepF = formation.value, keepS = status.value;
        fill(formation, el("option", { value: "", text: t("page.rule.unchanged") + (u.formation ? " (" + term("formation", u.formation) + ")" : "") }),
          ...FORMATIONS.map(f => el("option", { value: f, text: term("formation", f) })));
        fill(status, el("option", { value: "", text: t("page.rule.unchanged") + (u.status ? " (" + term("status", u.status) + ")" : "") }),
          ...STATUSES.map(s => el("option", { value: s, text: term("status", s) })));
        formation.value = keepF; status.value = keepS;
      };
      sel.addEventListener("change", placeholders);
      placeholders();
      const pick = el("button", { type: "button", class: "pick small", title: t("page.rule.pick_hint"), text: t("page.rule.pick"), onclick: () => {
        box.querySelectorAll("button.pick.on").forEach(b => b.classList.remove("on"));
        if (picking && picking.row === row) { picking = null; return; }
        pick.classList.add("on");
        picking = { row, set: pt => { x.value = String(Math.round(pt.x * 10) / 10); y.value = String(Math.round(pt.y * 10) / 10); changed(); } };
      } });
      fill(row, el("legend", { text: t("page.rule.unit_legend") }),
        el("div", { class: "unit-row-head" }, field("page.rule.unit", sel), pick,
          el("button", { type: "button", class: "remove small", text: t("page.rule.remove"), onclick: () => { row.remove(); changed(); } })),
        el("div", { class: "grid3" }, field("page.rule.x", x), field("page.rule.y", y), field("page.rule.facing", facing)),
        el("div", { class: "grid2" }, field("page.rule.formation", formation), field("page.rule.status", status)),
        el("div", { class: "grid2" }, field("page.rule.markers", markers), field("page.rule.actions_left", actions)));
      row.value = () => {
        const u = (now().units || []).find(v => v.unit === sel.value) || {};
        const c = { unit: sel.value };
        const given = v => v.value.trim() !== "";
        if (given(x) || given(y) || given(facing)) {
          c.base = { center: { x: given(x) ? Number(x.value) : u.x, y: given(y) ? Number(y.value) : u.y }, facing: given(facing) ? Number(facing.value) : u.facing };
        }
        if (formation.value) c.formation = formation.value;
        if (status.value) c.status = status.value;
        if (given(markers)) c.markers = Number(markers.value);
        if (given(actions)) c.actions_left = Number(actions.value);
        return c;
      };
      row.ghost = () => {
        const c = row.value();
        const u = (now().units || []).find(v => v.unit === sel.value);
        return c.base && u ? { center: c.base.center, facing: c.base.facing, width: u.width, depth: u.depth } : null;
      };
      return row;
    };
    const addUnit = el("button", { type: "button", id: id("add-unit"), class: "small", text: "+ " + t("page.rule.add_unit"),
      onclick: () => { rows.append(unitRow(rows.children.length ? "" : r.geometry.unit)); changed(); } });

    const other = el("textarea", { id: id("other"), rows: "3", spellcheck: "false", placeholder: '{"generals": [{"general": "…", "position": {"x": 0, "y": 0}}]}' });
    const otherBox = el("details", { class: "rule-other" }, el("summary", { text: t("page.rule.other") }), el("p", { class: "muted", text: t("page.rule.other_hint") }), other);

    const pbox = el("div", { class: "preview rule-preview", id: id("preview"), "aria-live": "polite" });
    const result = el("div", { class: "form-result", id: id("result"), role: "status" });
    const uphold = el("button", { type: "button", id: id("uphold"), class: "primary uphold", disabled: true, text: t("page.rule.uphold") });
    const dismiss = el("button", { type: "button", id: id("dismiss"), class: "dismiss", text: t("page.rule.dismiss") });

    // body is the uphold command as the form says it, or throws what is
    // wrong with the form (not a rule: the JSON, the dice typed).
    const faces = input => input.value.split(/[^0-9]+/).filter(Boolean).map(Number);
    function body() {
      const b = { dispute: n, ruling: ruling.value.trim() };
      if (kind() === "undo") b.undo = true;
      if (kind() === "order") {
        const o = {};
        if (dice.value.trim()) o.dice = faces(dice);
        if (blunder.value.trim()) o.blunder_dice = faces(blunder);
        if (general.value) o.general = general.value;
        if (gx.value.trim() !== "" || gy.value.trim() !== "") {
          if (gx.value.trim() === "" || gy.value.trim() === "") throw new Error(t("page.rule.general_at_both"));
          o.general_at = { x: Number(gx.value), y: Number(gy.value) };
        }
        b.order = o;
      }
      const units = [...rows.children].map(x => x.value());
      if (units.length) b.corrections = units;
      const raw = other.value.trim();
      if (raw) {
        let more;
        try { more = JSON.parse(raw); } catch (err) { throw new Error(t("page.error.json", { error: err.message })); }
        if (!more || typeof more !== "object" || Array.isArray(more)) throw new Error(t("page.rule.other_object"));
        for (const [k, v] of Object.entries(more)) {
          if (k === "corrections" && Array.isArray(v)) b.corrections = (b.corrections || []).concat(v);
          else if (!["dispute", "ruling"].includes(k)) b[k] = v;
        }
      }
      return b;
    }

    // The dry run: the same service, nothing appended; at most one at a
    // time, the latest form winning.
    let last = null, busy = false, again = false;
    async function check() {
      if (busy) { again = true; return; }
      busy = true;
      try {
        do {
          again = false;
          await checkOnce();
        } while (again);
      } finally { busy = false; }
    }
    async function checkOnce() {
      let b;
      uphold.disabled = true;
      try { b = body(); } catch (err) {
        last = null;
        pbox.dataset.state = "invalid";
        fill(pbox, errorBox({ message: err.message }));
        return;
      }
      if (!b.ruling) {
        last = null;
        pbox.dataset.state = "idle";
        fill(pbox, el("p", { class: "muted", text: t("page.rule.write_ruling") }));
        redrawOverlays();
        return;
      }
      const key = JSON.stringify(b);
      pbox.dataset.state = "pending";
      fill(pbox, el("p", { class: "muted", text: t("page.preview.checking") }));
      let r;
      try {
        const out = await apiPost(ctx.base + "/commands/dispute.uphold", { command: b, dry_run: true });
        r = { ok: true, events: out.events || [] };
      } catch (err) { r = { ok: false, error: err }; }
      let now;
      try { now = JSON.stringify(body()); } catch (err) { now = ""; }
      if (now !== key) return; // the form changed meanwhile: the next run answers
      last = Object.assign({ key }, r);
      if (r.ok) {
        pbox.dataset.state = "ok";
        fill(pbox, el("div", { class: "ok" }, el("b", { text: "✓ " + t("page.rule.would") }),
          el("ul", { class: "events" }, ...r.events.map(e => el("li", { class: "srv", "data-type": e.type, text: e.description })))));
      } else {
        pbox.dataset.state = "refused";
        fill(pbox, el("div", { class: "refused" }, el("b", { text: "✗ " + t("page.rule.refused") }), errorBox(r.error)));
      }
      uphold.disabled = !r.ok;
      redrawOverlays();
    }
    // changed: the form changed. The answer shown was for another ruling:
    // it goes at once, and the uphold waits for the answer to this one.
    function changed() {
      orderBox.hidden = kind() !== "order";
      last = null;
      uphold.disabled = true;
      pbox.dataset.state = "pending";
      fill(pbox, el("p", { class: "muted", text: t("page.preview.checking") }));
      redrawOverlays();
      check();
    }

    const holder = { id: "" };
    async function send(name, command) {
      if (!holder.id) holder.id = "page-" + randomHex(10);
      uphold.disabled = true;
      dismiss.disabled = true;
      result.className = "form-result";
      fill(result, el("span", { class: "muted", text: "…" }));
      try {
        const out = await apiPost(ctx.base + "/commands/" + name, { id: holder.id, command });
        holder.id = "";
        fill(result, el("div", { class: "ok", "data-command": name }, el("b", { text: t("page.rule.done") + " " }),
          el("ul", { class: "events" }, ...(out.events || []).map(e => el("li", { class: "srv", "data-type": e.type, text: e.description })))));
        ctx.ruled();
        refresh();
      } catch (err) {
        if (!(err instanceof TypeError)) holder.id = ""; // refused: a new attempt is a new command
        fill(result, el("div", { class: "refused", "data-command": name }, el("b", { text: failedHeading(term("command", name), err) }), errorBox(err)));
        dismiss.disabled = false;
        uphold.disabled = !(last && last.ok);
      }
    }
    uphold.addEventListener("click", () => {
      let b;
      try { b = body(); } catch (err) { return; }
      if (!last || !last.ok || last.key !== JSON.stringify(b)) { check(); return; }
      send("dispute.uphold", b);
    });
    dismiss.addEventListener("click", () => send("dispute.dismiss", { dispute: n, ruling: ruling.value.trim() }));

    const form = el("form", { class: "rule", id: "rule-" + n, onsubmit: ev => ev.preventDefault() },
      el("h4", { text: t("page.rule.title", { n }) }),
      field("page.rule.ruling", ruling, t("page.rule.ruling_hint")),
      kindBox, orderBox,
      el("div", { class: "rule-units-head" }, el("h4", { text: t("page.rule.units") }), addUnit), rows,
      otherBox,
      pbox,
      el("div", { class: "buttons" }, uphold, dismiss),
      result);
    form.addEventListener("input", changed);
    form.addEventListener("change", changed);
    form.ghosts = () => {
      const state = last ? (last.ok ? "ok" : "refused") : "pending";
      return [...rows.children].map(x => x.ghost()).filter(Boolean).map(base => ({ base, state }));
    };
    check();
    return form;
  }

  return { open, close, refresh, version: () => current };
}

// shortId shortens a long command id (a page's are 25 characters) for a
// heading; the whole id is its title.
function shortId(id) { return id && id.length > 14 ? id.slice(0, 12) + "…" : id || ""; }
