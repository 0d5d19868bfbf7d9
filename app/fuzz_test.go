package app

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/internal/bounded"
	"github.com/clubledger/ledger/rules"
)

// hostile are texts a player can type into a name, a reason or a ruling:
// long words, every script, control characters, markup and text that
// looks like a template or a format.
var hostile = []string{
	strings.Repeat("R", 300),
	strings.Repeat("Ж", 2000),
	"a\x00b\x01c\td\ne\u200b\u202e",
	"<b>&amp;</b> \"'",
	"{unit} {n} {{.}} %s %d %!v %[2]*[1]d ${x} {{range .}}",
	"👩‍👩‍👧‍👦 ﷽ 𒐫",
	strings.Repeat("{", 500),
	"",
}

// fill sets every string of v to s, every number to f, and gives every
// slice and map n elements, as deep as depth: a payload of any event type
// whose every field a player could have typed holds s.
func fill(v reflect.Value, s string, f float64, n, depth int) {
	if depth == 0 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem(), s, f, n, depth-1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), s, f, n, depth-1)
			}
		}
	case reflect.String:
		v.SetString(s)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(f)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !v.OverflowInt(int64(f)) {
			v.SetInt(int64(f))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if f >= 0 && !v.OverflowUint(uint64(f)) {
			v.SetUint(uint64(f))
		}
	case reflect.Bool:
		v.SetBool(n%2 == 1)
	case reflect.Slice:
		sl := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(sl.Index(i), s, f, n, depth-1)
		}
		v.Set(sl)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		if v.Type().Key().Kind() == reflect.String {
			for i := range n {
				k := reflect.ValueOf(s + strings.Repeat("·", i)).Convert(v.Type().Key())
				e := reflect.New(v.Type().Elem()).Elem()
				fill(e, s, f, n, depth-1)
				m.SetMapIndex(k, e)
			}
		}
		v.Set(m)
	}
}

// FuzzDescribe: an event of every type, whose every text is anything a
// player can type and whose every number is any number, is described in
// English (rules.Describe) and in Russian (the catalogue's templates) in
// time and memory bounded by the payload's size, whatever the text holds.
func FuzzDescribe(f *testing.F) {
	types := rules.EventTypes()
	for i, s := range hostile {
		f.Add(uint8(i*7), s, 1.5, uint8(3))
		f.Add(uint8(i*11+3), s, 1e300, uint8(0))
	}
	f.Add(uint8(0), "x", -1e-300, uint8(9))
	cat := i18n.MustLoad()
	f.Fuzz(func(t *testing.T, which uint8, text string, num float64, n uint8) {
		typ := types[int(which)%len(types)].Name
		ev, err := rules.DecodeEvent(typ, []byte(`{}`))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		fill(reflect.ValueOf(ev), text, num, int(n%6), 6)
		payload, err := json.Marshal(ev)
		if err != nil {
			return // a number JSON cannot hold (NaN, ±Inf): never stored
		}
		info, _ := campaign.Registry().Lookup(typ)
		e := events.Envelope{Campaign: "c", Battle: "b", Type: typ, Schema: info.Schema, Version: 1, Payload: payload, Time: time.Unix(0, 0)}
		for _, lang := range i18n.Languages {
			d := NewDescriber(cat, lang, func(events.Key) string { return "cm" })
			var out string
			bounded.Check(t, bounded.For(len(payload), 1<<20, 512, 5*time.Second), typ+" described in "+lang, func() { out = d.Describe(e) })
			if len(out) > 64*len(payload)+4096 {
				t.Fatalf("%s in %s: a description of %d bytes for a payload of %d", typ, lang, len(out), len(payload))
			}
		}
	})
}

// FuzzDescribeCampaign: the same for a campaign's events.
func FuzzDescribeCampaign(f *testing.F) {
	for _, s := range hostile {
		f.Add(s, uint8(2))
	}
	cat := i18n.MustLoad()
	f.Fuzz(func(t *testing.T, text string, n uint8) {
		payload, _ := json.Marshal(map[string]any{"id": text, "name": text, "player": text, "role": text, "side": text,
			"sides": []map[string]string{{"id": text, "name": text, "nation": text}}, "battle": text, "reason": text, "units": []string{text, text}})
		for _, typ := range []string{campaign.EvCreated, campaign.EvBattleAdded, campaign.EvPlayerAdded, campaign.EvTokenReissued} {
			e := events.Envelope{Campaign: "c", Type: typ, Schema: 1, Version: 1, Payload: payload, Time: time.Unix(0, 0)}
			for _, lang := range i18n.Languages {
				d := NewDescriber(cat, lang, nil)
				bounded.Check(t, bounded.For(len(payload), 1<<20, 512, 5*time.Second), typ+" described in "+lang, func() { _ = d.Describe(e) })
			}
		}
	})
}
