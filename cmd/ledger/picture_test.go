package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clubledger/ledger/picture"
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

// svgGet fetches GET .../battlefield.svg?query as who and parses it:
// the status, the document and its elements by class.
func svgGet(t *testing.T, ts *testServer, battle, query, token string) (int, string, map[string][]map[string]string) {
	t.Helper()
	path := "/api/campaigns/demo/battles/" + battle + "/battlefield.svg"
	if query != "" {
		path += "?" + query
	}
	r := ts.do("GET", path, token, nil)
	if r.status != 200 {
		return r.status, string(r.raw), nil
	}
	els := map[string][]map[string]string{}
	dec := xml.NewDecoder(strings.NewReader(string(r.raw)))
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("%s: not XML: %v\n%s", path, err, r.raw)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok {
			a := map[string]string{"": se.Name.Local}
			for _, at := range se.Attr {
				a[at.Name.Local] = at.Value
			}
			for _, c := range strings.Fields(a["class"]) {
				els[c] = append(els[c], a)
			}
			if se.Name.Local == "svg" {
				els["svg"] = append(els["svg"], a)
			}
		}
	}
	return r.status, string(r.raw), els
}

func svgUnit(els map[string][]map[string]string, id string) map[string]string {
	for _, u := range els["unit"] {
		if u["data-unit"] == id {
			return u
		}
	}
	return nil
}

