// The battle view: the battlefield (map.js) at any event of the timeline,
// the battle's status and head, the event log, the dice, disputes and
// audit, live; for a player or the umpire, the play panel (play.js) where
// the battle is played; and the review of any event (review.js), opened
// from the log or a dispute, where the umpire rules.

import { fill, t, term, el, svg, num, length, api, apiSVG, apiBlob, apiPost, errorBox, showError, withLang, token, touchToken, onUnauthorized, outcomeText, tokenShared, clock } from "./core.js";
import { BattleMap } from "./map.js";
import { keepHead, checkHeads } from "./heads.js";
import { mountPlay } from "./play.js";
import { pendingFor } from "./outbox.js";
import { heading } from "./geom.js";
import { mountReview, RULING_EVENTS } from "./review.js";

// showPending shows, under a battle that could not load for want of a
// network, the commands this device still holds for it (the outbox,
// docs/club.md "When the Wi-Fi drops"): a reload without a network loses
// none of them, and says so.
function showPending(main, base) {
  const list = pendingFor(tokenShared() ? sessionStorage : localStorage, base);
  if (!list.length) return;
  const waiting = list.filter(e => e.state === "waiting").length;
  main.append(el("div", { class: "outbox", id: "offline-outbox" },
    el("h3", { text: waiting ? t("page.outbox.title", { n: waiting }) : t("page.outbox.title_refused", { n: list.length }) }),
    el("ul", {}, ...list.map(e => {
      const state = e.state === "refused" ? "refused" : "waiting", b = e.body.command || {};
      const who = b.unit || b.general || b.brigade || "";
      return el("li", { class: "queued " + state, "data-id": e.body.id, "data-command": e.name, "data-state": state },
        el("b", { text: state === "refused" ? term("command", e.name) : t("page.outbox.waiting") }), " ",
        el("span", { text: term("command", e.name) + (who ? " · " + who : "") + " · " + t("page.outbox.made", { time: clock(e.made) }) }));
    })),
    el("p", { class: "muted", text: t("page.outbox.offline_hint") })));
}

