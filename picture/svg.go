// Package svg draws a battle as an SVG picture: the table and its grid, its
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
// Elements carry classes and data- attributes a page or a test can find
// them by (the hooks):
//
//   - each unit is a g.unit with data-unit, data-side, data-x, data-y,
//     data-facing (the base's centre and facing in table coordinates, exact),
//     data-formation, data-status and transform="translate(X,Y) rotate(F)"
//     (X, Y the centre in picture coordinates, F the facing, clockwise from
//     north as SVG rotates); its children are drawn in the base's own frame,
//     front edge up: polygon.base (corners front-left, front-right,
//     rear-right, rear-left), line.front, polygon.facing;
//   - each general is a circle.general with data-general, data-side, data-x,
//     data-y (circle.general.cinc for a C-in-C);
//   - terrain is polygon.terrain with data-name; an objective g.objective
//     with data-objective (and data-held); a flank march's edge
//     line.flank-march with data-flank-march, data-side and data-edge;
//   - the charge overlay is g.charge (data-unit, data-target, data-side-hit)
//     with polygon.charge-before and polygon.charge-after (table corners,
//     y flipped), polyline.charge-path, line.charge-side, and for each unit
//     pushed back polygon.pushed-before and polyline.pushed-path.
package picture

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// Options says what to draw besides the battle.
type Options struct {
	// Scale is pixels per unit of the battle's measurement for the
	// picture's width and height attributes; 0 means 12.
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

// Render draws the battle s. It never fails: missing pieces are left out.
func Render(s *rules.State, opt Options) []byte {
	scale := opt.Scale
	if scale <= 0 {
		scale = 12
	}
	w, d := s.Table.Width, s.Table.Depth
	if w <= 0 || d <= 0 {
		w, d = 72, 48
	}
	p := &painter{depth: d}
	title := opt.Title
	if title == "" {
		title = s.Name
	}
	// A margin round the table for the labels of what stands at its edge;
	// above it, when there is one, a band for the title.
	const margin, band = 2.0, 1.8
	top := margin
	if !opt.NoLabels && title != "" {
		top += band
	}
	root := attrs{"xmlns", "http://www.w3.org/2000/svg", "class", "battlefield",
		"viewBox", strings.Join([]string{Num(-margin), Num(-top), Num(w + 2*margin), Num(d + margin + top)}, " "),
		"width", Num((w + 2*margin) * scale), "height", Num((d + margin + top) * scale),
		"font-family", "system-ui, sans-serif", "data-table-width", Num(w), "data-table-depth", Num(d)}
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
	p.el("rect", attrs{"class", "table", "x", "0", "y", "0", "width", Num(w), "height", Num(d), "fill", tableFill, "stroke", tableEdge, "stroke-width", "0.25"}, "")
	p.grid(w, d, s.Measurement)

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
			"points", p.points(t.Outline), "fill", fill, "stroke", stroke, "stroke-width", "0.15", "fill-opacity", "0.6"})
		p.el("title", nil, t.Name+" ("+t.Kind.String()+")")
		p.close("polygon")
		if len(t.Outline) > 0 {
			labels = append(labels, label{at: centroid(t.Outline), text: t.Name, class: "label terrain-label", fill: "#3b4a2c", size: 0.9})
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
			labels = append(labels, p.objective(o, held, fill))
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
		u := s.Units[id]
		p.unit(u, index[u.Side], col(u.Side), opt.Moved[id])
		r := math.Max(u.Base.Width, u.Base.Depth) / 2
		labels = append(labels, label{at: u.Base.Center.Add(geom.Vec{Y: -r - 1.1}), text: u.ID, class: "label unit-label", fill: ink, size: 1.05, data: u.ID})
	}
	p.close("g")

	p.open("g", attrs{"class", "generals"})
	for _, sd := range s.Sides {
		if c := sd.CInC; c != nil {
			labels = append(labels, p.general(c.ID, c.Name, sd.ID, index[sd.ID], c.Rating, c.Position, col(sd.ID), true))
		}
		for _, br := range sd.Brigades {
			g := br.General
			labels = append(labels, p.general(g.ID, g.Name, sd.ID, index[sd.ID], g.Rating, g.Position, col(sd.ID), false))
		}
	}
	p.close("g")

	if c := opt.Charge; c != nil {
		p.charge(c)
	}
	if !opt.NoLabels {
		p.open("g", attrs{"class", "labels", "text-anchor", "middle", "dominant-baseline", "middle",
			"paint-order", "stroke", "stroke", halo, "stroke-width", "0.25", "stroke-linejoin", "round"})
		for _, l := range labels {
			if l.text == "" {
				continue
			}
			x, y := p.pt(l.at)
			a := attrs{"class", l.class, "x", x, "y", y, "font-size", Num(l.size), "fill", l.fill}
			if l.italic {
				a = append(a, "font-style", "italic")
			}
			if l.data != "" {
				a = append(a, "data-for", l.data)
			}
			p.el("text", a, l.text)
		}
		p.close("g")
		if title != "" {
			p.el("text", attrs{"class", "title", "x", "0", "y", Num(-top + 1.3), "font-size", "1.2", "fill", "#222"}, title)
		}
	}
	p.b.WriteString("</svg>\n")
	return p.b.Bytes()
}

