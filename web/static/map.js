// The battlefield on the page: the picture the server draws (package
// picture, GET .../battlefield.svg) inlined as svg#map, with zoom and pan
// (buttons, wheel, drag, pinch), the table's coordinates under the pointer,
// a measuring ruler, and an overlay layer where the play panel draws what a
// command would do (ghost bases, rulers, a charge's path). Labels and marks
// are kept at their size in screen pixels at every zoom, and the labels are
// placed again so that none overlaps another (the same candidates as
// picture/labels.go). The review screen (review.js) shows each panel of a
// review picture in a map of its own, with the geometry the picture draws
// over it kept at its size in pixels too.

import { t, el, svg, length, num } from "./core.js";

// Margins round the table in pixels when the whole table is shown: room for
// the coordinates along the west and south edges.
const M = { left: 34, right: 14, top: 14, bottom: 24 };
// The closest zoom: this many pixels per unit of the table at most.
const MAX_PX_PER_UNIT = 60;

export class BattleMap {
  // box is the element the map lives in; on are the play panel's hooks:
  // tap({unit, general, point}), dragStart(unit or null, point) -> bool,
  // drag(point, {free}), dragEnd(point), overlay(g, map), and view(view), told
  // when the user zooms or pans (the review keeps its panels together).
  // opts.id names the picture and prefixes its tools' ids ("map": the
  // battlefield's own).
  constructor(box, on, opts) {
    this.on = on || {};
    this.box = box;
    const id = (opts && opts.id) || "map";
    this.id = id;
    this.label = (opts && opts.label) || t("battle.map");
    this.root = null;
    this.view = null; // the viewBox shown {x, y, w, h}; null: the whole table
    this.k = 1;       // the picture's units per screen pixel
    this.mode = "select";
    this.pointers = new Map();
    this.measure = null;
    this.readout = el("span", { class: "readout", id: id + "-readout", "aria-live": "off" });
    const b = (id, label, text, fn) => el("button", { type: "button", id, class: "map-btn", title: label, "aria-label": label, text, onclick: fn });
    this.measureBtn = b(id + "-measure", t("page.map.measure"), "↔", () => this.setMeasuring(this.mode !== "measure"));
    // Named for its map: the review shows three, each with these tools.
    this.toolbar = el("div", { class: "map-toolbar", role: "toolbar", "aria-label": t("page.map.tools") + ": " + this.label },
      b(id + "-zoom-in", t("page.map.zoom_in"), "+", () => this.zoomBy(1 / 1.5)),
      b(id + "-zoom-out", t("page.map.zoom_out"), "−", () => this.zoomBy(1.5)),
      b(id + "-fit", t("page.map.fit"), "⤢", () => this.fit()),
      this.measureBtn, this.readout);
    // The stage takes the keyboard too: the arrow keys pan, + and - zoom,
    // 0 shows the whole table (the units are chosen from the unit list).
    this.stage = el("div", { class: "map-stage", id: id + "-stage", tabindex: "0", role: "group", "aria-label": t("page.map.keys", { map: this.label }) });
    this.hint = el("div", { class: "map-hint", id: id + "-hint", role: "status" });
    this.actions = el("div", { class: "map-actions", id: id + "-actions" });
    box.replaceChildren(this.toolbar, this.stage, this.hint, this.actions);
    this.stage.addEventListener("pointerdown", e => this.down(e));
    this.stage.addEventListener("pointermove", e => this.move(e));
    this.stage.addEventListener("pointerup", e => this.up(e));
    this.stage.addEventListener("pointercancel", e => this.up(e, true));
    this.stage.addEventListener("pointerleave", e => { if (e.pointerType === "mouse" && !this.pointers.size) this.readout.textContent = ""; });
    this.stage.addEventListener("wheel", e => this.wheel(e), { passive: false });
    this.stage.addEventListener("keydown", e => this.key(e));
    new ResizeObserver(() => this.resized()).observe(this.stage);
  }

  get width() { return Number(this.root && this.root.dataset.tableWidth) || 72; }
  get depth() { return Number(this.root && this.root.dataset.tableDepth) || 48; }
  get measurement() { return (this.root && this.root.dataset.measurement) || "in"; }

  // show puts a new picture in place, keeping the zoom and pan.
  show(text) {
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    if (doc.querySelector("parsererror") || doc.documentElement.localName !== "svg") throw { message: "bad SVG" };
    this.showNode(doc.documentElement);
  }

