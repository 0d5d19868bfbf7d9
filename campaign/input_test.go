package campaign

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clubledger/ledger/rules"
)

// checkBodyCases are bodies of every kind CheckBody judges, as the seeds
// of FuzzCheckBody and the cases of TestCheckBodyAtLeastAsBefore.
var checkBodyCases = []string{
	``, `  `, `null`, `{}`, `[]`, `1`, `"x"`, `true`,
	`{"unit":"red-inf1","to":{"x":20,"y":15},"actions":1}`,
	`{"unit":null}`, `{"":null}`, `[null]`, `{"a":[1,null]}`, `{"to":{"x":null}}`,
	`{"unit":"a b"}`, `{"units":["ok","a\u0007"]}`, `{"name":"\u202e"}`, `{"reason":"two\nlines"}`, `{"name":"two\nlines"}`,
	`{"x":100001}`, `{"x":-100000}`, `{"x":1e400}`, `{"x":1E5}`, `{"seed":"` + strings.Repeat("é", 200) + `"}`,
	`{"name":"` + strings.Repeat("n", 101) + `"}`, `{"reason":"` + strings.Repeat("r", 2001) + `"}`,
	`{"other":"` + strings.Repeat("o", 201) + `"}`, `{"unit":"` + strings.Repeat("u", 65) + `"}`,
	`{"ruleset":"` + strings.Repeat("y", 70000) + `"}`, `{"id":"\ud800"}`, `{"note":"\ufffd"}`,
	`{"path":[` + strings.TrimSuffix(strings.Repeat(`{"x":1,"y":2},`, 33), ",") + `]}`,
	`{"path":[` + strings.TrimSuffix(strings.Repeat(`{"x":1,"y":2},`, 32), ",") + `]}`,
	`{"path":[null,` + strings.TrimSuffix(strings.Repeat(`{"x":1,"y":2},`, 33), ",") + `]}`,
	`{"dice":[` + strings.TrimSuffix(strings.Repeat(`1,`, 501), ",") + `]}`,
	`{"path":[[` + strings.TrimSuffix(strings.Repeat(`1,`, 33), ",") + `]]}`,
	`{"unit":null,"unit":"u"}`, `{"unit":"u","unit":null}`, `{"a":{"b":null},"a":1}`,
	`{"unit":null} trailing`, `{"unit":null,}`, `{"unit":null`, `{"unit" null}`, `[1,]`, `{"a":1}}`,
	`{"a":[{"b":[{"c":"\u0000"}]}]}`, `"\u0007"`, `[["\u202a"]]`, "\xff", `{"x":01}`, `{"x":-}`,
	`1e999x`, `1e999 x`, `123abc`, `"\u202e"x`, `{"a":1} {"b":null}`, "\ufeff{\"a\":null}", `{"a":"\u00"}`,
	`{"id":"\ud800\ud800"}`, `{"id":"\ud800\udc00"}`, `{"id":"\udc00\ud800x"}`, `{"a":"\/\b\f\n\r\t\"\\"}`, `{"text":"\u2028\t"}`,
	`{"a":truex}`, `{"a":nul}`, `[1 2]`, `{"a" : [ 1 , null ] }`, ` {"a":-0.0e-0}`, `{"a":.5}`, `{"a":+1}`, `{"a":0x10}`,
	`{"to":{"x":1e9},"to":{"y":12}}`, `{"Name":"` + strings.Repeat("n", 101) + `"}`, `{"\u017fide":"a b"}`, `{"S\u0069de":"a b"}`,
	`{"name":"\u3164\u115f\u1160\uffa0"}`, `{"name":"\u2800"}`, `{"title":"\u034f\ufe0f\udb40\udd00"}`, `{"reason":"\u180b\u180f\u17b4\u17b5"}`,
	`{"note":"\u0301\u0301"}`, `{"name":"Ney\u3164"}`, `{"name":"e\u0301"}`, `{"name":"\u2764\ufe0f"}`, `{"name":"Ney\u2028Murat"}`,
	`{"reason":"one\u2028two\u2029three"}`, `{"seed":"a\u2029"}`, `{"units":[{"name":"\u3164"}]}`,
	`{"ruleset":"doc: \"\\e[31m\"\n"}`, `{"ruleset":"\"\\u202E\": x"}`, `{"ruleset":"doc: \"\\0\""}`, `{"ruleset":"` + strings.Repeat("й", 40000) + `"}`,
	`{"unit":"\u3164"}`, `{"unit":"33-lign\u0435"}`, `{"units":["33-ligne","33-LIGNE"]}`, `{"unit":"\u0430b","target":"AB"}`,
	strings.Repeat("[", 32) + strings.Repeat("]", 32),
	strings.Repeat("[", 33) + strings.Repeat("]", 33),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10000) + "null" + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + "null" + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10001) + "null" + strings.Repeat("}", 10001),
}

