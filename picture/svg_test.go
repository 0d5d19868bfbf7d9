package picture

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// Element is one parsed SVG element: its name and attributes.
type Element struct {
	Name  string
	Attrs map[string]string
}

// Parse reads every element of an SVG document (encoding/xml), failing the
// test if it is not well-formed XML.
func Parse(t testing.TB, doc []byte) []Element {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var out []Element
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, doc)
		}
		if se, ok := tok.(xml.StartElement); ok {
			e := Element{Name: se.Name.Local, Attrs: map[string]string{}}
			for _, a := range se.Attr {
				e.Attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
		}
	}
}

// Points reads a points attribute back into table coordinates.
func Points(t testing.TB, attr string, depth float64) []geom.Vec {
	t.Helper()
	var out []geom.Vec
	for _, p := range strings.Fields(attr) {
		xs, ys, ok := strings.Cut(p, ",")
		x, err1 := strconv.ParseFloat(xs, 64)
		y, err2 := strconv.ParseFloat(ys, 64)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("bad point %q", p)
		}
		out = append(out, geom.Vec{X: x, Y: depth - y})
	}
	return out
}

// SameCorners checks a polygon drawn for a base against the base's corners.
func SameCorners(t testing.TB, what string, got []geom.Vec, b geom.Base) {
	t.Helper()
	c := b.Corners()
	if len(got) != 4 {
		t.Fatalf("%s: %d points", what, len(got))
	}
	for i := range c {
		if math.Abs(got[i].X-c[i].X) > 1e-4 || math.Abs(got[i].Y-c[i].Y) > 1e-4 {
			t.Fatalf("%s: corner %d at %v, want %v", what, i, got[i], c[i])
		}
	}
}

// Transform reads a unit's transform="translate(X,Y) rotate(F)" and returns
// a function from the unit's own picture frame to table coordinates (the
// depth flips y back).
func Transform(t testing.TB, attr string, depth float64) func(geom.Vec) geom.Vec {
	t.Helper()
	var x, y, f float64
	if _, err := fmt.Sscanf(attr, "translate(%g,%g) rotate(%g)", &x, &y, &f); err != nil {
		t.Fatalf("transform %q: %v", attr, err)
	}
	s, c := math.Sincos(f * math.Pi / 180)
	return func(l geom.Vec) geom.Vec {
		// SVG rotates (x, y) to (x cos - y sin, x sin + y cos), y down.
		px, py := x+l.X*c-l.Y*s, y+l.X*s+l.Y*c
		return geom.Vec{X: px, Y: depth - py}
	}
}

// LocalPoints reads a points attribute of a unit's own frame, mapped
// through its transform to table coordinates.
func LocalPoints(t testing.TB, attr string, to func(geom.Vec) geom.Vec) []geom.Vec {
	t.Helper()
	var out []geom.Vec
	for _, v := range Points(t, attr, 0) {
		out = append(out, to(geom.Vec{X: v.X, Y: -v.Y}))
	}
	return out
}

func testState() *rules.State {
	s := rules.NewState()
	s.Name = "Test & <battle>"
	s.Table = geom.Table{Width: 72, Depth: 48}
	s.Sides = []rules.Side{{ID: "red", Name: "Red", CInC: &rules.Commander{ID: "rc", Name: "Marshal", Position: geom.Vec{X: 36, Y: 2}}},
		{ID: "blue", Name: "Blue", Brigades: []rules.Brigade{{ID: "b1", General: rules.General{ID: "bg", Name: "Gen", Position: geom.Vec{X: 20, Y: 40}}}}}}
	s.Terrain = []geom.Terrain{{Name: "Wood", Kind: geom.Difficult | geom.BlocksSight, Outline: geom.Polygon{{X: 2, Y: 2}, {X: 8, Y: 2}, {X: 8, Y: 6}}}}
	s.Units = map[string]*rules.Unit{
		"r1":   {ID: "r1", Side: "red", Status: rules.UnitOK, Base: geom.Base{Center: geom.Vec{X: 20, Y: 20.5}, Facing: 0, Width: 4.5, Depth: 1.5}},
		"b1":   {ID: "b1", Side: "blue", Status: rules.UnitOK, Base: geom.Base{Center: geom.Vec{X: 20, Y: 22}, Facing: 180, Width: 4.5, Depth: 1.5}},
		"b2":   {ID: "b2", Side: "blue", Status: rules.UnitOK, Base: geom.Base{Center: geom.Vec{X: 40, Y: 30}, Facing: 33, Width: 4, Depth: 2}},
		"gone": {ID: "gone", Side: "blue", Status: rules.UnitDestroyed, Base: geom.Base{Center: geom.Vec{X: 50, Y: 30}, Width: 4, Depth: 2}},
		"away": {ID: "away", Side: "blue", Status: rules.UnitOffTable, Base: geom.Base{Center: geom.Vec{X: 0, Y: 0}, Width: 4, Depth: 2}},
	}
	return s
}

