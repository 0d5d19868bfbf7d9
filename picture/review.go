package picture

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// The review picture of one decision (docs/disputes.md, "The review"): the
// battle just before it and just after it as recorded, and, when a ruling
// corrected it, as corrected, side by side, each drawn by Render; over the
// recorded panel the geometry that decided it with its numbers (the
// rules.Review): distances to the nearest enemies and the 1" zone (K.2),
// the front arc and sight line (K.4, K.10), the path and its one turn
// (K.5), the general's command distance in steps (C.7), the march's stop
// distance (M.13), the edges flank marches keep enemies from (F.8). Under
// the panels, the rules cited, the decision in words and the dice it used.
//
// Hooks: the root is svg.review (data-version, data-rules); each panel a
// nested svg.battlefield with data-panel before, recorded or corrected;
// the geometry a g.review-geometry with line.review-nearest (data-enemy,
// data-distance), polygon.review-gap, polyline.review-path (data-length,
// data-allowed), circle.review-turn (data-degrees), polygon.review-arc
// (data-in-arc), line.review-sight (data-seen), line.review-command
// (data-general, data-unit, data-distance, data-steps) with
// circle.review-step at every step, polygon.review-march-stop
// (data-stop), polygon.review-flank-edge (data-edge, data-distance),
// polygon.review-before (where the unit stood); on the corrected panel
// polygon.review-recorded marks where each unit the correction moved
// stood as recorded.

// Review is what a review picture shows.
type Review struct {
	// Version is the event reviewed.
	Version uint64
	// Before, After and Corrected (nil: not corrected) are the battle just
	// before the decision's command, just after it, and just after the
	// ruling that corrected it.
	Before, After, Corrected *rules.State
	// Geometry is what decided it (rules.ReviewOf on Before and After).
	Geometry rules.Review
	// Charge, when the decision is a charge, is its overlay (ChargeOf).
	Charge *Charge
	// Titles of the panels, in the reader's language: before, as
	// recorded, as corrected.
	Titles [3]string
	// Caption lines under the panels: the rules, the decision, its dice.
	Caption []string
	// Scale is pixels per unit of the battle's measurement; 0 means 8.
	Scale float64
	// Lang is the language of the panels' words (Options.Lang).
	Lang string
}

// Colours of the geometry.
const (
	geomCol   = "#6a1b9a"
	nearCol   = "#c62828"
	cmdCol    = "#1565c0"
	flankCol  = "#ef6c00"
	recordCol = "#444"
)

