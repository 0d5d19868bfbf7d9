package picture

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clubledger/ledger/internal/bounded"
	"github.com/clubledger/ledger/rules/geom"
)

// Hostile texts a player can type into a name, a reason or a ruling: long
// words, every script, control characters, markup and template-like text.
var hostile = []string{
	"",
	strings.Repeat("R", 300),
	strings.Repeat("Ж", 2000),
	"https://example.org/" + strings.Repeat("a/", 150),
	"a\x00b\x01c\td\ne\rf\u200b\u202e",
	"<script>alert(1)</script> & \"'",
	"{unit} {n} %s %d %!v {{.}} ${x}",
	"👩‍👩‍👧‍👦🏳️‍🌈 ﷽ ꧅ 𒐫",
	strings.Repeat(" ", 500) + "x",
	strings.Repeat("a ", 1000),
}

// FuzzWrap: a caption line of any text, at any width, wraps into lines no
// longer than the width, keeps every word, and costs time and memory in
// proportion to its length (issue 24: a 300-character word once looped
// until the machine was out of memory).
func FuzzWrap(f *testing.F) {
	for i, s := range hostile {
		f.Add(s, i*17)
	}
	f.Fuzz(func(t *testing.T, line string, n int) {
		if !utf8.ValidString(line) {
			return // the door refuses it (campaign's input limits)
		}
		n %= 400
		bounded.Check(t, bounded.For(len(line), 64<<10, 64, 2*time.Second), "wrap", func() { checkWrap(t, line, n) })
	})
}

// FuzzRender: a battle whose names are anything a player can type, on a
// table of any size the door accepts, drawn at any scale the page may ask
// for, with a review caption of any text: the picture is well-formed XML
// and costs bounded time and memory.
func FuzzRender(f *testing.F) {
	for i, s := range hostile {
		f.Add(s, hostile[(i+3)%len(hostile)], 72.0, 48.0, 8.0)
	}
	f.Add("x", "y", 100000.0, 100000.0, 100.0)
	f.Add("x", "y", 1e-9, 1e-9, 0.01)
	f.Fuzz(func(t *testing.T, name, text string, w, d, scale float64) {
		if !(w > 0 && w <= 100000 && d > 0 && d <= 100000 && scale >= 0 && scale <= 100) {
			return // the door refuses these (campaign.MaxCoordinate, web's scale)
		}
		s := testState()
		s.Name, s.Table = name, geom.Table{Width: w, Depth: d}
		s.Sides[0].Name, s.Sides[0].CInC.Name = name, text
		s.Sides[1].Brigades[0].General.Name = name + text
		s.Units["r1"].Name = text
		var out []byte
		budget := bounded.For(len(name)+len(text), 64<<20, 4096, 10*time.Second)
		bounded.Check(t, budget, "review picture", func() {
			out = RenderReview(Review{Before: s, After: s, Titles: [3]string{name, text, ""}, Caption: []string{name, text, name + " " + text}, Scale: scale})
		})
		Parse(t, out)
	})
}

// FuzzPlace: labels of any text, however many stand at one point, are
// placed in bounded time.
func FuzzPlace(f *testing.F) {
	for _, s := range hostile {
		f.Add(s, uint8(40))
	}
	f.Fuzz(func(t *testing.T, text string, n uint8) {
		items := make([]Item, int(n))
		for i := range items {
			items[i] = Item{X: 100, Y: 100, R: 5, W: TextWidth(text, 11), H: 13}
		}
		var placed []Placed
		bounded.Check(t, bounded.For(len(text)*int(n), 1<<20, 256, 5*time.Second), "label placement", func() {
			placed = Place(items, []Disc{{X: 100, Y: 100, R: 5}, {X: 90, Y: 90, R: 8}}, Box{X0: 0, Y0: 0, X1: 720, Y1: 480})
		})
		if len(placed) != len(items) {
			t.Fatalf("placed %d of %d labels", len(placed), len(items))
		}
	})
}