  // showNode puts in place a picture already parsed (an svg element of
  // another document: a panel of a review picture).
  showNode(node) {
    const root = document.importNode(node, true);
    root.id = this.id;
    root.classList.add("map-svg");
    root.removeAttribute("x");
    root.removeAttribute("y");
    root.setAttribute("role", "img");
    root.setAttribute("aria-label", this.label);
    root.removeAttribute("width");
    root.removeAttribute("height");
    this.overlayG = svg("g", { id: this.id === "map" ? "overlay" : this.id + "-overlay", class: "overlay" });
    root.append(this.overlayG);
    this.stage.replaceChildren(root);
    this.root = root;
    this.relabel();
    this.apply(true);
  }

  // relabel says in the page's language what the picture says in words.
  relabel() {
    this.root.querySelectorAll("text.flank-label").forEach(x => {
      x.textContent = t("page.map.flank_march", { n: x.dataset.flankMarch, side: this.sideName ? this.sideName(x.dataset.side) : x.dataset.side });
    });
  }

  // fitBox is the viewBox that shows the whole table in the stage's width.
  fitBox() {
    const cw = Math.max(200, this.stage.clientWidth || 360);
    const k = this.width / Math.max(50, cw - M.left - M.right);
    const h = this.depth / k + M.top + M.bottom;
    return { x: -M.left * k, y: -M.top * k, w: cw * k, h: h * k, cw, ch: h };
  }

  fit() { this.view = null; this.apply(true); this.viewed(); }

  // focus shows the part of the table b (table coordinates: x0, y0, x1,
  // y1) as large as the stage allows, the whole table if b is null or
  // not smaller.
  focus(b) {
    if (!b) return this.fit();
    const fb = this.fitBox(), ratio = fb.ch / fb.cw;
    const w = Math.max(b.x1 - b.x0, (b.y1 - b.y0) / ratio, fb.cw / MAX_PX_PER_UNIT);
    if (w >= this.width) return this.fit();
    const cx = (b.x0 + b.x1) / 2, cy = this.depth - (b.y0 + b.y1) / 2;
    this.view = { x: cx - w / 2, y: cy - w * ratio / 2, w };
    this.apply(true);
    this.viewed();
  }

  // setView shows the view another map shows (null: the whole table),
  // without telling anyone.
  setView(v) {
    this.view = v ? { x: v.x, y: v.y, w: v.w } : null;
    this.apply(true);
  }

  viewed() { if (this.on.view) this.on.view(this.view); }

  resized() {
    if (!this.root) return;
    const f = this.fitBox();
    if (this.lastCW && Math.abs(this.lastCW - f.cw) < 1) return;
    this.lastCW = f.cw;
    this.apply(true);
  }

  // apply sets the viewBox and, when the zoom changed, the pixel sizes.
  apply(force) {
    if (!this.root) return;
    const f = this.fitBox();
    this.root.style.aspectRatio = f.cw + " / " + f.ch;
    const v = this.view || f;
    // The stage keeps the table's shape; the view keeps the stage's.
    const vb = { x: v.x, y: v.y, w: v.w, h: v.w * f.ch / f.cw };
    this.root.setAttribute("viewBox", [vb.x, vb.y, vb.w, vb.h].map(x => +x.toFixed(4)).join(" "));
    const k = vb.w / f.cw;
    if (force || Math.abs(k - this.k) > 1e-9) {
      this.k = k;
      this.rescale();
    } else {
      this.drawOverlay();
    }
  }

  zoomBy(f, cx, cy) {
    const fb = this.fitBox();
    const v = this.view || { x: fb.x, y: fb.y, w: fb.w };
    const minW = (fb.cw) / MAX_PX_PER_UNIT, maxW = fb.w * 1.5;
    const w = Math.min(maxW, Math.max(minW, v.w * f));
    if (cx == null) { cx = v.x + v.w / 2; cy = v.y + (v.w * fb.ch / fb.cw) / 2; }
    const r = w / v.w;
    this.view = { x: cx - (cx - v.x) * r, y: cy - (cy - v.y) * r, w };
    this.apply();
    this.viewed();
  }

  panBy(dxPx, dyPx) {
    const fb = this.fitBox();
    const v = this.view || { x: fb.x, y: fb.y, w: fb.w };
    this.view = { x: v.x - dxPx * this.k, y: v.y - dyPx * this.k, w: v.w };
    this.apply();
    this.viewed();
  }