// TestCheckBodyAtLeastAsBefore holds CheckBody's token scan to refuse at
// least what the decode into a tree refused (oldCheckBody), case by case,
// naming a field.
func TestCheckBodyAtLeastAsBefore(t *testing.T) {
	for _, b := range checkBodyCases {
		atLeastAsBefore(t, []byte(b))
	}
}

// FuzzCheckBody: on any body the scan refuses what the tree refused (and
// may refuse more: a key given twice, a key in another case, nesting),
// naming a field, in bounded time.
func FuzzCheckBody(f *testing.F) {
	for _, b := range checkBodyCases {
		if len(b) < 1000 {
			f.Add([]byte(b))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		start := time.Now()
		atLeastAsBefore(t, body)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%d bytes checked in %v", len(body), d)
		}
	})
}

// atLeastAsBefore compares CheckBody with oldCheckBody on body: what the
// tree refused, the scan refuses, as an *InvalidInput naming a field whose
// keys are at most rules.NameShown characters each (not the body's whole key echoed).
func atLeastAsBefore(t *testing.T, body []byte) {
	t.Helper()
	got, old := CheckBody(body), oldCheckBody(body)
	if old != nil && got == nil {
		t.Fatalf("%.200q: the scan passes it, the tree said %v", body, old)
	}
	if got == nil {
		return
	}
	ii, ok := got.(*InvalidInput)
	if !ok {
		t.Fatalf("%.200q: %T, not *InvalidInput", body, got)
	}
	if ii.Field == "" {
		t.Fatalf("%.200q: %v names no field", body, got)
	}
	for _, k := range strings.FieldsFunc(ii.Field, func(r rune) bool { return r == '.' || r == '[' }) {
		if utf8.RuneCountInString(k) > rules.NameShown+1 {
			t.Fatalf("%.200q: the field %.100q echoes a key of %d characters", body, ii.Field, utf8.RuneCountInString(k))
		}
	}
}

// TestCheckBodySays: what the scan says where it judges more than the tree
// did: every value of a key given twice (the typed decode merges an object
// given twice: {"to":{"x":1e9},"to":{"y":12}} moved to x 1e9 before), a
// key in any case the decoder matches ("Name", "ſide"), nesting, the body
// itself named "command", a long key cut short.
func TestCheckBodySays(t *testing.T) {
	for body, want := range map[string]string{
		`{"to":{"x":1e9},"to":{"y":12}}`:                         "invalid to.x: a number between -100000 and 100000",
		`{"unit":"u","to":{"x":1,"y":2},"to":{"x":1e308,"y":2}}`: "invalid to.x: a number between -100000 and 100000",
		`{"unit":null,"unit":"u"}`:                               "invalid unit: null: give a value, or leave the field out",
		`{"Name":"` + strings.Repeat("n", 101) + `"}`:            "invalid Name: at most 100 characters (101 given)",
		`{"NAME":"` + strings.Repeat("n", 101) + `"}`:            "invalid NAME: at most 100 characters (101 given)",
		`{"\u017fide":"a b"}`:                                    "invalid ſide: an identifier is letters, digits, '-', '_' or '.' (not U+0020), at most 64",
		`{"Id":"davout<b>"}`:                                     "invalid Id: an identifier is letters, digits, '-', '_' or '.' (not U+003C), at most 64",
		`{"Path":[` + strings.TrimSuffix(strings.Repeat(`{"x":1,"y":2},`, 33), ",") + `]}`: "invalid Path: at most 32 waypoints",
		`1e999`: "invalid command: a number between -100000 and 100000",
		`{"reason":"` + strings.Repeat("\u200b", 300) + `"}`: "invalid reason: no visible character",
		`{"\u001b]0;x\u0007\u202e":null}`:                    "invalid U+001B]0;xU+0007U+202E: null: give a value, or leave the field out",
		`{"name":"   \u2060"}`:                               "invalid name: no visible character",
		strings.Repeat("[", 33) + strings.Repeat("]", 33):    "invalid [0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested at most 32 deep",
		`{"` + strings.Repeat("k", 100) + `":null}`:          "invalid " + strings.Repeat("k", rules.NameShown) + "…: null: give a value, or leave the field out",
	} {
		if got := CheckBody([]byte(body)); got == nil || got.Error() != want {
			t.Errorf("%.80q: %v, want %q", body, got, want)
		}
	}
}

