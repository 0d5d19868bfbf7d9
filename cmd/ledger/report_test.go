package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/internal/dicetest"
	"github.com/clubledger/ledger/report"
	"github.com/clubledger/ledger/rules"
)

// logEvent is one event of `ledger log -o json`.
type logEvent struct {
	Version uint64          `json:"version"`
	Type    string          `json:"type"`
	Hash    string          `json:"hash"`
	Payload json.RawMessage `json:"payload"`
}

// loggedEvents reads a battle's events as c's caller may read them.
func loggedEvents(t *testing.T, c *testCLI, battle string) []logEvent {
	t.Helper()
	var evs []logEvent
	if err := json.Unmarshal([]byte(c.ok("-o", "json", "log", battle)), &evs); err != nil {
		t.Fatal(err)
	}
	return evs
}

// expectedPictures counts, from the log itself, the pictures docs/report.md
// promises: one per turn.started, one per decisive moment (a charge that
// moved, a unit becoming routed or destroyed, the first unit of each flank
// march to come on, a blunder, a ruling on a dispute), one of the end.
func expectedPictures(t *testing.T, evs []logEvent) (turns, moments int, ended bool) {
	t.Helper()
	arrived := map[int]bool{}
	for _, e := range evs {
		switch e.Type {
		case rules.EvTurnStarted:
			turns++
		case rules.EvChargeDeclared:
			var c struct{ Pending bool }
			mustJSON(t, e.Payload, &c)
			if !c.Pending {
				moments++
			}
		case rules.EvCombatRecorded:
			var c struct {
				Status       string `json:"status"`
				StatusBefore string `json:"status_before"`
			}
			mustJSON(t, e.Payload, &c)
			if c.Status != c.StatusBefore && (c.Status == "routed" || c.Status == "destroyed") {
				moments++
			}
		case rules.EvFlankUnitEntered:
			var f struct{ March int }
			mustJSON(t, e.Payload, &f)
			if !arrived[f.March] {
				arrived[f.March] = true
				moments++
			}
		case rules.EvOrderResolved:
			var o struct{ Outcome string }
			mustJSON(t, e.Payload, &o)
			if o.Outcome == "blunder" {
				moments++
			}
		case rules.EvDisputeUpheld, rules.EvDisputeDismissed:
			moments++
		case rules.EvBattleEnded:
			ended = true
		}
	}
	return turns, moments, ended
}

func mustJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// voidElements have no end tag in HTML5.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// checkHTML5 checks doc is a well-formed, self-contained HTML5 document:
// the HTML5 doctype; html with lang, head with a UTF-8 charset and a title,
// body; every element closed in order (SVG's self-closing ones included)
// and no id twice, read by golang.org/x/net/html's tokenizer; the parser's
// tree has the same elements; nothing loaded from elsewhere: no script,
// link, iframe, object or img, no src= or href= to http(s), no @import,
// no url() to http(s). It returns the parsed document.
func checkHTML5(t *testing.T, doc string) *html.Node {
	t.Helper()
	if !strings.HasPrefix(doc, "<!DOCTYPE html>\n") {
		t.Errorf("no HTML5 doctype: %.40q", doc)
	}
	z := html.NewTokenizer(strings.NewReader(doc))
	var stack []string
	ids := map[string]bool{}
	remote := regexp.MustCompile(`(?i)^\s*(https?:)?//`)
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("tokenizer: %v", z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			switch tok.Data {
			case "script", "link", "iframe", "object", "embed", "img", "base", "frame":
				t.Errorf("the report has a <%s>", tok.Data)
			}
			for _, a := range tok.Attr {
				k := strings.ToLower(a.Key)
				if (k == "src" || k == "href" || k == "xlink:href" || k == "action" || k == "srcset") && (remote.MatchString(a.Val) || strings.HasPrefix(strings.TrimSpace(a.Val), "http")) {
					t.Errorf("<%s %s=%q> loads from the network", tok.Data, a.Key, a.Val)
				}
				if k == "id" {
					if ids[a.Val] {
						t.Errorf("id %q twice", a.Val)
					}
					ids[a.Val] = true
				}
				if k == "style" && regexp.MustCompile(`(?i)url\(|@import`).MatchString(a.Val) {
					t.Errorf("<%s style=%q> may load", tok.Data, a.Val)
				}
			}
			if tt == html.StartTagToken && !voidElements[tok.Data] {
				stack = append(stack, tok.Data)
			}
		case html.EndTagToken:
			if len(stack) == 0 || stack[len(stack)-1] != tok.Data {
				t.Fatalf("</%s> closes %v", tok.Data, stack)
			}
			stack = stack[:len(stack)-1]
		case html.TextToken:
			if len(stack) > 0 && stack[len(stack)-1] == "style" && regexp.MustCompile(`(?i)@import|url\(\s*['"]?\s*(https?:)?//`).MatchString(tok.Data) {
				t.Errorf("the style loads from elsewhere: %s", tok.Data)
			}
		}
	}
	if len(stack) != 0 {
		t.Errorf("elements left open: %v", stack)
	}
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	count := map[atom.Atom]int{}
	var htmlLang, charset string
	walk(root, func(n *html.Node) {
		if n.Type != html.ElementNode || n.Namespace != "" {
			return // SVG's own title is the picture's
		}
		count[n.DataAtom]++
		switch n.DataAtom {
		case atom.Html:
			htmlLang = attr(n, "lang")
		case atom.Meta:
			if c := attr(n, "charset"); c != "" {
				charset = c
			}
		}
	})
	for _, a := range []atom.Atom{atom.Html, atom.Head, atom.Body, atom.Title} {
		if count[a] != 1 {
			t.Errorf("%d <%s>", count[a], a)
		}
	}
	if htmlLang == "" || !strings.EqualFold(charset, "utf-8") {
		t.Errorf("html lang %q, charset %q", htmlLang, charset)
	}
	return root
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	return n.Type == html.ElementNode && strings.Contains(" "+attr(n, "class")+" ", " "+class+" ")
}