export async function battleView(main, cid, bid) {
  const base = "/api/campaigns/" + encodeURIComponent(cid) + "/battles/" + encodeURIComponent(bid);
  const key = cid + "/" + bid;
  fill(main, el("p", { text: t("page.loading") }));
  let evs, now, you = {}, people = [];
  try { [evs, now] = await Promise.all([api(base + "/events"), api(base + "/state")]); } catch (err) {
    showError(main, err);
    if (err instanceof TypeError) showPending(main, base);
    return;
  }
  touchToken();
  try {
    const c = await api("/api/campaigns/" + encodeURIComponent(cid));
    you = c.you || {};
    people = c.people || [];
  } catch (err) { /* the battle still shows */ }

  const st = { last: evs.last, current: 0, boards: new Map(), pictures: new Map(), events: evs.events, now, you, selected: null, general: null };
  const sideName = id => { const s = (st.now.sides || []).find(s => s.side === id); return s ? s.name : id; };

  const mapBox = el("div", { class: "battlefield", id: "battlefield" });
  const slider = el("input", { type: "range", id: "timeline", min: "1", max: String(st.last), step: "1", value: String(st.last), "aria-label": t("battle.timeline") });
  const where = el("div", { class: "where", id: "where" });
  const status = el("div", { class: "status-line", id: "status-line" });
  const headBox = el("div", { class: "head", id: "head" });
  const banners = el("div", { class: "banners", id: "banners" });
  const headsWarning = el("div", { id: "heads-warning" });
  const legend = el("div", { class: "legend", id: "legend" });
  const log = el("ol", { id: "log" });
  const live = el("span", { class: "live", id: "live" });
  const diceBox = el("div", { class: "dice-charts", id: "dice" });
  const disputesBox = el("div", { id: "disputes-box" }, el("p", { text: t("page.loading") }));
  const auditBox = el("div", { id: "audit-box" }, el("p", { text: t("page.loading") }));
  const unitCard = el("div", { class: "unit-card", id: "unit-card" });
  const reportBox = el("div", { class: "report-box", id: "report-box", role: "status" });
  // The units as a list of buttons, by side and brigade: the way to choose
  // a unit with the keyboard, a screen reader or a finger (a unit on a
  // phone's map is a few pixels wide). Choosing one is tapping it on the map.
  const unitList = el("div", { id: "unit-list" });
  // A big battle's list is long on a phone: the filter keeps the units,
  // generals and brigades whose name or id holds what is typed.
  const unitFilter = el("input", { type: "search", id: "unit-filter", autocomplete: "off", spellcheck: "false",
    placeholder: t("page.units.filter_hint"), "aria-label": t("page.units.filter"), oninput: () => filterUnits() });
  const rulings = el("div", { class: "rulings", id: "rulings", "aria-live": "polite" });
  const reviewBox = el("section", { class: "card review", id: "review", hidden: true, "aria-label": t("page.review.label") });
  const btn = (k, label, fn) => el("button", { type: "button", id: "tl-" + k.split(".")[1], title: t(k), "aria-label": t(k), onclick: fn, text: label });
  const nowBtn = el("button", { type: "button", id: "go-now", class: "go-now", hidden: true, text: t("page.timeline.now"), onclick: () => goTo(st.last) });

  document.title = (now.name || bid) + " · " + t("app.title");
  const canPlay = you.role === "player" || you.role === "umpire";
  const playBox = el("section", { class: "card play", id: "play", hidden: !canPlay });

  fill(main, 
    el("div", { class: "battle-head" }, el("h1", { id: "battle-title", text: (now.name || bid) + " · " + cid }), live),
    headsWarning, banners, rulings, reviewBox,
    el("div", { class: "battle" },
      el("div", { class: "col-main" },
        el("section", { class: "card map-card" },
          el("h2", { text: t("battle.map") }), status, headBox, mapBox, legend,
          el("div", { class: "timeline", role: "group", "aria-label": t("battle.timeline") },
            btn("battle.first", "«", () => goTo(1)), btn("battle.prev", "‹", () => goTo(st.current - 1)),
            slider,
            btn("battle.next", "›", () => goTo(st.current + 1)), btn("battle.last", "»", () => goTo(st.last)),
            nowBtn, where)),
        el("section", { class: "card units", id: "units", "aria-labelledby": "units-title" },
          el("h2", { id: "units-title", text: t("page.units.title") }),
          el("p", { class: "muted", id: "units-hint", text: t("page.units.hint") }),
          el("div", { class: "field unit-filter" }, unitFilter), unitList),
        el("section", { class: "card", id: "unit-info" }, unitCard),
        playBox),
      el("div", { class: "col-side" },
        el("section", { class: "card" }, el("h2", { text: t("battle.events") }), log),
        el("section", { class: "card" }, el("h2", { text: t("battle.dice") }), el("p", { class: "muted", text: t("page.dice.hint") }), diceBox),
        el("section", { class: "card", id: "disputes" }, el("h2", { text: t("battle.disputes") }), disputesBox),
        el("section", { class: "card", id: "audit" }, el("h2", {}, t("battle.audit") + " ",
          el("button", { type: "button", id: "audit-refresh", text: t("audit.refresh"), onclick: () => loadAudit() })),
          el("p", { class: "muted", text: t("audit.hint") }), auditBox),
        el("section", { class: "card", id: "report", "aria-labelledby": "report-title" }, el("h2", { id: "report-title", text: t("page.report.title") }),
          el("p", { class: "muted", text: t("page.report.hint") }),
          el("button", { type: "button", id: "report-make", text: t("page.report.make"), onclick: () => makeReport() }), reportBox))));

  // A link to the unit list, the first stop of the Tab key (seen when it
  // has the keyboard): past the header, the map's tools and the timeline.
  const oldSkip = document.getElementById("skip-units");
  if (oldSkip) oldSkip.remove();
  document.body.prepend(el("a", { href: "#units", class: "skip", id: "skip-units", text: t("page.units.skip"), onclick: ev => {
    ev.preventDefault();
    const first = unitList.querySelector('button.unit-pick[tabindex="0"]');
    if (first) first.focus(); else document.getElementById("units-title").scrollIntoView();
  } }));

  // The play panel, for a player or the umpire; the map hands it taps and
  // drags, and it draws its previews on the map's overlay.
  let play = null;
  // tap is what a tap on the map does (a unit, a general, a point), and
  // what choosing a unit from the list does.
  const tap = e => {
    if (play && play.tap(e)) return;
    if (e.unit) select(e.unit);
    else if (e.general) selectGeneral(e.general);
  };
  const map = new BattleMap(mapBox, {
    tap,
    dragStart: (unit, pt, mode) => play ? play.dragStart(unit, pt, mode) : false,
    drag: (pt, how) => play && play.drag(pt, how),
    dragEnd: (pt, how) => play && play.dragEnd(pt, how),
    overlay: (g, m) => {
      drawSelection(g, m);
      drawFlankZones(g, m);
      drawFlankOrders(g, m);
      if (play && st.current === st.last) play.overlay(g, m);
    },
  });
  map.sideName = sideName;
  if (canPlay) {
    play = mountPlay(playBox, {
      base, you, people, sideName, map,
      state: () => st.now,
      selected: () => st.selected,
      selectedGeneral: () => st.general,
      select,
      atNow: () => st.current === st.last,
      refresh: () => refreshNow(),
      goNow: () => goTo(st.last),
      events: () => st.events,
    });
  }

  // The review of one event: the URL keeps it (#review=N), so that a
  // reload or a link shows it again.
  const review = mountReview(reviewBox, {
    base, you, sideName,
    now: () => st.now,
    goTo: v => { goTo(v); mapBox.scrollIntoView({ block: "start" }); },
    raise: v => {
      const f = document.getElementById("dispute-version");
      if (!f) return;
      f.value = String(v);
      document.getElementById("disputes").scrollIntoView({ block: "start" });
      document.getElementById("dispute-reason").focus();
    },
    ruled: () => loadDisputes(),
    closed: () => setHash(""),
  });
  function setHash(h) { history.replaceState(null, "", location.pathname + location.search + (h ? "#" + h : "")); }
  function openReview(v) {
    setHash("review=" + v);
    return review.open(v);
  }

  for (const e of st.events) log.append(logEntry(e));
  slider.addEventListener("input", () => goTo(Number(slider.value)));
  slider.addEventListener("change", () => goTo(Number(slider.value)));
  log.addEventListener("click", ev => {
    const rev = ev.target.closest("button.review-open[data-review]");
    if (rev) { ev.preventDefault(); return openReview(Number(rev.dataset.review)); }
    const pic = ev.target.closest("button.picture[data-charge]");
    if (pic) { ev.preventDefault(); const v = Number(pic.dataset.charge); return goTo(commandEnd(st.events, v), v); }
    const link = ev.target.closest("[data-goto]");
    if (link) { ev.preventDefault(); return goTo(Number(link.dataset.goto)); }
    const li = ev.target.closest("li[data-version]");
    if (li) goTo(Number(li.dataset.version));
  });
  document.addEventListener("keydown", ev => {
    if (ev.defaultPrevented) return;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(ev.target.tagName) && ev.target.type !== "range") return;
    if (ev.key === "ArrowLeft") { goTo(st.current - 1); ev.preventDefault(); }
    if (ev.key === "ArrowRight") { goTo(st.current + 1); ev.preventDefault(); }
  });

  // select makes unit the selected one: its card, its ring on the map, and
  // the play panel's tools for it.
  function select(unit) {
    st.selected = unit || null;
    st.general = null;
    drawUnitCard();
    drawUnitList();
    if (play) play.selectionChanged();
    map.drawOverlay();
  }

  // selectGeneral makes a general the selected one: the card says who
  // they are, and the play panel offers their order.
  function selectGeneral(general) {
    st.selected = null;
    st.general = general || null;
    drawUnitCard();
    drawUnitList();
    if (play) play.selectionChanged();
    map.drawOverlay();
  }

  function shownBoard() { return st.current === st.last ? st.now : st.boards.get(st.current) || st.now; }

  function drawUnitCard() {
    const b = shownBoard();
    const u = st.selected && (b.units || []).find(x => x.unit === st.selected);
    const g = st.general && (b.generals || []).find(x => x.general === st.general);
    if (g) {
      const row = (k, v) => el("div", {}, el("dt", { text: t(k) }), el("dd", { text: v }));
      fill(unitCard,
        el("h2", { id: "unit-title", "data-general": g.general }, (g.name && g.name !== g.general ? g.name + " (" + g.general + ")" : g.general)),
        el("dl", { class: "unit-facts" },
          row("page.unit.side", sideName(g.side)),
          row("page.unit.type", g.c_in_c ? t("legend.cinc") : t("legend.general")),
          g.brigade ? row("page.general.brigade", g.brigade) : null,
          row("page.general.rating", String(g.rating)),
          g.attached_to ? row("page.general.with", g.attached_to) : null,
          row("page.unit.position", "x " + num(g.x) + ", y " + num(g.y))));
      return;
    }
    if (!u) {
      fill(unitCard, el("p", { class: "muted", text: t("page.unit.none") }));
      return;
    }
    const row = (k, v) => el("div", {}, el("dt", { text: t(k) }), el("dd", { text: v }));
    fill(unitCard, 
      el("h2", { id: "unit-title", "data-unit": u.unit }, (u.name && u.name !== u.unit ? u.name + " (" + u.unit + ")" : u.unit)),
      el("dl", { class: "unit-facts" },
        row("page.unit.side", sideName(u.side)),
        row("page.unit.type", term("type", u.type)),
        row("page.unit.formation", term("formation", u.formation)),
        row("page.unit.status", term("status", u.status) + (u.markers ? " · " + t("page.unit.markers", { n: u.markers }) : "")),
        st.current === st.last ? row("page.unit.actions_left", String(u.actions_left)) : null,
        row("page.unit.position", "x " + num(u.x) + ", y " + num(u.y)),
        row("page.unit.facing", num(u.facing, 0) + "°")));
  }

  // drawUnitList lists the units of the board shown, by side (the
  // player's own first) and brigade, each brigade under its general: a
  // button per unit, named by its name and type, pressed when selected.
  // One stop of the Tab key for the whole list: the arrow keys move
  // between its units, Enter or Space chooses one.
  function drawUnitList() {
    const b = shownBoard();
    const a = document.activeElement;
    const had = unitList.contains(a) && a.dataset ? (a.dataset.unit || (a.dataset.general ? "general:" + a.dataset.general : null)) : null;
    const units = (b.units || []).filter(u => u.status !== "off_table");
    if (!units.length) { fill(unitList, el("p", { class: "muted", text: t("page.units.none") })); return; }
    const sides = [...(b.sides || [])].sort((x, y) => (y.side === you.side) - (x.side === you.side));
    const gens = b.generals || [];
    const groups = [];
    for (const s of sides) {
      const mine = units.filter(u => u.side === s.side);
      if (!mine.length) continue;
      const cinc = gens.find(g => g.side === s.side && g.c_in_c);
      const brigades = [...new Set([...gens.filter(g => g.side === s.side && g.brigade).map(g => g.brigade), ...mine.map(u => u.brigade)])];
      groups.push(el("div", { class: "units-side", "data-side": s.side },
        el("h3", { text: sideName(s.side) }),
        cinc ? el("ul", { class: "unit-picks" }, el("li", {}, generalButton(cinc))) : null,
        ...brigades.map(bid => {
          const inIt = mine.filter(u => u.brigade === bid);
          if (!inIt.length) return null;
          const g = gens.find(x => x.side === s.side && x.brigade === bid && bid);
          const title = !bid ? t("page.units.no_brigade") : g && g.brigade_name ? g.brigade_name : t("page.units.brigade", { brigade: bid });
          const id = "units-" + s.side + "-" + (bid || "none");
          return el("div", { class: "units-brigade", "data-brigade": bid },
            el("h4", { id, text: title }),
            el("ul", { class: "unit-picks", "aria-labelledby": id }, g ? el("li", {}, generalButton(g)) : null, ...inIt.map(u => el("li", {}, unitButton(u)))));
        })));
    }
    fill(unitList, ...groups);
    filterUnits(true);
    const buttons = shownPicks();
    const key = x => x.dataset.unit || "general:" + x.dataset.general;
    const stop = buttons.find(x => key(x) === (had || st.selected || (st.general && "general:" + st.general))) || buttons[0];
    if (stop) stop.tabIndex = 0;
    if (had && stop && key(stop) === had) stop.focus({ preventScroll: true });
  }

  // generalButton: a general in the list, chosen as a tap on their disc.
  function generalButton(g) {
    return el("button", { type: "button", class: "unit-pick general-pick", tabindex: "-1", "data-general": g.general, "data-side": g.side,
      "aria-pressed": st.general === g.general ? "true" : "false", onclick: () => tap({ unit: null, general: g.general, point: null }) },
    el("span", { class: "unit-name", text: g.name || g.general }), " ",
    el("span", { class: "unit-facts", text: (g.c_in_c ? t("legend.cinc") : t("legend.general")) + " · " + t("page.units.rating", { n: g.rating }) }));
  }

  function unitButton(u) {
    const now = st.current === st.last;
    const facts = [term("type", u.type), term("formation", u.formation),
      u.status && u.status !== "ok" ? term("status", u.status) : "",
      now && st.now.status === "in_progress" && u.side === st.now.phasing_side ? t("page.units.actions", { n: u.actions_left }) : ""].filter(Boolean);
    return el("button", { type: "button", class: "unit-pick", tabindex: "-1", "data-unit": u.unit, "data-side": u.side,
      "aria-pressed": st.selected === u.unit ? "true" : "false", onclick: () => tap({ unit: u.unit, general: null, point: null }) },
    el("span", { class: "unit-name", text: u.name && u.name !== u.unit ? u.name : u.unit }), " ",
    el("span", { class: "unit-facts", text: facts.join(" · ") }));
  }

  // shownPicks are the list's buttons the filter leaves shown.
  function shownPicks() {
    return [...unitList.querySelectorAll("button.unit-pick")].filter(x => !x.closest("[hidden]"));
  }
  // filterUnits hides the list's units and generals whose name, id or
  // brigade does not hold the filter's text, and the brigades and sides
  // left empty; the list's one Tab stop stays on a shown button.
  function filterUnits(drawn) {
    const q = unitFilter.value.trim().toLowerCase();
    for (const li of unitList.querySelectorAll("li")) {
      const x = li.querySelector("button.unit-pick");
      if (!x) continue;
      const group = x.closest(".units-brigade"), head = group ? group.querySelector("h4") : null;
      const words = [x.textContent, x.dataset.unit, x.dataset.general, group && group.dataset.brigade, head && head.textContent]
        .filter(Boolean).join(" ").toLowerCase();
      li.hidden = !!q && !words.includes(q);
    }
    for (const g of unitList.querySelectorAll(".units-brigade, .units-side")) {
      g.hidden = !!q && !g.querySelector("li:not([hidden])");
    }
    if (drawn) return;
    const shown = shownPicks();
    if (shown.length && !shown.some(x => x.tabIndex === 0)) {
      for (const x of unitList.querySelectorAll("button.unit-pick")) x.tabIndex = -1;
      shown[0].tabIndex = 0;
    }
  }

  unitList.addEventListener("keydown", ev => {
    const keys = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1, Home: "first", End: "last" };
    if (!(ev.key in keys) || !ev.target.matches("button.unit-pick")) return;
    const buttons = shownPicks();
    const i = buttons.indexOf(ev.target), k = keys[ev.key];
    const next = k === "first" ? buttons[0] : k === "last" ? buttons[buttons.length - 1] : buttons[Math.max(0, Math.min(buttons.length - 1, i + k))];
    ev.preventDefault();
    if (!next || next === ev.target) return;
    ev.target.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });

  function drawSelection(g, m) {
    if (st.general && m.root) {
      const c = m.root.querySelector('circle.general[data-general="' + CSS.escape(st.general) + '"]');
      if (c) g.append(svg("circle", { class: "selection", cx: c.getAttribute("cx"), cy: c.getAttribute("cy"), r: 14 * m.k, fill: "none", stroke: "#ffb300", "stroke-width": 3, "stroke-dasharray": "6 4", "vector-effect": "non-scaling-stroke" }));
    }
    if (!st.selected || !m.root) return;
    const u = m.root.querySelector('g.unit[data-unit="' + CSS.escape(st.selected) + '"]');
    if (!u) return;
    const r = Math.hypot(+u.dataset.width, +u.dataset.depth) / 2;
    const [x, y] = m.pt({ x: +u.dataset.x, y: +u.dataset.y });
    g.append(svg("circle", { class: "selection", cx: x, cy: y, r: r + 6 * m.k, fill: "none", stroke: "#ffb300", "stroke-width": 3, "stroke-dasharray": "6 4", "vector-effect": "non-scaling-stroke" }));
    // While a move, march, turn or formation change is being placed, its
    // ruler and ghost say what counts: the rings would cover them.
    const placing = play && ["move", "march", "turn", "formation"].includes(play.toolName());
    if (st.current === st.last && !placing) drawReach(g, m, (st.now.units || []).find(x => x.unit === st.selected));
  }

  // drawReach draws, round the selected unit, how far it reaches by the
  // ruleset (the state's reach, from the service): a ring for each move
  // action it has (one when it has none yet: what an order would give),
  // from its centre, and its K.4 charge range from its leader point (the
  // middle of its front edge), before the player chooses a move, a charge
  // or an initiative target. Walls, terrain and C.9 are the command's to
  // judge: the rings are the distances only.
  function drawReach(g, m, u) {
    if (!u || !u.reach || u.status === "destroyed" || u.status === "off_table") return;
    const meas = st.now.measurement, per = u.reach.per_action;
    let n = Math.max(1, u.actions_left || 0);
    if (u.reach.max_moves) n = Math.min(n, u.reach.max_moves);
    const fwd = heading(u.facing);
    const leader = { x: u.x + fwd.x * u.depth / 2, y: u.y + fwd.y * u.depth / 2 };
    const circle = (at, r, cls, colour, dash) => { const [cx, cy] = m.pt(at); return svg("circle", { class: cls, cx, cy, r, fill: "none", stroke: colour, "stroke-width": 1.5, "stroke-dasharray": dash, "vector-effect": "non-scaling-stroke", "data-r": String(r) }); };
    const rings = svg("g", { class: "reach", "data-unit": u.unit, "aria-hidden": "true" });
    for (let k = 1; k <= n; k++) {
      rings.append(circle({ x: u.x, y: u.y }, k * per, "reach-move", "#0b57a4", "2 5"),
        m.text({ x: u.x, y: u.y + k * per }, t("page.reach.move", { n: k, d: length(per, meas) }), "reach-text", 11, -8));
    }
    // The C.15 initiative range is measured base to base: the ring is the
    // base grown by it on every side (an enemy base touching it is in
    // range). In the command phase only, when initiative is taken.
    const ir = u.reach.initiative;
    if (ir > 0 && st.now.phase === "command") {
      const [cx, cy] = m.pt({ x: u.x, y: u.y });
      rings.append(svg("rect", { class: "reach-initiative", x: -(u.width / 2 + ir), y: -(u.depth / 2 + ir), width: u.width + 2 * ir, height: u.depth + 2 * ir, rx: ir, ry: ir,
        transform: "translate(" + cx + "," + cy + ") rotate(" + u.facing + ")", fill: "none", stroke: "#6a1b9a", "stroke-width": 1.5, "stroke-dasharray": "1 4",
        "vector-effect": "non-scaling-stroke", "data-r": String(ir) }),
      m.text({ x: u.x - fwd.x * (u.depth / 2 + ir), y: u.y - fwd.y * (u.depth / 2 + ir) }, t("page.reach.initiative", { d: length(ir, meas) }), "reach-text", 11, 10));
    }
    const c = u.reach.charge;
    rings.append(circle(leader, c, "reach-charge", "#b3261e", "9 5"),
      m.text({ x: leader.x + fwd.x * c, y: leader.y + fwd.y * c }, t("page.reach.charge", { d: length(c, meas) }), "reach-text", 11, 10));
    g.append(rings);
  }

  // drawFlankOrders marks, for the march's own side and the umpire (the
  // state gives them its sealed orders), where each flank march they may
  // see in full will enter, and what marches; the opponent sees only the
  // edge, which the picture draws.
  // drawFlankZones shades, at the battle's present, the strip along each
  // edge a flank march keeps enemies from (F.8: the state's flank_zones,
  // from the ruleset's edge_exclusion), so that nobody drags a unit into it
  // before the ruler says no.
  function drawFlankZones(g, m) {
    if (st.current !== st.last) return;
    for (const z of st.now.flank_zones || []) {
      const pts = (z.zone || []).map(p => m.pt(p).join(",")).join(" ");
      if (!pts) continue;
      // Its words near one end of the strip: the middle holds the march's
      // own label (the picture's).
      let cx = z.zone.reduce((a, p) => a + p.x, 0) / z.zone.length, cy = z.zone.reduce((a, p) => a + p.y, 0) / z.zone.length;
      if (z.edge === "west" || z.edge === "east") cy = (st.now.table_depth || 0) * 0.85; else cx = (st.now.table_width || 0) * 0.25;
      g.append(svg("g", { class: "flank-zone", "data-edge": z.edge, "data-side": z.side, "data-distance": String(z.distance), "aria-hidden": "true" },
        svg("polygon", { points: pts, fill: "#b3261e", "fill-opacity": 0.08, stroke: "#b3261e", "stroke-width": 1.5, "stroke-dasharray": "6 4", "vector-effect": "non-scaling-stroke" }),
        m.text({ x: cx, y: cy }, t("page.flank.zone", { side: sideName(z.side), d: length(z.distance, st.now.measurement) }), "flank-zone-text", 11, 0)));
    }
  }

  function drawFlankOrders(g, m) {
    if (st.current !== st.last) return;
    for (const fm of st.now.flank_marches || []) {
      if (!fm.orders || fm.entry_kind === "lost") continue;
      const at = fm.chosen_entry || fm.orders.entry;
      if (!at) continue;
      const sealed = !fm.revealed_at;
      const units = (fm.orders.brigades || []).reduce((n, b) => n + (b.units || []).length, 0);
      g.append(m.marker(at, t(sealed ? "page.flank.marker_sealed" : "page.flank.marker", { n: fm.n, units }), "#7a1fa2", "flank-entry" + (sealed ? " sealed" : "")));
    }
  }

  // goTo shows the battle just after event v: the picture (with the
  // overlay of the charge declared at event charge, if given) and the
  // replay's status line.
  let pending = 0;
  async function goTo(v, charge) {
    v = Math.max(1, Math.min(st.last, v | 0));
    if (!v) return;
    charge = charge | 0;
    const ticket = ++pending;
    const pkey = v + ":" + charge;
    let b = st.boards.get(v), pic = st.pictures.get(pkey);
    try {
      [b, pic] = await Promise.all([
        b || api(base + "/replay?version=" + v),
        pic || apiSVG(base + "/battlefield.svg?version=" + v + (charge ? "&charge=" + charge : "")),
      ]);
    } catch (err) { return showError(where, err); }
    st.boards.set(v, b);
    st.pictures.set(pkey, pic);
    if (ticket !== pending) return; // a later step won
    try { map.show(pic); } catch (err) { return showError(where, err); }
    st.current = v;
    slider.value = String(v);
    nowBtn.hidden = v === st.last;
    drawStatus(b);
    const shown = map.root.dataset.charge ? Number(map.root.dataset.charge) : 0;
    fill(where, ...[el("b", { text: t("battle.event_of", { n: v, total: st.last }) }),
      b.event ? el("span", { class: "srv", text: " · " + b.event.description }) : null,
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
    drawUnitCard();
    drawUnitList();
    if (play) play.atNowChanged(v === st.last);
  }

  function endedReason() {
    for (let i = st.events.length - 1; i >= 0; i--) if (st.events[i].type === "battle.ended") return (st.events[i].payload || {}).reason || "";
    return "";
  }

  function drawStatus(b) {
    fill(status, ...[
      el("span", { class: "status s-" + b.status, id: "battle-status", text: term("status", b.status) }),
      b.status !== "ended" && b.turn ? el("span", { text: t("page.status.turn", { n: b.turn }) }) : null,
      b.status === "in_progress" && b.phase ? el("span", { id: "battle-phase", text: t("page.status.phase", { side: sideName(b.phasing_side), phase: term("phase", b.phase) }) }) : null,
      st.current !== st.last ? el("span", { class: "past", text: t("page.status.past") }) : null].filter(Boolean));
    const head = st.current === st.last ? st.now.head : b.head;
    fill(headBox, ...(head ? [el("span", { class: "muted", text: t("page.head.label") + " " }),
      el("code", { id: "head-hash", title: head, text: head.slice(0, 16) + "…" })] : []));
    const ended = st.now.status === "ended";
    fill(banners, ...(ended ? [el("div", { class: "banner ended", id: "ended-banner", role: "status" },
      t("page.ended", { reason: endedReason() || "—" }))] : []));
    drawLive();
  }

  let streaming = false;
  function drawLive() {
    const ended = st.now.status === "ended";
    live.className = "live" + (ended ? " ended" : streaming ? " on" : " off");
    live.textContent = ended ? t("page.live.ended") : streaming ? "● " + t("battle.live") : "○ " + t("page.live.offline");
    live.title = ended ? t("page.live.ended_hint") : streaming ? t("page.live.hint") : t("page.live.offline_hint");
  }

  // refreshNow reads the battle as it stands now (the play panel's state),
  // keeps its head, and redraws what depends on it.
  let refreshing = null, again = false;
  async function refreshNow() {
    if (refreshing) { again = true; return refreshing; }
    refreshing = (async () => {
      do {
        again = false;
        try { st.now = await api(base + "/state"); } catch (err) { break; }
        keepStateHead();
        if (st.current === st.last) { drawStatus(st.now); drawUnitCard(); drawUnitList(); }
        drawLegend(legend, st.now, sideName);
        if (play) play.update(st.now);
      } while (again);
    })();
    try { await refreshing; } finally { refreshing = null; }
  }

  // Witnessed heads: keep what this page has seen, and check the history
  // the ledger shows against what it saw before.
  function witness(events, last) {
    const bad = checkHeads(key, events, last);
    if (bad.length) {
      fill(headsWarning, el("div", { class: "banner heads-broken", id: "heads-broken", role: "alert" },
        el("b", { text: t("page.heads.broken_title") }), " ", t("page.heads.broken", { n: bad.length }),
        el("ul", {}, ...bad.map(x => el("li", { text: x.now
          ? t("page.heads.changed", { v: x.v, kept: x.kept.slice(0, 16), now: x.now.slice(0, 16) })
          : t("page.heads.gone", { v: x.v, kept: x.kept.slice(0, 16), last }) }))),
        el("p", { text: t("page.heads.what_to_do") })));
    }
    for (const e of events) if (e.hash) keepHead(key, e.version, e.hash);
    keepStateHead(events);
  }

  // keepStateHead keeps the state's head when the log's events agree with
  // it (the event at the state's version has that hash): a head is kept
  // only as the log shows it.
  function keepStateHead(events) {
    const h = st.now.head, v = st.now.version;
    if (!h) return;
    const e = (events || st.events).find(x => x.version === v);
    if (e && e.hash === h) keepHead(key, v, h);
  }

  async function loadDice() {
    try { drawDice(diceBox, await api(base + "/dice")); } catch (err) { showError(diceBox, err); }
  }

  async function loadDisputes() {
    let d;
    try { d = await api(base + "/disputes"); } catch (err) { return showError(disputesBox, err); }
    drawDisputes(disputesBox, d, { you, base, current: () => st.current, goTo, review: openReview, reload: loadDisputes, lastOwn: () => lastOwnCommand(st.events, you.player) });
    log.querySelectorAll("li.disputed").forEach(li => li.classList.remove("disputed"));
    for (const x of d.disputes) {
      const li = log.querySelector('li[data-version="' + x.event_version + '"]');
      if (li) { li.classList.add("disputed"); li.title = t("disputes.disputed", { n: x.dispute, status: t("dstatus." + x.status) }); }
    }
  }

  // showRuling tells everyone watching that the umpire has ruled: the
  // dispute, the ruling, and its review.
  function showRuling(e) {
    const p = e.payload || {};
    const old = document.getElementById("ruling-" + p.dispute);
    if (old) old.remove();
    const n = el("div", { class: "banner ruling-notice " + (e.type === "dispute.upheld" ? "upheld" : "dismissed"), id: "ruling-" + p.dispute, role: "status",
      "data-dispute": String(p.dispute), "data-status": e.type === "dispute.upheld" ? "upheld" : "dismissed" },
    el("b", { text: t(e.type === "dispute.upheld" ? "page.ruling.upheld" : "page.ruling.dismissed", { n: p.dispute, v: p.event_version, who: term("actor", e.actor) }) }),
    " ", el("q", { class: "typed", text: p.ruling || "" }),
    el("button", { type: "button", class: "small", text: t("page.review.open"), onclick: () => openReview(p.event_version) }),
    el("button", { type: "button", class: "close", "aria-label": t("page.close"), text: "×", onclick: () => n.remove() }));
    rulings.append(n);
  }

  // makeReport fetches the battle's report (GET .../report?format=html,
  // docs/report.md) with the token and offers it as a file to keep: a
  // link to it in this page's memory, named after the battle.
  let reportURL = "";
  async function makeReport() {
    fill(reportBox, el("p", { class: "muted", text: t("page.report.making") }));
    let blob;
    try { blob = await apiBlob(base + "/report?format=html", "text/html"); } catch (err) { return showError(reportBox, err); }
    if (reportURL) URL.revokeObjectURL(reportURL);
    reportURL = URL.createObjectURL(blob);
    const file = bid + ".html";
    const link = el("a", { href: reportURL, download: file, id: "report-link", class: "download",
      text: t("page.report.download", { file, size: num(blob.size / 1024, 0) }) });
    fill(reportBox, link);
    link.focus();
  }

  async function loadAudit() {
    try { drawAudit(auditBox, await api(base + "/audit")); } catch (err) { showError(auditBox, err); }
  }

  witness(st.events, st.last);
  drawLegend(legend, st.now, sideName);
  drawUnitCard();
  drawUnitList();
  if (st.last > 0) await goTo(st.last);
  loadDice();
  loadDisputes();
  loadAudit();
  const asked = /(?:^#|&)review=(\d+)/.exec(location.hash);
  if (asked) openReview(Number(asked[1]));

  let stopped = false;
  onUnauthorized(() => { stopped = true; streaming = false; drawLive(); });
  let fresh = false;
  follow(base, st, () => stopped, e => {
    if (st.events.some(x => x.version === e.version)) return;
    const atEnd = st.current === st.last;
    st.last = Math.max(st.last, e.version);
    st.events.push(e);
    if (e.hash) keepHead(key, e.version, e.hash);
    slider.max = String(st.last);
    log.append(logEntry(e));
    if (e.type === "dice.rolled") loadDice();
    if (play) play.event(e);
    if (e.type.startsWith("dispute.") || e.type.startsWith("command.retract") || RULING_EVENTS.includes(e.type)) {
      st.boards.clear(); // a correction changes the boards after it
      st.pictures.clear();
      loadDisputes();
    }
    if (e.type === "dispute.upheld" || e.type === "dispute.dismissed") showRuling(e);
    if (RULING_EVENTS.includes(e.type) && review.version()) review.refresh();
    refreshNow().then(() => { if (atEnd) goTo(st.last); else nowBtn.hidden = false; });
  }, async on => {
    streaming = on;
    if (on && play) play.reconnected();
    drawLive();
    if (on && fresh) {
      // Back after a break: read the whole history again and check it
      // against the heads this page has seen.
      try { const all = await api(base + "/events"); witness(all.events, all.last); } catch (err) { /* shown when it matters */ }
    }
    if (on) fresh = true;
  });
}

export function logEntry(e) {
  const li = el("li", { "data-version": String(e.version), "data-type": e.type },
    el("button", { type: "button", class: "review-open", "data-review": String(e.version), title: t("page.review.open_hint"), text: t("page.review.open"),
      // A screen reader lists the log's buttons apart from their rows:
      // each says which event it reviews.
      "aria-label": t("page.review.open_event", { n: e.version }) }),
    el("span", { class: "v", text: String(e.version) }), " ",
    el("span", { class: "type", title: e.type, text: term("event", e.type) }), " ",
    el("span", { class: "actor", text: term("actor", e.actor) }),
    el("div", { class: "desc srv", text: e.description }));
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

const FORMATION_GLYPHS = ["line", "attack_column", "march_column", "square"];

function drawLegend(legend, b, sideName) {
  if (!b) return;
  fill(legend, 
    ...(b.sides || []).map((s, i) => el("span", { class: "k" + (i % 4), text: sideName(s.side) })),
    el("span", { class: "gen", text: t("legend.general") }),
    el("span", { class: "gen cinc", text: t("legend.cinc") }),
    el("span", { class: "front", text: t("page.legend.front") }),
    el("span", { class: "column", text: t("page.legend.column") }),
    el("span", { class: "moved", text: t("page.legend.moved") }));
}

// drawDice draws, for each person and die size, a bar per face, split
// into the physical dice they entered and the digital dice the ledger
// rolled for their commands, and the line fair dice would average.
function drawDice(box, d) {
  if (!d.people.length) return fill(box, el("p", { class: "muted", text: t("battle.dice_none") }));
  fill(box, el("p", { class: "dice-key" }, el("span", { class: "sw digital" }), " " + t("page.dice.digital") + "  ",
    el("span", { class: "sw physical" }), " " + t("page.dice.physical")),
  ...d.people.map(p => diceChart(p, t("page.dice.split", { physical: p.physical, digital: p.digital }) +
    (p.for ? " · " + t("page.dice.entered_for", { by: p.person, for: p.for }) : ""))));
}

// diceChart draws one person's faces of one die size: a bar per face (the
// physical part above the digital one when the answer splits them) and
// the line fair dice would average.
function diceChart(p, note) {
  const W = 30 * p.sides + 20, H = 110, top = 10, bottom = 20, h = H - top - bottom;
  const max = Math.max(p.expected * 1.5, ...p.faces, 1);
  const y = v => top + h - (v / max) * h;
  const split = Array.isArray(p.physical_faces) && Array.isArray(p.digital_faces);
  const bars = p.faces.map((n, i) => {
    const dig = split ? p.digital_faces[i] : n, phy = split ? p.physical_faces[i] : 0;
    return [
      svg("rect", { class: "bar digital", x: 14 + i * 30, y: y(dig), width: 22, height: (dig / max) * h, "data-face": i + 1, "data-count": n, "data-digital": dig },
        svg("title", { text: (i + 1) + ": " + n + (split ? " (" + t("page.dice.digital") + " " + dig + ", " + t("page.dice.physical") + " " + phy + ")" : "") })),
      phy ? svg("rect", { class: "bar physical", x: 14 + i * 30, y: y(dig + phy), width: 22, height: (phy / max) * h, "data-face": i + 1, "data-physical": phy }) : null,
      svg("text", { x: 25 + i * 30, y: H - 6, text: String(i + 1) }),
      svg("text", { x: 25 + i * 30, y: y(n) - 2, text: String(n) })];
  }).flat().filter(Boolean);
  const caption = p.person + " · d" + p.sides + " · " + t("battle.dice_count", { n: p.dice }) + (note ? " · " + note : "");
  const chart = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": caption, class: "dice-chart", "data-person": p.person, "data-sides": p.sides },
    ...bars, svg("line", { class: "expected", x1: 8, x2: W - 4, y1: y(p.expected), y2: y(p.expected) }, svg("title", { text: t("battle.dice_expected") + " " + p.expected.toFixed(2) })));
  return el("figure", {}, chart, el("figcaption", { text: caption }));
}

// follow reads the battle's live stream (server-sent events) with fetch,
// so that the token travels in the Authorization header, not the URL; it
// reconnects after the last version seen, until stop() says not to (the
// token was refused).
async function follow(base, st, stop, onEvent, onLive) {
  for (;;) {
    if (stop()) return;
    try {
      const res = await fetch(withLang(base + "/events/stream"), {
        headers: { "Authorization": "Bearer " + token(), "Last-Event-ID": String(st.last), "Accept": "text/event-stream" },
      });
      if (res.status === 401) { await api(base + "/state").catch(() => {}); return; }
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
          onEvent(JSON.parse(data));
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

// commandForm builds a small command form: fields, a submit button, and
// the refusal (rule and message) shown under it.
function commandForm(id, fields, buttons) {
  const out = el("div", { class: "form-result", role: "status" });
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
      form.result.className = "form-result";
      fill(form.result, errorBox(err));
    }
  };
  const go = v => el("a", { href: "#", text: "#" + v, onclick: ev => { ev.preventDefault(); ctx.goTo(v); } });
  const items = [];
  for (const x of d.disputes) {
    const li = el("li", { class: "dispute s-" + x.status, "data-dispute": String(x.dispute) },
      el("b", { text: t("disputes.dispute", { n: x.dispute }) + " · " + t("dstatus." + x.status) }), " ",
      t("disputes.on_event") + " ", go(x.event_version), " (" + term("event", x.event_type) + ")",
      el("div", { text: t("disputes.raised_by", { who: x.raised_by, v: x.raised_at }) + ": " + x.reason }),
      x.ruling ? el("div", { text: t("disputes.ruled_by", { who: x.ruled_by, v: x.ruled_at }) + ": " + x.ruling }) : null,
      x.corrections.length ? el("ul", { class: "corrections" }, ...x.corrections.map(c => el("li", {}, go(c.version), " " + c.description))) : null);
    // Its review: where the umpire upholds it, with corrections checked
    // by a dry run; a plain dismissal may also be given here.
    li.append(el("div", { class: "actions" }, el("button", { type: "button", class: "review-dispute small" + (umpire && x.status === "open" ? " primary" : ""),
      "data-review": String(x.event_version), text: t(umpire && x.status === "open" ? "page.review.rule_open" : "page.review.open"), onclick: () => ctx.review(x.event_version),
      "aria-label": umpire && x.status === "open" ? t("page.review.rule_open") + " · #" + x.event_version : t("page.review.open_event", { n: x.event_version }) })));
    if (umpire && x.status === "open") {
      const ruling = field("ruling-" + x.dispute, t("disputes.ruling"), { tag: "textarea", rows: "2" });
      const f = commandForm("dismiss-" + x.dispute, [ruling], []);
      const text = () => f.querySelector("textarea[name^=ruling]").value;
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
  fill(box, ...parts);
}

// drawAudit shows the audit's checks, then each player's faces against the
// line fair dice give and their orders' outcomes against the exact odds.
function drawAudit(box, rep) {
  const checks = el("ul", { class: "checks" }, ...(rep.checks || []).map(c => el("li", { class: "check s-" + c.status, "data-check": c.id },
    el("b", { text: term("check", c.id) + ": " + term("check_status", c.status) }), " " + (c.summary || ""))));
  const players = (rep.players || []).map(p => {
    const faces = (p.faces || []).filter(f => f.source === "all").map(f => {
      const by = src => ((p.faces || []).find(g => g.source === src && g.sides === f.sides) || {}).counts;
      const phy = by("physical"), dig = by("digital");
      return diceChart({ person: p.player, sides: f.sides, faces: f.counts, dice: f.dice, expected: f.dice / f.sides,
        physical_faces: phy || f.counts.map(() => 0), digital_faces: dig || f.counts.map(() => 0) },
      "χ² " + f.chi_square.toFixed(2) + (f.exceeds ? " > " + f.critical_999.toFixed(2) + " !" : "") + (f.small_sample ? " · " + t("audit.small") : ""));
    });
    const outcomes = (p.outcomes || []).length ? el("table", { class: "outcomes" },
      el("thead", {}, el("tr", {}, ...["audit.outcome", "audit.observed", "audit.expected"].map(k => el("th", { text: t(k) })))),
      el("tbody", {}, ...p.outcomes.map(o => el("tr", {}, el("td", { text: outcomeText(o) }),
        el("td", { text: String(o.observed) }), el("td", { text: num(o.expected, 2) }))))) : null;
    return el("div", { class: "audit-player", "data-player": p.player }, el("h3", { text: p.player + " · " + t("audit.orders", { n: p.orders }) }),
      el("div", { class: "dice-charts" }, ...faces), outcomes);
  });
  fill(box, checks, ...players);
}

