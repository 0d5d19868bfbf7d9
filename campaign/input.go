package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/clubledger/ledger/rules"
)

// The limits of what a command body may carry (docs/events.md, "Limits of
// a command"). Every string of every command is checked before anything is
// decided: a name is text a person reads on every page and picture, so it
// is bounded, and nothing may hide control characters or bidirectional
// overrides that would make one thing read as another.
const (
	// MaxID is the length of an identifier: a unit, general, brigade,
	// side, player, objective, terrain piece.
	MaxID = 64
	// MaxName is the length of a name: a unit's, a general's, a battle's.
	MaxName = 100
	// MaxText is the length of free text: a reason, a note, an order's
	// words, a ruling.
	MaxText = 2000
	// MaxSeed is the length, in bytes, of a player's dice seed.
	MaxSeed = 256
	// MaxString is the length of any other string.
	MaxString = 200
	// MaxCoordinate bounds every number: a table is never a kilometre wide.
	MaxCoordinate = 100000
	// MaxPath is the most waypoints of a move's, march's or charge's path:
	// every rule that follows a path checks each leg against every unit,
	// and 30,000 waypoints once held a battle for 20 s (a measured move
	// at the table has a handful of turns).
	MaxPath = 32
	// MaxList is the most items of any other list: an army's units, the
	// dice of a roll, a terrain piece's corners, a ruling's corrections.
	MaxList = 500
	// MaxRuleset is the length of a ruleset overlay (YAML), in bytes of
	// UTF-8 (64 KiB), as sent and once its aliases are expanded and it is
	// merged with the campaign's.
	MaxRuleset = 64 << 10
)

// fieldKind is how a string field is bounded.
type fieldKind int

const (
	kindOther fieldKind = iota
	kindID
	kindName
	kindText
	kindSeed
	kindRuleset
)

// kindOf classifies a field by its name (the last key of its path), as
// foldKey folds it.
func kindOf(key []byte) fieldKind {
	switch string(key) {
	case "id", "unit", "units", "general", "brigade", "target", "side", "player", "campaign", "battle",
		"on_road", "attached_to", "objective", "march", "first_side", "command_id", "attach_to", "leader":
		return kindID
	case "name", "title":
		return kindName
	case "reason", "note", "text", "ruling", "description", "comment":
		return kindText
	case "seed":
		return kindSeed
	case "ruleset":
		return kindRuleset
	}
	return kindOther
}

// CheckBody checks every value of a command's JSON body against the
// limits: valid UTF-8, no null, nesting within MaxDepth, lists within
// MaxPath (a path's waypoints) or MaxList, numbers finite and within
// MaxCoordinate, identifiers of letters, digits, '-', '_' or '.' that all
// show, their letters of one script, no two of a body differing only in
// case ("33-ligne", "33-LIGNE"), names and
// text without control characters (free text may break lines) or
// bidirectional overrides, each within its length. The error names the
// field and the limit, never echoes the value.
//
// It reads the body once as a stream of tokens (jsontext.Decoder), builds
// no value, and stops at the first value over a limit, which it names: its
// cost is one pass over the body, whatever the body holds. It keeps only
// the keys on the way to the value it is at. The command's typed value is
// decoded afterwards, once (decodeBody), and that value is what the
// authorizer and the decision use: a typed decode takes a null for a zero
// value, so nulls are seen here, in the scan.
//
// Every value is judged, a key given twice included (the typed decode
// merges an object given twice, so an earlier value is not overridden by a
// later one: {"to":{"x":1e9},"to":{"y":2}} moves to x 1e9), and a key is
// classed as the decoder matches it, whatever its case (foldKey: "Name",
// "NAME" and "ſide" are name and side). A body that is not JSON passes (the
// command's own decoding says what is wrong) up to the first value over a
// limit before its mistake; only the first value is read; a list's length
// is judged when it passes its limit.
func CheckBody(body json.RawMessage) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if !utf8.Valid(body) {
		return Invalid("command", "not valid UTF-8")
	}
	// encoding/json's reading: a name may come twice, and an escaped lone
	// surrogate is a replacement character.
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var sc scan
	for {
		var done bool
		switch kind := dec.PeekKind(); kind {
		case '"', '0':
			v, err := dec.ReadValue()
			if err != nil {
				return nil // the command's own decoding says what is wrong
			}
			done = sc.scalar(kind, v)
		case '{', '}', '[', ']', 'n', 't', 'f':
			if _, err := dec.ReadToken(); err != nil {
				return nil
			}
			done = sc.token(kind)
		default:
			return nil // not JSON
		}
		if done {
			return sc.broken
		}
	}
}