// figures are the report's pictures: each a <figure class="picture">
// holding one <svg>.
func figures(t *testing.T, root *html.Node) []*html.Node {
	t.Helper()
	var out []*html.Node
	walk(root, func(n *html.Node) {
		if n.DataAtom == atom.Figure && hasClass(n, "picture") {
			svgs := 0
			walk(n, func(m *html.Node) {
				if m.Type == html.ElementNode && m.Data == "svg" {
					svgs++
				}
			})
			if svgs != 1 {
				t.Errorf("figure %s holds %d svg", attr(n, "id"), svgs)
			}
			out = append(out, n)
		}
	})
	return out
}

// TestReportExamples plays each example battle and writes its HTML
// report (checkHTMLReport): a well-formed HTML5 document that loads
// nothing from the network, a picture per turn, per decisive moment and
// of the end, as many as the log says, every event told, the head named,
// and the audit command it prints passing on the ledger.
func TestReportExamples(t *testing.T) {
	allMoments := 0
	for _, ex := range []struct{ file, battle string }{
		{"first-battle.yaml", "demo-1809/eggmuhl"},
		{"aspern-turn.yaml", "danube-1809/aspern"},
	} {
		t.Run(ex.file, func(t *testing.T) {
			c := newCLI(t)
			c.ok("play", "../../examples/"+ex.file)
			_, _, moments := checkHTMLReport(t, c, ex.battle)
			allMoments += moments
		})
	}
	if allMoments == 0 {
		t.Error("no decisive moment in the examples: the test checks no moment's picture")
	}
}