// TestCheckBodyBounded: hostile bodies of a mebibyte (web's maxBody), each
// checked in bounded time and memory, refusing what the tree refused. The
// deep ones with many values over a limit took 38 s of a server's CPU
// while the scan kept every limit broken, each with its path (found by
// this round's tester).
func TestCheckBodyBounded(t *testing.T) {
	const size = 1 << 20
	fill := func(open, item, close string) []byte {
		var b strings.Builder
		b.WriteString(open)
		for i := 0; b.Len() < size-len(item)-len(close)-16; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strings.ReplaceAll(item, "#", strconv.Itoa(i)))
		}
		b.WriteString(close)
		return []byte(b.String())
	}
	deep := func(depth int, inner string) []byte {
		return []byte(strings.Repeat(`{"a":`, depth) + inner + strings.Repeat("}", depth))
	}
	bad := strings.TrimSuffix(strings.Repeat("1e9,", 1000), ",")
	for name, body := range map[string][]byte{
		"distinct keys, each null":            fill("{", `"k#":null`, "}"),
		"distinct keys, each a null deep":     fill("{", `"k#":{"x":null}`, "}"),
		"one key again and again":             fill("{", `"a":null`, "}"),
		"a key null, then fine":               fill("{", `"a":null,"a":1`, "}"),
		"empty objects":                       fill("[", `{}`, "]"),
		"a long path":                         fill(`{"path":[`, `1`, "]}"),
		"a long name":                         []byte(`{"name":"` + strings.Repeat("n", size-16) + `"}`),
		"as deep as encoding/json reads":      []byte(strings.Repeat("[", 10000) + strings.Repeat("]", 10000)),
		"deeper":                              deep(100000, "1"),
		"deep, a thousand numbers over":       deep(9000, "["+bad+"]"),
		"a long key, numbers over":            fill(`{"`+strings.Repeat("k", 300<<10)+`":[`, "1e9", "]}"),
		"distinct long keys, each over":       fill("{", `"`+strings.Repeat("k", 1000)+`#":1e9`, "}"),
		"distinct ids, in one key again":      fill("{", `"id":"u#"`, "}"),
		"distinct long ids":                   fill("{", `"id":"`+strings.Repeat("u", 50)+`#"`, "}"),
		"each value over, under deep objects": fill(strings.Repeat(`{"a":`, 31)+"[", "1e9", "]"+strings.Repeat("}", 31)),
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		CheckBody(body)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if took > 2*time.Second {
			t.Errorf("%s: %d bytes checked in %v", name, len(body), took)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s: %d bytes checked with %d MiB allocated", name, len(body), alloc>>20)
		}
		atLeastAsBefore(t, body)
	}
}

