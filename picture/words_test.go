package picture

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// texts returns the words an SVG shows: each <text> (labels, the title,
// coordinates) and <title> (what a browser shows on hover).
func texts(t *testing.T, doc []byte) (labels, titles []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var open []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return labels, titles
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			open = append(open, x.Name.Local)
		case xml.EndElement:
			open = open[:len(open)-1]
		case xml.CharData:
			s := strings.TrimSpace(string(x))
			if s == "" || len(open) == 0 {
				continue
			}
			switch open[len(open)-1] {
			case "text":
				labels = append(labels, s)
			case "title":
				titles = append(titles, s)
			}
		}
	}
}

// wordsState is testState with a flank march, an objective held, a unit
// with its type, formation and markers, and a charge to draw.
func wordsState() (*rules.State, Options) {
	s := testState()
	s.Units["r1"].Type, s.Units["r1"].Formation, s.Units["r1"].Markers = "light_infantry", "attack_column", 2
	s.Units["b2"].Type, s.Units["b2"].Formation, s.Units["b2"].Status = "heavy_cavalry", "line", rules.UnitDisordered
	s.Victory.Objectives = []rules.Objective{{ID: "bridge", Name: "Bridge", Value: 3, Position: &geom.Vec{X: 30, Y: 24}}}
	s.Victory.Held = map[string]string{"bridge": "blue"}
	s.Flank.Marches = []rules.FlankMarch{{N: 1, Side: "red", Edge: geom.EdgeWest, Commitment: "c0ffee"}}
	opt := Options{Charge: &Charge{Unit: "r1", Target: "b1", From: s.Units["r1"].Base, To: s.Units["r1"].Base, Side: geom.ArcLeft,
		TargetBase: s.Units["b1"].Base, Path: []geom.Vec{{X: 20, Y: 20}, {X: 20, Y: 21}}}}
	return s, opt
}

// TestPictureWordsInEnglish: the English words are the catalogue's terms
// for a unit's type, formation and status ("light infantry", not the id
// light_infantry).
func TestPictureWordsInEnglish(t *testing.T) {
	s, opt := wordsState()
	labels, titles := texts(t, Render(s, opt))
	all := strings.Join(append(labels, titles...), "\n")
	for _, want := range []string{
		"flank march 1 · red", "flank march 1 (red): west edge", "Bridge: objective, 3 points, held by blue", "Bridge (3)",
		"r1, light infantry, attack column, ok, 2 markers", "b2, heavy cavalry, line, disordered", "Marshal (rc), commander-in-chief, rating 0",
		"Gen (bg), general, rating 0", "Wood (difficult,blocks-sight)", "r1 charges b1 (left)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("English picture lacks %q:\n%s", want, all)
		}
	}
}

// TestPictureWordsInRussian: with Lang "ru" every word drawn or shown on
// hover is Russian, but for ids and the names people gave.
func TestPictureWordsInRussian(t *testing.T) {
	s, opt := wordsState()
	opt.Lang = "ru"
	labels, titles := texts(t, Render(s, opt))
	all := strings.Join(append(labels, titles...), "\n")
	for _, want := range []string{
		"фланговый марш 1 · red", "фланговый марш №1 (red): у западного края", "Bridge: цель, 3 очка, удерживает blue",
		"r1, лёгкая пехота, колонна к атаке, в порядке, маркеров: 2", "b2, тяжёлая кавалерия, линия, расстроен",
		"Marshal (rc), главнокомандующий, рейтинг 0", "Gen (bg), генерал, рейтинг 0", "Wood (трудная, закрывает обзор)", "r1 атакует b1 (в левый фланг)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("Russian picture lacks %q:\n%s", want, all)
		}
	}
	names := map[string]bool{"red": true, "blue": true, "Bridge": true, "Wood": true, "Marshal": true, "Gen": true, "Test": true, "battle": true, "gone": true}
	for _, w := range regexp.MustCompile(`[A-Za-z][A-Za-z0-9-]*`).FindAllString(all, -1) {
		if !names[w] && !regexp.MustCompile(`\d`).MatchString(w) && len(w) > 2 {
			t.Errorf("English %q in the Russian picture:\n%s", w, all)
		}
	}
}
