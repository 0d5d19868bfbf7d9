package picture

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// The pieces of a picture, each drawn by the painter: the labels, a unit,
// a general, a flank march's edge, an objective and a charge.

// labels places the labels (Place) for the picture's scale and writes
// them, with a leader line to the anchor of any that had to move away.
func (p *painter) labels(ls []label, obstacles []Disc, scale float64, bounds Box) {
	items := make([]Item, len(ls))
	for i, l := range ls {
		items[i] = Item{X: l.at.X * scale, Y: (p.depth - l.at.Y) * scale, R: l.r * scale,
			W: TextWidth(l.text, l.px), H: l.px * 1.25, Prio: l.prio}
	}
	placed := Place(items, obstacles, bounds)
	p.open("g", attrs{"class", "labels", "text-anchor", "middle", "dominant-baseline", "central",
		"paint-order", "stroke", "stroke", halo, "stroke-width", Num(3 * p.u), "data-px-stroke", "3", "stroke-linejoin", "round"})
	for i, l := range ls {
		if l.text == "" {
			continue
		}
		x, y := placed[i].X*p.u, placed[i].Y*p.u
		ax, ay := p.pt(l.at)
		if placed[i].Leader {
			p.el("line", attrs{"class", "leader", "x1", ax, "y1", ay, "x2", Num(x), "y2", Num(y), "stroke", "#666", "stroke-width", "1", "vector-effect", "non-scaling-stroke"}, "")
		}
		a := attrs{"class", l.class, "x", Num(x), "y", Num(y), "font-size", Num(l.px * p.u), "fill", l.fill,
			"data-px", Num(l.px), "data-ax", ax, "data-ay", ay, "data-ar", Num(l.r), "data-prio", strconv.Itoa(l.prio)}
		if l.italic {
			a = append(a, "font-style", "italic")
		}
		if l.data != "" {
			a = append(a, "data-for", l.data)
		}
		a = append(a, l.extra...)
		p.el("text", a, l.text)
	}
	p.close("g")
}

// unit draws a base in its own frame, translated to its centre and rotated
// to its facing: the rectangle in its side's colour (dashed in column,
// thick in square, faded when routed or destroyed, outlined in gold when
// moved), its front edge thick, and ahead of it an arrowhead a few pixels
// long at any zoom, so the facing reads even when the base is small.
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
		"data-width", exact(b.Width), "data-depth", exact(b.Depth),
		"transform", "translate(" + x + "," + y + ") rotate(" + Num(b.Facing) + ")"}
	if u.Status == rules.UnitRouted || u.Status == rules.UnitDestroyed {
		a = append(a, "opacity", "0.35")
	}
	p.open("g", a)
	what := []string{p.w.term("type", u.Type), p.w.term("formation", u.Formation), p.w.term("status", u.Status)}
	if u.Markers > 0 {
		what = append(what, p.w.t("markers", "n", u.Markers))
	}
	name := u.ID
	if u.Name != "" && u.Name != u.ID {
		name = u.Name + " (" + u.ID + ")"
	}
	p.el("title", nil, name+", "+strings.Join(nonEmpty(what), ", "))
	hw, hd := b.Width/2, b.Depth/2
	stroke, sw := ink, "1"
	if moved {
		stroke, sw = gold, "3"
	} else if u.Formation == "square" {
		sw = "2.5"
	}
	base := attrs{"class", "base", "points", local(geom.Vec{X: -hw, Y: hd}, geom.Vec{X: hw, Y: hd}, geom.Vec{X: hw, Y: -hd}, geom.Vec{X: -hw, Y: -hd}),
		"fill", col, "stroke", stroke, "stroke-width", sw, "vector-effect", "non-scaling-stroke"}
	if strings.Contains(u.Formation, "column") {
		base = append(base, "stroke-dasharray", "4 2")
	}
	p.el("polygon", base, "")
	p.el("line", attrs{"class", "front", "x1", Num(-hw), "y1", Num(-hd), "x2", Num(hw), "y2", Num(-hd), "stroke", "#000", "stroke-width", "3", "vector-effect", "non-scaling-stroke"}, "")
	// The arrowhead, in pixels, just ahead of the middle of the front edge.
	t := "translate(0," + Num(-hd) + ")"
	p.open("g", attrs{"class", "facing px", "transform", t + " scale(" + Num(p.u) + ")", "data-t", t})
	p.el("polygon", attrs{"points", "-5,-1.5 5,-1.5 0,-9", "fill", "#111", "stroke", "#fff", "stroke-width", "1", "vector-effect", "non-scaling-stroke"}, "")
	p.close("g")
	p.close("g")
}