  // toPicture converts a point of the screen to the picture's coordinates.
  toPicture(clientX, clientY) {
    const m = this.root.getScreenCTM();
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  }

  // toTable converts a point of the screen to the table's (y north).
  toTable(clientX, clientY) {
    const p = this.toPicture(clientX, clientY);
    return { x: p.x, y: this.depth - p.y };
  }

  setMode(mode, hint) {
    this.mode = mode;
    this.stage.dataset.mode = mode;
    this.measureBtn.classList.toggle("on", mode === "measure");
    this.hint.textContent = hint || "";
  }

  // setActions puts a tool's buttons under the map, beside the hand that
  // drags (the same as the tool's own, further down the page).
  setActions(...nodes) { this.actions.replaceChildren(...nodes.filter(Boolean)); }

  setMeasuring(on) {
    if (on) { this.prevMode = [this.mode, this.hint.textContent]; this.setMode("measure", t("page.map.measure_hint")); }
    else { this.measure = null; const [m, h] = this.prevMode || ["select", ""]; this.setMode(m, h); this.drawOverlay(); }
  }

  // --- pointers --------------------------------------------------------------

  down(e) {
    if (!this.root || (e.button && e.button !== 0)) return;
    this.stage.setPointerCapture(e.pointerId);
    const p = { id: e.pointerId, x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY, moved: false };
    this.pointers.set(e.pointerId, p);
    if (this.pointers.size === 2) { this.gesture = "pinch"; this.pinch = this.pinchState(); return; }
    if (this.pointers.size > 2) return;
    const unit = unitAt(e.target);
    const pt = this.toTable(e.clientX, e.clientY);
    this.gesture = "pan";
    if (this.mode === "measure") {
      this.gesture = "measure";
      this.measure = { from: pt, to: pt };
    } else if (this.on.dragStart && this.on.dragStart(unit, pt, this.mode)) {
      this.gesture = "drag";
    }
    e.preventDefault();
  }

  pinchState() {
    const [a, b] = [...this.pointers.values()];
    const mid = this.toPicture((a.x + b.x) / 2, (a.y + b.y) / 2);
    return { d: Math.hypot(a.x - b.x, a.y - b.y), mid, cx: (a.x + b.x) / 2, cy: (a.y + b.y) / 2 };
  }

  move(e) {
    if (!this.root) return;
    const p = this.pointers.get(e.pointerId);
    const pt = this.toTable(e.clientX, e.clientY);
    if (pt.x >= 0 && pt.y >= 0 && pt.x <= this.width && pt.y <= this.depth) {
      this.readout.textContent = "x " + num(pt.x) + " · y " + num(pt.y) + (this.measurement === "cm" ? " " + t("page.unit.cm") : "");
    }
    if (!p) return;
    const dx = e.clientX - p.x, dy = e.clientY - p.y;
    p.x = e.clientX; p.y = e.clientY;
    if (Math.hypot(p.x - p.x0, p.y - p.y0) > 6) p.moved = true;
    if (this.gesture === "pinch" && this.pointers.size === 2) {
      const before = this.pinch, now = this.pinchState();
      if (before.d > 0 && now.d > 0) this.zoomBy(before.d / now.d, before.mid.x, before.mid.y);
      this.panBy(now.cx - before.cx, now.cy - before.cy);
      this.pinch = this.pinchState();
    } else if (this.gesture === "measure") {
      this.measure.to = pt;
      this.drawOverlay();
    } else if (this.gesture === "drag") {
      // Shift or Alt held: the drag is free (no snapping to whole actions).
      if (p.moved && this.on.drag) this.on.drag(pt, { free: e.shiftKey || e.altKey });
    } else if (this.gesture === "pan" && p.moved) {
      this.panBy(dx, dy);
    }
  }

  up(e, cancelled) {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    this.pointers.delete(e.pointerId);
    const pt = this.root ? this.toTable(e.clientX, e.clientY) : null;
    const g = this.gesture;
    if (this.pointers.size === 0) this.gesture = null;
    if (cancelled || g === "pinch") return;
    if (g === "drag") {
      if (this.on.dragEnd) this.on.dragEnd(p.moved ? pt : null, { free: e.shiftKey || e.altKey });
      if (p.moved) return;
    }
    if (g === "measure") return;
    if (!p.moved && this.on.tap) {
      const target = document.elementFromPoint(e.clientX, e.clientY);
      const general = target && target.closest && target.closest("svg.map-svg circle.general");
      this.on.tap({ unit: unitAt(target), general: general ? general.dataset.general : null, point: pt });
    }
  }