// MaxDepth is how deep a command's objects and lists may nest: the deepest
// command (an army's units, each with its base's centre) nests five.
const MaxDepth = 32

// scan is CheckBody's state: the objects and lists open around the token
// it reads and the keys they are at; broken is the first limit broken.
type scan struct {
	open []scanned
	// keys holds each open object's key being read, one after another
	// (scanned.key): only the innermost object's changes.
	keys []byte
	// text is a string's text once its escapes are read; folded a key's
	// folded (foldKey).
	text, folded []byte
	// ids are the ids the body gives new things, read so far: each as
	// given, by its case folded (rules.AppendFold, into idText).
	ids    map[string]string
	idText []byte
	broken error
}

// scanned is one object or list being read.
type scanned struct {
	object bool
	// wantKey: an object's next token is a key.
	wantKey bool
	// key is where in scan.keys an object's key of the value being read
	// is.
	key [2]int
	// kind classes the strings read (kindOf): by an object's key, or a
	// list's own key for its items; waypoints: that key is "path".
	kind      fieldKind
	waypoints bool
	// n is the index of a list's item being read (the items read so far).
	n int
}

// at is what classes the value being read: the kind of its key and
// whether it is a path; none at the top.
func (sc *scan) at() (fieldKind, bool) {
	if n := len(sc.open); n > 0 {
		return sc.open[n-1].kind, sc.open[n-1].waypoints
	}
	return kindOther, false
}

// token reads a delimiter or a literal (null, true, false).
func (sc *scan) token(kind jsontext.Kind) (done bool) {
	switch kind {
	case '{', '[':
		if len(sc.open) >= MaxDepth {
			return sc.stop(Invalid(sc.here(), "nested at most %d deep", MaxDepth))
		}
		if kind == '{' {
			sc.open = append(sc.open, scanned{object: true, wantKey: true, key: [2]int{len(sc.keys), len(sc.keys)}})
		} else {
			k, w := sc.at()
			sc.open = append(sc.open, scanned{kind: k, waypoints: w})
		}
		return false
	case '}', ']':
		top := sc.open[len(sc.open)-1]
		if top.object {
			sc.keys = sc.keys[:top.key[0]]
		}
		sc.open = sc.open[:len(sc.open)-1]
		return sc.value()
	case 'n':
		if len(sc.open) > 0 {
			return sc.stop(Invalid(sc.here(), "null: give a value, or leave the field out"))
		}
	}
	return sc.value()
}

// scalar reads a string (a value or an object's key) or a number, raw as
// the body gives it.
func (sc *scan) scalar(kind jsontext.Kind, raw jsontext.Value) (done bool) {
	if kind == '0' {
		// json.Number's Float64: what the decoding reads numbers by.
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > MaxCoordinate {
			return sc.stop(Invalid(sc.here(), "a number between -%d and %d", MaxCoordinate, MaxCoordinate))
		}
		return sc.value()
	}
	text := raw[1 : len(raw)-1]
	if bytes.IndexByte(text, '\\') >= 0 {
		// Invalid escapes are syntax the decoder already refused; an
		// escaped lone surrogate reads as a replacement character.
		sc.text, _ = jsontext.AppendUnquote(sc.text[:0], raw)
		text = sc.text
	}
	if n := len(sc.open); n > 0 && sc.open[n-1].object && sc.open[n-1].wantKey {
		top := &sc.open[n-1]
		sc.keys = append(sc.keys[:top.key[0]], text...)
		top.key[1] = len(sc.keys)
		top.wantKey = false
		sc.folded = foldKey(sc.folded[:0], text)
		top.kind, top.waypoints = kindOf(sc.folded), string(sc.folded) == "path"
		return false
	}
	k, _ := sc.at()
	l := checkString(k, text)
	if l == nil && k == kindID && sc.definesID() {
		l = sc.sameID(text)
	}
	if l != nil {
		return sc.stop(Invalid(sc.here(), l.format, l.args...))
	}
	return sc.value()
}