// general draws a general as a disc of his side's colour, a C-in-C larger
// and ringed in gold; the disc's radius is in pixels (data-px-r; r is it in
// the picture's units at its scale).
func (p *painter) general(id, name, side string, index, rating int, at geom.Vec, col string, cinc bool) label {
	x, y := p.pt(at)
	class, r, stroke, sw, what := fmt.Sprintf("general side-%d", index), generalPx, "#fff", "1.5", p.w.t("general")
	if cinc {
		class, r, stroke, sw, what = class+" cinc", cincPx, gold, "2.5", p.w.t("cinc")
	}
	n := id
	if name != "" && name != id {
		n = name + " (" + id + ")"
	}
	p.open("circle", attrs{"class", class, "data-general", id, "data-side", side, "data-x", exact(at.X), "data-y", exact(at.Y),
		"cx", x, "cy", y, "r", Num(r * p.u), "data-px-r", Num(r), "fill", col, "stroke", stroke, "stroke-width", sw, "vector-effect", "non-scaling-stroke"})
	p.el("title", nil, p.w.t("general_title", "name", n, "what", what, "rating", rating))
	p.close("circle")
	text := name
	if text == "" {
		text = id
	}
	return label{at: at, r: r * p.u, text: text, class: "label general-label", fill: "#333", px: generalLabelPx, italic: true, data: id, prio: prioGeneral}
}

// flankMarch draws the edge a flank march was declared on, and nothing of
// its orders: a dashed band of its side's colour along the inside of that
// edge. k counts the marches drawn on the same edge before it.
func (p *painter) flankMarch(m rules.FlankMarch, w, d float64, col string, k int) label {
	in := (4 + 7*float64(k)) * p.u
	var a, b, at geom.Vec
	switch m.Edge {
	case geom.EdgeNorth:
		a, b, at = geom.Vec{X: 0, Y: d - in}, geom.Vec{X: w, Y: d - in}, geom.Vec{X: w / 2, Y: d - in}
	case geom.EdgeSouth:
		a, b, at = geom.Vec{X: 0, Y: in}, geom.Vec{X: w, Y: in}, geom.Vec{X: w / 2, Y: in}
	case geom.EdgeEast:
		a, b, at = geom.Vec{X: w - in, Y: 0}, geom.Vec{X: w - in, Y: d}, geom.Vec{X: w - in, Y: d / 2}
	default: // west
		a, b, at = geom.Vec{X: in, Y: 0}, geom.Vec{X: in, Y: d}, geom.Vec{X: in, Y: d / 2}
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
		"x1", x1, "y1", y1, "x2", x2, "y2", y2, "stroke", col, "stroke-width", "5", "stroke-dasharray", "12 6", "stroke-opacity", "0.8", "vector-effect", "non-scaling-stroke"})
	p.el("title", nil, p.w.t("flank_title", "n", m.N, "side", m.Side, "edge", string(m.Edge)))
	p.close("line")
	return label{at: at, r: 4 * p.u, text: p.w.t("flank_label", "n", m.N, "side", m.Side), class: "label flank-label", fill: col, px: flankLabelPx, italic: true, prio: prioFlank,
		extra: attrs{"data-flank-march", strconv.Itoa(m.N), "data-side", m.Side}}
}

