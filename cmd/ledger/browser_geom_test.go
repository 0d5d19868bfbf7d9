package main

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/clubledger/ledger/rules/geom"
)

// TestBrowserGeometryMirrorsGo: the page's geometry (web/static/geom.js),
// which turns a move typed as a distance and a heading into the point the
// page sends, is the Go geometry the CLI's `ledger move --by --heading`
// uses (rules/geom: Along, Bearing, Heading, NormDeg), run in Chromium on
// the same inputs: headings at and between the cardinal points, past a
// turn, negative, and next to 0 and 360; distances from 0 to a
// hundred metres; points anywhere on the table. Within 1e-9 (cm or
// inches; degrees): the two languages' sine may differ in the last bit.
func TestBrowserGeometryMirrorsGo(t *testing.T) {
	ts := startServer(t)
	b := browser(t)("geom")
	b.do("open", chromedp.EmulateViewport(800, 600), chromedp.Navigate(ts.url+"/?lang=en"), chromedp.WaitReady("body"))

	type pt struct{ X, Y float64 }
	froms := []pt{{0, 0}, {12.5, -3.25}, {179.9, 119.9}, {-40, 250.125}}
	dists := []float64{0, 0.1, 6, 10, 25.4, 10000}
	headings := []float64{0, 1e-20, -1e-20, 30, 45, 89.999, 90, 135, 180, 225, 270, 315, 359.99, 360, -30, -90, 725, 3600.5}
	type alongCase struct {
		From     pt
		D, H     float64
		GoX, GoY float64
	}
	var cases []alongCase
	for _, f := range froms {
		for _, d := range dists {
			for _, h := range headings {
				p := geom.Along(geom.Vec{X: f.X, Y: f.Y}, d, h)
				cases = append(cases, alongCase{From: f, D: d, H: h, GoX: p.X, GoY: p.Y})
			}
		}
	}
	type bearingCase struct {
		A, B pt
		Go   float64
	}
	var bearings []bearingCase
	for _, a := range froms {
		for _, p := range []pt{{0, 0}, {0, 10}, {10, 0}, {0, -10}, {-10, 0}, {3, 4}, {-3, -4}, {-0.001, 1e6}, {12.5, -3.25}} {
			bearings = append(bearings, bearingCase{A: a, B: p, Go: geom.Bearing(geom.Vec{X: a.X, Y: a.Y}, geom.Vec{X: p.X, Y: p.Y})})
		}
	}
	in, err := json.Marshal(map[string]any{"along": cases, "bearing": bearings})
	if err != nil {
		t.Fatal(err)
	}
	evalIn[any](b, fmt.Sprintf(`(() => { const c = %s; window.__geom = null;
	  import("/static/geom.js").then(g => { window.__geom = {
	    along: c.along.map(x => g.along({ x: x.From.X, y: x.From.Y }, x.D, x.H)),
	    bearing: c.bearing.map(x => g.bearing({ x: x.A.X, y: x.A.Y }, { x: x.B.X, y: x.B.Y })) }; },
	    e => { window.__geom = { error: String(e) }; }); })()`, in))
	b.do("geom.js", void(chromedp.Poll[bool](`window.__geom !== null`)))
	var got struct {
		Error   string
		Along   []struct{ X, Y float64 }
		Bearing []float64
	}
	raw := evalIn[string](b, `JSON.stringify(window.__geom)`)
	if err := json.Unmarshal([]byte(raw), &got); err != nil || got.Error != "" {
		t.Fatalf("geom.js: %v %s", err, got.Error)
	}
	if len(got.Along) != len(cases) || len(got.Bearing) != len(bearings) {
		t.Fatalf("geom.js answered %d and %d of %d and %d", len(got.Along), len(got.Bearing), len(cases), len(bearings))
	}
	const tol = 1e-9
	bad := 0
	for i, c := range cases {
		if g := got.Along[i]; math.Abs(g.X-c.GoX) > tol || math.Abs(g.Y-c.GoY) > tol {
			bad++
			if bad <= 10 {
				t.Errorf("along((%g, %g), %g, %g°): the page (%.12g, %.12g), Go (%.12g, %.12g)", c.From.X, c.From.Y, c.D, c.H, g.X, g.Y, c.GoX, c.GoY)
			}
		}
	}
	for i, c := range bearings {
		if g := got.Bearing[i]; math.Abs(g-c.Go) > tol {
			bad++
			if bad <= 10 {
				t.Errorf("bearing((%g, %g) → (%g, %g)): the page %.12g°, Go %.12g°", c.A.X, c.A.Y, c.B.X, c.B.Y, g, c.Go)
			}
		}
	}
	t.Logf("%d moves and %d bearings compared, %d apart", len(cases), len(bearings), bad)
}