// RenderReview draws the review picture. It never fails: what is missing
// is left out.
func RenderReview(r Review) []byte {
	scale := r.Scale
	if scale <= 0 {
		scale = 8
	}
	type panel struct {
		name string
		svg  []byte
		w, h float64
	}
	var panels []panel
	add := func(name, title string, s *rules.State, opt Options, overlay []byte) {
		if s == nil {
			return
		}
		opt.Title, opt.Scale, opt.Lang = title, scale, r.Lang
		if opt.Data == nil {
			opt.Data = map[string]string{}
		}
		opt.Data["panel"] = name
		out := Render(s, opt)
		if len(overlay) > 0 {
			if i := bytes.LastIndex(out, []byte("</svg>")); i >= 0 {
				out = append(append(append([]byte{}, out[:i]...), overlay...), out[i:]...)
			}
		}
		w, _ := strconv.ParseFloat(attr(out, "width"), 64)
		h, _ := strconv.ParseFloat(attr(out, "height"), 64)
		panels = append(panels, panel{name: name, svg: out, w: w, h: h})
	}
	add("before", r.Titles[0], r.Before, Options{}, nil)
	after := Options{Charge: r.Charge, Moved: Moved(r.Before, r.After)}
	add("recorded", r.Titles[1], r.After, after, geometryOverlay(r.After, r.Before, r.Geometry, scale))
	if r.Corrected != nil {
		add("corrected", r.Titles[2], r.Corrected, Options{Moved: Moved(r.After, r.Corrected)}, recordedOverlay(r.Corrected, r.After, scale))
	}
	const gap, lineH, pad = 16.0, 18.0, 8.0
	width, height := pad, 0.0
	for _, p := range panels {
		width += p.w + gap
		height = math.Max(height, p.h)
	}
	width += pad - gap
	var caption []string
	for _, line := range r.Caption {
		caption = append(caption, wrap(line, int(width/7))...)
	}
	r.Caption = caption
	captionTop := height + pad
	height = captionTop + lineH*float64(len(r.Caption)) + pad
	var b bytes.Buffer
	p := &painter{}
	b.WriteString("<svg")
	p.b.Reset()
	p.attrs(attrs{"xmlns", "http://www.w3.org/2000/svg", "class", "review", "width", Num(width), "height", Num(height),
		"viewBox", "0 0 " + Num(width) + " " + Num(height), "font-family", "system-ui, sans-serif",
		"data-version", strconv.FormatUint(r.Version, 10), "data-rules", strings.Join(r.Geometry.Rules, " ")})
	b.Write(p.b.Bytes())
	b.WriteString(">\n")
	x := pad
	for _, pn := range panels {
		// A panel is Render's picture nested at its place.
		inner := bytes.Replace(pn.svg, []byte("<svg "), []byte(`<svg x="`+Num(x)+`" y="0" `), 1)
		b.Write(inner)
		x += pn.w + gap
	}
	p.b.Reset()
	p.level = 0
	p.open("g", attrs{"class", "review-caption", "font-size", "13", "fill", "#222"})
	for i, line := range r.Caption {
		p.el("text", attrs{"x", Num(pad), "y", Num(captionTop + lineH*float64(i+1) - 4)}, line)
	}
	p.close("g")
	b.Write(p.b.Bytes())
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// attr reads a root attribute of an SVG Render wrote.
func attr(svg []byte, name string) string {
	end := bytes.IndexByte(svg, '>')
	if end < 0 {
		return ""
	}
	head := string(svg[:end])
	k := strings.Index(head, " "+name+`="`)
	if k < 0 {
		return ""
	}
	v := head[k+len(name)+3:]
	if j := strings.IndexByte(v, '"'); j >= 0 {
		return v[:j]
	}
	return ""
}

// geometryOverlay draws the geometry of g over s, the battle after the
// decision (before, the battle before it, for where the unit stood).
func geometryOverlay(s, before *rules.State, g rules.Review, scale float64) []byte {
	p := &painter{depth: s.Table.Depth, u: 1 / scale}
	// Sizes in screen pixels, whatever the table's unit.
	fs := 11 * p.u
	sw := 1.4 * p.u
	m := s.Measurement
	p.open("g", attrs{"class", "review-geometry", "data-rules", strings.Join(g.Rules, " ")})
	text := func(class string, at geom.Vec, col, s string) {
		x, y := p.pt(at)
		p.el("text", attrs{"class", class, "x", x, "y", y, "font-size", Num(fs), "fill", col, "text-anchor", "middle",
			"paint-order", "stroke", "stroke", halo, "stroke-width", Num(sw * 2)}, s)
	}
	for _, z := range g.FlankEdges {
		p.el("polygon", attrs{"class", "review-flank-edge", "data-edge", string(z.Edge), "data-distance", exact(z.Distance), "data-side", z.Side,
			"points", p.points(z.Zone), "fill", flankCol, "fill-opacity", "0.12", "stroke", flankCol, "stroke-width", Num(sw), "stroke-dasharray", Num(sw*4) + " " + Num(sw*3)}, "")
		text("review-label", centroid(z.Zone), flankCol, length(z.Distance, m)+" (F.8)")
	}
	if u, b := s.Units[g.Unit], before.Units[g.Unit]; u != nil && b != nil && b.Base != u.Base && u.Status != rules.UnitOffTable {
		p.el("polygon", attrs{"class", "review-before", "data-unit", g.Unit, "points", p.points(b.Base.Polygon()),
			"fill", "none", "stroke", recordCol, "stroke-width", Num(sw), "stroke-dasharray", Num(sw*3) + " " + Num(sw*2)}, "")
	}
	if a := g.Arc; a != nil {
		p.el("polygon", attrs{"class", "review-arc", "data-in-arc", strconv.FormatBool(a.InArc), "points", p.points(a.Wedge),
			"fill", geomCol, "fill-opacity", "0.08", "stroke", geomCol, "stroke-width", Num(sw)}, "")
		x1, y1 := p.pt(a.Leader)
		x2, y2 := p.pt(a.Sight)
		p.el("line", attrs{"class", "review-sight", "data-seen", strconv.FormatBool(a.Seen), "x1", x1, "y1", y1, "x2", x2, "y2", y2,
			"stroke", geomCol, "stroke-width", Num(sw * 1.5), "stroke-dasharray", Num(sw*2) + " " + Num(sw*2)}, "")
		text("review-label", a.Sight.Add(geom.Vec{X: 4 * fs, Y: fs}), geomCol, fmt.Sprintf("%s ≤ %s (K.4)", length(a.Measured, m), length(a.Reach, m)))
	}
	if pr := g.Path; pr != nil && len(pr.Points) > 1 {
		p.el("polyline", attrs{"class", "review-path", "data-length", exact(pr.Length), "data-allowed", exact(pr.Allowed), "points", p.points(pr.Points),
			"fill", "none", "stroke", geomCol, "stroke-width", Num(sw * 2), "stroke-linejoin", "round"}, "")
		if pr.TurnDegrees != 0 && pr.TurnAt >= 0 && pr.TurnAt < len(pr.Points) {
			x, y := p.pt(pr.Points[pr.TurnAt])
			p.el("circle", attrs{"class", "review-turn", "data-degrees", exact(pr.TurnDegrees), "cx", x, "cy", y, "r", Num(fs / 2), "fill", "none", "stroke", geomCol, "stroke-width", Num(sw)}, "")
			text("review-label", pr.Points[pr.TurnAt].Add(geom.Vec{Y: fs}), geomCol, fmt.Sprintf("%.0f° (K.5)", pr.TurnDegrees))
		}
		lbl := length(pr.Length, m)
		if pr.Allowed > 0 {
			lbl += " / " + length(pr.Allowed, m)
		}
		if pr.StoppedShort {
			lbl += fmt.Sprintf(", %s short of %s (C.9)", length(pr.Short, m), pr.Enemy)
		}
		mid := pr.Points[0].Lerp(pr.Points[len(pr.Points)-1], 0.5)
		text("review-label", mid.Add(geom.Vec{X: -4 * fs}), geomCol, lbl)
		if pl := pr.Planned; pl != nil {
			x1, y1 := p.pt(pr.Points[len(pr.Points)-1])
			x2, y2 := p.pt(*pl)
			p.el("line", attrs{"class", "review-planned", "x1", x1, "y1", y1, "x2", x2, "y2", y2, "stroke", geomCol, "stroke-width", Num(sw), "stroke-dasharray", Num(sw) + " " + Num(sw*2)}, "")
		}
	}
	for _, c := range g.Command {
		x1, y1 := p.pt(c.At)
		x2, y2 := p.pt(c.Point)
		p.el("line", attrs{"class", "review-command", "data-general", c.General, "data-unit", c.Unit, "data-distance", exact(c.Distance), "data-steps", strconv.Itoa(c.Steps),
			"x1", x1, "y1", y1, "x2", x2, "y2", y2, "stroke", cmdCol, "stroke-width", Num(sw * 1.5)}, "")
		if c.Step > 0 && c.Distance > 0 {
			for k := 1; float64(k)*c.Step <= c.Distance+geom.Eps; k++ {
				at := c.At.Lerp(c.Point, float64(k)*c.Step/c.Distance)
				x, y := p.pt(at)
				p.el("circle", attrs{"class", "review-step", "data-step", strconv.Itoa(k), "cx", x, "cy", y, "r", Num(fs / 3), "fill", cmdCol}, "")
			}
		}
		text("review-label", c.At.Lerp(c.Point, 0.5).Add(geom.Vec{X: fs}), cmdCol,
			fmt.Sprintf("%s: %d × %s (C.7)", length(c.Distance, m), c.Steps, length(c.Step, m)))
	}
	if ms := g.MarchStop; ms != nil {
		if u := s.Units[g.Unit]; u != nil {
			p.el("polygon", attrs{"class", "review-march-stop", "data-stop", exact(ms.Stop), "points", p.points(u.Base.Inset(-ms.Stop).Polygon()),
				"fill", "none", "stroke", flankCol, "stroke-width", Num(sw), "stroke-dasharray", Num(sw*4) + " " + Num(sw*2)}, "")
			lbl := fmt.Sprintf("%s (M.13)", length(ms.Stop, m))
			if ms.Enemy != "" {
				lbl += fmt.Sprintf(": %s %s", ms.Enemy, length(ms.Distance, m))
			}
			text("review-label", u.Base.Center.Add(geom.Vec{Y: ms.Stop * 0.9}), flankCol, lbl)
		}
	}
	if u := s.Units[g.Unit]; u != nil && g.Gap > 0 && len(g.Nearest) > 0 {
		p.el("polygon", attrs{"class", "review-gap", "data-gap", exact(g.Gap), "points", p.points(u.Base.Inset(-g.Gap).Polygon()),
			"fill", nearCol, "fill-opacity", "0.06", "stroke", nearCol, "stroke-width", Num(sw), "stroke-dasharray", Num(sw) + " " + Num(sw)}, "")
	}
	for i, n := range g.Nearest {
		x1, y1 := p.pt(n.From)
		x2, y2 := p.pt(n.To)
		p.el("line", attrs{"class", "review-nearest", "data-enemy", n.Enemy, "data-distance", exact(n.Distance), "data-within", strconv.FormatBool(n.Within),
			"x1", x1, "y1", y1, "x2", x2, "y2", y2, "stroke", nearCol, "stroke-width", Num(sw)}, "")
		if n.Distance >= 0.05 {
			text("review-label", n.From.Lerp(n.To, 0.5).Add(geom.Vec{X: 2 * fs, Y: -float64(i) * fs}), nearCol, length(n.Distance, m))
		}
	}
	p.close("g")
	return p.b.Bytes()
}

// recordedOverlay marks, on the corrected battle s, where each unit the
// correction changed stood as recorded (in rec).
func recordedOverlay(s, rec *rules.State, scale float64) []byte {
	p := &painter{depth: s.Table.Depth, u: 1 / scale}
	sw := 1.4 * p.u
	var ids []string
	for id, u := range s.Units {
		if r := rec.Units[id]; r != nil && u != nil && r.Base != u.Base && r.Status != rules.UnitOffTable {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	p.open("g", attrs{"class", "review-corrected"})
	for _, id := range ids {
		p.el("polygon", attrs{"class", "review-recorded", "data-unit", id, "points", p.points(rec.Units[id].Base.Polygon()),
			"fill", "none", "stroke", recordCol, "stroke-width", Num(sw), "stroke-dasharray", Num(sw*3) + " " + Num(sw*2)}, "")
	}
	p.close("g")
	return p.b.Bytes()
}

// length prints a length in the battle's unit: 6.1" or 10.2 cm.
func length(v float64, m string) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if m == rules.Centimetres {
		return s + " cm"
	}
	return s + `"`
}

// wrapIndent starts each continuation line of a wrapped caption.
const wrapIndent = "    "

// wrap cuts a caption line into lines of at most n characters (20 at the
// least): at the last space that fits, or inside a word longer than a
// line; continuation lines start with wrapIndent. Every cut moves on by at
// least one character, so a line of any length gives at most about
// len/(n-4) lines (issue 24: a 300-character word once looped for ever).
func wrap(line string, n int) []string {
	n = max(n, 20)
	rs := []rune(line)
	var out []string
	width := n
	for len(rs) > width {
		cut := 0
		for i := width; i > 0; i-- {
			if rs[i] == ' ' {
				cut = i
				break
			}
		}
		rest := 0
		if cut == 0 {
			cut, rest = width, width
		} else {
			for rest = cut; rest < len(rs) && rs[rest] == ' '; rest++ {
			}
		}
		out = append(out, prefix(len(out))+string(rs[:cut]))
		rs = rs[rest:]
		width = n - len(wrapIndent)
	}
	if len(rs) > 0 || len(out) == 0 {
		out = append(out, prefix(len(out))+string(rs))
	}
	return out
}

// prefix is what starts the caption's line i of one wrapped line.
func prefix(i int) string {
	if i == 0 {
		return ""
	}
	return wrapIndent
}
