// Package picture draws a battle as an SVG picture: the table and its grid, its
// terrain, the table edges flank marches were declared on (the edge only),
// the objectives, the units as rotated rectangles with their front edge
// marked and their side's colour, the generals (the C-in-C ringed in gold)
// and labels, and optionally a charge (the charger before and after, its
// leader point's path, the side of the target hit, the enemies pushed back).
//
// It is pure Go and knows nothing of HTTP or the log: it takes a folded
// rules.State (and a charge.declared) and returns bytes. It is the one
// renderer of the battlefield: the CLI (`ledger picture`) and the web page
// (GET .../battlefield.svg, inlined by the page at every timeline step) both
// use it. The picture carries its own colours (presentation attributes, no
// style sheet or script), so it looks the same saved to a file.
//
// Coordinates in the picture are the table's, in the battle's unit, with y
// flipped (SVG's y grows down): picture (x, Depth - y) is table (x, y).
// What must read at any size is drawn in screen pixels, not in the table's
// unit (labels.go): text, strokes (vector-effect non-scaling-stroke), the
// generals' discs, the objectives' diamonds and the arrowhead ahead of each
// unit. The picture is laid out for Options.Scale pixels per unit, and each
// such element says how to scale it again: data-px (a text's size in
// pixels), data-px-r (a disc's radius), data-t (a pixel group's transform
// before its scale(units per pixel)), data-px-stroke; a page that zooms
// (static/map.js) sets them for the zoom it shows and places the labels
// again so that none overlaps another.
//
// Elements carry classes and data- attributes a page or a test can find
// them by (the hooks):
//
//   - the root svg.battlefield has data-table-width, data-table-depth,
//     data-scale, data-measurement, data-grid and data-grid-minor (the grid's
//     steps), and the caller's Options.Data;
//   - each unit is a g.unit with data-unit, data-side, data-x, data-y,
//     data-facing (the base's centre and facing in table coordinates, exact),
//     data-width, data-depth, data-formation, data-status and
//     transform="translate(X,Y) rotate(F)" (X, Y the centre in picture
//     coordinates, F the facing, clockwise from north as SVG rotates); its
//     children are drawn in the base's own frame, front edge up:
//     polygon.base (corners front-left, front-right, rear-right, rear-left),
//     line.front, g.facing (the arrowhead, in pixels);
//   - each general is a circle.general with data-general, data-side, data-x,
//     data-y (circle.general.cinc for a C-in-C);
//   - terrain is polygon.terrain with data-name; an objective g.objective
//     with data-objective (and data-held); a flank march's edge
//     line.flank-march with data-flank-march, data-side and data-edge;
//   - labels are text.label (unit-label with data-for the unit,
//     general-label, terrain-label, objective-label, flank-label) with their
//     anchor data-ax, data-ay and the radius round it they keep clear of,
//     data-ar (picture coordinates); line.leader joins a label placed away
//     from its anchor; the coordinates along the edges are text.coord (minor
//     ones text.coord.minor) with their anchor and their offset in pixels
//     (data-dx, data-dy);
//   - the charge overlay is g.charge (data-unit, data-target, data-side-hit)
//     with polygon.charge-before and polygon.charge-after (table corners,
//     y flipped), polyline.charge-path, line.charge-side, and for each unit
//     pushed back polygon.pushed-before and polyline.pushed-path.
package picture

