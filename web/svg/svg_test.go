package svg

import (
	"bytes"
	"encoding/xml"
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
	}
	return s
}

// TestRenderCharge: the before and after bases, the path and the side hit
// are drawn at the event's positions; every live unit is drawn where it
// stands, rotated; the document is well-formed XML.
func TestRenderCharge(t *testing.T) {
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
	// Units: a group per live unit with its base polygon at its corners.
	var group string
	drawn := map[string]bool{}
	for _, e := range els {
		if e.Name == "g" && strings.HasPrefix(e.Attrs["class"], "unit") {
			group = e.Attrs["data-unit"]
		}
		if e.Name == "polygon" && e.Attrs["class"] == "base" {
			SameCorners(t, group, Points(t, e.Attrs["points"], 48), s.Units[group].Base)
			drawn[group] = true
		}
	}
	if !drawn["r1"] || !drawn["b1"] || !drawn["b2"] || drawn["gone"] {
		t.Fatalf("units drawn: %v", drawn)
	}
	if !bytes.Contains(doc, []byte("Test &amp; &lt;battle&gt;")) {
		t.Fatal("title not escaped")
	}
}

// TestRenderPlain: no overlay, no labels, still valid, with terrain and
// generals.
func TestRenderPlain(t *testing.T) {
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
		case e.Attrs["class"] == "general":
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