// TestPictureCharge: the before and after bases, the path and the side hit
// are drawn at the event's positions; every unit on the table is drawn where
// it stands, rotated; the document is well-formed XML.
func TestPictureCharge(t *testing.T) {
	s := testState()
	ev := &rules.ChargeDeclared{Unit: "r1", Target: "b1", Side: geom.ArcFront, Contact: true,
		From: geom.Base{Center: geom.Vec{X: 14, Y: 10}, Facing: 30, Width: 4.5, Depth: 1.5},
		To:   s.Units["r1"].Base,
		Path: []geom.Vec{{X: 14.375, Y: 10.65}, {X: 16, Y: 14}, {X: 20, Y: 21.25}}}
	before := testState()
	before.Units["r1"].Base = ev.From
	doc := Render(s, Options{Charge: ChargeOf(ev, before, nil)})
	els := Parse(t, doc)
	found := map[string]bool{}
	for _, e := range els {
		cls := e.Attrs["class"]
		switch {
		case cls == "charge-before":
			SameCorners(t, "before", Points(t, e.Attrs["points"], 48), ev.From)
		case cls == "charge-after":
			SameCorners(t, "after", Points(t, e.Attrs["points"], 48), ev.To)
		case cls == "charge-path":
			got := Points(t, e.Attrs["points"], 48)
			for i := range got {
				if geom.Dist(got[i], ev.Path[i]) > 1e-4 {
					t.Fatalf("path point %d: %v, want %v", i, got[i], ev.Path[i])
				}
			}
		case cls == "charge-side":
			x1, _ := strconv.ParseFloat(e.Attrs["x1"], 64)
			y1, _ := strconv.ParseFloat(e.Attrs["y1"], 64)
			if fe := s.Units["b1"].Base.FrontEdge(); geom.Dist(geom.Vec{X: x1, Y: 48 - y1}, fe.A) > 1e-4 {
				t.Fatalf("side hit drawn at %v,%v", x1, y1)
			}
		case cls == "base":
			continue
		default:
			continue
		}
		found[cls] = true
	}
	for _, want := range []string{"charge-before", "charge-after", "charge-path", "charge-side"} {
		if !found[want] {
			t.Errorf("no %s in\n%s", want, doc)
		}
	}
	// Units: a group per unit on the table, translated and rotated, with
	// its base polygon in its own frame at its corners.
	var group string
	var to func(geom.Vec) geom.Vec
	drawn := map[string]bool{}
	for _, e := range els {
		if e.Name == "g" && strings.HasPrefix(e.Attrs["class"], "unit ") {
			group = e.Attrs["data-unit"]
			to = Transform(t, e.Attrs["transform"], 48)
		}
		if e.Name == "polygon" && e.Attrs["class"] == "base" {
			SameCorners(t, group, LocalPoints(t, e.Attrs["points"], to), s.Units[group].Base)
			drawn[group] = true
		}
	}
	if !drawn["r1"] || !drawn["b1"] || !drawn["b2"] || !drawn["gone"] || drawn["away"] {
		t.Fatalf("units drawn: %v", drawn)
	}
	if !bytes.Contains(doc, []byte("Test &amp; &lt;battle&gt;")) {
		t.Fatal("title not escaped")
	}
}

// TestPicturePlain: no overlay, no labels, still valid, with terrain and
// generals.
func TestPicturePlain(t *testing.T) {
	els := Parse(t, Render(testState(), Options{NoLabels: true, Scale: 5}))
	var svg, terrain, generals, texts int
	for _, e := range els {
		switch {
		case e.Name == "svg":
			svg++
			if e.Attrs["width"] != "380" || e.Attrs["viewBox"] != "-2 -2 76 52" {
				t.Fatalf("svg %v", e.Attrs)
			}
		case strings.HasPrefix(e.Attrs["class"], "terrain ") && e.Name == "polygon":
			terrain++
		case e.Name == "circle" && strings.HasPrefix(e.Attrs["class"], "general "):
			generals++
		case e.Name == "text":
			texts++
		case strings.HasPrefix(e.Attrs["class"], "charge"):
			t.Fatalf("overlay without a charge: %v", e)
		}
	}
	if svg != 1 || terrain != 1 || generals != 2 || texts != 0 {
		t.Fatalf("svg %d terrain %d generals %d texts %d", svg, terrain, generals, texts)
	}
}