// checkHTMLReport writes battle's HTML report with `ledger report -f` and
// checks it: a well-formed HTML5 document that loads nothing from the
// network (checkHTML5); a picture per turn, per decisive moment and of
// the end, as many as the log says there are (expectedPictures, counted
// from the log's payloads, not from the report), each turn's heading
// followed by its picture and each decisive moment's line holding its
// own; every event told but the dice's bookkeeping; the battle's head
// (the last event's hash in ledger log) named, and `ledger audit --head`
// passing on it; the order of battle holding every general and unit
// deployed, by id and name. It returns the parsed report, the log and the number of
// decisive moments.
func checkHTMLReport(t *testing.T, c *testCLI, battle string) (*html.Node, []logEvent, int) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "report.html")
	if out := c.ok("report", battle, "-f", file); !strings.Contains(out, "report written to "+file) {
		t.Errorf("report: %s", out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	root := checkHTML5(t, doc)
	evs := loggedEvents(t, c, battle)
	turns, moments, ended := expectedPictures(t, evs)
	want := turns + moments
	if ended {
		want++
	}
	figs := figures(t, root)
	if turns == 0 || len(figs) != want {
		t.Errorf("%d pictures, want %d: %d turns, %d decisive moments, ended %v", len(figs), want, turns, moments, ended)
	}
	// Each turn's heading is followed by its picture; each decisive
	// moment's line holds its own.
	headings, moment := 0, 0
	walk(root, func(n *html.Node) {
		if n.DataAtom == atom.H3 && strings.HasPrefix(attr(n, "id"), "turn-") {
			headings++
			next := n.NextSibling
			for next != nil && next.Type != html.ElementNode {
				next = next.NextSibling
			}
			if next == nil || !hasClass(next, "picture") {
				t.Errorf("turn heading %s has no picture after it", attr(n, "id"))
			}
		}
		if n.DataAtom == atom.Li && hasClass(n, "moment") {
			moment++
			if len(figures(t, n)) != 1 {
				t.Errorf("decisive moment %q has no picture", text(n))
			}
		}
	})
	if headings != turns || moment != moments {
		t.Errorf("%d turn headings (want %d), %d moments (want %d)", headings, turns, moment, moments)
	}
	// Every event but the dice's bookkeeping is told, by its number.
	told := 0
	walk(root, func(n *html.Node) {
		if n.DataAtom == atom.Li {
			told++
		}
	})
	untold := 0
	for _, e := range evs {
		if strings.HasPrefix(e.Type, "dice.") {
			untold++
		}
	}
	if told != len(evs)-untold {
		t.Errorf("%d events told, want %d (%d events, %d of the dice's bookkeeping)", told, len(evs)-untold, len(evs), untold)
	}
	// The order of battle names every general and unit deployed, by the
	// id the narrative uses and the name the army list gave it.
	order := section(root, "order-of-battle")
	named := 0
	for _, e := range evs {
		if e.Type != "army.deployed" {
			continue
		}
		var dep struct {
			CInC     struct{ ID, Name string } `json:"c_in_c"`
			Brigades []struct {
				General struct{ ID, Name string }
				Units   []struct{ ID, Name string }
			}
		}
		if err := json.Unmarshal(e.Payload, &dep); err != nil {
			t.Fatal(err)
		}
		members := []struct{ ID, Name string }{dep.CInC}
		for _, b := range dep.Brigades {
			members = append(members, b.General)
			members = append(members, b.Units...)
		}
		for _, m := range members {
			if m.ID == "" {
				continue
			}
			named++
			if !slices.ContainsFunc(order, func(row []string) bool { return len(row) == 5 && row[2] == m.ID && row[3] == m.Name }) {
				t.Errorf("the order of battle has no row for %s (%q): %v", m.ID, m.Name, order)
			}
		}
	}
	if named == 0 {
		t.Error("no general or unit deployed: the order of battle is not checked")
	}
	head := evs[len(evs)-1].Hash
	if len(head) != 64 || !strings.Contains(doc, head) || !strings.Contains(doc, `<meta name="ledger-head" content="`+head+`">`) {
		t.Errorf("the report does not name the head %s", head)
	}
	if out := c.ok("audit", battle, "--head", head); !strings.Contains(out, head[:16]) {
		t.Errorf("audit --head: %s", out)
	}
	return root, evs, moments
}

// section returns the rows (cells' texts) of the first table after the
// heading with id.
func section(root *html.Node, id string) [][]string {
	var rows [][]string
	found, done := false, false
	walk(root, func(n *html.Node) {
		if done || n.Type != html.ElementNode {
			return
		}
		if n.DataAtom == atom.H2 && attr(n, "id") == id {
			found = true
			return
		}
		if found && n.DataAtom == atom.H2 {
			done = true
		}
		if found && n.DataAtom == atom.Tr && n.Parent.DataAtom == atom.Tbody {
			var row []string
			for td := n.FirstChild; td != nil; td = td.NextSibling {
				if td.DataAtom == atom.Td {
					row = append(row, text(td))
				}
			}
			rows = append(rows, row)
		}
	})
	return rows
}

// TestReportDisputesAndScore plays the dispute scenarios (a move, a
// charge and a march undone; a battle scored again after the end) and
// checks their reports (checkHTMLReport: every ruling is a decisive
// moment with its picture), and that the disputes' table has a row per
// dispute raised in the log, with its reason and the ruling the log's
// last ruling on it gave, and the victory points are those of the log's
// last battle.scored or battle.rescored, side by side.
func TestReportDisputesAndScore(t *testing.T) {
	for _, f := range []string{"d-move", "d-score"} {
		t.Run(f, func(t *testing.T) {
			c := newCLI(t)
			c.ok("play", "../../testdata/scenarios/"+f+".yaml")
			battle := f + "/b1"
			root, evs, moments := checkHTMLReport(t, c, battle)
			type dispute struct{ reason, ruling string }
			disputes := map[int]*dispute{}
			var n []int
			var score []rules.SideScore
			for _, e := range evs {
				switch e.Type {
				case rules.EvDisputeRaised:
					var p rules.DisputeRaised
					mustJSON(t, e.Payload, &p)
					disputes[p.Dispute] = &dispute{reason: p.Reason}
					n = append(n, p.Dispute)
				case rules.EvDisputeUpheld, rules.EvDisputeDismissed:
					var p rules.DisputeDismissed // the same fields as an upheld one's
					mustJSON(t, e.Payload, &p)
					disputes[p.Dispute].ruling = p.Ruling
				case rules.EvBattleScored:
					var p rules.BattleScored
					mustJSON(t, e.Payload, &p)
					score = p.Sides
				case rules.EvBattleRescored:
					var p rules.BattleRescored
					mustJSON(t, e.Payload, &p)
					score = p.Score.Sides
				}
			}
			rows := section(root, "disputes")
			if len(n) == 0 || moments == 0 || len(rows) != len(n) {
				t.Fatalf("%d disputes in the table, %d in the log; %d decisive moments", len(rows), len(n), moments)
			}
			for i, k := range n {
				if row := rows[i]; len(row) != 5 || row[0] != fmt.Sprint(k) || row[2] != disputes[k].reason || row[4] != disputes[k].ruling {
					t.Errorf("dispute %d: %q, want reason %q, ruling %q", k, row, disputes[k].reason, disputes[k].ruling)
				}
			}
			points := section(root, "score")
			if f == "d-score" && len(score) == 0 {
				t.Fatal("d-score scored nothing")
			}
			if len(points) != len(score) {
				t.Fatalf("score rows %q, the log's %v", points, score)
			}
			for i, sc := range score {
				if points[i][1] != fmt.Sprint(sc.Points) {
					t.Errorf("side %s: %s points in the report, %d in the log", sc.Side, points[i][1], sc.Points)
				}
			}
		})
	}
}

// text is n's text.
func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(m *html.Node) {
		if m.Type == html.TextNode {
			b.WriteString(m.Data)
		}
	})
	return b.String()
}