  key(e) {
    if (!this.root || e.ctrlKey || e.altKey || e.metaKey) return;
    const step = 60;
    const pan = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] }[e.key];
    if (pan) this.panBy(pan[0], pan[1]);
    else if (e.key === "+" || e.key === "=") this.zoomBy(1 / 1.5);
    else if (e.key === "-" || e.key === "_") this.zoomBy(1.5);
    else if (e.key === "0") this.fit();
    else return;
    e.preventDefault();
  }

  wheel(e) {
    if (!this.root) return;
    e.preventDefault();
    const c = this.toPicture(e.clientX, e.clientY);
    this.zoomBy(Math.pow(1.0015, e.deltaY), c.x, c.y);
  }

  // --- sizes in pixels -----------------------------------------------------

  // rescale sets every mark the picture draws in pixels for the zoom shown
  // (picture/svg.go's data-px, data-px-r, data-t, data-px-stroke), shows
  // the grid's minor lines and coordinates when there is room for them,
  // places the labels again and redraws the overlay.
  rescale() {
    const root = this.root, k = this.k;
    root.querySelectorAll("[data-t]").forEach(g => g.setAttribute("transform", g.dataset.t + " scale(" + k + ")"));
    root.querySelectorAll("[data-px-r]").forEach(c => c.setAttribute("r", c.dataset.pxR * k));
    root.querySelectorAll("[data-px-stroke]").forEach(g => g.setAttribute("stroke-width", g.dataset.pxStroke * k));
    root.querySelectorAll("g.coords").forEach(g => g.setAttribute("font-size", g.dataset.px * k));
    root.querySelectorAll("text.coord").forEach(c => {
      c.setAttribute("x", +c.dataset.ax + c.dataset.dx * k);
      c.setAttribute("y", +c.dataset.ay + c.dataset.dy * k);
    });
    root.querySelectorAll("text.label, text.title").forEach(x => x.setAttribute("font-size", x.dataset.px * k));
    // A review picture's geometry (picture/review.go) is laid out for the
    // picture's scale: each stroke, dash, text and dot is set again for
    // the zoom shown, keeping its size in pixels.
    const f = k * (Number(root.dataset.scale) || 12);
    root.querySelectorAll(".review-geometry, .review-geometry *, .review-corrected *").forEach(x => {
      for (const a of ["stroke-width", "font-size", "r", "stroke-dasharray"]) {
        const key = "o" + a.replace(/-./g, m => m[1].toUpperCase());
        if (!(key in x.dataset)) {
          if (!x.hasAttribute(a)) continue;
          x.dataset[key] = x.getAttribute(a);
        }
        x.setAttribute(a, x.dataset[key].split(/[ ,]+/).map(v => +(Number(v) * f).toFixed(4)).join(" "));
      }
    });
    const minor = Number(root.dataset.gridMinor) || 6;
    root.classList.toggle("show-minor", minor / k >= 30);
    root.classList.toggle("show-minor-grid", minor / k >= 8);
    this.placeLabels();
    this.drawOverlay();
  }

  // placeLabels puts every label where it overlaps no label placed before
  // it, as picture.Place does, measuring the real text.
  placeLabels() {
    const root = this.root, k = this.k, D = this.depth;
    const texts = [...root.querySelectorAll("text.label")];
    root.querySelectorAll("line.leader").forEach(l => l.remove());
    const obstacles = [];
    root.querySelectorAll("g.unit").forEach(g => {
      obstacles.push({ x: g.dataset.x / k, y: (D - g.dataset.y) / k, r: Math.hypot(+g.dataset.width || 0, +g.dataset.depth || 0) / 2 / k });
    });
    root.querySelectorAll("circle.general").forEach(c => obstacles.push({ x: c.getAttribute("cx") / k, y: c.getAttribute("cy") / k, r: +c.dataset.pxR }));
    const items = texts.map(x => {
      const bb = x.getBBox();
      return { el: x, x: x.dataset.ax / k, y: x.dataset.ay / k, r: (Number(x.dataset.ar) || 0) / k, w: bb.width / k + 2, h: Number(x.dataset.px) * 1.25, prio: Number(x.dataset.prio) || 0 };
    });
    const fb = this.fitBox();
    const bounds = { x0: fb.x / k, y0: fb.y / k, x1: (fb.x + fb.w) / k, y1: (fb.y + fb.h) / k };
    const placed = place(items, obstacles, bounds);
    const leaders = root.querySelector("g.labels");
    items.forEach((it, i) => {
      const p = placed[i];
      it.el.setAttribute("x", p.x * k);
      it.el.setAttribute("y", p.y * k);
      if (p.leader && leaders) {
        leaders.prepend(svg("line", { class: "leader", x1: it.x * k, y1: it.y * k, x2: p.x * k, y2: p.y * k, stroke: "#666", "stroke-width": 1, "vector-effect": "non-scaling-stroke" }));
      }
    });
  }

  // --- the overlay ---------------------------------------------------------

  drawOverlay() {
    if (!this.root) return;
    const g = this.overlayG;
    g.replaceChildren();
    if (this.on.overlay) this.on.overlay(g, this);
    if (this.measure) {
      const { from, to } = this.measure;
      g.append(this.ruler(from, to, length(Math.hypot(to.x - from.x, to.y - from.y), this.measurement), "measure"));
    }
    // Keep the overlay's words inside the view.
    const vb = this.root.viewBox.baseVal, pad = 4 * this.k;
    for (const x of g.querySelectorAll("text.overlay-text")) {
      const b = x.getBBox();
      let dx = 0, dy = 0;
      if (b.width < vb.width - 2 * pad) {
        if (b.x < vb.x + pad) dx = vb.x + pad - b.x;
        else if (b.x + b.width > vb.x + vb.width - pad) dx = vb.x + vb.width - pad - (b.x + b.width);
      }
      if (b.y < vb.y + pad) dy = vb.y + pad - b.y;
      else if (b.y + b.height > vb.y + vb.height - pad) dy = vb.y + vb.height - pad - (b.y + b.height);
      if (dx) x.setAttribute("x", +x.getAttribute("x") + dx);
      if (dy) x.setAttribute("y", +x.getAttribute("y") + dy);
    }
  }

  // The overlay's drawing tools, in table coordinates.

  pt(v) { return [v.x, this.depth - v.y]; }

  // base draws a unit's base (center, facing, width, depth) with its front
  // edge.
  base(b, cls, colour) {
    const [x, y] = this.pt(b.center);
    const hw = b.width / 2, hd = b.depth / 2;
    return svg("g", { class: "ghost " + (cls || ""), transform: "translate(" + x + "," + y + ") rotate(" + b.facing + ")" },
      svg("rect", { x: -hw, y: -hd, width: b.width, height: b.depth, fill: colour || "none", "fill-opacity": colour ? 0.45 : 0, stroke: "#111", "stroke-width": 2, "stroke-dasharray": "5 3", "vector-effect": "non-scaling-stroke" }),
      svg("line", { x1: -hw, y1: -hd, x2: hw, y2: -hd, stroke: "#111", "stroke-width": 3.5, "vector-effect": "non-scaling-stroke" }));
  }

  // line draws a polyline through table points.
  line(points, cls, colour, width, dash) {
    return svg("polyline", { class: cls || "", points: points.map(p => this.pt(p).join(",")).join(" "), fill: "none", stroke: colour || "#111",
      "stroke-width": width || 2, "stroke-dasharray": dash || null, "stroke-linejoin": "round", "vector-effect": "non-scaling-stroke" });
  }

  // text writes words at a table point, at px pixels, on a halo, offset by
  // dy pixels.
  text(at, words, cls, px, dy) {
    const [x, y] = this.pt(at);
    const k = this.k;
    // Near a side edge the words run inward, so that none is cut off.
    const anchor = at.x < this.width * 0.15 ? "start" : at.x > this.width * 0.85 ? "end" : "middle";
    const dx = anchor === "start" ? -8 * k : anchor === "end" ? 8 * k : 0;
    return svg("text", { class: "overlay-text " + (cls || ""), x: x + dx, y: y + (dy || 0) * k, "font-size": (px || 13) * k, "text-anchor": anchor,
      "dominant-baseline": "central", "paint-order": "stroke", stroke: "#fff", "stroke-width": 4 * k, "stroke-linejoin": "round", fill: "#111", text: words });
  }

  // ruler draws a measuring line from a to b with its length written at its
  // middle (and any further lines of words below it).
  ruler(a, b, words, cls, colour, more) {
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    const g = svg("g", { class: "ruler " + (cls || "") },
      this.line([a, b], "ruler-line", colour || "#0b57a4", 2.5, "8 4"),
      this.ring(a, 4, colour || "#0b57a4"), this.ring(b, 4, colour || "#0b57a4"),
      this.text(mid, words, "ruler-text", 14, -14));
    (more || []).forEach((m, i) => g.append(this.text(mid, m.text, "ruler-more " + (m.cls || ""), 13, 6 + 17 * i)));
    return g;
  }

  // ring draws a circle of r pixels round a table point.
  ring(at, r, colour, cls, dash) {
    const [x, y] = this.pt(at);
    return svg("circle", { class: cls || "", cx: x, cy: y, r: r * this.k, fill: "none", stroke: colour || "#111", "stroke-width": 2, "stroke-dasharray": dash || null, "vector-effect": "non-scaling-stroke" });
  }

  // marker draws a cross of 9 pixels at a table point, with words above.
  marker(at, words, colour, cls) {
    const [x, y] = this.pt(at), s = 9 * this.k;
    const c = colour || "#7a1fa2";
    return svg("g", { class: "marker " + (cls || "") },
      svg("path", { d: `M${x - s},${y - s}L${x + s},${y + s}M${x - s},${y + s}L${x + s},${y - s}`, stroke: c, "stroke-width": 3, "vector-effect": "non-scaling-stroke" }),
      this.ring(at, 12, c),
      words ? this.text(at, words, "marker-text", 12, -24) : null);
  }
}

