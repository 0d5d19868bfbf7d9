package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/rules"
)

// hostile is a report whose every text a person typed (names, a dispute's
// reason and ruling, a description quoting them) tries to break out of
// its format: HTML tags and a script, BBCode tags and a link, Markdown
// emphasis, a table bar, a link and a fence.
func hostile(t *testing.T) *Report {
	t.Helper()
	evil := "<script>alert(1)</script> [url=http://evil.example]x[/url] **bold** | cell ](http://evil.example) ``` [/list]"
	r := &Report{Key: events.Key{Campaign: "c", Battle: "b"}, Name: evil, Lang: "en", Status: "ended", Ended: true, Turn: 1,
		Measurement: "in", TableWidth: 72, TableDepth: 48, Head: strings.Repeat("ab", 32), Last: 3, Chain: "intact", AuditPass: true,
		Sides: []Side{{ID: "red", Name: evil, Players: []string{evil}, CInC: evil, Units: 1}},
		Turns: []Turn{{Turn: 1, Side: "red", Version: 2, Picture: 0, Lines: []Line{
			{Version: 2, Type: "turn.started", Text: evil, Moment: -1},
			{Version: 3, Type: "dispute.upheld", Text: evil, Moment: 0}}}},
		Moments:  []Moment{{Kind: KindRuling, Version: 3, Turn: 1, Text: evil, Picture: 1}},
		Pictures: []Picture{{Name: "001-turn-1-red.svg", Caption: evil, Version: 2, SVG: []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`)}, {Name: "002-ruling-3.svg", Caption: evil, Version: 3, SVG: []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`)}},
		Disputes: []rules.Dispute{{N: 1, EventVersion: 2, Reason: evil, Status: "upheld", Ruling: evil}},
		Losses:   []Loss{{Side: "red", Unit: evil, Type: "infantry", Markers: 2, Status: "routed"}},
		cat:      i18n.MustLoad()}
	return r
}

// TestTypedTextStaysText: what a person typed is text in every format:
// no tag of theirs in the HTML (escaped), no BBCode tag of theirs (square
// brackets written round), and in Markdown their emphasis, bars, links
// and fences escaped, every table row as wide as its heading.
func TestTypedTextStaysText(t *testing.T) {
	r := hostile(t)
	var h, b, m bytes.Buffer
	for f, w := range map[string]*bytes.Buffer{HTML: &h, BBCode: &b, Markdown: &m} {
		if err := r.Write(w, f); err != nil {
			t.Fatal(err)
		}
	}
	if s := h.String(); strings.Contains(s, "<script") || !strings.Contains(s, "&lt;script&gt;") {
		t.Error("HTML: the typed script is not escaped")
	}
	if s := b.String(); strings.Contains(s, "[url") || strings.Contains(s, "[/list] ") || !strings.Contains(s, "(url=http://evil.example)x(/url)") {
		t.Errorf("BBCode: a typed tag is a tag:\n%s", s)
	}
	md := m.String()
	if regexp.MustCompile(`[^\\]\]\(http`).MatchString(md) || !strings.Contains(md, `\*\*bold\*\*`) || strings.Count(md, "```") != 2 {
		t.Errorf("Markdown: typed markup is markup:\n%s", md)
	}
	bar := regexp.MustCompile(`[^\\]\|`)
	// Every table's rows are as wide as its heading.
	width := -1
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "|") {
			width = -1
			continue
		}
		cells := len(bar.FindAllString(" "+l, -1))
		if width < 0 {
			width = cells
		} else if cells != width {
			t.Errorf("%d bars, the table has %d: %s", cells, width, l)
		}
	}
}
