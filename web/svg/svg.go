// Package svg draws a battle as an SVG picture: the table, its terrain, the
// units as rotated rectangles with their front edge marked and their side's
// colour, the generals and labels, and optionally a charge (the charger
// before and after, its leader point's path, the side of the target hit).
//
// It is pure Go and knows nothing of HTTP or the log: it takes a folded
// rules.State (and a charge.declared) and returns bytes, so the CLI (`ledger
// picture`) and the web page can both use it. Coordinates in the picture are
// the table's, in the battle's unit, with y flipped (SVG's y grows down):
// picture (x, Depth - y) is table (x, y). Elements carry classes and data-
// attributes (data-unit, data-side) so a page can style and find them.
package svg

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
	// NoLabels leaves out unit and general names.
	NoLabels bool
	// Charge is drawn over the battle when not nil.
	Charge *Charge
}

// Charge is a charge to draw: the charger's base before (From) and after
// (To), its leader point's path, and the side of the target it hit.
type Charge struct {
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

// Side colours, in the order of the battle's sides.
var palette = []string{"#2b4c9b", "#b8322a", "#2f7d32", "#7b3f9b"}

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
	const margin = 2
	fmt.Fprintf(&p.b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="%s %s %s %s" width="%s" height="%s" font-family="sans-serif">`+"\n",
		num(-margin), num(-margin), num(w+2*margin), num(d+2*margin), num((w+2*margin)*scale), num((d+2*margin)*scale))
	title := opt.Title
	if title == "" {
		title = s.Name
	}
	p.el("title", nil, title)
	p.el("rect", attrs{"class", "table", "x", "0", "y", "0", "width", num(w), "height", num(d), "fill", "#ecebd7", "stroke", "#555", "stroke-width", "0.1"}, "")

	p.open("g", attrs{"class", "terrain"})
	for _, t := range s.Terrain {
		fill, stroke := "#cfe3b0", "#8aa56b"
		switch {
		case t.Kind.Has(geom.Impassable):
			fill, stroke = "#9c8f80", "#5f5548"
		case t.Kind.Has(geom.BlocksSight):
			fill, stroke = "#6f9b5a", "#46703a"
		case t.Kind.Has(geom.Road):
			fill, stroke = "#d9c7a1", "#b09a70"
		}
		p.el("polygon", attrs{"class", "terrain " + strings.ReplaceAll(t.Kind.String(), ",", " "), "data-name", t.Name,
			"points", p.points(t.Outline), "fill", fill, "stroke", stroke, "stroke-width", "0.1", "fill-opacity", "0.8"}, "")
		if !opt.NoLabels && len(t.Outline) > 0 {
			c := centroid(t.Outline)
			p.text(c, t.Name, "terrain-label", "#333", 0.9)
		}
	}
	p.close("g")

	colour := map[string]string{}
	for i, sd := range s.Sides {
		colour[sd.ID] = palette[i%len(palette)]
	}
	ids := make([]string, 0, len(s.Units))
	for id, u := range s.Units {
		if u.Status != rules.UnitDestroyed && u.Status != rules.UnitOffTable {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	p.open("g", attrs{"class", "units"})
	for _, id := range ids {
		u := s.Units[id]
		col := colour[u.Side]
		if col == "" {
			col = "#444"
		}
		p.unit(u, col, !opt.NoLabels)
	}
	p.close("g")

	p.open("g", attrs{"class", "generals"})
	for _, sd := range s.Sides {
		col := colour[sd.ID]
		if sd.CInC != nil {
			p.general(sd.CInC.ID, sd.CInC.Name, sd.ID, sd.CInC.Position, col, 0.8, !opt.NoLabels)
		}
		for _, br := range sd.Brigades {
			p.general(br.General.ID, br.General.Name, sd.ID, br.General.Position, col, 0.6, !opt.NoLabels)
		}
	}
	p.close("g")

	if c := opt.Charge; c != nil {
		p.charge(c)
	}
	if !opt.NoLabels && title != "" {
		p.el("text", attrs{"class", "title", "x", "0", "y", num(-0.6), "font-size", "1.2", "fill", "#222"}, title)
	}
	p.b.WriteString("</svg>\n")
	return p.b.Bytes()
}

// attrs is a list of name, value pairs, in order.
type attrs []string

type painter struct {
	b     bytes.Buffer
	depth float64
	level int
}

// pt converts a table point to picture coordinates.
func (p *painter) pt(v geom.Vec) (string, string) { return num(v.X), num(p.depth - v.Y) }

func (p *painter) points(vs []geom.Vec) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		x, y := p.pt(v)
		parts[i] = x + "," + y
	}
	return strings.Join(parts, " ")
}

func (p *painter) indent() { p.b.WriteString(strings.Repeat("  ", p.level+1)) }

func (p *painter) tag(name string, a attrs) {
	p.b.WriteString("<" + name)
	for i := 0; i+1 < len(a); i += 2 {
		p.b.WriteString(" " + a[i] + `="`)
		xml.EscapeText(&p.b, []byte(a[i+1]))
		p.b.WriteString(`"`)
	}
}

func (p *painter) el(name string, a attrs, text string) {
	p.indent()
	p.tag(name, a)
	if text == "" {
		p.b.WriteString("/>\n")
		return
	}
	p.b.WriteString(">")
	xml.EscapeText(&p.b, []byte(text))
	p.b.WriteString("</" + name + ">\n")
}