// TestPictureHTTP: GET .../battlefield.svg is web/svg's picture of the
// replayed battle, with the replay's auth and view: no token 401; the unit
// where the replay puts it at each version; a bad version 404, a charge
// parameter that is not a charge 400; a charge's overlay at the event's
// positions, by default standing after the charge's command; and a sealed
// flank march's units, brigade, general and entry point in no picture an
// opponent or a reader gets, at any version, while its edge is drawn.
func TestPictureHTTP(t *testing.T) {
	ts := seed(t)
	last := ts.lastVersion()
	if st, _, _ := svgGet(t, ts, "b1", "", ""); st != 401 {
		t.Fatalf("no token: %d", st)
	}
	req, _ := http.NewRequest("GET", ts.url+"/api/campaigns/demo/battles/b1/battlefield.svg", nil)
	req.Header.Set("Authorization", "Bearer "+ts.tokens["rita"])
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || !strings.HasPrefix(ct, "image/svg+xml") || res.Header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("%d %q %v", res.StatusCode, ct, res.Header)
	}
	for _, c := range []struct {
		query string
		y     string
	}{{"", "16"}, {fmt.Sprintf("version=%d", last), "16"}, {fmt.Sprintf("version=%d", last-1), "10"}} {
		st, doc, els := svgGet(t, ts, "b1", c.query, ts.tokens["rita"])
		u := svgUnit(els, "33-ligne")
		if st != 200 || u == nil || u["data-x"] != "24" || u["data-y"] != c.y || u["transform"] != "translate(24,"+picture.Num(48-mustFloat(t, c.y))+") rotate(0)" {
			t.Fatalf("?%s: %d 33-ligne %v\n%s", c.query, st, u, doc)
		}
	}
	for q, want := range map[string]int{fmt.Sprintf("version=%d", last+1): 404, "version=x": 400, "charge=1": 400, "charge=0": 404} {
		if st, doc, _ := svgGet(t, ts, "b1", q, ts.tokens["rita"]); st != want {
			t.Errorf("?%s: %d, want %d: %s", q, st, want, doc)
		}
	}
	if st, _, _ := svgGet(t, ts, "nowhere", "", ts.tokens["rita"]); st != 404 {
		t.Errorf("no battle: %d", st)
	}

	// A charge: its overlay at the event's from and to.
	playUntilCharge(t, ts, "kc", "../../testdata/scenarios/k-charge.yaml")
	// One more event after the charge's command.
	ts.must(ts.command("uma", "kc", "order.give", map[string]any{"dice": []int{1, 1},
		"command": map[string]any{"general": "fr-1-gen", "units": []string{"fr-1-b"}, "content": map[string]any{"action": "charge", "target": "au-1-b"}}}), 201)
	evs := ts.must(ts.do("GET", "/api/campaigns/demo/battles/kc/events", ts.tokens["rita"], nil), 200)
	var chargeV int
	var ch struct{ From, To geom.Base }
	for _, e := range evs.body["events"].([]any) {
		if e := e.(map[string]any); e["type"] == "charge.declared" {
			chargeV = int(e["version"].(float64))
			raw, _ := json.Marshal(e["payload"])
			if err := json.Unmarshal(raw, &ch); err != nil {
				t.Fatal(err)
			}
		}
	}
	kcLast := int(evs.body["last"].(float64))
	if kcLast <= chargeV {
		t.Fatalf("charge %d, last %d", chargeV, kcLast)
	}
	// Without a version, a charge's picture stands after its command (here
	// the charge alone); with one, there.
	for q, at := range map[string]int{fmt.Sprintf("charge=%d", chargeV): chargeV, fmt.Sprintf("version=%d", chargeV): chargeV,
		fmt.Sprintf("version=%d&charge=%d", kcLast, chargeV): kcLast} {
		_, doc, els := svgGet(t, ts, "kc", q, ts.tokens["rita"])
		if len(els["charge-before"]) != 1 || len(els["charge-after"]) != 1 || len(els["charge-path"]) != 1 || len(els["charge-side"]) != 1 {
			t.Fatalf("?%s: overlay incomplete\n%s", q, doc)
		}
		sameBase(t, q+" before", els["charge-before"][0]["points"], ch.From)
		sameBase(t, q+" after", els["charge-after"][0]["points"], ch.To)
		if root := els["svg"][0]; root["data-charge"] != strconv.Itoa(chargeV) || root["data-version"] != strconv.Itoa(at) {
			t.Fatalf("?%s: root %v", q, root)
		}
		if u := svgUnit(els, "fr-1-a"); u["data-x"] != num(ch.To.Center.X) || u["data-y"] != num(ch.To.Center.Y) || strings.Contains(u["class"], "moved") != (at == chargeV) {
			t.Fatalf("?%s: charger %v, want at %v", q, u, ch.To)
		}
	}
	if _, doc, els := svgGet(t, ts, "kc", fmt.Sprintf("version=%d", chargeV-1), ts.tokens["rita"]); len(els["charge"]) != 0 {
		t.Fatalf("an overlay before the charge:\n%s", doc)
	}

	// A sealed flank march: its edge, nothing of its orders, for everyone
	// (the picture never draws orders), at every version.
	declare := map[string]any{"id": "flank-1", "dice": []int{1}, "command": map[string]any{"side": "french", "edge": "west",
		"orders": map[string]any{"entry": map[string]float64{"x": 0, "y": 27.5}, "brigades": []map[string]any{{
			"id": "bde-secret", "name": "Secret brigade", "order": "attack", "general": map[string]any{"id": "gen-secret", "rating": 8},
			"units": []map[string]any{{"id": "secret-1", "type": "infantry"}, {"id": "secret-2", "type": "infantry"}}}}}}}
	ts.must(ts.command("marie", "b1", "flank.declare", declare), 201)
	last = ts.lastVersion()
	for _, who := range []string{"karl", "rita", "marie", "uma"} {
		for v := 0; v <= last; v++ {
			st, doc, els := svgGet(t, ts, "b1", fmt.Sprintf("version=%d", v), ts.tokens[who])
			if st != 200 {
				t.Fatalf("%s version %d: %d %s", who, v, st, doc)
			}
			for _, s := range []string{"secret-1", "secret-2", "bde-secret", "gen-secret", "Secret brigade", "27.5"} {
				if strings.Contains(doc, s) {
					t.Fatalf("%s sees %q in the picture at version %d:\n%s", who, s, v, doc)
				}
			}
			if v == last && (len(els["flank-march"]) != 1 || els["flank-march"][0]["data-edge"] != "west") {
				t.Fatalf("%s: the march's edge not drawn:\n%s", who, doc)
			}
		}
	}
	// It arrives: everyone sees the unit that entered.
	ts.must(ts.command("marie", "b1", "phase.end", map[string]any{"command": map[string]any{"side": "french"}}), 201)
	ts.must(ts.command("marie", "b1", "flank.enter", map[string]any{"command": map[string]any{"side": "french", "march": 1, "unit": "secret-1",
		"to": map[string]float64{"x": 4, "y": 27.5}}}), 201)
	if _, doc, els := svgGet(t, ts, "b1", "", ts.tokens["karl"]); svgUnit(els, "secret-1") == nil || svgUnit(els, "secret-2") != nil {
		t.Fatalf("after arrival: secret-1 drawn, secret-2 (off the table) not:\n%s", doc)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPictureThroughTheDoor: `ledger picture --scale S --no-labels` beside
// a running server asks the server for that picture (the client dropped
// both, and the server's answer came at its own scale with every name),
// and writes byte for byte what GET battlefield.svg?scale=S&no_labels=true
// answers the same person; a scale out of (0, 100] or a no_labels that is
// not a boolean is refused in words.
func TestPictureThroughTheDoor(t *testing.T) {
	ts := seed(t)
	c := &testCLI{t: t, cfg: ts.cfg}
	c.cfg.Token = ts.tokens["rita"]
	path := "/api/campaigns/demo/battles/b1/battlefield.svg"
	small := c.ok("picture", "demo/b1", "--scale", "5", "--no-labels")
	r := ts.do("GET", path+"?scale=5&no_labels=true", ts.tokens["rita"], nil)
	if r.status != 200 || string(r.raw) != small {
		t.Fatalf("HTTP %d, %d bytes; the CLI's %d bytes", r.status, len(r.raw), len(small))
	}
	named := c.ok("picture", "demo/b1")
	if small == named || !strings.Contains(named, ">33e de ligne<") || strings.Contains(small, ">33e de ligne<") {
		t.Errorf("--scale 5 --no-labels drew the same picture as the default, or names in it:\n%.400s", small)
	}
	width := func(doc string) string {
		_, rest, _ := strings.Cut(doc, `width="`)
		w, _, _ := strings.Cut(rest, `"`)
		return w
	}
	if ws, wn := mustFloat(t, width(small)), mustFloat(t, width(named)); !(ws < wn) {
		t.Errorf("width at scale 5: %v, at the CLI's default 12: %v", ws, wn)
	}
	for _, q := range []string{"scale=0", "scale=101", "scale=x", "scale=NaN", "no_labels=maybe"} {
		r := ts.do("GET", path+"?"+q, ts.tokens["rita"], nil)
		field, _, _ := strings.Cut(q, "=")
		if r.status != 400 || !strings.Contains(string(r.raw), field) {
			t.Errorf("?%s: %d %s", q, r.status, r.raw)
		}
	}
}