// objective draws an objective as a diamond in pixels, filled with the
// colour of the side holding it (white when nobody does).
func (p *painter) objective(o rules.Objective, held, fill string) label {
	at := *o.Position
	a := attrs{"data-objective", o.ID}
	if held != "" {
		a = append(a, "data-held", held)
	}
	p.pxGroup("objective px", at, 0, a)
	n := o.Name
	if n == "" {
		n = o.ID
	}
	p.el("title", nil, p.w.t("objective_title", "name", n, "points", o.Value, "held", held))
	r := Num(objectivePx)
	p.el("polygon", attrs{"points", "0,-" + r + " " + r + ",0 0," + r + " -" + r + ",0",
		"fill", fill, "stroke", "#222", "stroke-width", "1.5", "vector-effect", "non-scaling-stroke"}, "")
	p.close("g")
	return label{at: at, r: objectivePx * p.u, text: fmt.Sprintf("%s (%d)", n, o.Value), class: "label objective-label", fill: "#222", px: objectiveLabelPx, prio: prioObjective}
}

// charge draws the overlay: the charger before (dashed) and after (solid),
// the leader point's path with its turn point, the target's side hit, and
// pushed enemies before (dashed) with a line to where they went. Strokes
// are in pixels.
func (p *painter) charge(c *Charge) {
	a := attrs{"class", "charge", "data-unit", c.Unit, "data-target", c.Target, "data-side-hit", string(c.Side)}
	if c.Version > 0 {
		a = append(a, "data-version", strconv.FormatUint(c.Version, 10))
	}
	nss := "non-scaling-stroke"
	p.open("g", a)
	p.el("title", nil, p.w.t("charge_title", "unit", c.Unit, "target", c.Target, "side", string(c.Side)))
	p.el("polygon", attrs{"class", "charge-before", "data-unit", c.Unit, "points", p.points(c.From.Polygon()), "fill", "none", "stroke", chargeCol, "stroke-width", "2", "stroke-dasharray", "5 3", "vector-effect", nss}, "")
	if len(c.Path) > 1 {
		p.el("polyline", attrs{"class", "charge-path", "points", p.points(c.Path), "fill", "none", "stroke", chargeCol, "stroke-width", "2.5", "stroke-linejoin", "round", "vector-effect", nss}, "")
		for _, v := range c.Path[1 : len(c.Path)-1] {
			x, y := p.pt(v)
			p.el("circle", attrs{"class", "charge-turn", "cx", x, "cy", y, "r", Num(3 * p.u), "data-px-r", "3", "fill", chargeCol}, "")
		}
	}
	p.el("polygon", attrs{"class", "charge-after", "data-unit", c.Unit, "points", p.points(c.To.Polygon()), "fill", "none", "stroke", chargeCol, "stroke-width", "3", "vector-effect", nss}, "")
	if c.Side != "" && c.TargetBase.Width > 0 {
		sd := c.TargetBase.Side(c.Side)
		x1, y1 := p.pt(sd.A)
		x2, y2 := p.pt(sd.B)
		p.el("line", attrs{"class", "charge-side", "data-side-hit", string(c.Side), "x1", x1, "y1", y1, "x2", x2, "y2", y2, "stroke", sideHitCol, "stroke-width", "4", "vector-effect", nss}, "")
	}
	for _, pu := range c.Pushed {
		p.el("polygon", attrs{"class", "pushed-before", "data-unit", pu.Unit, "points", p.points(pu.From.Polygon()), "fill", "none", "stroke", "#555", "stroke-width", "1.5", "stroke-dasharray", "4 3", "vector-effect", nss}, "")
		p.el("polyline", attrs{"class", "pushed-path", "data-unit", pu.Unit, "points", p.points([]geom.Vec{pu.From.Center, pu.To.Center}), "fill", "none", "stroke", "#555", "stroke-width", "1.5", "vector-effect", nss}, "")
	}
	p.close("g")
}