import (
	"bytes"
	"encoding/xml"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// Options says what to draw besides the battle.
type Options struct {
	// Scale is pixels per unit of the battle's measurement: the picture's
	// width and height attributes, and the zoom its labels and marks are
	// laid out for; 0 means 12.
	Scale float64
	// Title is shown in the top-left corner; empty: the battle's name.
	Title string
	// NoLabels leaves out unit, general, terrain and objective names.
	NoLabels bool
	// Charge is drawn over the battle when not nil.
	Charge *Charge
	// Moved are the units to mark as changed (moved, turned, re-formed or
	// arrived) since the event before: see Moved.
	Moved map[string]bool
	// Data are extra attributes of the root element, each written as
	// data-<name> (in name order): the web adds the version drawn.
	Data map[string]string
	// Lang is the language of the picture's words (labels and hover
	// titles): "en" (also when empty) or "ru".
	Lang string
}

// Charge is a charge to draw: the charger's base before (From) and after
// (To), its leader point's path, and the side of the target it hit.
type Charge struct {
	// Version is the charge.declared's version, when known (0: not said).
	Version      uint64
	Unit, Target string
	From, To     geom.Base
	Path         []geom.Vec
	Side         geom.Arc
	// TargetBase is where the target stands (charges do not move it).
	TargetBase geom.Base
	// Pushed are the enemies moved back (K.9): before and after.
	Pushed []Pushed
}

// Pushed is one enemy unit moved back by a charge.
type Pushed struct {
	Unit     string
	From, To geom.Base
}

// ChargeOf makes the overlay of a charge.declared, given the state it was
// decided on (for the target's base) and the charge.pushed_back events that
// followed it (nil if none).
func ChargeOf(ev *rules.ChargeDeclared, before *rules.State, pushes []*rules.ChargePushedBack) *Charge {
	c := &Charge{Unit: ev.Unit, Target: ev.Target, From: ev.From, To: ev.To, Path: ev.Path, Side: ev.Side}
	if len(c.Path) == 0 && ev.Contact {
		c.Path = []geom.Vec{ev.From.LeaderPoint(), ev.To.LeaderPoint()}
	}
	if before != nil {
		if t := before.Units[ev.Target]; t != nil {
			c.TargetBase = t.Base
		}
	}
	for _, p := range pushes {
		c.Pushed = append(c.Pushed, Pushed{Unit: p.Unit, From: p.From, To: p.To})
	}
	return c
}

// Moved returns the units of cur that changed since prev: moved, turned,
// re-formed, changed status, or not in prev at all. Nil prev: none.
func Moved(prev, cur *rules.State) map[string]bool {
	out := map[string]bool{}
	if prev == nil || cur == nil {
		return out
	}
	for id, u := range cur.Units {
		p := prev.Units[id]
		if u == nil {
			continue
		}
		if p == nil || p.Base != u.Base || p.Formation != u.Formation || p.Status != u.Status {
			out[id] = true
		}
	}
	return out
}

// Palette is the sides' colours, in the order of the battle's sides (the
// page's legend uses the same).
var Palette = []string{"#2c5fa8", "#b03a2e", "#2e7d32", "#8e6c00"}

const (
	tableFill  = "#dfe8d2"
	tableEdge  = "#7a8a66"
	gridStroke = "#c4cfb6"
	ink        = "#1b1b1b"
	halo       = "#fbfbf8"
	gold       = "#ffcc00"
	chargeCol  = "#d4a017"
	sideHitCol = "#e0201b"
)

// Margins round the table, in pixels: room for the coordinates along the
// west and south edges and for the labels of what stands at an edge; above
// it, when there is a title, a band for it.
const (
	marginLeftPx   = 30.0
	marginRightPx  = 16.0
	marginTopPx    = 16.0
	marginBottomPx = 22.0
	titleBandPx    = 24.0
)

// Render draws the battle s. It never fails: missing pieces are left out.
func Render(s *rules.State, opt Options) []byte {
	scale := opt.Scale
	if scale <= 0 {
		scale = 12
	}
	u := 1 / scale // the picture's units per pixel
	w, d := s.Table.Width, s.Table.Depth
	if w <= 0 || d <= 0 {
		w, d = 72, 48
	}
	p := &painter{depth: d, u: u, w: newWords(opt.Lang)}
	title := opt.Title
	if title == "" {
		title = s.Name
	}
	left, right, top, bottom := marginLeftPx*u, marginRightPx*u, marginTopPx*u, marginBottomPx*u
	if opt.NoLabels {
		left, right, top, bottom = 2, 2, 2, 2
	} else if title != "" {
		top += titleBandPx * u
	}
	major, minor := GridSteps(s.Measurement)
	major, minor = thinGrid(math.Max(w, d), major, minor)
	root := attrs{"xmlns", "http://www.w3.org/2000/svg", "class", "battlefield",
		"viewBox", strings.Join([]string{Num(-left), Num(-top), Num(w + left + right), Num(d + top + bottom)}, " "),
		"width", Num((w + left + right) * scale), "height", Num((d + top + bottom) * scale),
		"font-family", "system-ui, sans-serif", "data-table-width", Num(w), "data-table-depth", Num(d),
		"data-scale", Num(scale), "data-measurement", s.Measurement, "data-grid", Num(major), "data-grid-minor", Num(minor)}
	keys := make([]string, 0, len(opt.Data))
	for k := range opt.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		root = append(root, "data-"+k, opt.Data[k])
	}
	p.b.WriteString("<svg")
	p.attrs(root)
	p.b.WriteString(">\n")
	if title != "" {
		p.el("title", nil, title)
	}
	p.el("rect", attrs{"class", "table", "x", "0", "y", "0", "width", Num(w), "height", Num(d), "fill", tableFill, "stroke", tableEdge, "stroke-width", "1.5", "vector-effect", "non-scaling-stroke"}, "")
	p.grid(w, d, major, minor)

	colour := map[string]string{}
	index := map[string]int{}
	for i, sd := range s.Sides {
		colour[sd.ID] = Palette[i%len(Palette)]
		index[sd.ID] = i % len(Palette)
	}
	col := func(side string) string {
		if c := colour[side]; c != "" {
			return c
		}
		return "#666"
	}
	var labels []label
	var obstacles []Disc

	p.open("g", attrs{"class", "terrain"})
	for _, t := range s.Terrain {
		fill, stroke := "#9bb07f", "#6d7f55"
		switch {
		case t.Kind.Has(geom.Impassable):
			fill, stroke = "#9c8f80", "#5f5548"
		case t.Kind.Has(geom.BlocksSight):
			fill, stroke = "#6f9b5a", "#46703a"
		case t.Kind.Has(geom.Road):
			fill, stroke = "#d9c7a1", "#b09a70"
		}
		p.open("polygon", attrs{"class", "terrain " + strings.ReplaceAll(t.Kind.String(), ",", " "), "data-name", t.Name,
			"points", p.points(t.Outline), "fill", fill, "stroke", stroke, "stroke-width", "1", "vector-effect", "non-scaling-stroke", "fill-opacity", "0.6"})
		p.el("title", nil, t.Name+" ("+p.w.terrain(t.Kind.String())+")")
		p.close("polygon")
		if len(t.Outline) > 0 {
			labels = append(labels, label{at: centroid(t.Outline), text: t.Name, class: "label terrain-label", fill: "#3b4a2c", px: terrainLabelPx, italic: true, prio: prioTerrain})
		}
	}
	p.close("g")

	if len(s.Flank.Marches) > 0 {
		p.open("g", attrs{"class", "flank-marches"})
		perEdge := map[geom.Edge]int{}
		for _, m := range s.Flank.Marches {
			labels = append(labels, p.flankMarch(m, w, d, col(m.Side), perEdge[m.Edge]))
			perEdge[m.Edge]++
		}
		p.close("g")
	}

	if len(s.Victory.Objectives) > 0 {
		p.open("g", attrs{"class", "objectives"})
		for _, o := range s.Victory.Objectives {
			if o.Position == nil {
				continue
			}
			held := s.Victory.Held[o.ID]
			fill := "#fff"
			if held != "" {
				fill = col(held)
			}
			l := p.objective(o, held, fill)
			labels = append(labels, l)
			obstacles = append(obstacles, p.disc(*o.Position, objectivePx))
		}
		p.close("g")
	}

	ids := make([]string, 0, len(s.Units))
	for id, u := range s.Units {
		// A unit off the table (waiting to enter, or gone) has no place on it.
		if u != nil && u.Status != rules.UnitOffTable {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	p.open("g", attrs{"class", "units"})
	for _, id := range ids {
		un := s.Units[id]
		p.unit(un, index[un.Side], col(un.Side), opt.Moved[id])
		r := math.Hypot(un.Base.Width, un.Base.Depth) / 2
		// A unit is labelled by its name, as players call it ("2/26e
		// leger"); by its id when it has no other.
		text := un.Name
		if text == "" {
			text = un.ID
		}
		labels = append(labels, label{at: un.Base.Center, r: r, text: text, class: "label unit-label", fill: ink, px: unitLabelPx, data: un.ID, prio: prioUnit})
		obstacles = append(obstacles, Disc{X: un.Base.Center.X * scale, Y: (d - un.Base.Center.Y) * scale, R: r * scale})
	}
	p.close("g")

	p.open("g", attrs{"class", "generals"})
	for _, sd := range s.Sides {
		if c := sd.CInC; c != nil {
			labels = append(labels, p.general(c.ID, c.Name, sd.ID, index[sd.ID], c.Rating, c.Position, col(sd.ID), true))
			obstacles = append(obstacles, p.disc(c.Position, cincPx))
		}
		for _, br := range sd.Brigades {
			g := br.General
			labels = append(labels, p.general(g.ID, g.Name, sd.ID, index[sd.ID], g.Rating, g.Position, col(sd.ID), false))
			obstacles = append(obstacles, p.disc(g.Position, generalPx))
		}
	}
	p.close("g")

	if c := opt.Charge; c != nil {
		p.charge(c)
	}
	if !opt.NoLabels {
		p.labels(labels, obstacles, scale, Box{-left * scale, -top * scale, (w + right) * scale, (d + bottom) * scale})
		p.coords(w, d, major, minor)
		if title != "" {
			p.el("text", attrs{"class", "title", "x", "0", "y", Num(-top + (titlePx+4)*u), "font-size", Num(titlePx * u), "data-px", Num(titlePx), "fill", "#222"}, title)
		}
	}
	p.b.WriteString("</svg>\n")
	return p.b.Bytes()
}

// GridSteps are the grid's major and minor steps in a measurement: a foot
// and 6" in inches, 30 cm and 10 cm in centimetres.
func GridSteps(measurement string) (major, minor float64) {
	if measurement == "cm" {
		return 30, 10
	}
	return 12, 6
}

// maxGridLines is the most grid lines a picture draws along one edge: a
// table a club plays on has a few dozen; a table of 1,000 m, which the door
// accepts, would otherwise cost a picture hundreds of megabytes.
const maxGridLines = 200

// thinGrid widens both steps by the same whole factor (2, 5, 10, 20, ...)
// until a table span long needs at most maxGridLines minor lines.
func thinGrid(span, major, minor float64) (float64, float64) {
	for k, f := 1.0, 0; span/(minor*k) > maxGridLines && f < 64; f++ {
		k *= [...]float64{2, 2.5, 2}[f%3]
		if span/(minor*k) <= maxGridLines {
			return major * k, minor * k
		}
	}
	return major, minor
}

// Sizes of the marks drawn in pixels: the radius of a general's disc (a
// C-in-C's) and the half-diagonal of an objective's diamond.
const (
	generalPx   = 5.0
	cincPx      = 7.0
	objectivePx = 8.0
)

// label is a name drawn on top of everything, unrotated, at px pixels; r
// is the radius (in the table's unit) round its anchor that it keeps
// clear of: the base it names.
type label struct {
	at     geom.Vec
	r      float64
	text   string
	class  string
	fill   string
	px     float64
	italic bool
	data   string
	prio   int
	extra  attrs
}

// attrs is a list of name, value pairs, in order.
type attrs []string

type painter struct {
	w     words
	b     bytes.Buffer
	depth float64
	u     float64 // the picture's units per pixel
	level int
}

// pt converts a table point to picture coordinates.
func (p *painter) pt(v geom.Vec) (string, string) { return Num(v.X), Num(p.depth - v.Y) }

// disc is an obstacle of radius px pixels round a table point, in pixels.
func (p *painter) disc(v geom.Vec, px float64) Disc {
	return Disc{X: v.X / p.u, Y: (p.depth - v.Y) / p.u, R: px}
}

// pxGroup opens a group drawn in pixels at a table point: translated there
// (and rotated by rot degrees) and scaled to the picture's units, so that
// its children's coordinates are pixels. data-t keeps the transform without
// the scale, for a page that zooms to scale it again.
func (p *painter) pxGroup(class string, at geom.Vec, rot float64, more attrs) {
	x, y := p.pt(at)
	t := "translate(" + x + "," + y + ")"
	if rot != 0 {
		t += " rotate(" + Num(rot) + ")"
	}
	a := attrs{"class", class, "transform", t + " scale(" + Num(p.u) + ")", "data-t", t}
	p.open("g", append(a, more...))
}

func (p *painter) points(vs []geom.Vec) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		x, y := p.pt(v)
		parts[i] = x + "," + y
	}
	return strings.Join(parts, " ")
}

