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
