package main

import (
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules/geom"
)

// TestPicture plays the charge scenarios and draws each accepted charge with
// `ledger picture --charge V`: the SVG's before and after bases are the
// event's From and To (parsed back with encoding/xml), the pushed unit is
// drawn where it was pushed, and a version that is not a charge is refused.
func TestPicture(t *testing.T) {
	c := newCLI(t)
	type env struct {
		Version uint64          `json:"version"`
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	type charge struct {
		From, To geom.Base
		Unit     string
		Pushed   []string
	}
	var charges []uint64
	payloads := map[uint64]charge{}
	for _, f := range []string{"k-charge.yaml", "k-charge-line.yaml"} {
		out := c.ok("-o", "json", "play", filepath.Join("../../testdata/scenarios", f))
		var steps []struct {
			Events []env `json:"events"`
		}
		if err := json.Unmarshal([]byte(out), &steps); err != nil {
			t.Fatal(err)
		}
		for _, st := range steps {
			for _, e := range st.Events {
				if e.Type == "charge.declared" {
					var ch charge
					if err := json.Unmarshal(e.Payload, &ch); err != nil {
						t.Fatal(err)
					}
					charges = append(charges, e.Version)
					payloads[e.Version] = ch
					if f == "k-charge-line.yaml" {
						drawCharge(t, c, "k-charge-line/b1", e.Version, ch.From, ch.To, ch.Pushed)
					} else {
						drawCharge(t, c, "k-charge/b1", e.Version, ch.From, ch.To, ch.Pushed)
					}
				}
			}
		}
	}
	if len(charges) != 4 {
		t.Fatalf("charges %v", charges)
	}
	if code, _, errs := c.run("picture", "k-charge/b1", "--charge", "1"); code == 0 || !strings.Contains(errs, "not charge.declared") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The plain picture, to a file.
	file := filepath.Join(t.TempDir(), "b1.svg")
	c.ok("picture", "k-charge/b1", "--at", "6", "-f", file)
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), `data-unit="au-1-d"`) || strings.Contains(string(b), "charge-before") {
		t.Fatalf("%v\n%s", err, b)
	}
}

// drawCharge runs `ledger picture KEY --charge V` and checks the overlay.
func drawCharge(t *testing.T, c *testCLI, key string, v uint64, from, to geom.Base, pushed []string) {
	t.Helper()
	out := c.ok("picture", key, "--charge", strconv.FormatUint(v, 10))
	dec := xml.NewDecoder(strings.NewReader(out))
	seen := map[string]bool{}
	var unit string
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		a := map[string]string{}
		for _, at := range se.Attr {
			a[at.Name.Local] = at.Value
		}
		if se.Name.Local == "g" && a["data-unit"] != "" {
			unit = a["data-unit"]
		}
		switch a["class"] {
		case "charge-before":
			sameBase(t, "before", a["points"], from)
		case "charge-after":
			sameBase(t, "after", a["points"], to)
		case "base":
			seen[unit] = true
		case "pushed-before":
			seen["pushed:"+a["data-unit"]] = true
		}
		seen[a["class"]] = true
	}
	if !seen["charge-before"] || !seen["charge-after"] || !seen["charge-path"] || !seen["charge-side"] {
		t.Fatalf("%s --charge %d: overlay incomplete: %v\n%s", key, v, seen, out)
	}
	for _, p := range pushed {
		if !seen["pushed:"+p] {
			t.Fatalf("pushed %s not drawn", p)
		}
	}
}

// sameBase compares a drawn polygon (picture coordinates, y flipped on the
// 48" table) with a base's corners.
func sameBase(t *testing.T, what, points string, b geom.Base) {
	t.Helper()
	c := b.Corners()
	ps := strings.Fields(points)
	if len(ps) != 4 {
		t.Fatalf("%s: %q", what, points)
	}
	for i, p := range ps {
		xs, ys, _ := strings.Cut(p, ",")
		x, _ := strconv.ParseFloat(xs, 64)
		y, _ := strconv.ParseFloat(ys, 64)
		if math.Abs(x-c[i].X) > 1e-4 || math.Abs(48-y-c[i].Y) > 1e-4 {
			t.Fatalf("%s corner %d: (%g, %g), want %v", what, i, x, 48-y, c[i])
		}
	}
}
