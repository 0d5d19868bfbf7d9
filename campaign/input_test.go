package campaign

import (
	"encoding/json"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// checkBodyCases are bodies of every kind CheckBody judges, as the seeds
// of FuzzCheckBody and the cases of TestCheckBodyAsBefore.
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
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10000) + "null" + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + "null" + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10001) + "null" + strings.Repeat("}", 10001),
}

// TestCheckBodyAsBefore holds CheckBody's token scan to what the decode
// into a tree said (oldCheckBody), case by case.
func TestCheckBodyAsBefore(t *testing.T) {
	for _, b := range checkBodyCases {
		sameAsBefore(t, []byte(b))
	}
}

// FuzzCheckBody: on any body the scan says what the tree said, in
// bounded time.
func FuzzCheckBody(f *testing.F) {
	for _, b := range checkBodyCases {
		if len(b) < 1000 {
			f.Add([]byte(b))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		start := time.Now()
		sameAsBefore(t, body)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%d bytes checked in %v", len(body), d)
		}
	})
}

// sameAsBefore compares CheckBody with oldCheckBody on body: both pass it,
// or the scan refuses it as the tree could (oldCouldSay: of several broken
// limits in one object, the tree told any one, by a map's order).
func sameAsBefore(t *testing.T, body []byte) {
	t.Helper()
	got, want := CheckBody(body), oldCheckBody(body)
	if (got == nil) != (want == nil) {
		t.Fatalf("%.200q: the scan says %v, the tree said %v", body, got, want)
	}
	if got == nil {
		return
	}
	if _, ok := got.(*InvalidInput); !ok {
		t.Fatalf("%.200q: %T, not *InvalidInput", body, got)
	}
	if could := oldCouldSay(body); !could[got.Error()] {
		t.Fatalf("%.200q: the scan says %v, the tree could say one of %v", body, got, could)
	} else if len(could) == 1 && !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q: the scan says %#v, the tree said %#v", body, got, want)
	}
}

// TestCheckBodyBounded: hostile bodies of a mebibyte (web's maxBody), each
// checked in bounded time and memory, and as the tree checked them.
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
	for name, body := range map[string][]byte{
		"distinct keys, each null":        fill("{", `"k#":null`, "}"),
		"distinct keys, each a null deep": fill("{", `"k#":{"x":null}`, "}"),
		"one key again and again":         fill("{", `"a":null`, "}"),
		"a key null, then fine":           fill("{", `"a":null,"a":1`, "}"),
		"empty objects":                   fill("[", `{}`, "]"),
		"a long path":                     fill(`{"path":[`, `1`, "]}"),
		"a long name":                     []byte(`{"name":"` + strings.Repeat("n", size-16) + `"}`),
		"as deep as can be read":          []byte(strings.Repeat("[", 10000) + strings.Repeat("]", 10000)),
		"deeper":                          []byte(strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)),
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
		sameAsBefore(t, body)
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
