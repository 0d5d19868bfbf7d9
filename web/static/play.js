// The play panel: with a player's token the page does for that side what
// the CLI does, in the order play happens (select a unit on the map, take
// or decline initiative, give an order with its exact odds, enter the dice
// thrown or ask for digital ones, move by dragging or by distance and
// direction, turn, change formation, charge, march, flank marches, end the
// phase); the umpire's page adds combat results, rulings and the battle's
// end. Every action posts the command the API takes
// (POST .../commands/{name}, docs/api.md). What a command would do is
// shown before it is sent by a dry run of the same service ("dry_run":
// true: the events it would append, or the very refusal), and an order's
// odds by GET .../odds: the page judges no rule itself. Every command sent
// without physical dice carries a fresh nonce from this device
// (crypto.getRandomValues, 16 bytes), which the service mixes into any
// digital roll the command makes (docs/dice.md).

import { fill, t, term, el, num, length, apiPost, api, errorBox, errorText, failedHeading, randomHex, outcomeText, tokenShared, clock } from "./core.js";
import { commandBody, settle, foreignRolls } from "./nonce.js";
import { openOutbox, retryable, MAX as OUTBOX_MAX } from "./outbox.js";
import { alertsOn, setAlerts, alertPlayer } from "./notify.js";
import { along, bearing, heading as headingVec } from "./geom.js";


const FORMATIONS = ["line", "attack_column", "march_column", "square", "open_order", "company_column", "division_column",
  "squadron_column", "half_squadron_column", "limbered", "unlimbered"];
const RESULTS = ["casualties", "disorder", "retreat", "rout", "rally", "destroyed"];
const ORDERS = ["attack", "support", "move", "defend", "reserve"];
const EDGES = ["north", "south", "east", "west"];
const COMMANDS = ["initiative.take", "initiative.decline", "order.give", "unit.move", "unit.reform", "unit.charge", "phase.end",
  "movement.hand_over", "march.declare", "unit.march", "brigade.order", "general.move", "general.detach", "unit.fire",
  "combat.record", "flank.declare", "flank.choose_entry", "flank.enter", "flank.rally", "dice.add_seed", "objective.hold",
  "army.deploy", "battle.start", "battle.end", "battle.create"];

const r2 = v => Math.round(v * 100) / 100;
const deg = v => ((v % 360) + 360) % 360;