var bbTag = regexp.MustCompile(`\[(/?)([a-z*]+)(=[^\]]*)?\]`)

// checkBBCode checks every BBCode tag is closed in order ([*] is an item
// and has none) and returns the attachments' file names in order.
func checkBBCode(t *testing.T, post string) []string {
	t.Helper()
	var stack []string
	var files []string
	known := map[string]bool{"b": true, "i": true, "size": true, "list": true, "code": true, "attachment": true, "*": true}
	for _, m := range bbTag.FindAllStringSubmatchIndex(post, -1) {
		closing, name := post[m[2]:m[3]] == "/", post[m[4]:m[5]]
		if !known[name] {
			t.Errorf("unknown tag [%s]", name)
			continue
		}
		switch {
		case name == "*":
			if len(stack) == 0 || stack[len(stack)-1] != "list" {
				t.Errorf("[*] outside a list: %v", stack)
			}
		case closing:
			if len(stack) == 0 || stack[len(stack)-1] != name {
				t.Fatalf("[/%s] closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		default:
			stack = append(stack, name)
			if name == "attachment" {
				end := strings.Index(post[m[1]:], "[/attachment]")
				if end < 0 {
					t.Fatalf("an attachment without its end")
				}
				files = append(files, post[m[1]:m[1]+end])
			}
		}
	}
	if len(stack) > 0 {
		t.Errorf("tags left open: %v", stack)
	}
	return files
}

var mdImage = regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+)\)`)

// checkMarkdown checks the post's structure: one title, fenced code blocks
// closed, every table's rows as wide as its heading with a separator
// under it, bold markers paired on each line; it returns the images'
// file names in order.
func checkMarkdown(t *testing.T, post string) []string {
	t.Helper()
	lines := strings.Split(post, "\n")
	fence, titles := false, 0
	width := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		if strings.HasPrefix(l, "# ") {
			titles++
		}
		if strings.Count(strings.ReplaceAll(l, `\*`, ""), "**")%2 != 0 {
			t.Errorf("line %d: unpaired **: %s", i+1, l)
		}
		if strings.HasPrefix(l, "|") {
			cells := len(splitRow(l))
			switch {
			case width < 0:
				width = cells
				if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "| --- |") || len(splitRow(lines[i+1])) != cells {
					t.Errorf("line %d: a table heading without its separator", i+1)
				}
			case cells != width:
				t.Errorf("line %d: %d cells, the table has %d: %s", i+1, cells, width, l)
			}
		} else {
			width = -1
		}
	}
	if fence || titles != 1 {
		t.Errorf("a code block left open (%v), %d titles", fence, titles)
	}
	var files []string
	for _, m := range mdImage.FindAllStringSubmatch(post, -1) {
		files = append(files, m[1])
	}
	return files
}

// splitRow splits a Markdown table row on its unescaped bars.
func splitRow(l string) []string {
	l = strings.ReplaceAll(l, `\|`, "\x00")
	parts := strings.Split(strings.Trim(l, "|"), "|")
	return parts
}

// TestReportForumPosts writes the Aspern example as a BBCode and a
// Markdown post: tags balanced and known to phpBB, the Markdown's
// structure whole, the same narrative in both (every event's number),
// and each picture they name written beside the post, as many as the HTML
// report draws: PNG files by default (the BBCode post here), SVG files with
// --picture-format svg (the Markdown post), each one that its decoder
// reads (image/png, encoding/xml).
func TestReportForumPosts(t *testing.T) {
	c := newCLI(t)
	c.ok("play", "../../examples/aspern-turn.yaml")
	battle := "danube-1809/aspern"
	evs := loggedEvents(t, c, battle)
	turns, moments, _ := expectedPictures(t, evs)
	dir := t.TempDir()
	for _, format := range []string{"bbcode", "markdown"} {
		sub := filepath.Join(dir, format)
		file := filepath.Join(sub, "post.txt")
		args, ext := []string{"report", battle, "--format", format, "-f", file}, ".png"
		if format == "markdown" {
			args, ext = append(args, "--picture-format", "svg"), ".svg"
		}
		out := c.ok(args...)
		if !strings.Contains(out, "pictures written beside it ("+strings.ToUpper(ext[1:])+")") {
			t.Errorf("%s: %s", format, out)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		post := string(b)
		var files []string
		if format == "bbcode" {
			files = checkBBCode(t, post)
		} else {
			files = checkMarkdown(t, post)
		}
		if len(files) != turns+moments+1 {
			t.Errorf("%s: %d pictures named, want %d", format, len(files), turns+moments+1)
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(sub, f))
			if err != nil {
				t.Errorf("%s: %v", format, err)
				continue
			}
			if filepath.Ext(f) != ext {
				t.Errorf("%s: the post names %s, want a %s file", format, f, ext)
				continue
			}
			if ext == ".png" {
				if cfg, err := png.DecodeConfig(bytes.NewReader(b)); err != nil || cfg.Width < 200 || cfg.Height < 100 {
					t.Errorf("%s: %s is no PNG of a battlefield: %+v %v", format, f, cfg, err)
				}
			} else if err := xml.Unmarshal(b, new(struct {
				XMLName xml.Name `xml:"svg"`
			})); err != nil {
				t.Errorf("%s: %s is no SVG: %v", format, f, err)
			}
		}
		for _, e := range evs {
			if !strings.HasPrefix(e.Type, "dice.") && !strings.Contains(post, fmt.Sprintf("#%d ", e.Version)) {
				t.Errorf("%s: event %d (%s) is not told", format, e.Version, e.Type)
			}
		}
	}
	// Without -f, the post goes to standard output and no picture is written.
	if out := c.ok("report", battle, "--format", "markdown"); !strings.HasPrefix(out, "# Aspern") {
		t.Errorf("markdown to standard output: %.80s", out)
	}
	if code, _, errs := c.run("report", battle, "--format", "pdf"); code != exitUsage || !strings.Contains(errs, "html, bbcode or markdown") {
		t.Errorf("--format pdf: exit %d %s", code, errs)
	}
	if code, _, errs := c.run("report", battle, "--format", "bbcode", "--picture-format", "gif"); code != exitUsage || !strings.Contains(errs, "png or svg") {
		t.Errorf("--picture-format gif: exit %d %s", code, errs)
	}
}

// TestReportRussian writes the Aspern example's report in Russian (--lang
// ru): the HTML's text (the pictures' labels included, the command lines
// under "verify" left out), the Markdown and the BBCode posts (their
// markup, file names and command lines left out) have no English word
// but ids (englishIn, as TestRussianCLI), and lengths are in the battle's
// centimetres with a decimal comma.
func TestReportRussian(t *testing.T) {
	c := newCLI(t)
	c.cfg.Lang = "ru"
	c.ok("play", "../../examples/aspern-turn.yaml")
	battle := "danube-1809/aspern"
	ids := c.ids(battle)
	doc := c.ok("report", battle)
	root := checkHTML5(t, doc)
	var b strings.Builder
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Style || n.DataAtom == atom.Code || n.DataAtom == atom.Title && n.Parent.DataAtom == atom.Head) {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data + " ")
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			visit(ch)
		}
	}
	visit(root)
	if w := englishIn(b.String(), ids); len(w) > 0 {
		t.Errorf("HTML: English words %v", w)
	}
	post := c.ok("report", battle, "--format", "markdown")
	post = regexp.MustCompile("(?s)```.*?```").ReplaceAllString(post, "")
	post = regexp.MustCompile(`\]\([^)]*\)`).ReplaceAllString(post, "]")
	if w := englishIn(post, ids); len(w) > 0 {
		t.Errorf("Markdown: English words %v in:\n%s", w, post)
	}
	bb := c.ok("report", battle, "--format", "bbcode")
	bb = regexp.MustCompile(`(?s)\[code\].*?\[/code\]`).ReplaceAllString(bb, "")
	bb = regexp.MustCompile(`\[attachment=\d+\][^\[]*\[/attachment\]`).ReplaceAllString(bb, "")
	bb = bbTag.ReplaceAllString(bb, " ")
	if w := englishIn(bb, ids); len(w) > 0 {
		t.Errorf("BBCode: English words %v in:\n%s", w, bb)
	}
	for _, want := range []string{"Стол 180,0 см × 120,0 см", "Ход сражения", "Кому везло", "Проверка донесения"} {
		if !strings.Contains(post, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}

// flankScenario opens campaign fm (marie commands red, karl blue), battle
// b1 in inches, and has red declare a flank march whose orders (brigade
// hidden-bde, general hidden-gen "Brigadier Unseen", units hidden-1 and
// hidden-2) are sealed.
const flankScenario = `name: "A sealed flank march"
id: fm
campaign: fm
battle: b1
actor: umpire
steps:
  - do: campaign.create
    with:
      name: Flank march
      sides:
        - {id: red, name: Red, nation: france}
        - {id: blue, name: Blue, nation: austria}
  - do: player.add
    with: {player: marie, name: Marie, role: player, side: red}
  - do: battle.create
    with: {name: The flank, measurement: in, table: {width: 72, depth: 48}, first_side: red}
  - do: army.deploy
    with:
      side: red
      c_in_c: {id: red-cinc, name: Marshal, rating: 9, position: {x: 36, y: 2}}
      brigades:
        - {id: r1, name: First, order: attack, general: {id: r1-gen, name: Gen A, rating: 8, position: {x: 40, y: 8}},
           units: [{id: r1-inf1, type: infantry, position: {x: 40, y: 10}, facing: 0}]}
  - do: army.deploy
    with:
      side: blue
      c_in_c: {id: blue-cinc, name: Archduke, rating: 8, position: {x: 36, y: 46}}
      brigades:
        - {id: b1, name: Grenadiers, order: defend, general: {id: b1-gen, name: Gen C, rating: 8, position: {x: 20, y: 40}},
           units: [{id: b1-inf1, type: infantry, position: {x: 20, y: 38}, facing: 180}]}
  - do: battle.start
  - do: flank.declare
    dice: [3]
    with:
      side: red
      edge: west
      orders:
        entry: {x: 0, y: 30}
        brigades:
          - id: hidden-bde
            name: Secret Column
            order: attack
            general: {id: hidden-gen, name: Brigadier Unseen, rating: 7}
            units:
              - {id: hidden-1, type: infantry}
              - {id: hidden-2, type: cavalry}
    expect: accepted
  - do: phase.end
    with: {side: red}
`

// TestReportSealedFlankMarch: a report is made through the same door and
// the same view as every other query, so what its reader may not see
// stays unseen. Before the battle ends, karl's report (the opponent's)
// holds none of red's sealed orders (the brigade, its general, its
// units), in HTML and in the forum post, though it tells the march by its
// edge; marie's (red's own), the umpire's and the operator's hold them.
// After the battle ends the orders are revealed (F.9), and karl's report
// holds them too.
func TestReportSealedFlankMarch(t *testing.T) {
	c := newCLI(t)
	file := filepath.Join(t.TempDir(), "fm.yaml")
	if err := os.WriteFile(file, []byte(flankScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("play", file)
	var added struct {
		Token string `json:"token"`
	}
	mustJSON(t, []byte(c.ok("-o", "json", "player", "add", "fm", "karl", "--role", "player", "--side", "blue")), &added)
	karl := &testCLI{t: t, cfg: c.cfg, entropy: c.entropy}
	karl.cfg.Token = added.Token
	mustJSON(t, []byte(c.ok("-o", "json", "player", "add", "fm", "marie2", "--role", "player", "--side", "red")), &added)
	marie := &testCLI{t: t, cfg: c.cfg, entropy: c.entropy}
	marie.cfg.Token = added.Token
	mustJSON(t, []byte(c.ok("-o", "json", "player", "add", "fm", "uma", "--role", "umpire")), &added)
	uma := &testCLI{t: t, cfg: c.cfg, entropy: c.entropy}
	uma.cfg.Token = added.Token

	sealed := []string{"hidden-bde", "Secret Column", "hidden-gen", "Brigadier Unseen", "hidden-1", "hidden-2"}
	reports := func(who *testCLI) string {
		return who.ok("report", "fm/b1") + who.ok("report", "fm/b1", "--format", "markdown") + who.ok("report", "fm/b1", "--format", "bbcode")
	}
	seen := reports(karl)
	for _, s := range sealed {
		if strings.Contains(seen, s) {
			t.Errorf("karl's report before the end holds red's sealed %q", s)
		}
	}
	if !strings.Contains(seen, "sealed until it arrives") || !strings.Contains(seen, "Flank marches") {
		t.Errorf("karl's report does not tell the march by its edge")
	}
	for name, who := range map[string]*testCLI{"marie": marie, "uma (umpire)": uma, "the operator": c} {
		got := reports(who)
		for _, s := range []string{"hidden-1", "hidden-2"} {
			if !strings.Contains(got, s) {
				t.Errorf("%s's report lacks red's own %q", name, s)
			}
		}
	}
	c.ok("do", "fm/b1", "battle.end", "--json", `{"reason":"the umpire ends it"}`)
	after := reports(karl)
	for _, s := range []string{"hidden-1", "hidden-2"} {
		if !strings.Contains(after, s) {
			t.Errorf("karl's report after the end lacks the revealed %q", s)
		}
	}
}

// BenchmarkReport2000Events plays a league battle of at least 2,000
// events through the service (digital and physical dice, combat),
// then times the HTML report of it through the door, as the operator:
// every query, every picture, the rendering. It reports the time, the
// size in bytes and the pictures (docs/report.md has the figures).
func BenchmarkReport2000Events(b *testing.B) {
	cfg := config.Default()
	cfg.DataDir = b.TempDir()
	ctx := context.Background()
	a, err := OpenApp(ctx, cfg, AppOptions{Entropy: dicetest.Entropy(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	key, n := playLeagueBattle(b, a, 2000)
	api := a.Ledger.As(app.Caller{Operator: "operator", Lang: "en"})
	var size, pictures int
	var took time.Duration
	var last *report.Report
	for b.Loop() {
		t0 := time.Now()
		rep, err := report.Build(ctx, api, messages(), key, report.Options{Lang: "en"})
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		if err := rep.Write(&out, report.HTML); err != nil {
			b.Fatal(err)
		}
		took = time.Since(t0)
		size, pictures, last = out.Len(), len(rep.Pictures), rep
	}
	b.ReportMetric(float64(size), "bytes")
	b.ReportMetric(float64(pictures), "pictures")
	b.Logf("report of %d events: %s, %d bytes, %d pictures (%d turns, %d decisive moments, %d of them unpictured by the bound)",
		n, took.Round(time.Millisecond), size, pictures, len(last.Turns), len(last.Moments), last.Unpictured)
	// A forum post's pictures are painted as PNG when they are written
	// (WritePictures), beyond the report itself: timed once, apart.
	var pngBytes counter
	t0 := time.Now()
	if err := last.WritePictures(func(string) (io.WriteCloser, error) { return &pngBytes, nil }); err != nil {
		b.Fatal(err)
	}
	painted := time.Since(t0)
	b.ReportMetric(float64(painted.Milliseconds()), "png-ms")
	b.Logf("its %d pictures painted as PNG for a forum post: %s, %d bytes", pictures, painted.Round(time.Millisecond), int64(pngBytes))
}

// playLeagueBattle plays a league battle (loadgen) of at least events
// events through a's service and brings the projection up to date.
func playLeagueBattle(tb testing.TB, a *App, minEvents int) (events.Key, int) {
	tb.Helper()
	ctx := context.Background()
	if _, err := a.Service.Execute(ctx, loadgen.CreateCampaign("big")); err != nil {
		tb.Fatal(err)
	}
	for _, req := range loadgen.People("big") {
		if _, err := a.Service.Execute(ctx, req); err != nil {
			tb.Fatal(err)
		}
	}
	// The league's mix but the players' own seeds, which the script adds
	// as the players (the service refuses them from the operator).
	g := loadgen.NewBattle("big", "b1", 7)
	g.Mix = loadgen.LeagueMix
	g.Mix.Seeds = false
	n := 0
	for n < minEvents && !g.Ended() {
		req := g.Next()
		out, err := a.Service.Execute(ctx, req)
		if err != nil {
			tb.Fatalf("%s %s: %v", req.ID, req.Name, err)
		}
		for _, e := range out.Events {
			if err := g.Observe(e.Type, e.Payload); err != nil {
				tb.Fatal(err)
			}
		}
		n += len(out.Events)
	}
	if err := a.CatchUp(ctx, nil); err != nil {
		tb.Fatal(err)
	}
	return events.Key{Campaign: "big", Battle: "b1"}, n
}

// TestReportCampaign plays a campaign of two battles (f-campaign: a flank
// march lost in the first) and writes `ledger report CAMPAIGN`: one
// well-formed HTML5 document, no id twice, each battle's pictures (as the
// log of each counts them) and its head; the standings' points are
// `ledger standings`'; the Markdown post is whole and names every
// picture, each written beside it once, named by its battle.
func TestReportCampaign(t *testing.T) {
	c := newCLI(t)
	c.ok("play", "../../testdata/scenarios/f-campaign.yaml")
	doc := c.ok("report", "f-campaign")
	root := checkHTML5(t, doc)
	want := 0
	for _, b := range []string{"f-campaign/b1", "f-campaign/b2"} {
		evs := loggedEvents(t, c, b)
		turns, moments, ended := expectedPictures(t, evs)
		want += turns + moments
		if ended {
			want++
		}
		if head := evs[len(evs)-1].Hash; !strings.Contains(doc, head) {
			t.Errorf("%s: the head %s is not named", b, head)
		}
	}
	if figs := figures(t, root); len(figs) != want || want == 0 {
		t.Errorf("%d pictures, want %d", len(figs), want)
	}
	var st struct {
		Sides []struct {
			Name   string `json:"name"`
			Points int    `json:"points"`
		} `json:"sides"`
	}
	mustJSON(t, []byte(c.ok("standings", "f-campaign", "-o", "json")), &st)
	rows := section(root, "standings")
	if len(rows) != len(st.Sides) || len(st.Sides) != 2 {
		t.Fatalf("standings rows %q, ledger standings %+v", rows, st.Sides)
	}
	for i, s := range st.Sides {
		if rows[i][0] != s.Name || rows[i][1] != fmt.Sprint(s.Points) {
			t.Errorf("standings row %q, want %s %d", rows[i], s.Name, s.Points)
		}
	}
	dir := t.TempDir()
	c.ok("report", "f-campaign", "--format", "markdown", "-f", filepath.Join(dir, "post.md"))
	b, err := os.ReadFile(filepath.Join(dir, "post.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := checkMarkdown(t, string(b))
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] || !(strings.HasPrefix(f, "b1-") || strings.HasPrefix(f, "b2-")) {
			t.Errorf("picture %s named twice or not by its battle", f)
		}
		seen[f] = true
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if len(files) != want {
		t.Errorf("%d pictures named in the post, want %d", len(files), want)
	}
}

// TestReportThroughTheDoor: the CLI beside a running server goes through
// the folder's door (the client's app.API), and writes, byte for byte,
// the report the HTTP API answers the same person (karl's token), in
// English and in Russian, HTML and Markdown: the thin twins cannot
// disagree.
func TestReportThroughTheDoor(t *testing.T) {
	ts := seed(t)
	c := &testCLI{t: t, cfg: ts.cfg}
	c.cfg.Token = ts.tokens["karl"]
	path := "/api/campaigns/demo/battles/b1/report"
	for _, lang := range []string{"en", "ru"} {
		c.cfg.Lang = lang
		for _, format := range []string{"html", "markdown"} {
			cli := c.ok("report", "demo/b1", "--format", format)
			r := ts.do("GET", path+"?format="+format+"&lang="+lang, ts.tokens["karl"], nil)
			if r.status != 200 || string(r.raw) != cli {
				t.Errorf("%s %s: HTTP %d, %d bytes; the CLI's %d bytes", lang, format, r.status, len(r.raw), len(cli))
			}
		}
	}
	if doc := c.ok("report", "demo/b1"); !strings.Contains(doc, "Донесение о сражении") {
		t.Errorf("the Russian report: %.300s", doc)
	}
}

// TestReportMomentKinds plays scenarios between them holding every kind
// of decisive moment docs/report.md names (k-charge: charges; aspern: a
// blunder; d-score: a unit destroyed; d-combat and a rout entered after
// it; f-flank: a flank march arriving; d-move: rulings) and checks each
// report
// (checkHTMLReport); every kind is met in the moments' tables.
func TestReportMomentKinds(t *testing.T) {
	kinds := map[string]int{}
	for _, sc := range []struct {
		file, battle string
		then         []string
	}{
		{"../../testdata/scenarios/k-charge.yaml", "k-charge/b1", nil},
		{"../../examples/aspern-turn.yaml", "danube-1809/aspern", nil},
		{"../../testdata/scenarios/d-score.yaml", "d-score/b1", nil},
		{"../../testdata/scenarios/d-combat.yaml", "d-combat/b1", []string{"do", "d-combat/b1", "combat.record", "--json",
			`{"unit":"au-a","result":"rout","toward":{"x":20,"y":40},"distance":6,"entered_by":"marie"}`}},
		{"../../testdata/scenarios/f-flank.yaml", "f-flank/b1", nil},
		{"../../testdata/scenarios/d-move.yaml", "d-move/b1", nil},
	} {
		c := newCLI(t)
		c.ok("play", sc.file)
		if sc.then != nil {
			c.ok(sc.then...)
		}
		root, _, _ := checkHTMLReport(t, c, sc.battle)
		for _, row := range section(root, "moments") {
			kinds[row[2]]++
		}
	}
	for _, k := range []string{"Charge", "Blunder", "Unit destroyed", "Rout", "A flank march arrives", "Umpire's ruling"} {
		if kinds[k] == 0 {
			t.Errorf("no %q among the decisive moments: %v", k, kinds)
		}
	}
}

// TestReportPictureBound: with --max-pictures 2 the Aspern example's
// report (two turns, two decisive moments, ended) draws its two decisive
// moments and the end, not the turns, and says how many it left without
// a picture; each sentence is still told.
func TestReportPictureBound(t *testing.T) {
	c := newCLI(t)
	c.ok("play", "../../examples/aspern-turn.yaml")
	battle := "danube-1809/aspern"
	evs := loggedEvents(t, c, battle)
	turns, moments, ended := expectedPictures(t, evs)
	if turns != 2 || moments != 2 || !ended {
		t.Fatalf("aspern: %d turns, %d moments, ended %v: the test's premise changed", turns, moments, ended)
	}
	root := checkHTML5(t, c.ok("report", battle, "--max-pictures", "2"))
	if figs := figures(t, root); len(figs) != 3 {
		t.Errorf("%d pictures, want the 2 moments' and the end's", len(figs))
	}
	walk(root, func(n *html.Node) {
		if n.DataAtom == atom.Li && hasClass(n, "moment") && len(figures(t, n)) != 1 {
			t.Errorf("moment %q lost its picture to the turns", text(n))
		}
	})
	if doc := text(root); !strings.Contains(doc, "2 turns and decisive moments are told without a picture: a report holds at most 2 pictures") {
		t.Error("the report does not say what it left unpictured")
	}
	if code, _, errs := c.run("report", battle, "--max-pictures", "-1"); code != exitUsage || !strings.Contains(errs, "--max-pictures -1") {
		t.Errorf("--max-pictures -1: exit %d %s", code, errs)
	}
}

// counter is a writer that counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }
func (c *counter) Close() error                { return nil }