// BenchmarkCheckBody: a move's body checked by the token scan, and by the
// tree as before (issue 29).
func BenchmarkCheckBody(b *testing.B) {
	body := []byte(`{"unit":"red-inf1","to":{"x":20,"y":15},"actions":1}`)
	for _, c := range []struct {
		name  string
		check func(json.RawMessage) error
	}{{"scan", CheckBody}, {"tree", oldCheckBody}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.check(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// invisibleCases are names and free text made only of characters that
// show nothing: fillers that draw as a blank (Hangul fillers, the Braille
// blank), default-ignorable code points, variation selectors and marks
// with nothing to sit on (found by this round's tester, each accepted
// before as "a visible character").
var invisibleCases = []string{
	"\u3164", "\u3164\u3164\u3164", "\u115f", "\u1160", "\u115f\u1160", "\uffa0",
	"\u2800", "\u2800 \u2800", "\u034f", "\ufe00", "\ufe0f", "\ufe0f\ufe0e",
	"\U000e0100", "\U000e01ef", "\u180b", "\u180c\u180d", "\u180f", "\u17b4", "\u17b5",
	"\u0301", "\u0301\u0301\u0301", " \u0301 ", "\u3164\u200b\u2060\u00ad",
	"\u3000\u3164", "\ufeff\u2800", "\u180e", "\U000e0020\U000e007f",
}

// visibleCases are real names and text that stay accepted: any script,
// accents precomposed or combining, an emoji with its variation
// selector, and a visible letter among fillers.
var visibleCases = []string{
	"Ney", "Ney\u3164", "\u3164Ney", "\u2800x", "Багратион", "Κολοκοτρώνης", "拿破仑",
	"محمد علي", "Masséna", "Masse\u0301na", "e\u0301", "\u2764\ufe0f", "\u2764",
	"\u0928\u0947", "Davout\u200b", "A\U000e0100", "한국", "\u1100\u1161",
}

// TestCheckBodyInvisible: a name or free text of only spaces, controls,
// default-ignorable code points, marks and blank fillers is refused as
// "no visible character"; a line or paragraph separator (U+2028, U+2029)
// is refused in a name as a newline is, and allowed in free text as a
// newline is; real names and text in any script stay accepted.
func TestCheckBodyInvisible(t *testing.T) {
	body := func(field, s string) []byte {
		b, err := json.Marshal(map[string]string{field: s})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	refused := func(field, s, format string) {
		t.Helper()
		err := CheckBody(body(field, s))
		ii, ok := err.(*InvalidInput)
		if !ok || ii.Field != field || ii.Why.Format != format {
			t.Errorf("%s %+q: %v, want %q", field, s, err, format)
		}
	}
	accepted := func(field, s string) {
		t.Helper()
		if err := CheckBody(body(field, s)); err != nil {
			t.Errorf("%s %+q: %v, want accepted", field, s, err)
		}
	}
	for _, field := range []string{"name", "title", "reason", "note"} {
		for _, s := range invisibleCases {
			refused(field, s, "no visible character")
		}
		for _, s := range visibleCases {
			accepted(field, s)
		}
	}
	for _, s := range []string{"Ney\u2028Murat", "Ney\u2029", "\u2028", "\u2029Ney"} {
		for _, field := range []string{"name", "title", "other", "seed"} {
			refused(field, s, "control character %s is not allowed")
		}
		if err := CheckBody(body("name", s)); err == nil || !strings.Contains(err.Error(), "control character U+202") {
			t.Errorf("name %+q: %v, want the separator named", s, err)
		}
	}
	for _, s := range []string{"first line\u2028second", "a paragraph\u2029another"} {
		accepted("reason", s)
		accepted("note", s)
	}
	for _, s := range []string{"\u2028", "\u2029\u2028 \u3164"} {
		refused("reason", s, "no visible character")
	}
}

// deployBody is an army.deploy whose units have the ids given.
func deployBody(ids ...string) string {
	units := make([]string, len(ids))
	for i, id := range ids {
		units[i] = `{"id":` + strconv.Quote(id) + `,"type":"infantry","position":{"x":` + strconv.Itoa(10+5*i) + `,"y":10},"facing":0}`
	}
	return `{"side":"red","c_in_c":{"id":"red-cinc","name":"C","rating":9,"position":{"x":36,"y":4}},` +
		`"brigades":[{"id":"red-1","name":"First","order":"attack","general":{"id":"red-gen","name":"G","rating":8,"position":{"x":20,"y":8}},"units":[` +
		strings.Join(units, ",") + `]}]}`
}

// TestCheckBodyIdentifiers: an identifier's characters all show, its
// letters are of one script (capital Roman numerals aside), and no two ids
// a body gives differ only in case;
// Cyrillic, Greek and Japanese ids pass, the same id twice passes. Before,
// "\u3164", "33-lign\u0435" and "33-ligne" beside "33-LIGNE" passed.
func TestCheckBodyIdentifiers(t *testing.T) {
	for body, want := range map[string]string{
		`{"unit":"\u3164"}`:                      "invalid unit: every character of an identifier shows (not U+3164)",
		`{"unit":"ney\u3164"}`:                   "invalid unit: every character of an identifier shows (not U+3164)",
		`{"unit":"33-lign\u0435"}`:               "invalid unit: an identifier's letters are of one script (not U+006C and U+0435)",
		`{"unit":"\u0430b"}`:                     "invalid unit: an identifier's letters are of one script (not U+0430 and U+0062)",
		`{"units":["33-ligne","33-lign\u0435"]}`: "invalid units[1]: an identifier's letters are of one script (not U+006C and U+0435)",
		deployBody("33-ligne", "33-LIGNE"):       `invalid brigades[0].units[1].id: identifiers "33-ligne" and "33-LIGNE" differ only in case`,
		deployBody("полк-1", "ПОЛК-1"):           `invalid brigades[0].units[1].id: identifiers "полк-1" and "ПОЛК-1" differ only in case`,
		// Past eight ids, found by the map.
		deployBody("u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "U3"): `invalid brigades[0].units[10].id: identifiers "u3" and "U3" differ only in case`,
	} {
		if got := CheckBody([]byte(body)); got == nil || got.Error() != want {
			t.Errorf("%.80q: %v, want %q", body, got, want)
		}
	}
	for _, body := range []string{
		deployBody("33-ligne", "33-léger"), deployBody("33-линейный", "9-лёгкий"), deployBody("λόχος-1", "第33連隊", "すずき-1", "カタカナ"),
		`{"unit":"red-inf1","target":"red-inf1"}`, `{"unit":"u_1.2-3"}`, `{"units":["ß-1","ss-1"]}`,
		// Only the ids a body gives new things are compared: a charge
		// names two units already on the table (found by this stop's
		// tester: refused as malformed before), an order lists units.
		`{"unit":"33-ligne","target":"33-LIGNE"}`, `{"units":["u0","u1","u2","u3","u4","u5","u6","u7","u8","u9","U3"]}`,
		// Roman numerals in capitals beside another script's letters, and
		// the katakana long vowel mark (of no script).
		`{"unit":"II-корпус"}`, `{"unit":"VI-й-корпус"}`, `{"unit":"XIV-λόχος"}`, `{"unit":"コーヒー"}`,
	} {
		if err := CheckBody([]byte(body)); err != nil {
			t.Errorf("%.80q: %v, want it passed", body, err)
		}
	}
}

// overlayCases are ruleset overlays: YAML escapes that carry control and
// bidirectional characters, mistakes of syntax and of kind, anchors.
var overlayCases = []string{
	"doc: \"\\e[31m red\"\n", "\"\\u202E\": x\n", "doc: \"a\\0b\"\n", "doc: x\nversion: 2\n  bad: 1\n",
	"command:\n  rating_max: abc\n", "command:\n  ratng_max: 3\n", "turn:\n  phases: command\n", "- a\n",
	"formations:\n  line: &l {doc: \"a line\", close_order: true}\n  wedge:\n    <<: *l\n", "doc: a\ndoc: b\n",
	"command:\n  rating_max: 10.0\n", "unit_types: {x: 1}\n", "command: {group_distance: {in: 1e400}}\n",
}

// FuzzCheckOverlay: on any overlay checkOverlay answers in bounded time,
// never panics, and an overlay it passes is YAML the rules decode without
// a decoder's error of kind or key (they may still refuse a value: a
// rating out of bounds is the ruleset's to judge).
func FuzzCheckOverlay(f *testing.F) {
	for _, o := range overlayCases {
		f.Add(o)
	}
	f.Fuzz(func(t *testing.T, o string) {
		if len(o) > MaxRuleset {
			return
		}
		start := time.Now()
		err := checkOverlay(o)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%d bytes checked in %v", len(o), d)
		}
		if err != nil {
			if _, ok := err.(*rules.Refusal); !ok {
				t.Fatalf("%q: %T %v, not a refusal", o, err, err)
			}
			return
		}
		if _, err := rules.LoadRuleset(nil, []byte(o)); err != nil && (strings.Contains(err.Error(), "cannot unmarshal") || strings.Contains(err.Error(), "not found in type")) {
			t.Fatalf("%q passed, and the rules say %v", o, err)
		}
	})
}

// TestRulesetLimitInBytes: a ruleset overlay is at most MaxRuleset bytes
// (64 KiB, as docs/events.md says and as its merged size is counted), not
// characters: 40,000 Cyrillic letters are 80,000 bytes. Before, they passed
// the body's check (counted as 40,000 characters).
func TestRulesetLimitInBytes(t *testing.T) {
	for body, want := range map[string]string{
		`{"ruleset":"` + strings.Repeat("й", 40000) + `"}`:        "invalid ruleset: at most 65536 bytes (80000 given)",
		`{"ruleset":"` + strings.Repeat("y", MaxRuleset+1) + `"}`: "invalid ruleset: at most 65536 bytes (65537 given)",
	} {
		if got := CheckBody([]byte(body)); got == nil || got.Error() != want {
			t.Errorf("%.40q: %v, want %q", body, got, want)
		}
	}
	if err := CheckBody([]byte(`{"ruleset":"` + strings.Repeat("й", MaxRuleset/2) + `"}`)); err != nil {
		t.Errorf("%d bytes of Cyrillic: %v", MaxRuleset, err)
	}
}