// label is a name drawn on top of everything, unrotated.
type label struct {
	at     geom.Vec
	text   string
	class  string
	fill   string
	size   float64
	italic bool
	data   string
}

// attrs is a list of name, value pairs, in order.
type attrs []string

type painter struct {
	b     bytes.Buffer
	depth float64
	level int
}

// pt converts a table point to picture coordinates.
func (p *painter) pt(v geom.Vec) (string, string) { return Num(v.X), Num(p.depth - v.Y) }

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

// grid draws a line every foot (12") or every 30 cm.
func (p *painter) grid(w, d float64, measurement string) {
	step := 12.0
	if measurement == "cm" {
		step = 30
	}
	p.open("g", attrs{"class", "grid", "stroke", gridStroke, "stroke-width", "0.08"})
	for x := step; x < w; x += step {
		p.el("line", attrs{"x1", Num(x), "y1", "0", "x2", Num(x), "y2", Num(d)}, "")
	}
	for y := step; y < d; y += step {
		p.el("line", attrs{"x1", "0", "y1", Num(d - y), "x2", Num(w), "y2", Num(d - y)}, "")
	}
	p.close("g")
}

// unit draws a base in its own frame, translated to its centre and rotated
// to its facing: the rectangle in its side's colour (dashed in column,
// thick in square, faded when routed or destroyed, outlined in gold when
// moved), its front edge thick and an arrow ahead of it.
func (p *painter) unit(u *rules.Unit, side int, col string, moved bool) {
	b := u.Base
	x, y := p.pt(b.Center)
	class := fmt.Sprintf("unit side-%d f-%s s-%s", side, u.Formation, u.Status)
	if moved {
		class += " moved"
	}
	a := attrs{"class", class, "data-unit", u.ID, "data-side", u.Side,
		"data-x", exact(b.Center.X), "data-y", exact(b.Center.Y), "data-facing", exact(b.Facing),
		"data-formation", u.Formation, "data-status", u.Status,
		"transform", "translate(" + x + "," + y + ") rotate(" + Num(b.Facing) + ")"}
	if u.Status == rules.UnitRouted || u.Status == rules.UnitDestroyed {
		a = append(a, "opacity", "0.35")
	}
	p.open("g", a)
	what := []string{u.Type, u.Formation, u.Status}
	if u.Markers > 0 {
		what = append(what, fmt.Sprintf("%d markers", u.Markers))
	}
	name := u.ID
	if u.Name != "" && u.Name != u.ID {
		name = u.Name + " (" + u.ID + ")"
	}
	p.el("title", nil, name+", "+strings.Join(nonEmpty(what), ", "))
	hw, hd := b.Width/2, b.Depth/2
	stroke, sw := ink, "0.12"
	if moved {
		stroke, sw = gold, "0.35"
	} else if u.Formation == "square" {
		sw = "0.3"
	}
	base := attrs{"class", "base", "points", local(geom.Vec{X: -hw, Y: hd}, geom.Vec{X: hw, Y: hd}, geom.Vec{X: hw, Y: -hd}, geom.Vec{X: -hw, Y: -hd}),
		"fill", col, "stroke", stroke, "stroke-width", sw}
	if strings.Contains(u.Formation, "column") {
		base = append(base, "stroke-dasharray", "0.5 0.3")
	}
	p.el("polygon", base, "")
	p.el("line", attrs{"class", "front", "x1", Num(-hw), "y1", Num(-hd), "x2", Num(hw), "y2", Num(-hd), "stroke", "#000", "stroke-width", "0.35"}, "")
	aw := math.Min(0.45, b.Width/5)
	p.el("polygon", attrs{"class", "facing", "points", local(geom.Vec{X: -aw, Y: hd}, geom.Vec{X: aw, Y: hd}, geom.Vec{Y: hd + 0.7}), "fill", "#111"}, "")
	p.close("g")
}