// unitAt is the unit an element of the picture shows: its base, or its
// name.
function unitAt(target) {
  if (!target || !target.closest) return null;
  const g = target.closest("svg.map-svg g.unit");
  if (g) return g.dataset.unit;
  const l = target.closest("svg.map-svg text.unit-label");
  return l ? l.dataset.for : null;
}

// place is picture.Place: each label where it overlaps no label placed
// before it (by priority, then top to bottom, then left to right),
// preferring spots that cover no unit and stay within bounds.
export function place(items, obstacles, bounds) {
  const order = items.map((_, i) => i).sort((a, b) => {
    const x = items[a], y = items[b];
    return x.prio - y.prio || x.y - y.y || x.x - y.x || a - b;
  });
  const out = new Array(items.length);
  const boxes = [];
  const overlap = (a, b) => Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  for (const i of order) {
    const it = items[i];
    let best = { x: it.x, y: it.y, leader: false }, bestScore = Infinity;
    for (const c of candidates(it)) {
      const b = { x0: c.x - it.w / 2, y0: c.y - it.h / 2, x1: c.x + it.w / 2, y1: c.y + it.h / 2 };
      let labels = 0, covered = 0;
      for (const o of boxes) labels += overlap(b, o);
      for (const d of obstacles) {
        if (d.x === it.x && d.y === it.y) continue;
        covered += overlap(b, { x0: d.x - d.r, y0: d.y - d.r, x1: d.x + d.r, y1: d.y + d.r });
      }
      let outside = it.w * it.h - overlap(b, bounds);
      if (outside < 1e-6) outside = 0; // inside, but for rounding
      const score = 1000 * labels + 50 * outside + covered;
      if (score < 1e-6) { best = c; break; }
      if (score < bestScore - 1e-9) { best = c; bestScore = score; }
    }
    out[i] = best;
    boxes.push({ x0: best.x - it.w / 2, y0: best.y - it.h / 2, x1: best.x + it.w / 2, y1: best.y + it.h / 2 });
  }
  return out;
}

// candidates are picture.Candidates.
function candidates(it) {
  const gap = 3, r = it.r + gap, w = it.w, h = it.h, d = r * 0.7;
  const out = [
    [0, -(r + h / 2), false], [0, r + h / 2, false], [r + w / 2, 0, false], [-(r + w / 2), 0, false],
    [d + w / 2, -(d + h / 2), false], [-(d + w / 2), -(d + h / 2), false], [d + w / 2, d + h / 2, false], [-(d + w / 2), d + h / 2, false],
  ];
  for (let k = 1; k <= 6; k++) {
    out.push([0, -(r + h / 2 + k * h), true], [0, r + h / 2 + k * h, true], [r + w / 2, -k * h, true], [r + w / 2, k * h, true],
      [-(r + w / 2), -k * h, true], [-(r + w / 2), k * h, true]);
  }
  return out.map(([x, y, leader]) => ({ x: it.x + x, y: it.y + y, leader }));
}