// local writes points of a base's own frame (x right, y ahead) in the
// picture's (y down: ahead is up).
func local(vs ...geom.Vec) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = Num(v.X) + "," + Num(-v.Y)
	}
	return strings.Join(parts, " ")
}

func (p *painter) indent() { p.b.WriteString(strings.Repeat("  ", p.level+1)) }

func (p *painter) attrs(a attrs) {
	for i := 0; i+1 < len(a); i += 2 {
		p.b.WriteString(" " + a[i] + `="`)
		_ = xml.EscapeText(&p.b, []byte(a[i+1]))
		p.b.WriteString(`"`)
	}
}

func (p *painter) el(name string, a attrs, text string) {
	p.indent()
	p.b.WriteString("<" + name)
	p.attrs(a)
	if text == "" {
		p.b.WriteString("/>\n")
		return
	}
	p.b.WriteString(">")
	_ = xml.EscapeText(&p.b, []byte(text))
	p.b.WriteString("</" + name + ">\n")
}

func (p *painter) open(name string, a attrs) {
	p.indent()
	p.b.WriteString("<" + name)
	p.attrs(a)
	p.b.WriteString(">\n")
	p.level++
}

func (p *painter) close(name string) {
	p.level--
	p.indent()
	p.b.WriteString("</" + name + ">\n")
}