// general draws a general as a disc of his side's colour, a C-in-C larger
// and ringed in gold.
func (p *painter) general(id, name, side string, index, rating int, at geom.Vec, col string, cinc bool) label {
	x, y := p.pt(at)
	class, r, stroke, sw, what := fmt.Sprintf("general side-%d", index), 0.65, "#fff", "0.15", "general"
	if cinc {
		class, r, stroke, sw, what = class+" cinc", 0.9, gold, "0.3", "commander-in-chief"
	}
	n := id
	if name != "" && name != id {
		n = name + " (" + id + ")"
	}
	p.open("circle", attrs{"class", class, "data-general", id, "data-side", side, "data-x", exact(at.X), "data-y", exact(at.Y),
		"cx", x, "cy", y, "r", Num(r), "fill", col, "stroke", stroke, "stroke-width", sw})
	p.el("title", nil, fmt.Sprintf("%s, %s, rating %d", n, what, rating))
	p.close("circle")
	return label{at: at.Add(geom.Vec{Y: r + 0.7}), text: id, class: "label general-label", fill: "#333", size: 0.9, italic: true, data: id}
}

// flankMarch draws the edge a flank march was declared on, and nothing of
// its orders: a dashed band of its side's colour along the inside of that
// edge. k counts the marches drawn on the same edge before it.
func (p *painter) flankMarch(m rules.FlankMarch, w, d float64, col string, k int) label {
	in := 0.5 + 0.7*float64(k)
	var a, b geom.Vec
	var at geom.Vec
	switch m.Edge {
	case geom.EdgeNorth:
		a, b = geom.Vec{X: 0, Y: d - in}, geom.Vec{X: w, Y: d - in}
		at = geom.Vec{X: w / 2, Y: d - in - 0.9}
	case geom.EdgeSouth:
		a, b = geom.Vec{X: 0, Y: in}, geom.Vec{X: w, Y: in}
		at = geom.Vec{X: w / 2, Y: in + 0.9}
	case geom.EdgeEast:
		a, b = geom.Vec{X: w - in, Y: 0}, geom.Vec{X: w - in, Y: d}
		at = geom.Vec{X: w - in - 4, Y: d/2 + 1.2*float64(k)}
	default: // west
		a, b = geom.Vec{X: in, Y: 0}, geom.Vec{X: in, Y: d}
		at = geom.Vec{X: in + 4, Y: d/2 + 1.2*float64(k)}
	}
	class := "flank-march"
	if m.RevealedAt != "" {
		class += " revealed"
	}
	if m.Entry != "" {
		class += " " + m.Entry
	}
	x1, y1 := p.pt(a)
	x2, y2 := p.pt(b)
	p.open("line", attrs{"class", class, "data-flank-march", strconv.Itoa(m.N), "data-side", m.Side, "data-edge", string(m.Edge),
		"x1", x1, "y1", y1, "x2", x2, "y2", y2, "stroke", col, "stroke-width", "0.5", "stroke-dasharray", "1.2 0.6", "stroke-opacity", "0.8"})
	p.el("title", nil, fmt.Sprintf("flank march %d (%s): %s edge", m.N, m.Side, m.Edge))
	p.close("line")
	return label{at: at, text: fmt.Sprintf("flank march %d · %s", m.N, m.Side), class: "label flank-label", fill: col, size: 0.9, italic: true}
}