func (p *painter) open(name string, a attrs) {
	p.indent()
	p.tag(name, a)
	p.b.WriteString(">\n")
	p.level++
}

func (p *painter) close(name string) {
	p.level--
	p.indent()
	p.b.WriteString("</" + name + ">\n")
}

func (p *painter) text(at geom.Vec, s, class, fill string, size float64) {
	x, y := p.pt(at)
	p.el("text", attrs{"class", class, "x", x, "y", y, "font-size", num(size), "text-anchor", "middle", "dominant-baseline", "middle", "fill", fill}, s)
}

// unit draws a base: the rectangle in its side's colour, its front edge
// thick, a small wedge pointing the way it faces, and its id.
func (p *painter) unit(u *rules.Unit, col string, label bool) {
	b := u.Base
	p.open("g", attrs{"class", "unit " + u.Status, "data-unit", u.ID, "data-side", u.Side})
	p.el("polygon", attrs{"class", "base", "points", p.points(b.Polygon()), "fill", col, "fill-opacity", "0.35", "stroke", col, "stroke-width", "0.12"}, "")
	p.facing(b, col)
	if label {
		p.text(b.Center, u.ID, "label", "#111", math.Min(0.8, math.Max(0.4, b.Width/6)))
	}
	p.close("g")
}

// facing marks a base's front: the front edge drawn thick and a wedge from
// the leader point.
func (p *painter) facing(b geom.Base, col string) {
	fe := b.FrontEdge()
	x1, y1 := p.pt(fe.A)
	x2, y2 := p.pt(fe.B)
	p.el("line", attrs{"class", "front", "x1", x1, "y1", y1, "x2", x2, "y2", y2, "stroke", col, "stroke-width", "0.3"}, "")
	l := b.LeaderPoint()
	f, r := b.Forward(), b.Right()
	size := math.Min(0.6, b.Width/4)
	tri := []geom.Vec{l.Add(f.Scale(size)), l.Add(r.Scale(size / 2)), l.Sub(r.Scale(size / 2))}
	p.el("polygon", attrs{"class", "facing", "points", p.points(tri), "fill", col}, "")
}

func (p *painter) general(id, name, side string, at geom.Vec, col string, r float64, label bool) {
	x, y := p.pt(at)
	p.el("circle", attrs{"class", "general", "data-general", id, "data-side", side, "cx", x, "cy", y, "r", num(r), "fill", "#fff", "stroke", col, "stroke-width", "0.2"}, "")
	if label && name != "" {
		p.text(at.Add(geom.Vec{Y: -r - 0.6}), name, "general-label", col, 0.6)
	}
}

// charge draws the overlay: the charger before (dashed) and after (solid),
// the leader point's path with its turn point, the target's side hit, and
// pushed enemies before (dashed) with an arrow to where they went.
func (p *painter) charge(c *Charge) {
	const col = "#d4a017"
	p.open("g", attrs{"class", "charge", "data-unit", c.Unit, "data-target", c.Target, "data-side-hit", string(c.Side)})
	p.el("polygon", attrs{"class", "charge-before", "data-unit", c.Unit, "points", p.points(c.From.Polygon()), "fill", "none", "stroke", col, "stroke-width", "0.15", "stroke-dasharray", "0.4 0.3"}, "")
	if len(c.Path) > 1 {
		p.el("polyline", attrs{"class", "charge-path", "points", p.points(c.Path), "fill", "none", "stroke", col, "stroke-width", "0.2"}, "")
		for _, v := range c.Path[1 : len(c.Path)-1] {
			x, y := p.pt(v)
			p.el("circle", attrs{"class", "charge-turn", "cx", x, "cy", y, "r", "0.3", "fill", col}, "")
		}
	}
	p.el("polygon", attrs{"class", "charge-after", "data-unit", c.Unit, "points", p.points(c.To.Polygon()), "fill", "none", "stroke", col, "stroke-width", "0.25"}, "")
	if c.Side != "" && c.TargetBase.Width > 0 {
		sd := c.TargetBase.Side(c.Side)
		x1, y1 := p.pt(sd.A)
		x2, y2 := p.pt(sd.B)
		p.el("line", attrs{"class", "charge-side", "data-side-hit", string(c.Side), "x1", x1, "y1", y1, "x2", x2, "y2", y2, "stroke", "#e0201b", "stroke-width", "0.35"}, "")
	}
	for _, pu := range c.Pushed {
		p.el("polygon", attrs{"class", "pushed-before", "data-unit", pu.Unit, "points", p.points(pu.From.Polygon()), "fill", "none", "stroke", "#555", "stroke-width", "0.12", "stroke-dasharray", "0.3 0.3"}, "")
		p.el("polyline", attrs{"class", "pushed-path", "data-unit", pu.Unit, "points", p.points([]geom.Vec{pu.From.Center, pu.To.Center}), "fill", "none", "stroke", "#555", "stroke-width", "0.12"}, "")
	}
	p.close("g")
}

func centroid(poly geom.Polygon) geom.Vec {
	var c geom.Vec
	for _, v := range poly {
		c = c.Add(v)
	}
	return c.Scale(1 / float64(len(poly)))
}

// num prints a coordinate with at most four decimals, no trailing zeros.
func num(v float64) string {
	if math.Abs(v) < 5e-5 {
		v = 0
	}
	return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
}