// grid draws a thin line every minor step and a stronger one every major
// step (a foot and 6", or 30 and 10 cm), one pixel wide at any zoom.
func (p *painter) grid(w, d, major, minor float64) {
	p.open("g", attrs{"class", "grid", "stroke", gridStroke, "vector-effect", "non-scaling-stroke"})
	line := func(class string, x1, y1, x2, y2 float64, sw string) {
		p.el("line", attrs{"class", class, "x1", Num(x1), "y1", Num(y1), "x2", Num(x2), "y2", Num(y2), "stroke-width", sw, "vector-effect", "non-scaling-stroke"}, "")
	}
	isMajor := func(v float64) bool { return math.Abs(math.Remainder(v, major)) < 1e-9 }
	for x := minor; x < w-1e-9; x += minor {
		if isMajor(x) {
			line("major", x, 0, x, d, "1")
		} else {
			line("minor", x, 0, x, d, "0.5")
		}
	}
	for y := minor; y < d-1e-9; y += minor {
		if isMajor(y) {
			line("major", 0, d-y, w, d-y, "1")
		} else {
			line("minor", 0, d-y, w, d-y, "0.5")
		}
	}
	p.close("g")
}

// coords writes the table's coordinates along its south edge (x) and its
// west edge (y), at every grid line: the major ones always, the minor ones
// marked "minor" (the page shows them when zoomed in far enough to read
// them). Each carries its anchor on the edge (data-ax, data-ay) and its
// offset from it in pixels (data-dx, data-dy).
func (p *painter) coords(w, d, major, minor float64) {
	p.open("g", attrs{"class", "coords", "fill", "#4a5a3a", "font-size", Num(coordPx * p.u), "data-px", Num(coordPx)})
	isMajor := func(v float64) bool { return math.Abs(math.Remainder(v, major)) < 1e-9 }
	write := func(v, ax, ay, dx, dy float64, anchor string) {
		class := "coord"
		if !isMajor(v) {
			class += " minor"
		}
		p.el("text", attrs{"class", class, "x", Num(ax + dx*p.u), "y", Num(ay + dy*p.u), "text-anchor", anchor,
			"data-ax", Num(ax), "data-ay", Num(ay), "data-dx", Num(dx), "data-dy", Num(dy)}, Num(v))
	}
	for x := 0.0; x <= w+1e-9; x += minor {
		write(x, x, d, 0, coordPx+3, "middle")
	}
	for y := 0.0; y <= d+1e-9; y += minor {
		write(y, 0, d-y, -5, coordPx*0.35, "end")
	}
	p.close("g")
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func centroid(poly geom.Polygon) geom.Vec {
	var c geom.Vec
	for _, v := range poly {
		c = c.Add(v)
	}
	return c.Scale(1 / float64(len(poly)))
}

// Num prints a coordinate of the picture as the renderer does: at most four
// decimals, no trailing zeros ("24", "31.5", "-0.6").
func Num(v float64) string {
	if math.Abs(v) < 5e-5 {
		v = 0
	}
	return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
}

// exact prints a table coordinate of a data- attribute exactly (the
// shortest decimal that reads back as the same float64), as JSON and
// JavaScript's String() print it.
func exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