// objective draws an objective as a diamond, filled with the colour of the
// side holding it (white when nobody does).
func (p *painter) objective(o rules.Objective, held, fill string) label {
	at := *o.Position
	a := attrs{"class", "objective", "data-objective", o.ID}
	if held != "" {
		a = append(a, "data-held", held)
	}
	p.open("g", a)
	n := o.Name
	if n == "" {
		n = o.ID
	}
	t := fmt.Sprintf("%s: objective, %d points", n, o.Value)
	if held != "" {
		t += ", held by " + held
	}
	p.el("title", nil, t)
	const r = 1.0
	p.el("polygon", attrs{"points", p.points([]geom.Vec{at.Add(geom.Vec{Y: r}), at.Add(geom.Vec{X: r}), at.Add(geom.Vec{Y: -r}), at.Add(geom.Vec{X: -r})}),
		"fill", fill, "stroke", "#222", "stroke-width", "0.15"}, "")
	p.close("g")
	return label{at: at.Add(geom.Vec{Y: r + 0.7}), text: fmt.Sprintf("%s (%d)", n, o.Value), class: "label objective-label", fill: "#222", size: 0.9}
}

// charge draws the overlay: the charger before (dashed) and after (solid),
// the leader point's path with its turn point, the target's side hit, and
// pushed enemies before (dashed) with a line to where they went.
func (p *painter) charge(c *Charge) {
	a := attrs{"class", "charge", "data-unit", c.Unit, "data-target", c.Target, "data-side-hit", string(c.Side)}
	if c.Version > 0 {
		a = append(a, "data-version", strconv.FormatUint(c.Version, 10))
	}
	p.open("g", a)
	p.el("title", nil, fmt.Sprintf("%s charges %s (%s)", c.Unit, c.Target, c.Side))
	p.el("polygon", attrs{"class", "charge-before", "data-unit", c.Unit, "points", p.points(c.From.Polygon()), "fill", "none", "stroke", chargeCol, "stroke-width", "0.2", "stroke-dasharray", "0.4 0.3"}, "")
	if len(c.Path) > 1 {
		p.el("polyline", attrs{"class", "charge-path", "points", p.points(c.Path), "fill", "none", "stroke", chargeCol, "stroke-width", "0.25", "stroke-linejoin", "round"}, "")
		for _, v := range c.Path[1 : len(c.Path)-1] {
			x, y := p.pt(v)
			p.el("circle", attrs{"class", "charge-turn", "cx", x, "cy", y, "r", "0.3", "fill", chargeCol}, "")
		}
	}
	p.el("polygon", attrs{"class", "charge-after", "data-unit", c.Unit, "points", p.points(c.To.Polygon()), "fill", "none", "stroke", chargeCol, "stroke-width", "0.3"}, "")
	if c.Side != "" && c.TargetBase.Width > 0 {
		sd := c.TargetBase.Side(c.Side)
		x1, y1 := p.pt(sd.A)
		x2, y2 := p.pt(sd.B)
		p.el("line", attrs{"class", "charge-side", "data-side-hit", string(c.Side), "x1", x1, "y1", y1, "x2", x2, "y2", y2, "stroke", sideHitCol, "stroke-width", "0.4"}, "")
	}
	for _, pu := range c.Pushed {
		p.el("polygon", attrs{"class", "pushed-before", "data-unit", pu.Unit, "points", p.points(pu.From.Polygon()), "fill", "none", "stroke", "#555", "stroke-width", "0.12", "stroke-dasharray", "0.3 0.3"}, "")
		p.el("polyline", attrs{"class", "pushed-path", "data-unit", pu.Unit, "points", p.points([]geom.Vec{pu.From.Center, pu.To.Center}), "fill", "none", "stroke", "#555", "stroke-width", "0.12"}, "")
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