// definesID reports whether the string being read is an object's "id": an
// id the body gives a new thing (a unit, a brigade, an objective), not one
// it refers to ("unit", "target", "units"), which may name two things
// already there whose ids differ only in case.
func (sc *scan) definesID() bool {
	n := len(sc.open)
	return n > 0 && sc.open[n-1].object && string(sc.folded) == "id"
}

// sameID refuses an identifier that differs from one read before in the
// body only in case ("33-ligne" and "33-LIGNE" in one army.deploy): the
// same id given twice is the command's to judge, but two that read alike
// name two things. Only the ids a body gives new things are read here
// (definesID): an army's, a few hundred at most within the body's size.
func (sc *scan) sameID(id []byte) *limit {
	sc.idText = rules.AppendFold(sc.idText[:0], id)
	if prev, ok := sc.ids[string(sc.idText)]; ok {
		if prev != string(id) {
			return &limit{"identifiers %q and %q differ only in case", []any{prev, string(id)}}
		}
		return nil
	}
	if sc.ids == nil {
		sc.ids = map[string]string{}
	}
	sc.ids[string(sc.idText)] = string(id)
	return nil
}

// stop ends the scan at the first limit broken.
func (sc *scan) stop(err error) bool {
	sc.broken = err
	return true
}

// value counts a value read whole in the object or list around it; done
// at the top, or at a list longer than its limit.
func (sc *scan) value() (done bool) {
	n := len(sc.open)
	if n == 0 {
		return true
	}
	top := &sc.open[n-1]
	if top.object {
		top.wantKey = true
		return false
	}
	top.n++
	switch {
	case top.waypoints && top.n > MaxPath:
		return sc.stop(Invalid(sc.named(n-1), "at most %d waypoints", MaxPath))
	case top.n > MaxList:
		return sc.stop(Invalid(sc.named(n-1), "at most %d items", MaxList))
	}
	return false
}

// here is the path of the value being read, "command" for the body itself.
func (sc *scan) here() string { return sc.named(len(sc.open)) }

// named is pathOf(n), "command" for the body itself.
func (sc *scan) named(n int) string {
	if path := sc.pathOf(n); path != "" {
		return path
	}
	return "command"
}

// pathOf is the path of the value read inside the first n open objects
// and lists: "to.x", "path[3].y", "" at the top. It is made once, for the
// limit broken.
func (sc *scan) pathOf(n int) string {
	var path strings.Builder
	for _, o := range sc.open[:n] {
		if o.object {
			if path.Len() > 0 {
				path.WriteByte('.')
			}
			path.WriteString(shortKey(sc.keys[o.key[0]:o.key[1]]))
		} else {
			path.WriteString("[" + strconv.Itoa(o.n) + "]")
		}
	}
	return path.String()
}