// TestPictureHooks: the hooks a page and its tests find things by. Each
// unit's data-x, data-y and data-facing are its base exactly and its
// transform puts its front edge where the base's is; each general has
// data-general (the C-in-C the cinc class); objectives and flank marches'
// edges are drawn, and nothing of a march's orders; units that changed
// since the event before are marked (r1 turned, b2 moved).
func TestPictureHooks(t *testing.T) {
	s := testState()
	s.Units["b2"].Base.Center = geom.Vec{X: 40.123456789, Y: 30.1}
	s.Victory.Objectives = []rules.Objective{{ID: "bridge", Name: "Bridge", Value: 3, Position: &geom.Vec{X: 30, Y: 24}}, {ID: "nowhere", Value: 1}}
	s.Victory.Held = map[string]string{"bridge": "blue"}
	s.Flank.Marches = []rules.FlankMarch{{N: 1, Side: "red", Edge: geom.EdgeWest, Commitment: "c0ffee",
		Orders: &rules.FlankOrders{Entry: geom.Vec{X: 0, Y: 13.37}, Brigades: []rules.FlankBrigade{{ID: "secret-brigade"}}}}}
	prev := testState()
	prev.Units["r1"].Base.Facing = 10
	doc := Render(s, Options{Moved: Moved(prev, s), Data: map[string]string{"version": "7"}})
	if bytes.Contains(doc, []byte("secret-brigade")) || bytes.Contains(doc, []byte("13.37")) {
		t.Fatalf("a flank march's orders drawn:\n%s", doc)
	}
	els := Parse(t, doc)
	if els[0].Name != "svg" || els[0].Attrs["data-version"] != "7" || els[0].Attrs["class"] != "battlefield" {
		t.Fatalf("root %v", els[0].Attrs)
	}
	units, generals := map[string]Element{}, map[string]Element{}
	var objective, march Element
	var group string
	var to func(geom.Vec) geom.Vec
	for _, e := range els {
		cls := e.Attrs["class"]
		switch {
		case e.Name == "g" && strings.HasPrefix(cls, "unit "):
			group = e.Attrs["data-unit"]
			units[group] = e
			to = Transform(t, e.Attrs["transform"], 48)
		case e.Name == "line" && cls == "front":
			x1, _ := strconv.ParseFloat(e.Attrs["x1"], 64)
			y1, _ := strconv.ParseFloat(e.Attrs["y1"], 64)
			x2, _ := strconv.ParseFloat(e.Attrs["x2"], 64)
			y2, _ := strconv.ParseFloat(e.Attrs["y2"], 64)
			fe := s.Units[group].Base.FrontEdge()
			if a, b := to(geom.Vec{X: x1, Y: y1}), to(geom.Vec{X: x2, Y: y2}); geom.Dist(a, fe.A) > 1e-3 || geom.Dist(b, fe.B) > 1e-3 {
				t.Errorf("%s's front edge drawn from %v to %v, want %v", group, a, b, fe)
			}
		case e.Name == "circle" && strings.HasPrefix(cls, "general "):
			generals[e.Attrs["data-general"]] = e
		case e.Name == "g" && strings.HasPrefix(cls, "objective"):
			objective = e
		case e.Name == "line" && strings.HasPrefix(cls, "flank-march"):
			march = e
		}
	}
	for id, u := range s.Units {
		g, ok := units[id]
		if u.Status == rules.UnitOffTable {
			if ok {
				t.Fatalf("%s off the table drawn", id)
			}
			continue
		}
		want := map[string]string{"data-x": strconv.FormatFloat(u.Base.Center.X, 'f', -1, 64), "data-y": strconv.FormatFloat(u.Base.Center.Y, 'f', -1, 64),
			"data-facing": strconv.FormatFloat(u.Base.Facing, 'f', -1, 64), "data-side": u.Side,
			"transform": "translate(" + Num(u.Base.Center.X) + "," + Num(48-u.Base.Center.Y) + ") rotate(" + Num(u.Base.Facing) + ")"}
		for k, v := range want {
			if g.Attrs[k] != v {
				t.Errorf("%s %s=%q, want %q", id, k, g.Attrs[k], v)
			}
		}
		if moved := strings.Contains(g.Attrs["class"], " moved"); moved != (id == "r1" || id == "b2") {
			t.Errorf("%s class %q", id, g.Attrs["class"])
		}
	}
	if g := generals["rc"]; !strings.Contains(g.Attrs["class"], "cinc") || g.Attrs["cx"] != "36" || g.Attrs["cy"] != "46" {
		t.Errorf("C-in-C %v", g.Attrs)
	}
	if g := generals["bg"]; strings.Contains(g.Attrs["class"], "cinc") || g.Attrs["data-side"] != "blue" {
		t.Errorf("general %v", g.Attrs)
	}
	if objective.Attrs["data-objective"] != "bridge" || objective.Attrs["data-held"] != "blue" {
		t.Errorf("objective %v", objective.Attrs)
	}
	if march.Attrs["data-edge"] != "west" || march.Attrs["data-side"] != "red" || march.Attrs["x1"] != march.Attrs["x2"] {
		t.Errorf("flank march %v", march.Attrs)
	}
}