export function mountPlay(box, ctx) {
  const { base, you, map, sideName } = ctx;
  const umpire = you.role === "umpire";
  const S = () => ctx.state();
  const units = () => S().units || [];
  const unit = id => units().find(u => u.unit === id);
  let acting = ""; // the umpire's side to act for ("" : the phasing side)
  const mySide = () => umpire ? (acting || S().phasing_side || (S().sides[0] || {}).side) : you.side;
  const mine = u => u && (umpire || u.side === you.side);
  const M = () => S().measurement;

  // --- talking to the service ------------------------------------------------

  let enterFor = ""; // the umpire enters a command for this person, at the table

  const envelope = (command, extra) => {
    const body = Object.assign({ command }, extra || {});
    if (enterFor) body.for = enterFor;
    return body;
  };

  // dryRun asks the service what the command would do, appending nothing:
  // the events it would append, or its refusal. For a command that rolls
  // digital dice the service checks everything before the roll and stops
  // there (needs_dice): a preview never shows a roll.
  async function dryRun(name, command) {
    try {
      const out = await apiPost(base + "/commands/" + name, envelope(command, { dry_run: true }));
      return { ok: true, events: out.events || [], needsDice: out.needs_dice || "" };
    } catch (err) {
      return { ok: false, error: err };
    }
  }

  // send posts a command: with the dice entered, or else with a fresh
  // nonce from this device for whatever digital dice it rolls. When the
  // ledger cannot be reached (no network, or it answers "unavailable, try
  // again") the command goes to the outbox with its id and nonce, and is
  // sent from there when it can be (below): a repeat appends nothing twice.
  // A command made while others wait goes behind them, so that the ledger
  // sees them in the order they were made.
  async function send(name, command, opts) {
    opts = opts || {};
    const holder = opts.holder || {};
    const body = envelope(command, commandBody(holder, opts.dice, randomHex));
    const focused = box.contains(document.activeElement);
    if (outbox.waiting().length) return queue(name, body, holder, focused);
    try {
      const out = await apiPost(base + "/commands/" + name, body);
      settle(holder);
      answered(name, body, out);
      await ctx.refresh(); // the tools that follow read the battle as it now stands
      keepFocus(focused);
      return { ok: true, events: out.events || [] };
    } catch (err) {
      if (retryable(err)) return queue(name, body, holder, focused);
      settle(holder); // refused: a new attempt is a new command
      showResult(name, { ok: false, error: err });
      keepFocus(focused);
      return { ok: false, error: err };
    }
  }

  // answered shows an accepted command's events. Each digital roll of the
  // command must carry the nonce this device sent: a ledger that recorded
  // another chose the roll itself.
  function answered(name, body, out, made) {
    showResult(name, { ok: true, events: out.events || [], duplicate: out.duplicate, made, id: body.id });
    for (const version of foreignRolls(body, out)) {
      result.prepend(el("div", { class: "banner warning", id: "nonce-warning", role: "alert", text: t("page.nonce.mismatch", { version }) }));
    }
  }

  // --- the outbox: commands made without a network -----------------------------

  const outbox = openOutbox(tokenShared() ? sessionStorage : localStorage, base, you.player || you.role || "");
  const outboxBox = el("div", { class: "outbox", id: "outbox", hidden: true });

  // queue keeps a command in the outbox. It counts as made: the tool that
  // made it closes, and the next press is a new command (the outbox holds
  // this one's id and nonce).
  function queue(name, body, holder, focused) {
    if (!outbox.add(name, body)) {
      const error = { message: t("page.outbox.full", { n: OUTBOX_MAX }) };
      showResult(name, { ok: false, error });
      keepFocus(focused);
      return { ok: false, error };
    }
    settle(holder);
    fill(result, el("div", { class: "queued", "data-command": name, "data-id": body.id },
      el("b", { text: t("page.outbox.queued", { command: term("command", name) }) }), " ", t("page.outbox.queued_hint")));
    drawOutbox();
    later();
    keepFocus(focused);
    return { ok: true, queued: true, events: [] };
  }

  // flush sends the outbox's waiting commands, oldest first, one at a
  // time. An accepted one leaves the outbox and is shown as any answer is;
  // a refused one stays, with the ledger's refusal, until dismissed; when
  // the ledger still cannot be reached, the rest wait for the next try.
  let flushing = false, timer = 0, sending = "";
  async function flush() {
    if (flushing) return;
    flushing = true;
    let sent = false, stuck = false;
    try {
      for (let e = outbox.waiting()[0]; e; e = outbox.waiting()[0]) {
        sending = e.body.id;
        drawOutbox();
        try {
          const out = await apiPost(base + "/commands/" + e.name, e.body);
          outbox.remove(e.body.id);
          answered(e.name, e.body, out, e.made);
          sent = true;
        } catch (err) {
          if (retryable(err)) { stuck = true; break; }
          outbox.refused(e.body.id, err);
        }
      }
    } finally {
      flushing = false;
      sending = "";
      drawOutbox();
      if (stuck) later();
    }
    if (sent) await ctx.refresh();
  }
  // later tries again in 5 s while anything waits (navigator.onLine is
  // no proof either way: a phone on the club's Wi-Fi without a route says
  // online).
  function later() {
    if (timer || !outbox.waiting().length) return;
    timer = setTimeout(() => { timer = 0; flush(); }, 5000);
  }
  window.addEventListener("online", () => flush());

  function drawOutbox() {
    const list = outbox.list(), waiting = outbox.waiting().length;
    outboxBox.hidden = !list.length;
    fill(outboxBox, ...(list.length ? [
      el("h3", { id: "outbox-title", text: waiting ? t("page.outbox.title", { n: waiting }) : t("page.outbox.title_refused", { n: list.length }) }),
      el("ul", {}, ...list.map(e => {
        const state = e.state === "refused" ? "refused" : e.body.id === sending ? "sending" : "waiting";
        return el("li", { class: "queued " + state, "data-id": e.body.id, "data-command": e.name, "data-state": state },
          el("b", { text: state === "refused" ? failedHeading(term("command", e.name), e.error) : t("page.outbox." + state) }), " ",
          el("span", { text: commandLabel(e) + " · " + t("page.outbox.made", { time: clock(e.made) }) }),
          state === "refused" ? errorBox(e.error) : null,
          state === "sending" ? null : el("button", { type: "button", class: "small", text: t(state === "refused" ? "page.outbox.dismiss" : "page.outbox.cancel"),
            onclick: () => { outbox.remove(e.body.id); drawOutbox(); } }));
      })),
      waiting && !flushing ? el("div", { class: "buttons" }, el("button", { type: "button", id: "outbox-send", text: t("page.outbox.send_now"), onclick: () => flush() })) : null,
    ] : []));
  }
  // commandLabel names a queued command as the player made it: the
  // command and the unit, general or brigade it was for.
  function commandLabel(e) {
    const b = e.body.command || {}, u = b.unit && unit(b.unit);
    const who = u ? (u.name || u.unit) : b.unit || b.general || b.brigade || "";
    return term("command", e.name) + (who ? " · " + who : "");
  }

  // sendMayRoll sends a command that rolls only sometimes (a formation
  // test, a cavalry retreat): with the dice entered; with none entered and
  // the table's dice chosen, the dry run first says whether it would roll,
  // and then asks for them rather than let the ledger roll digitally.
  async function sendMayRoll(name, command, pad, holder) {
    const dice = pad.value();
    if (dice === null) {
      const r = await dryRun(name, command);
      if (!r.ok && retryable(r.error)) {
        // Whether it would roll cannot be asked: it is not kept for later,
        // where the ledger might roll digitally what the table would throw.
        showResult(name, { ok: false, error: { message: t("page.dice.offline") } });
        return { ok: false };
      }
      if (r.ok && r.needsDice) {
        showResult(name, { ok: false, error: { message: t("page.dice.needed", { purpose: r.needsDice }) } });
        return { ok: false };
      }
    }
    return send(name, command, { holder, dice: dice && dice.length ? dice : null });
  }

  // --- the panel -------------------------------------------------------------

  const actingSel = umpire ? el("select", { id: "acting-side", "aria-label": t("page.play.acting_for"), onchange: () => { acting = actingSel.value; drawTurn(); } }) : null;
  // The umpire may enter a command for a player at the table: the ledger
  // records it as entered by the umpire for that player.
  const forSel = umpire ? el("select", { id: "enter-for", "aria-label": t("page.play.enter_for"), onchange: () => { enterFor = forSel.value; } },
    el("option", { value: "", text: t("page.play.enter_for_self") }),
    ...(ctx.people || []).filter(p => p.role === "player").map(p => el("option", { value: p.player, text: p.player + (p.side ? " · " + sideName(p.side) : "") }))) : null;
  const turnBar = el("div", { class: "turn-bar", id: "turn-bar" });
  const past = el("div", { class: "banner past", id: "play-past", hidden: true },
    t("page.play.past") + " ", el("button", { type: "button", text: t("page.timeline.now"), onclick: () => ctx.goNow() }));
  const unitTools = el("div", { class: "tool-buttons", id: "unit-tools" });
  const sideTools = el("div", { class: "tool-buttons", id: "side-tools" });
  const toolBox = el("div", { class: "tool", id: "tool" });
  const result = el("div", { class: "play-result", id: "play-result", role: "status", "aria-live": "polite", tabindex: "-1" });
  // keepFocus: a keyboard's place is not lost when what it was on is
  // drawn again (the panel redraws its buttons after every command): it
  // goes to the command's result, which the panel just said.
  function keepFocus(was, prefer) {
    setTimeout(() => {
      if (!was || (document.activeElement && document.activeElement !== document.body && document.activeElement.isConnected)) return;
      const to = (prefer && document.getElementById(prefer)) || (result.childElementCount ? result : null) ||
        document.querySelector('#units button.unit-pick[tabindex="0"]');
      if (to) to.focus();
    });
  }
  // What a screen reader says as it changes: the turn, the phase and whose
  // it is, and an opponent's command that asks for an answer. The turn
  // bar shows them but is drawn again at every event, so it is no live
  // region itself; this one changes only when they do.
  const announcer = el("div", { class: "sr-only", id: "announcer", role: "status", "aria-live": "polite" });
  // Turn alerts (notify.js): off until the player turns them on here.
  const alertNote = el("span", { class: "muted alerts-note", id: "alerts-note", "aria-live": "polite" });
  const alertBtn = el("button", { type: "button", id: "alerts", class: "small" + (alertsOn() ? " on" : ""), "aria-pressed": alertsOn() ? "true" : "false",
    text: t(umpire ? "page.alerts.toggle_umpire" : "page.alerts.toggle"), title: t("page.alerts.hint"), onclick: async () => {
      const on = alertBtn.getAttribute("aria-pressed") !== "true";
      const perm = await setAlerts(on);
      alertBtn.setAttribute("aria-pressed", on ? "true" : "false");
      alertBtn.classList.toggle("on", on);
      alertNote.textContent = on ? t(perm === "granted" ? "page.alerts.granted" : "page.alerts.sound_only") : "";
    } });
  fill(box, 
    el("div", { class: "play-head" }, el("h2", { text: umpire ? t("page.play.title_umpire") : t("page.play.title", { side: sideName(you.side) }) }),
      actingSel ? el("label", { class: "acting" }, t("page.play.acting_for") + " ", actingSel) : null,
      forSel ? el("label", { class: "acting" }, t("page.play.enter_for") + " ", forSel) : null,
      el("div", { class: "alerts" }, alertBtn, alertNote)),
    past, turnBar, unitTools, toolBox, sideTools, outboxBox, result, announcer);
  drawOutbox();
  if (outbox.waiting().length) setTimeout(flush); // kept from before a reload

  function showResult(name, r) {
    if (r.ok) {
      fill(result, el("div", { class: "ok", "data-command": name },
        el("b", { text: (r.duplicate ? t("page.result.duplicate") : t("page.result.done")) + " " }), term("command", name),
        r.made ? el("span", { class: "muted late", text: " (" + t("page.outbox.sent_late", { time: clock(r.made) }) + ")" }) : null,
        el("ul", { class: "events" }, ...r.events.map(e => el("li", { class: "srv", "data-type": e.type, text: e.description }))),
        undoButton(name, r)));
    } else {
      fill(result, el("div", { class: "refused", "data-command": name }, el("b", { text: failedHeading(term("command", name), r.error) }), errorBox(r.error)));
    }
  }

  // undoButton offers to take back, at once, a command that moved
  // something and rolled no dice, while nothing has happened since (the
  // rules judge it: command.retract_request with at_once; anything after
  // it, or a roll, and they refuse, saying why; then only the opponent's
  // agreement takes it back, from the disputes below).
  const UNDOABLE = ["unit.move", "unit.march", "unit.reform", "unit.charge", "general.move"];
  function undoButton(name, r) {
    if (!r.id || r.duplicate || !UNDOABLE.includes(name) || r.events.some(e => e.type === "dice.rolled")) return null;
    const last = Math.max(0, ...r.events.map(e => e.version || 0));
    return el("div", { class: "buttons undo", "data-after": String(last) }, el("button", { type: "button", id: "undo-last", "data-command-id": r.id, text: t("page.undo.button"), title: t("page.undo.hint"),
      onclick: () => send("command.retract_request", { command_id: r.id, at_once: true }) }));
  }
  // undoOvertaken takes the Undo away once an event after the command
  // arrives (the opponent's dispute, anyone's command): the rules would
  // refuse it now; only the opponent's agreement takes it back.
  function undoOvertaken(e) {
    const u = result.querySelector(".buttons.undo");
    if (!u || !e.version || e.version <= Number(u.dataset.after || 0)) return;
    u.replaceWith(el("p", { class: "muted", id: "undo-gone", text: t("page.undo.gone") }));
  }

  // preview shows a dry run's answer in box: the events the command would
  // append, in words, or the refusal with its rule and numbers.
  function showPreview(pbox, r, pendingText) {
    if (!r) { fill(pbox, el("p", { class: "muted", text: pendingText || "…" })); pbox.dataset.state = "pending"; return; }
    if (r.ok && r.needsDice) {
      pbox.dataset.state = "ok";
      fill(pbox, el("div", { class: "ok" }, el("b", { text: "✓ " + t("page.preview.legal") }), " " + t("page.preview.needs_dice")));
      return;
    }
    if (r.ok) {
      pbox.dataset.state = "ok";
      fill(pbox, el("div", { class: "ok" }, el("b", { text: "✓ " + t("page.preview.legal") }),
        el("ul", { class: "events" }, ...r.events.map(e => el("li", { class: "srv", "data-type": e.type, text: e.description })))));
    } else if (retryable(r.error)) {
      // No answer is no refusal: what is sent now waits in the outbox.
      pbox.dataset.state = "offline";
      fill(pbox, el("p", { class: "muted", text: t("page.preview.offline") }));
    } else {
      pbox.dataset.state = "refused";
      fill(pbox, el("div", { class: "refused" }, el("b", { text: "✗ " + t("page.preview.refused") }), errorBox(r.error)));
    }
  }

  // A dry run at most one at a time, the latest asked for winning.
  function previewer(run) {
    let busy = false, dirty = false;
    return async function go() {
      if (busy) { dirty = true; return; }
      busy = true;
      try { do { dirty = false; await run(); } while (dirty); } finally { busy = false; }
    };
  }

  // --- form pieces -----------------------------------------------------------

  const opt = (value, label) => el("option", { value, text: label });
  function select(id, options, value) {
    const s = el("select", { id, name: id }, ...options.map(o => Array.isArray(o) ? opt(o[0], o[1]) : opt(o, o)));
    if (value != null) s.value = value;
    return s;
  }
  function row(labelKey, input, hint) {
    return el("label", { class: "field" }, el("span", { text: t(labelKey) }), input, hint ? el("small", { class: "muted", text: hint }) : null);
  }
  const numIn = (id, value, attrs) => el("input", Object.assign({ id, name: id, type: "number", step: "any", inputmode: "decimal", value: value == null ? "" : String(value) }, attrs || {}));
  const textIn = (id, value, attrs) => el("input", Object.assign({ id, name: id, type: "text", value: value || "" }, attrs || {}));
  const button = (id, key, fn, cls) => el("button", { type: "button", id, class: cls || "", text: t(key), onclick: fn });
  const unitOptions = filter => units().filter(u => u.status !== "off_table" && filter(u)).map(u => [u.unit, u.unit + (u.name && u.name !== u.unit ? " · " + u.name : "")]);
  const enemyOptions = side => unitOptions(u => u.side !== side && u.status !== "destroyed");
  const brigades = side => (S().generals || []).filter(g => g.brigade && (!side || g.side === side)).map(g => [g.brigade, g.brigade + " · " + (g.name || g.general)]);

  // dicePad is where the dice thrown on the table are entered, face by
  // face, or digital dice chosen (the ledger rolls, mixing this device's
  // nonce). With physical chosen, nothing is sent until a die is entered.
  function dicePad(id, hint) {
    let faces = [];
    const list = el("span", { class: "dice-list", id: id + "-list", "aria-live": "polite" });
    const mode = el("div", { class: "dice-mode", role: "radiogroup" },
      el("label", {}, el("input", { type: "radio", name: id + "-mode", value: "physical", checked: true, id: id + "-physical" }), " " + t("page.dice.physical_mode")),
      el("label", {}, el("input", { type: "radio", name: id + "-mode", value: "digital", id: id + "-digital" }), " " + t("page.dice.digital_mode")));
    const pad = el("div", { class: "dice-pad", id: id + "-pad" },
      ...[1, 2, 3, 4, 5, 6].map(n => el("button", { type: "button", class: "die", "data-face": String(n), "aria-label": t("page.dice.face", { n }),
        onclick: () => { faces.push(n); draw(); } }, el("span", { class: "pip", "aria-hidden": "true", text: "⚀⚁⚂⚃⚄⚅"[n - 1] + " " }), String(n))));
    // The faces in one row on a phone; clearing them beside what was entered.
    const wrap = el("fieldset", { class: "dice", id }, el("legend", { text: t("page.dice.title") }), mode,
      el("div", { class: "physical-part" }, pad, el("div", { class: "dice-entered" }, t("page.dice.entered") + " ", list,
        el("button", { type: "button", class: "die clear", id: id + "-clear", text: t("page.dice.clear"), onclick: () => { faces = []; draw(); } }))),
      hint ? el("p", { class: "muted", text: hint }) : null);
    function draw() {
      fill(list, ...(faces.length ? faces.map((f, i) => el("button", { type: "button", class: "chip", title: t("page.dice.remove"), text: String(f), onclick: () => { faces.splice(i, 1); draw(); } })) : [t("page.dice.none")]));
      wrap.classList.toggle("digital", digital());
    }
    const digital = () => wrap.querySelector("input[value=digital]").checked;
    mode.addEventListener("change", draw);
    // From the keyboard, a face may be typed on the pad: 2 then 3.
    wrap.addEventListener("keydown", ev => {
      if (digital() || !/^[1-6]$/.test(ev.key) || ev.ctrlKey || ev.altKey || ev.metaKey || !ev.target.closest(".physical-part")) return;
      ev.preventDefault();
      faces.push(Number(ev.key));
      draw();
    });
    draw();
    return {
      el: wrap,
      // value is the dice to send: [] for digital, null if physical and none entered yet.
      value: () => digital() ? [] : (faces.length ? faces.slice() : null),
      clear: () => { faces = []; draw(); },
    };
  }

  // --- the turn bar ----------------------------------------------------------

  const phaseHolder = {};
  function drawTurn() {
    const s = S();
    if (actingSel) {
      const v = actingSel.value;
      fill(actingSel, opt("", t("page.play.phasing_side")), ...(s.sides || []).map(x => opt(x.side, sideName(x.side))));
      actingSel.value = v;
    }
    if (s.status !== "in_progress") {
      fill(turnBar, ...[el("p", { id: "turn-text", text: s.status === "ended" ? t("page.play.ended") : t("page.play.not_started") }),
        umpire && s.status !== "ended" ? button("battle-start", "page.play.start", () => send("battle.start", {})) : null].filter(Boolean));
      return;
    }
    const side = mySide(), phasing = s.phasing_side === side;
    const parts = [el("p", { id: "turn-text", "data-phase": s.phase, "data-phasing": s.phasing_side },
      t("page.play.turn", { n: s.turn, phase: term("phase", s.phase), side: sideName(s.phasing_side) }), " ",
      el("b", { text: s.phasing_side === you.side ? t("page.play.yours") : umpire ? "" : t("page.play.theirs") }))];
    const confirmBox = el("div", { class: "confirm", id: "phase-confirm" });
    const twoStep = (id, key, name, body) => button(id, key, async ev => {
      const trigger = ev.currentTarget;
      showPreview(confirmBox, null, t("page.preview.checking"));
      const r = await dryRun(name, body);
      showPreview(confirmBox, r);
      if (r.ok) {
        const yes = button(id + "-confirm", "page.play.confirm", async () => { const x = await send(name, body, { holder: phaseHolder }); if (x.ok) fill(confirmBox); }, "primary");
        confirmBox.append(el("div", { class: "buttons" }, yes,
          button(id + "-cancel", "page.play.cancel", () => { fill(confirmBox); if (trigger.isConnected) trigger.focus(); })));
        // From the keyboard, on to the confirmation the check just offered.
        if (document.activeElement && document.activeElement.id === id) yes.focus();
      }
    }, "primary");
    if (phasing || umpire) {
      parts.push(el("div", { class: "buttons" },
        twoStep("phase-end", "page.play.end_phase", "phase.end", { side }),
        s.phase === "movement" ? twoStep("hand-over", "page.play.hand_over", "movement.hand_over", { side }) : null));
    }
    parts.push(confirmBox);
    fill(turnBar, ...parts);
  }

  // --- tools -------------------------------------------------------------------

  let tool = null;

  // open shows a tool (null: none). Opened from the keyboard (a click
  // with no pointer: Enter or Space on its button), the keyboard goes to
  // its first field; else to its title, without scrolling, so that a
  // screen reader says which tool opened and the place in the page is not
  // lost with the button the panel draws again.
  function open(tl, byKey) { // byKey: for null, the id of the control to go back to
    if (tool && tool.close) tool.close();
    const focused = box.contains(document.activeElement);
    tool = tl;
    const title = tl ? el("h3", { id: "tool-title", tabindex: "-1", text: tl.title }) : null;
    fill(toolBox, tl ? el("div", { class: "tool-body", id: "tool-" + tl.name, role: "group", "aria-labelledby": "tool-title" },
      el("div", { class: "tool-title" }, title, button("tool-close", "page.play.close", () => open(null, "do-" + tl.name), "close")), tl.el) : "");
    map.setMode(tl && tl.mode ? tl.mode : "select", tl && tl.hint ? tl.hint : "");
    map.setActions(...(tl && tl.mapActions ? tl.mapActions : []));
    drawButtons();
    map.drawOverlay();
    if (!focused) return;
    if (tl && byKey) {
      const first = tl.el.querySelector("input:not([type=hidden]):not([disabled]), select, textarea, button");
      const to = first && first.getClientRects().length ? first : title;
      to.focus();
      if (to.select && (to.type === "number" || to.type === "text")) to.select(); // typing replaces it, as after a Tab

    } else if (tl) {
      title.focus({ preventScroll: true });
    } else {
      keepFocus(true, typeof byKey === "string" ? byKey : null);
    }
  }

  function drawButtons() {
    const s = S(), u = unit(ctx.selected());
    const gid = ctx.selectedGeneral && ctx.selectedGeneral(), g = gid && (s.generals || []).find(x => x.general === gid);
    const active = name => tool && tool.name === name ? "on" : "";
    const b = (name, key, make) => el("button", { type: "button", id: "do-" + name, class: active(name), "aria-pressed": active(name) ? "true" : "false", text: t(key),
      onclick: ev => open(make(), ev.detail === 0) });
    fill(unitTools, ...(u && mine(u) && ctx.atNow() && s.status === "in_progress" ? [
      el("span", { class: "label", text: t("page.play.unit_label", { unit: u.unit }) }),
      b("initiative", "page.tool.initiative", () => initiativeTool(u.unit)),
      b("order", "page.tool.order", () => orderTool(u.unit)),
      b("move", "page.tool.move", () => moveTool(u.unit, "move")),
      b("turn", "page.tool.turn", () => moveTool(u.unit, "turn")),
      b("formation", "page.tool.formation", () => formationTool(u.unit)),
      b("charge", "page.tool.charge", () => chargeTool(u.unit)),
      s.phase === "movement" ? b("march", "page.tool.unit_march", () => moveTool(u.unit, "march")) : null,
      b("fire", "page.tool.fire", () => fireTool(u.unit)),
      b("combat", "page.tool.combat", () => combatTool(u.unit)),
    ] : g && (umpire || g.side === you.side) && ctx.atNow() && s.status === "in_progress" ? [
      el("span", { class: "label", text: t("page.play.unit_label", { unit: g.name || g.general }) }),
      b("general-order", "page.tool.order", () => orderTool(null, g.general)),
    ] : [el("span", { class: "muted", text: u && !mine(u) ? t("page.play.not_yours") : g ? t("page.play.not_your_general") : t("page.play.select_hint") })]).filter(Boolean));
    // Once the battle has ended only disputes follow (below the log), and
    // the umpire's "another command"; before it starts, the umpire's set-up.
    const playing = s.status === "in_progress", ended = s.status === "ended";
    fill(sideTools, ...(ctx.atNow() ? [
      playing ? b("order-any", "page.tool.order", () => orderTool(null)) : null,
      playing ? b("tactical", "page.tool.tactical_march", () => tacticalTool()) : null,
      playing ? b("flank", "page.tool.flank", () => flankTool()) : null,
      !umpire && !ended ? b("seed", "page.tool.seed", () => seedTool()) : null,
      umpire && !ended ? b("battle", "page.tool.battle", () => battleTool()) : null,
      umpire && playing ? b("brigade-order", "page.tool.brigade_order", () => brigadeOrderTool()) : null,
      umpire && playing ? b("objective", "page.tool.objective", () => objectiveTool()) : null,
      umpire || !ended ? b("other", "page.tool.other", () => otherTool()) : null,
    ] : []).filter(Boolean));
  }

  // --- moving, turning, marching -----------------------------------------------

  // headingHint says where north (0°, up the map) lies for this player:
  // toward the enemy when the enemy's units stand, on average, north of
  // their own, else toward their own edge; the umpire gets the compass.
  function headingHint() {
    const side = mySide(), mean = f => { const us = units().filter(f); return us.length ? us.reduce((a, u) => a + u.y, 0) / us.length : null; };
    const own = mean(u => u.side === side), enemy = mean(u => u.side !== side);
    if (umpire && !acting || own === null || enemy === null || own === enemy) return t("page.move.heading_hint");
    return t(enemy > own ? "page.move.heading_hint_enemy" : "page.move.heading_hint_own");
  }

  // moveTool moves a unit (kind "move": unit.move; "march": unit.march, a
  // tactical march; "turn": unit.move on the spot to a new facing). The
  // unit is dragged on the map, or its move entered as a distance and a
  // direction (or a point); a live ruler shows the distance and, from a
  // dry run, the actions the move needs and whether it is legal, with the
  // rule and numbers when it is not.
  function moveTool(id, kind) {
    const u = unit(id);
    const start = { x: u.x, y: u.y };
    const g = { x: u.x, y: u.y, facing: null }; // the ghost: where the unit would stand
    let grab = null, last = null;
    const command = kind === "march" ? "unit.march" : "unit.move";
    const commandPhase = S().phase === "command";
    const dist = numIn("move-distance", kind === "turn" ? null : 0, { min: "0" });
    const heading = numIn("move-heading", u.facing, { min: "0", max: "360" });
    const toward = select("move-toward", [["", t("page.move.toward_none")], ...unitOptions(x => x.unit !== id)]);
    const facing = numIn("move-facing", kind === "turn" ? u.facing : "", { min: "0", max: "360", placeholder: t("page.move.keep_facing") });
    const readout = el("div", { class: "ruler-readout", id: "ruler-readout", "aria-live": "polite" });
    const pbox = el("div", { class: "preview", id: "move-preview" });
    const holder = {};
    const quick = kind === "turn" ? el("div", { class: "buttons quick" }, ...[-90, -45, 45, 90, 180].map(d => el("button", { type: "button", text: (d > 0 ? "+" : "") + d + "°",
      onclick: () => { facing.value = String(deg((Number(facing.value) || 0) + d)); changed(); } }))) : null;
    const fromFields = () => {
      if (kind === "turn") { g.facing = deg(Number(facing.value) || 0); return; }
      const to = along(start, Number(dist.value) || 0, Number(heading.value) || 0);
      g.x = r2(to.x);
      g.y = r2(to.y);
      g.facing = facing.value === "" ? null : deg(Number(facing.value));
    };
    const toFields = () => {
      const dx = g.x - start.x, dy = g.y - start.y;
      dist.value = String(r2(Math.hypot(dx, dy)));
      if (Math.hypot(dx, dy) > 0.01) heading.value = String(r2(bearing(start, g)));
    };
    const body = actions => {
      const b = { unit: id, to: kind === "turn" ? { x: u.x, y: u.y } : { x: g.x, y: g.y } };
      if (g.facing != null) b.facing = g.facing;
      if (actions) b.actions = actions;
      return b;
    };
    // The fewest actions that make the move legal: a dry run with one, then
    // two..., while the rules say it is too far (command phase only; the
    // movement phase's normal move uses no actions).
    const tries = () => command === "unit.march" || !commandPhase ? [0] : Array.from({ length: Math.max(1, u.actions_left || 0) }, (_, i) => i + 1);
    const preview = previewer(async () => {
      const asked = JSON.stringify(g);
      showPreview(pbox, null, t("page.preview.checking"));
      let r = null, actions = 0;
      for (const a of tries()) {
        r = await dryRun(command, body(a));
        actions = a;
        if (r.ok || !/too_far|allow/.test((r.error && r.error.code) || "")) break;
      }
      if (asked !== JSON.stringify(g)) return; // moved on meanwhile: the next run answers
      last = Object.assign({ actions, at: asked }, r);
      showPreview(pbox, r);
      drawReadout();
      map.drawOverlay();
    });
    function drawReadout() {
      const d = Math.hypot(g.x - start.x, g.y - start.y);
      const parts = [el("b", { id: "ruler-distance", text: kind === "turn" ? t("page.move.facing_to", { f: num(g.facing == null ? u.facing : g.facing, 0) }) : length(d, M()) })];
      if (last && last.at === JSON.stringify(g)) {
        if (last.ok) {
          const ev = last.events.find(e => e.type === "unit.moved" || e.type === "unit.marched") || {};
          const used = (ev.payload && ev.payload.actions_used) || last.actions;
          parts.push(el("span", { class: "legal", id: "ruler-legal", text: "✓ " + (used ? t("page.move.actions", { n: used }) : t("page.preview.legal")) }));
          const stop = stopOf(last);
          if (stop) parts.push(el("span", { class: "short", id: "ruler-short", "data-enemy": stop.enemy, text: t("page.review.path_short", { short: length(stop.short, M()), enemy: stop.name }) }));
        } else if (last.error) {
          parts.push(el("span", { class: "illegal", id: "ruler-illegal", "data-rule": last.error.rule || "", "data-code": last.error.code || "",
            text: "✗ " + t("page.preview.refused") + (last.error.rule ? " (" + last.error.rule + ")" : "") }));
        }
      } else {
        parts.push(el("span", { class: "muted", text: "…" }));
      }
      fill(readout, ...parts);
    }
    // stopOf is where the dry run says the move stops short of an enemy
    // (C.9: a unit without a charge order stops the contact gap short):
    // its base there, the gap and the enemy; null when it goes where it
    // was put.
    function stopOf(r) {
      const ev = r && r.ok && (r.events || []).find(e => e.type === "unit.moved") || null;
      const p = ev && ev.payload;
      if (!p || !p.stopped_short || !p.to) return null;
      const o = unit(p.enemy);
      return { base: p.to, short: p.short, enemy: p.enemy, name: o ? (o.name || o.unit) : p.enemy };
    }
    function changed() {
      fromFields();
      last = null;
      drawReadout();
      map.drawOverlay();
      preview();
    }
    [dist, heading, facing].forEach(i => i.addEventListener("input", changed));
    toward.addEventListener("change", () => {
      const o = unit(toward.value);
      if (!o) return;
      const b = bearing(start, o);
      if (kind === "turn") facing.value = String(r2(b)); else heading.value = String(r2(b));
      changed();
    });
    const confirm = button("move-confirm", kind === "turn" ? "page.move.confirm_turn" : kind === "march" ? "page.move.confirm_march" : "page.move.confirm", async () => {
      let r;
      if (last && last.ok && last.at === JSON.stringify(g)) {
        r = await send(command, body(last.actions), { holder });
      } else {
        // Sent before the ruler's dry run answered (or without a network,
        // when it cannot): from the fewest actions the distance needs by
        // the unit's reach (C.17), the fewest first; a refusal appends
        // nothing. Queued without a network, the first is what is kept.
        const need = per > 0 && commandPhase && kind !== "turn" ? Math.max(1, Math.ceil(Math.hypot(g.x - start.x, g.y - start.y) / per - 1e-9)) : 1;
        let seq = tries();
        if (need > 1) {
          const enough = seq.filter(a => a >= need);
          seq = enough.length ? enough : [need];
        }
        for (const a of seq) {
          r = await send(command, body(a), { holder });
          if (r.ok || !/too_far|allow/.test((r.error && r.error.code) || "")) break;
        }
      }
      if (r && r.ok) open(null);
    }, "primary");
    const mapConfirm = button("map-move-confirm", kind === "turn" ? "page.move.confirm_turn" : kind === "march" ? "page.move.confirm_march" : "page.move.confirm", () => confirm.click(), "primary");
    // A drag in the command phase that ends a little beyond a whole number
    // of actions (up to a fifth of an action past it: a finger's slip, which
    // would cost one more action, C.17) snaps back to that distance, unless
    // the player unticks it; a drag short of it costs no more and stays
    // where it is put, and a typed distance is taken as typed. The distance
    // per action is the unit's reach, from the state; what the move costs,
    // and any rule that stops it (C.9), is still the dry run's answer.
    const per = u.reach && u.reach.per_action;
    const snapBox = kind === "move" && commandPhase && per > 0 ? el("input", { type: "checkbox", id: "move-snap", checked: true }) : null;
    function snapToActions() {
      if (!snapBox || !snapBox.checked) return;
      const dx = g.x - start.x, dy = g.y - start.y, d = Math.hypot(dx, dy), k = Math.floor(d / per), over = d - k * per;
      if (k < 1 || over <= 0 || over > per / 5) return;
      g.x = r2(start.x + dx * k * per / d); g.y = r2(start.y + dy * k * per / d);
    }
    const fields = kind === "turn"
      ? [row("page.move.facing", facing), quick, row("page.move.toward", toward)]
      : [el("div", { class: "grid2" }, row("page.move.distance", dist, M() === "cm" ? t("page.unit.cm") : t("page.unit.in")), row("page.move.heading", heading, headingHint())),
        row("page.move.toward", toward), row("page.move.final_facing", facing),
        snapBox ? el("label", { class: "check" }, snapBox, " " + t("page.move.snap", { d: length(per, M()) })) : null];
    const tl = {
      name: kind, title: t("page.tool." + (kind === "march" ? "unit_march" : kind)) + ": " + id,
      mode: kind === "turn" ? "turn" : "move",
      mapActions: [mapConfirm],
      hint: kind === "turn" ? t("page.move.turn_hint") : t("page.move.drag_hint"),
      el: el("div", {}, ...fields, readout, pbox, el("div", { class: "buttons" }, confirm, button("move-reset", "page.move.reset", () => { g.x = start.x; g.y = start.y; dist.value = "0"; changed(); }))),
      dragStart: (uid, pt) => {
        // The unit itself, or its ghost where it was put down.
        const near = Math.hypot(pt.x - g.x, pt.y - g.y) <= Math.hypot(u.width, u.depth) / 2 + 12 * map.k;
        if (kind === "turn" || !(uid === id || near)) return false;
        grab = { x: pt.x - g.x, y: pt.y - g.y };
        return true;
      },
      drag: (pt, how) => {
        if (!grab) return;
        g.x = r2(pt.x - grab.x); g.y = r2(pt.y - grab.y);
        if (!(how && how.free)) snapToActions();
        toFields();
        last = null;
        drawReadout();
        map.drawOverlay();
        preview();
      },
      dragEnd: (pt, how) => { if (pt) tl.drag(pt, how); grab = null; },
      tap: e => {
        if (e.unit || !e.point || kind === "turn") return false;
        g.x = r2(e.point.x); g.y = r2(e.point.y);
        toFields();
        changed();
        return true;
      },
      overlay: (o, m) => {
        const b = { center: { x: g.x, y: g.y }, facing: g.facing == null ? u.facing : g.facing, width: u.width, depth: u.depth };
        const ok = last && last.at === JSON.stringify(g) ? (last.ok ? "ok" : last.error ? "bad" : "") : "";
        o.append(m.base(b, "move-ghost " + ok, ok === "bad" ? "#d32f2f" : ok === "ok" ? "#2e7d32" : "#9e9e9e"));
        if (kind !== "turn") {
          const more = [];
          if (ok === "ok") more.push({ text: "✓ " + t("page.move.actions", { n: last.actions || ((last.events[0] || {}).payload || {}).actions_used || 0 }), cls: "legal" });
          if (ok === "bad") more.push({ text: "✗ " + shorten(errorText(last.error), 44), cls: "illegal" });
          o.append(m.ruler(start, { x: g.x, y: g.y }, length(Math.hypot(g.x - start.x, g.y - start.y), M()), "move-ruler", ok === "bad" ? "#d32f2f" : "#0b57a4", more));
          // Where C.9 stops it: its base there, marked, with the gap.
          const stop = ok === "ok" ? stopOf(last) : null;
          if (stop) {
            const at = m.base(stop.base, "move-stop", "#ef6c00");
            at.dataset.x = String(stop.base.center.x); at.dataset.y = String(stop.base.center.y); at.dataset.enemy = stop.enemy;
            o.append(at, m.text(stop.base.center, "C.9: " + length(stop.short, M()), "move-stop-label", 12, -16));
          }
        }
      },
    };
    fromFields();
    drawReadout();
    if (kind === "turn") preview();
    return tl;
  }

  // --- formation ---------------------------------------------------------------

  function formationTool(id) {
    const u = unit(id);
    const f = select("reform-formation", FORMATIONS.map(x => [x, term("formation", x)]), u.formation === "line" ? "attack_column" : "line");
    const facing = numIn("reform-facing", "", { placeholder: t("page.move.keep_facing") });
    const pbox = el("div", { class: "preview", id: "reform-preview" });
    const pad = dicePad("reform-dice", t("page.reform.dice_hint"));
    let last = null;
    const holder = {};
    const body = () => { const b = { unit: id, formation: f.value }; if (facing.value !== "") b.facing = deg(Number(facing.value)); return b; };
    const preview = previewer(async () => {
      showPreview(pbox, null, t("page.preview.checking"));
      // A formation change may call for a formation test (a roll): the dry
      // run is asked without dice, and a refusal for missing dice says so.
      last = await dryRun("unit.reform", body());
      showPreview(pbox, last);
      map.drawOverlay();
    });
    [f, facing].forEach(x => x.addEventListener("input", preview));
    preview();
    return {
      name: "formation", title: t("page.tool.formation") + ": " + id, el: el("div", {}, row("page.reform.formation", f), row("page.move.final_facing", facing), pbox, pad.el,
        el("div", { class: "buttons" }, button("reform-confirm", "page.reform.confirm", async () => {
          const r = await sendMayRoll("unit.reform", body(), pad, holder);
          if (r.ok) open(null);
        }, "primary"))),
      overlay: (o, m) => {
        const ev = last && last.ok && last.events.find(e => e.type === "unit.reformed");
        if (ev && ev.payload && ev.payload.to) o.append(m.base(ev.payload.to, "reform-ghost ok", "#2e7d32"));
      },
    };
  }

  // --- charge --------------------------------------------------------------------

  // chargeTool: pick the target (on the map or from the list); a dry run
  // gives the engine's path and final placement, drawn before confirming.
  function chargeTool(id) {
    const u = unit(id);
    const target = select("charge-target", [["", t("page.charge.pick")], ...enemyOptions(u.side)]);
    const actions = select("charge-actions", Array.from({ length: Math.max(1, u.actions_left || 1) }, (_, i) => [String(i + 1), t("page.move.actions", { n: i + 1 })]));
    const pbox = el("div", { class: "preview", id: "charge-preview" });
    const holder = {};
    let last = null;
    const body = () => ({ unit: id, target: target.value, actions: Number(actions.value) || 1 });
    const preview = previewer(async () => {
      if (!target.value) { last = null; fill(pbox); map.drawOverlay(); return; }
      showPreview(pbox, null, t("page.preview.checking"));
      last = await dryRun("unit.charge", body());
      showPreview(pbox, last);
      map.drawOverlay();
    });
    target.addEventListener("change", preview);
    actions.addEventListener("change", preview);
    return {
      name: "charge", title: t("page.tool.charge") + ": " + id, mode: "charge", hint: t("page.charge.hint"),
      mapActions: [button("map-charge-confirm", "page.charge.confirm", () => document.getElementById("charge-confirm").click(), "primary")],
      el: el("div", {}, row("page.charge.target", target), row("page.charge.actions", actions), pbox,
        el("div", { class: "buttons" }, button("charge-confirm", "page.charge.confirm", async () => {
          if (!target.value) return;
          const r = await send("unit.charge", body(), { holder });
          if (r.ok) open(null);
        }, "primary"))),
      tap: e => {
        const x = e.unit && unit(e.unit);
        if (!x || x.side === u.side) return false;
        target.value = x.unit;
        preview();
        return true;
      },
      overlay: (o, m) => {
        if (!last || !last.ok) return;
        for (const e of last.events) {
          const p = e.payload || {};
          if (e.type === "charge.declared") {
            if (p.path && p.path.length > 1) o.append(m.line(p.path, "charge-preview-path", "#d4a017", 3));
            if (p.to) o.append(m.base(p.to, "charge-preview-after", "#d4a017"));
            const tg = unit(p.target);
            if (tg && p.side) {
              const sd = sideSegment({ center: { x: tg.x, y: tg.y }, facing: tg.facing, width: tg.width, depth: tg.depth }, p.side);
              o.append(m.line(sd, "charge-preview-side", "#e0201b", 5));
            }
          }
          if (e.type === "charge.pushed_back" && p.to) {
            o.append(m.base(p.to, "charge-preview-pushed", "#757575"));
            if (p.from) o.append(m.line([p.from.center, p.to.center], "charge-preview-push", "#555", 2, "4 3"));
          }
        }
      },
    };
  }

  // --- initiative ------------------------------------------------------------------

  function initiativeTool(id) {
    const u = unit(id);
    const action = select("init-action", ["move", "formation", "charge"].map(x => [x, term("action", x)]));
    const formation = select("init-formation", [["", "—"], ...FORMATIONS.map(x => [x, term("formation", x)])]);
    const target = select("init-target", [["", "—"], ...enemyOptions(u.side)]);
    const pbox = el("div", { class: "preview", id: "init-preview" });
    const holder = {};
    const content = () => {
      const c = { action: action.value };
      if (action.value === "formation" && formation.value) c.formation = formation.value;
      if (action.value === "charge" && target.value) c.target = target.value;
      return c;
    };
    const preview = previewer(async () => { showPreview(pbox, null, t("page.preview.checking")); showPreview(pbox, await dryRun("initiative.take", { unit: id, content: content() })); });
    const sync = () => { formation.parentElement.hidden = action.value !== "formation"; target.parentElement.hidden = action.value !== "charge"; preview(); };
    [action, formation, target].forEach(x => x.addEventListener("change", sync));
    const tl = {
      name: "initiative", title: t("page.tool.initiative") + ": " + id,
      el: el("div", {}, el("p", { class: "muted", text: t("page.initiative.hint") }), row("page.order.action", action), row("page.order.formation", formation), row("page.order.target", target), pbox,
        el("div", { class: "buttons" },
          button("init-take", "page.initiative.take", async () => { if ((await send("initiative.take", { unit: id, content: content() }, { holder })).ok) open(null); }, "primary"),
          button("init-decline", "page.initiative.decline", async () => { if ((await send("initiative.decline", { unit: id }, { holder })).ok) open(null); }))),
    };
    setTimeout(sync);
    return tl;
  }

  // --- orders ------------------------------------------------------------------------

  // orderTool gives a general's order: the general, the units, what they
  // do; the exact odds of every outcome (GET .../odds) are shown before the
  // roll; the dice thrown are entered, or digital dice asked for.
  function orderTool(unitId, generalId) {
    const g0 = generalId && (S().generals || []).find(g => g.general === generalId);
    const side = unitId ? unit(unitId).side : g0 ? g0.side : mySide();
    const own = units().filter(u => u.side === side && u.status !== "off_table" && u.status !== "destroyed");
    const gens = (S().generals || []).filter(g => g.side === side);
    const u0 = unitId && unit(unitId);
    const guess = g0 || (u0 && (gens.find(g => g.brigade && g.brigade === u0.brigade) || gens[0]));
    const general = select("order-general", gens.map(g => [g.general, (g.name || g.general) + (g.c_in_c ? " ★" : "") + " · " + t("page.order.rating", { n: g.rating })]), guess ? guess.general : null);
    const chosen = new Set(unitId ? [unitId] : []);
    const unitList = el("div", { class: "checks", id: "order-units" }, ...own.map(u => el("label", {},
      el("input", { type: "checkbox", value: u.unit, checked: chosen.has(u.unit), "data-unit": u.unit, onchange: ev => { ev.target.checked ? chosen.add(u.unit) : chosen.delete(u.unit); changed(); } }),
      " " + (u.name || u.unit) + " ", el("small", { class: "muted", text: term("formation", u.formation) }))));
    const action = select("order-action", ["move", "formation", "charge"].map(x => [x, term("action", x)]));
    const formation = select("order-formation", [["", "—"], ...FORMATIONS.map(x => [x, term("formation", x)])]);
    const target = select("order-target", [["", "—"], ...enemyOptions(side)]);
    const special = select("order-special", [["", t("page.order.special_none")], ["follow_me", term("special", "follow_me")], ["steady", term("special", "steady")]]);
    const onRoad = el("input", { type: "checkbox", id: "order-on-road" });
    const text = textIn("order-text", "", { placeholder: t("page.order.text_hint") });
    const odds = el("div", { class: "odds", id: "odds" });
    const pad = dicePad("order-dice", t("page.order.dice_hint"));
    const holder = {};
    const body = () => {
      const b = { general: general.value, units: [...chosen] };
      if (special.value) b.special = special.value;
      if (!special.value || text.value) {
        const c = {};
        if (!special.value) c.action = action.value;
        if (!special.value && action.value === "formation" && formation.value) c.formation = formation.value;
        if (!special.value && action.value === "charge" && target.value) c.target = target.value;
        if (text.value) c.text = text.value;
        b.content = c;
      }
      if (onRoad.checked) b.on_road = [...chosen];
      return b;
    };
    const loadOdds = previewer(async () => {
      if (!general.value || !chosen.size) { fill(odds, el("p", { class: "muted", text: t("page.order.choose") })); return; }
      const q = new URLSearchParams({ general: general.value, units: [...chosen].join(",") });
      if (special.value) q.set("special", special.value); else q.set("action", action.value);
      if (!special.value && action.value === "formation" && formation.value) q.set("formation", formation.value);
      if (!special.value && action.value === "charge" && target.value) q.set("target", target.value);
      if (onRoad.checked) q.set("on_road", [...chosen].join(","));
      fill(odds, el("p", { class: "muted", text: "…" }));
      try { drawOdds(odds, await api(base + "/odds?" + q.toString())); } catch (err) { fill(odds, errorBox(err)); odds.dataset.state = "refused"; }
    });
    function changed() {
      formation.parentElement.hidden = special.value !== "" || action.value !== "formation";
      target.parentElement.hidden = special.value !== "" || action.value !== "charge";
      action.parentElement.hidden = special.value !== "";
      loadOdds();
    }
    [general, action, formation, target, special, onRoad].forEach(x => x.addEventListener("change", changed));
    const give = button("order-give", "page.order.give", async () => {
      const dice = pad.value();
      if (dice === null) { showResult("order.give", { ok: false, error: { message: t("page.dice.enter_first") } }); return; }
      const r = await send("order.give", body(), { holder, dice });
      if (r.ok) { pad.clear(); loadOdds(); }
    }, "primary");
    setTimeout(changed);
    return {
      name: unitId ? "order" : generalId ? "general-order" : "order-any", title: t("page.tool.order"),
      // What most orders need comes first, then the odds and the dice, on a
      // phone's first screen; a special order, a road and the order's
      // words are one tap further ("more").
      el: el("div", {}, row("page.order.general", general), el("div", { class: "field" }, el("span", { text: t("page.order.units") }), unitList),
        row("page.order.action", action), row("page.order.formation", formation), row("page.order.target", target),
        el("details", { class: "more", id: "order-more" }, el("summary", { text: t("page.order.more") }),
          row("page.order.special", special), el("label", { class: "check" }, onRoad, " " + t("page.order.on_road")), row("page.order.text", text)),
        el("h4", { text: t("page.order.odds") }), odds, pad.el, el("div", { class: "buttons" }, give)),
    };
  }

  function drawOdds(box, o) {
    box.dataset.state = "ok";
    fill(box, 
      el("p", { id: "odds-rating" }, t("page.odds.rating", { base: o.base_rating, effective: o.effective_rating, dice: o.dice })),
      o.modifiers.length ? el("ul", { class: "mods" }, ...o.modifiers.map(m => el("li", { text: m.rule + ": " + (m.value > 0 ? "+" : "") + m.value + " " + m.reason }))) : null,
      el("table", { class: "odds-table" },
        el("thead", {}, el("tr", {}, el("th", { text: t("audit.outcome") }), el("th", { text: t("page.odds.chance") }), el("th", { text: "%" }))),
        el("tbody", {}, ...o.outcomes.map(x => el("tr", { "data-outcome": x.outcome, "data-actions": String(x.actions) },
          el("td", { text: outcomeText(x) }), el("td", { class: "fraction", text: x.fraction }), el("td", { text: num(x.probability * 100, 1) + "%" }))))));
  }

  // --- tactical march, fire, combat ------------------------------------------------

  function tacticalTool() {
    const side = mySide();
    const brigade = select("march-brigade", brigades(side));
    const initiative = el("input", { type: "checkbox", id: "march-initiative" });
    const pad = dicePad("march-dice", t("page.march.dice_hint"));
    const pbox = el("div", { class: "preview", id: "march-preview" });
    const holder = {};
    const body = () => { const b = { brigade: brigade.value }; if (initiative.checked) b.initiative = true; return b; };
    const preview = previewer(async () => {
      pad.el.hidden = !initiative.checked;
      showPreview(pbox, null, t("page.preview.checking"));
      showPreview(pbox, await dryRun("march.declare", body()));
    });
    [brigade, initiative].forEach(x => x.addEventListener("change", preview));
    setTimeout(preview);
    return {
      name: "tactical", title: t("page.tool.tactical_march"),
      el: el("div", {}, el("p", { class: "muted", text: t("page.march.hint") }), row("page.march.brigade", brigade),
        el("label", { class: "check" }, initiative, " " + t("page.march.initiative")), pbox, pad.el,
        el("div", { class: "buttons" }, button("march-declare", "page.march.declare", async () => {
          let dice = null;
          if (initiative.checked) {
            dice = pad.value();
            if (dice === null) { showResult("march.declare", { ok: false, error: { message: t("page.dice.enter_first") } }); return; }
          }
          if ((await send("march.declare", body(), { holder, dice })).ok) open(null);
        }, "primary"))),
    };
  }

  function fireTool(id) {
    const u = unit(id);
    const target = select("fire-target", [["", "—"], ...enemyOptions(u.side)]);
    const note = textIn("fire-note", "");
    const pbox = el("div", { class: "preview", id: "fire-preview" });
    const holder = {};
    const body = () => { const b = { unit: id }; if (target.value) b.target = target.value; if (note.value) b.note = note.value; return b; };
    const preview = previewer(async () => { showPreview(pbox, null, t("page.preview.checking")); showPreview(pbox, await dryRun("unit.fire", body())); });
    target.addEventListener("change", preview);
    return {
      name: "fire", title: t("page.tool.fire") + ": " + id, mode: "charge", hint: t("page.fire.hint"),
      el: el("div", {}, row("page.fire.target", target), row("page.fire.note", note), pbox,
        el("div", { class: "buttons" }, button("fire-confirm", "page.fire.confirm", async () => { if ((await send("unit.fire", body(), { holder })).ok) open(null); }, "primary"))),
      tap: e => { const x = e.unit && unit(e.unit); if (!x || x.side === u.side) return false; target.value = x.unit; preview(); return true; },
    };
  }

  // combatTool enters a combat outcome (T.4): the ledger records it, with
  // who entered it; a retreat of cavalry rolls (M.17).
  function combatTool(id) {
    const res = select("combat-result", RESULTS.map(x => [x, term("result", x)]));
    const markers = numIn("combat-markers", "", { min: "0", step: "1" });
    const tx = numIn("combat-toward-x", ""), ty = numIn("combat-toward-y", "");
    const distance = numIn("combat-distance", "", { min: "0" });
    const facing = numIn("combat-facing", "");
    const note = textIn("combat-note", "");
    const pad = dicePad("combat-dice", t("page.combat.dice_hint"));
    const pbox = el("div", { class: "preview", id: "combat-preview" });
    const holder = {};
    let picking = false;
    const body = () => {
      const b = { unit: id, result: res.value, entered_by: you.player };
      if (markers.value !== "") b.markers = Number(markers.value);
      if (tx.value !== "" && ty.value !== "") b.toward = { x: Number(tx.value), y: Number(ty.value) };
      if (distance.value !== "") b.distance = Number(distance.value);
      if (facing.value !== "") b.facing = Number(facing.value);
      if (note.value) b.note = note.value;
      return b;
    };
    return {
      name: "combat", title: t("page.tool.combat") + ": " + id, el: el("div", {}, el("p", { class: "muted", text: t("page.combat.hint") }),
        row("page.combat.result", res), row("page.combat.markers", markers),
        el("div", { class: "grid2" }, row("page.combat.toward_x", tx), row("page.combat.toward_y", ty)),
        button("combat-pick", "page.pick.on_map", () => { picking = true; map.setMode("pick", t("page.pick.hint")); }),
        el("div", { class: "grid2" }, row("page.combat.distance", distance), row("page.move.final_facing", facing)), row("page.combat.note", note), pad.el, pbox,
        el("div", { class: "buttons" }, button("combat-confirm", "page.combat.confirm", async () => {
          if ((await sendMayRoll("combat.record", body(), pad, holder)).ok) open(null);
        }, "primary"))),
      tap: e => {
        if (!picking || !e.point) return false;
        tx.value = String(r2(e.point.x)); ty.value = String(r2(e.point.y));
        picking = false;
        map.setMode("select", "");
        return true;
      },
      overlay: (o, m) => { if (tx.value !== "" && ty.value !== "") o.append(m.marker({ x: Number(tx.value), y: Number(ty.value) }, t("page.combat.toward"), "#b03a2e")); },
    };
  }

  // --- flank marches ---------------------------------------------------------------

  // flankTool lists the battle's flank marches (the sealed composition and
  // entry point of one's own, which the state gives its side and the
  // umpire; only the edge of the opponent's), declares one (sealed) and
  // brings one on, or chooses the entry point of the opponent's march
  // when the roll gives it to this side.
  function flankTool() {
    const side = mySide();
    const marches = S().flank_marches || [];
    let pick = null; // {x, y inputs} waiting for a tap on the map
    const pickBtn = (x, y) => button("", "page.pick.on_map", () => { pick = { x, y }; map.setMode("pick", t("page.pick.hint")); });
    const list = marches.length ? el("ul", { class: "marches", id: "flank-list" }, ...marches.map(fm => {
      const o = fm.orders;
      return el("li", { "data-march": String(fm.n), "data-side": fm.side, class: o && !fm.revealed_at ? "sealed" : "" },
        el("b", { text: t("page.flank.march", { n: fm.n, side: sideName(fm.side), edge: term("edge", fm.edge) }) }),
        " · " + term("entry", fm.entry_kind) + (fm.arrival_turn ? " · " + t("page.flank.arrives", { turn: fm.arrival_turn }) : ""),
        o ? el("div", { class: "orders" },
          !fm.revealed_at ? el("span", { class: "sealed-tag", text: t("page.flank.sealed") }) : null,
          el("div", { text: t("page.flank.entry", { x: num(o.entry.x), y: num(o.entry.y) }) }),
          el("ul", {}, ...(o.brigades || []).map(b => el("li", { text: b.id + " (" + term("order", b.order) + ", " + b.general.id + " " + b.general.rating + "): " +
            (b.units || []).map(x => x.id + " " + term("type", x.type)).join(", ") })))) : el("div", { class: "muted", text: t("page.flank.edge_only") }));
    })) : el("p", { class: "muted", text: t("page.flank.none") });

    const parts = [list];
    // Bring on: a march of this side with its orders, arrived or arriving.
    for (const fm of marches.filter(x => x.side === side && x.orders && x.entry_kind !== "lost")) {
      const entered = new Set(fm.entered || []);
      const waiting = (fm.orders.brigades || []).flatMap(b => b.units.map(x => x.id)).filter(x => !entered.has(x) || (fm.waiting || []).includes(x));
      if (!waiting.length) continue;
      const sel = select("enter-unit-" + fm.n, waiting);
      const x = numIn("enter-x-" + fm.n, ""), y = numIn("enter-y-" + fm.n, ""), f = numIn("enter-facing-" + fm.n, "");
      const pbox = el("div", { class: "preview" });
      const holder = {};
      const body = () => { const b = { side, march: fm.n, unit: sel.value }; if (x.value !== "" && y.value !== "") b.to = { x: Number(x.value), y: Number(y.value) }; if (f.value !== "") b.facing = Number(f.value); return b; };
      parts.push(el("form", { class: "sub", id: "flank-enter-" + fm.n, onsubmit: e => e.preventDefault() }, el("h4", { text: t("page.flank.enter_title", { n: fm.n }) }),
        row("page.flank.unit", sel), el("div", { class: "grid2" }, row("page.flank.to_x", x), row("page.flank.to_y", y)), pickBtn(x, y), row("page.move.final_facing", f),
        el("p", { class: "muted", text: t("page.flank.enter_hint") }), pbox,
        el("div", { class: "buttons" },
          button("", "page.preview.check", async () => { showPreview(pbox, null, t("page.preview.checking")); showPreview(pbox, await dryRun("flank.enter", body())); }),
          button("flank-enter-confirm-" + fm.n, "page.flank.enter", async () => { if ((await send("flank.enter", body(), { holder })).ok) open(flankTool()); }, "primary"))));
    }
    // The opponent's march whose entry this side chooses (F.4).
    for (const fm of marches.filter(x => x.side !== side && x.entry_kind === "opponent_choice" && !x.chosen_entry)) {
      const x = numIn("choose-x-" + fm.n, ""), y = numIn("choose-y-" + fm.n, "");
      const holder = {};
      parts.push(el("form", { class: "sub", id: "flank-choose-" + fm.n, onsubmit: e => e.preventDefault() }, el("h4", { text: t("page.flank.choose_title", { n: fm.n, edge: term("edge", fm.edge) }) }),
        el("div", { class: "grid2" }, row("page.flank.to_x", x), row("page.flank.to_y", y)), pickBtn(x, y),
        el("div", { class: "buttons" }, button("", "page.flank.choose", async () => {
          if ((await send("flank.choose_entry", { side, march: fm.n, entry: { x: Number(x.value), y: Number(y.value) } }, { holder })).ok) open(flankTool());
        }, "primary"))));
    }
    // Declare: sealed orders, a 1D6 for the arrival.
    const edge = select("flank-edge", EDGES.map(e => [e, term("edge", e)]));
    const ex = numIn("flank-entry-x", ""), ey = numIn("flank-entry-y", "");
    const brigadesBox = el("div", { id: "flank-brigades" });
    const addBrigade = () => {
      const n = brigadesBox.children.length + 1;
      brigadesBox.append(el("fieldset", { class: "brigade" }, el("legend", { text: t("page.flank.brigade", { n }) }),
        el("div", { class: "grid2" }, row("page.flank.brigade_id", textIn("", "", { class: "b-id" })), row("page.flank.brigade_name", textIn("", "", { class: "b-name" }))),
        el("div", { class: "grid2" }, row("page.flank.order", select("", ORDERS.map(o => [o, term("order", o)]), "attack")), row("page.flank.general_id", textIn("", "", { class: "g-id" }))),
        el("div", { class: "grid2" }, row("page.flank.general_rating", numIn("", 8, { class: "g-rating", step: "1" })), row("page.flank.general_name", textIn("", "", { class: "g-name" }))),
        row("page.flank.units", el("textarea", { class: "b-units", rows: "3", placeholder: "ir-7 infantry\nhus-3 light_cavalry line" }), t("page.flank.units_hint"))));
    };
    addBrigade();
    const pad = dicePad("flank-dice", t("page.flank.dice_hint"));
    const holder = {};
    const orders = () => ({
      entry: { x: Number(ex.value), y: Number(ey.value) },
      brigades: [...brigadesBox.querySelectorAll("fieldset.brigade")].map(f => ({
        id: f.querySelector(".b-id").value.trim(), name: f.querySelector(".b-name").value.trim() || undefined, order: f.querySelector("select").value,
        general: { id: f.querySelector(".g-id").value.trim(), name: f.querySelector(".g-name").value.trim() || undefined, rating: Number(f.querySelector(".g-rating").value) },
        units: f.querySelector(".b-units").value.split("\n").map(l => l.trim()).filter(Boolean).map(l => {
          const [id, type, formation] = l.split(/[\s,;]+/);
          const x = { id, type };
          if (formation) x.formation = formation;
          return x;
        }),
      })),
    });
    const declarePreview = el("div", { class: "preview", id: "flank-declare-preview" });
    parts.push(el("form", { class: "sub", id: "flank-declare", onsubmit: e => e.preventDefault() }, el("h4", { text: t("page.flank.declare_title") }),
      el("p", { class: "muted", text: t("page.flank.declare_hint") }),
      row("page.flank.edge", edge), el("div", { class: "grid2" }, row("page.flank.entry_x", ex), row("page.flank.entry_y", ey)), pickBtn(ex, ey),
      brigadesBox, button("flank-add-brigade", "page.flank.add_brigade", addBrigade), pad.el, declarePreview,
      el("div", { class: "buttons" }, button("flank-declare-check", "page.preview.check", async () => {
        showPreview(declarePreview, null, t("page.preview.checking"));
        showPreview(declarePreview, await dryRun("flank.declare", { side, edge: edge.value, orders: orders() }));
      }), button("flank-declare-confirm", "page.flank.declare", async () => {
        const dice = pad.value();
        if (dice === null) { showResult("flank.declare", { ok: false, error: { message: t("page.dice.enter_first") } }); return; }
        if ((await send("flank.declare", { side, edge: edge.value, orders: orders() }, { holder, dice })).ok) open(flankTool());
      }, "primary"))));
    return {
      name: "flank", title: t("page.tool.flank"), el: el("div", {}, ...parts),
      tap: e => {
        if (!pick || !e.point) return false;
        pick.x.value = String(r2(e.point.x)); pick.y.value = String(r2(e.point.y));
        pick = null;
        map.setMode("select", "");
        map.drawOverlay();
        return true;
      },
      overlay: (o, m) => { if (ex.value !== "" && ey.value !== "") o.append(m.marker({ x: Number(ex.value), y: Number(ey.value) }, t("page.flank.new_entry"), "#7a1fa2", "flank-new")); },
    };
  }

  // --- dice seed, umpire, any command ----------------------------------------------

  function seedTool() {
    const seed = textIn("seed-value", randomHex(16), { spellcheck: "false", autocomplete: "off" });
    const pbox = el("div", { class: "preview", id: "seed-preview" });
    const holder = {};
    const body = () => ({ player: you.player, seed: seed.value });
    return {
      name: "seed", title: t("page.tool.seed"),
      el: el("div", {}, el("p", { class: "muted", text: t("page.seed.hint") }), row("page.seed.value", seed),
        el("div", { class: "buttons" }, button("", "page.seed.new", () => { seed.value = randomHex(16); }),
          button("", "page.preview.check", async () => { showPreview(pbox, null, t("page.preview.checking")); showPreview(pbox, await dryRun("dice.add_seed", body())); }),
          button("seed-add", "page.seed.add", async () => { if ((await send("dice.add_seed", body(), { holder })).ok) open(null); }, "primary")), pbox),
    };
  }

  function battleTool() {
    const reason = textIn("end-reason", "", { placeholder: t("page.battle.reason_hint") });
    const pbox = el("div", { class: "preview", id: "end-preview" });
    const holder = {};
    const s = S();
    return {
      name: "battle", title: t("page.tool.battle"),
      el: el("div", {},
        s.status !== "in_progress" && s.status !== "ended" ? el("div", { class: "buttons" }, button("umpire-start", "page.play.start", () => send("battle.start", {}, { holder }), "primary")) : null,
        el("h4", { text: t("page.battle.end_title") }), el("p", { class: "muted", text: t("page.battle.end_hint") }), row("page.battle.reason", reason), pbox,
        el("div", { class: "buttons" },
          button("end-check", "page.preview.check", async () => { showPreview(pbox, null, t("page.preview.checking")); showPreview(pbox, await dryRun("battle.end", { reason: reason.value })); }),
          button("end-confirm", "page.battle.end", async () => { if ((await send("battle.end", { reason: reason.value }, { holder })).ok) open(null); }, "danger"))),
    };
  }

  function brigadeOrderTool() {
    const brigade = select("bo-brigade", brigades(null));
    const order = select("bo-order", ORDERS.map(o => [o, term("order", o)]));
    const byUmpire = el("input", { type: "checkbox", id: "bo-by-umpire", checked: true });
    const pad = dicePad("bo-dice", t("page.brigade.dice_hint"));
    const holder = {};
    return {
      name: "brigade-order", title: t("page.tool.brigade_order"),
      el: el("div", {}, row("page.march.brigade", brigade), row("page.flank.order", order), el("label", { class: "check" }, byUmpire, " " + t("page.brigade.by_umpire")), pad.el,
        el("div", { class: "buttons" }, button("bo-confirm", "page.brigade.confirm", async () => {
          const b = { brigade: brigade.value, order: order.value };
          if (byUmpire.checked) b.by_umpire = true;
          const dice = byUmpire.checked ? null : pad.value();
          if (!byUmpire.checked && dice === null) { showResult("brigade.order", { ok: false, error: { message: t("page.dice.enter_first") } }); return; }
          if ((await send("brigade.order", b, { holder, dice })).ok) open(null);
        }, "primary"))),
    };
  }

  function objectiveTool() {
    const id = textIn("obj-id", "");
    const side = select("obj-side", [["", t("page.objective.nobody")], ...(S().sides || []).map(x => [x.side, sideName(x.side)])]);
    const holder = {};
    return {
      name: "objective", title: t("page.tool.objective"),
      el: el("div", {}, row("page.objective.id", id), row("page.objective.side", side),
        el("div", { class: "buttons" }, button("obj-confirm", "page.objective.confirm", async () => { if ((await send("objective.hold", { objective: id.value, side: side.value }, { holder })).ok) open(null); }, "primary"))),
    };
  }

  // otherTool sends any battle command with its body as JSON: what `ledger
  // do` does at the CLI, for what the tools above do not cover.
  function otherTool() {
    const name = select("other-command", COMMANDS.map(c => [c, c + " · " + term("command", c)]));
    const bodyIn = el("textarea", { id: "other-body", rows: "5", spellcheck: "false", placeholder: '{"unit": "…"}' });
    const pad = dicePad("other-dice", t("page.other.dice_hint"));
    const pbox = el("div", { class: "preview", id: "other-preview" });
    const holder = {};
    const parse = () => {
      const raw = bodyIn.value.trim();
      if (!raw) return {};
      return JSON.parse(raw);
    };
    return {
      name: "other", title: t("page.tool.other"),
      el: el("div", {}, el("p", { class: "muted", text: t("page.other.hint") }), row("page.other.command", name), row("page.other.body", bodyIn), pad.el, pbox,
        el("div", { class: "buttons" },
          button("other-check", "page.preview.check", async () => {
            let b;
            try { b = parse(); } catch (err) { fill(pbox, errorBox({ message: t("page.error.json", { error: err.message }) })); return; }
            showPreview(pbox, null, t("page.preview.checking"));
            showPreview(pbox, await dryRun(name.value, b));
          }),
          button("other-send", "page.other.send", async () => {
            let b;
            try { b = parse(); } catch (err) { fill(pbox, errorBox({ message: t("page.error.json", { error: err.message }) })); return; }
            await sendMayRoll(name.value, b, pad, holder);
          }, "primary"))),
    };
  }

  // --- what the battle view calls ------------------------------------------------

  // keepPlace redraws with fn and puts the keyboard back on the control
  // of the same id if it was on one the redraw replaced (a live event
  // redraws the panel's buttons under the player's keyboard).
  function keepPlace(fn) {
    const a = document.activeElement, id = a && box.contains(a) ? a.id : "";
    fn();
    if (id && !a.isConnected) { const n = document.getElementById(id); if (n) n.focus({ preventScroll: true }); }
  }
  // watchPhase alerts a player when the battle passes to their side (not
  // at each phase of their own that follows: they ended the one before).
  let seenSide = null, seenTurn = null;
  function watchPhase() {
    const s = S(), side = s.status === "in_progress" ? s.phasing_side || "" : "";
    // Said to a screen reader whenever the turn, the phase or the side
    // playing changes (not at the first drawing: the page says it then).
    const at = s.status === "in_progress" ? [s.turn, s.phase, side].join("/") : s.status || "";
    if (seenTurn !== null && at !== seenTurn) {
      announcer.textContent = s.status === "in_progress"
        ? [t("page.play.turn", { n: s.turn, phase: term("phase", s.phase), side: sideName(side) }),
          side === you.side ? t("page.play.yours") : umpire ? "" : t("page.play.theirs")].filter(Boolean).join(" ")
        : t(s.status === "ended" ? "page.play.ended" : "page.play.not_started");
    }
    seenTurn = at;
    if (seenSide !== null && side !== seenSide && !umpire && side && side === you.side) {
      alertPlayer(t("page.alerts.your_phase", { phase: term("phase", s.phase), n: s.turn }), s.name || "", "phase");
    }
    seenSide = side;
  }
  function update() {
    keepPlace(() => { drawTurn(); drawButtons(); });
    watchPhase();
  }
  update();
  return {
    update,
    // event is each event that arrives live: one that asks this player
    // (or the umpire) for an answer raises an alert.
    event(e) {
      undoOvertaken(e);
      if (!e.actor || e.actor === you.player) return;
      const say = (title, tag) => {
        alertPlayer(title, e.description || "", tag);
        announcer.textContent = title + (e.description ? ": " + e.description : "");
      };
      if (e.type === "dispute.raised") say(t("page.alerts.dispute", { who: e.actor }), "dispute-" + e.version);
      else if (e.type === "command.retract_requested") say(t("page.alerts.retract", { who: e.actor }), "retract-" + e.version);
    },
    selectionChanged() {
      if (tool && tool.name && ["initiative", "order", "move", "turn", "formation", "charge", "march", "fire", "combat", "general-order"].includes(tool.name)) open(null);
      keepPlace(drawButtons);
    },
    atNowChanged(now) {
      past.hidden = now;
      if (!now && tool) open(null);
      keepPlace(drawButtons);
      map.drawOverlay();
    },
    tap: e => !!(tool && tool.tap && tool.tap(e)),
    // toolName is the open tool's ("" : none).
    toolName: () => (tool && tool.name) || "",
    // reconnected: the live stream is back, so the ledger can be reached.
    reconnected: () => { if (outbox.waiting().length) flush(); },
    dragStart: (u, pt, mode) => !!(tool && tool.dragStart && tool.dragStart(u, pt, mode)),
    drag: (pt, how) => tool && tool.drag && tool.drag(pt, how),
    dragEnd: (pt, how) => tool && tool.dragEnd && tool.dragEnd(pt, how),
    overlay: (g, m) => tool && tool.overlay && tool.overlay(g, m),
  };
}

// shorten cuts words to n characters at most, with an ellipsis.
function shorten(words, n) {
  return words.length <= n ? words : words.slice(0, n - 1) + "…";
}

// sideSegment is the side of a base (front, right, rear, left) as two
// table points: for drawing the side a charge hits.
function sideSegment(b, side) {
  const fwd = headingVec(b.facing), right = { x: fwd.y, y: -fwd.x };
  const at = (sx, sy) => ({ x: b.center.x + right.x * sx * b.width / 2 + fwd.x * sy * b.depth / 2, y: b.center.y + right.y * sx * b.width / 2 + fwd.y * sy * b.depth / 2 });
  const fl = at(-1, 1), fr = at(1, 1), rr = at(1, -1), rl = at(-1, -1);
  return { front: [fl, fr], right: [fr, rr], rear: [rr, rl], left: [rl, fl] }[side] || [fl, fr];
}