// shortKey is a key as a path names it: at most rules.NameShown
// characters, then "…" (a hostile body's keys are not echoed whole).
// A character that is not printable or reorders text is written as its
// code point (U+001B): a key is not said back to a terminal as it came.
func shortKey(key []byte) string {
	var b strings.Builder
	n := 0
	for _, r := range string(key) {
		if n == rules.NameShown {
			b.WriteString("…")
			break
		}
		n++
		if !unicode.IsPrint(r) || bidiControl(r) {
			b.WriteString(codePoint(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// foldKey appends to dst key as the decoder matches it to a field, lower
// case: encoding/json (and rules' decoding, by its semantics) folds each
// letter to upper case its lower case's ("ſ" is "S"), and matches any case.
func foldKey(dst, key []byte) []byte {
	for i := 0; i < len(key); {
		if c := key[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(key[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(unicode.ToUpper(unicode.ToLower(r))))
		i += n
	}
	return dst
}

// limit is a string's broken limit, in words: Invalid's format and values.
type limit struct {
	format string
	args   []any
}

// checkString bounds one string of a command, its text as read (escapes
// undone): nil when it is within its limits.
func checkString(kind fieldKind, s []byte) *limit {
	n := utf8.RuneCount(s)
	most, what := MaxString, "characters"
	switch kind {
	case kindID:
		most = MaxID
	case kindName:
		most = MaxName
	case kindText:
		most = MaxText
	case kindSeed:
		most, what, n = MaxSeed, "bytes", len(s)
	case kindRuleset:
		most, what, n = MaxRuleset, "bytes", len(s)
	}
	if n > most {
		if what == "bytes" {
			return &limit{"at most %d bytes (%d given)", []any{most, n}}
		}
		return &limit{"at most %d characters (%d given)", []any{most, n}}
	}
	visible := len(s) == 0 || (kind != kindName && kind != kindText)
	// An identifier's first letter and its script (scriptOf).
	var first rune
	var firstScript *unicode.RangeTable
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(s[i:])
		}
		i += size
		switch {
		case r == utf8.RuneError:
			return &limit{"not valid text (a replacement character or a broken escape)", nil}
		case bidiControl(r):
			return &limit{"bidirectional control character %s is not allowed", []any{codePoint(r)}}
		case kind == kindID && !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.", r)):
			return &limit{"an identifier is letters, digits, '-', '_' or '.' (not %s), at most %d", []any{codePoint(r), MaxID}}
		case kind == kindID && !shows(r):
			// A letter that shows blank (the Hangul filler U+3164): two
			// ids would read alike.
			return &limit{"every character of an identifier shows (not %s)", []any{codePoint(r)}}
		case kind == kindID && unicode.IsLetter(r):
			sc := scriptOf(r)
			if sc == nil || romanNumeral(r) {
				// A letter of no script (the katakana long vowel mark
				// U+30FC) or a Roman numeral in capitals ("II-корпус").
				break
			}
			if first == 0 {
				first, firstScript = r, sc
			} else if sc != firstScript {
				// "33-lignе" with a Cyrillic 'е' reads as "33-ligne".
				return &limit{"an identifier's letters are of one script (not %s and %s)", []any{codePoint(first), codePoint(r)}}
			}
		case (kind == kindText || kind == kindRuleset) && (r == '\n' || r == '\t' || r == '\r' || r == '\u2028' || r == '\u2029'):
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			// The line and paragraph separators break a line as '\n'
			// does: only free text has lines.
			return &limit{"control character %s is not allowed", []any{codePoint(r)}}
		}
		visible = visible || shows(r)
	}
	if !visible {
		// Only spaces, invisible characters (U+200B, U+2060, ...), marks
		// with nothing to sit on and blank fillers (U+3164, U+2800): a
		// name or a reason no one can read.
		return &limit{"no visible character", nil}
	}
	return nil
}

// shows reports whether r is drawn as something a reader sees on its own:
// not a space, a control or format character (U+200B), a default-ignorable
// code point (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, U+034F,
// U+17B4), a variation selector (U+FE0F, U+180B), a mark (U+0301: it
// shows only on a character that shows) or the Braille blank U+2800.
func shows(r rune) bool {
	if r < utf8.RuneSelf {
		return r > ' ' && r < 0x7F
	}
	return unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.IsMark(r) && r != '\u2800' &&
		!unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// scripts are the scripts an identifier's letters are looked up in first;
// any other letter's is found in unicode.Scripts.
var scripts = []*unicode.RangeTable{unicode.Latin, unicode.Cyrillic, unicode.Greek, unicode.Han, unicode.Hiragana, unicode.Katakana,
	unicode.Hangul, unicode.Arabic, unicode.Hebrew, unicode.Armenian, unicode.Georgian}

// scriptOf is the script of a letter (unicode.Latin, unicode.Cyrillic,
// ...): Japanese writing's Hiragana and Katakana count as Han, which they
// are written with; nil for a letter of no script.
func scriptOf(r rune) *unicode.RangeTable {
	if r < utf8.RuneSelf {
		return unicode.Latin // a letter of ASCII
	}
	for _, t := range scripts {
		if unicode.Is(t, r) {
			if t == unicode.Hiragana || t == unicode.Katakana {
				return unicode.Han
			}
			return t
		}
	}
	for _, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			if t == unicode.Common || t == unicode.Inherited {
				return nil
			}
			return t
		}
	}
	return nil
}

// romanNumeral reports the capital letters Roman numerals are written
// with: a corps or a battalion numbered "II" or "XIV" beside a name in
// another script is one id, not two look-alikes.
func romanNumeral(r rune) bool { return strings.ContainsRune("IVXLCDM", r) }

// codePoint names a character by its code point, U+202E.
func codePoint(r rune) string { return fmt.Sprintf("U+%04X", r) }

// bidiControl reports the characters that reorder text as it is shown:
// embeddings, overrides and isolates, and the invisible marks.
func bidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}
