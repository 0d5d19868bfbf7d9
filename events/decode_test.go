package events_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/events"
)

// sampleEnvelope is a signed event of a battle as the ledger stores it:
// every field set, a payload of the usual size.
func sampleEnvelope() events.Envelope {
	return events.Envelope{ID: "danube-1809/eggmuhl/page-0123/0", Campaign: "danube-1809", Battle: "eggmuhl", Version: 123,
		Type: "order.resolved", Schema: 1, Time: time.Date(2026, 12, 1, 2, 3, 4, 5e6, time.UTC), Actor: "ump", OnBehalfOf: "marie",
		CommandID: "page-0123", RequestHash: strings.Repeat("9f", 32), Audience: events.AudienceAll, PrevHash: strings.Repeat("0e", 32),
		Payload: json.RawMessage(`{"general":"montbrun","units":["7-chasseurs","11-chasseurs"],"rating":7,"effective_rating":7,"roll":[4,4],"modifiers":[{"rule":"C.2","value":-1,"why":"out of range \u00e9\"q\""}],"result":"failed","actions":0,"counter":12}`),
		Signer:  strings.Repeat("da", 32), Sig: strings.Repeat("kS0yV8b2", 11) + "=="}
}

// decodeStd decodes as the standard library's encoding/json does.
func decodeStd(raw []byte) (events.Envelope, error) {
	var e events.Envelope
	if err := json.Unmarshal(raw, &e); err != nil {
		return events.Envelope{}, err
	}
	e.Raw = raw
	return e, nil
}

// decodeCases are stored forms, well made and not: what the ledger writes,
// and what a damaged or forged log may hold.
func decodeCases(t testing.TB) []string {
	good := sampleEnvelope()
	raw, err := good.Encode()
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	return []string{
		s,
		`{"id":"c/1/0","campaign":"c","version":1,"type":"campaign.created","schema":1,"time":"2026-12-01T02:03:04Z","actor":"operator","command_id":"1","audience":"all","prev_hash":"","payload":{}}`,
		// Names in another case, duplicates, unknown members, nulls.
		strings.Replace(s, `"id":`, `"ID":`, 1),
		strings.Replace(s, `"actor":"ump"`, `"actor":"ump","actor":"karl"`, 1),
		strings.Replace(s, `"payload":`, `"extra":[1,{"a":null}],"payload":`, 1),
		strings.Replace(s, `"battle":"eggmuhl"`, `"battle":null`, 1),
		strings.Replace(s, `"payload":{`, `"payload":null,"x":{`, 1),
		// Escapes and text that is not UTF-8.
		strings.Replace(s, `"actor":"ump"`, `"actor":"\u00fcmp\ud83d\ude00\n\t\\\/"`, 1),
		strings.Replace(s, `"actor":"ump"`, "\"actor\":\"u\xffm\xc3p\"", 1),
		strings.Replace(s, `"actor":"ump"`, `"actor":"\ud800"`, 1),
		// Wrong kinds of values.
		strings.Replace(s, `"version":123`, `"version":"123"`, 1),
		strings.Replace(s, `"version":123`, `"version":-1`, 1),
		strings.Replace(s, `"version":123`, `"version":1e2`, 1),
		strings.Replace(s, `"version":123`, `"version":18446744073709551616`, 1),
		strings.Replace(s, `"schema":1`, `"schema":1.5`, 1),
		strings.Replace(s, `"time":"2026-12-01T02:03:04.005Z"`, `"time":"2026-12-01 02:03:04"`, 1),
		strings.Replace(s, `"time":"2026-12-01T02:03:04.005Z"`, `"time":"2026-12-01T02:03:04.005+02:00"`, 1),
		strings.Replace(s, `"time":"2026-12-01T02:03:04.005Z"`, `"time":null`, 1),
		strings.Replace(s, `"actor":"ump"`, `"actor":7`, 1),
		// Not JSON, or not one object.
		s[:len(s)/2],
		s + " ",
		s + "{}",
		"[" + s + "]",
		"null",
		"",
		`{"payload":{"a":1,}}`,
	}
}

// TestDecodeAgreesWithEncodingJSON: Decode gives what the standard
// library's encoding/json gives for the same bytes, the envelope or an
// error, for the ledger's own events and for damaged ones.
func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	for i, c := range decodeCases(t) {
		checkDecodeAgrees(t, i, []byte(c))
	}
}

func checkDecodeAgrees(t *testing.T, i int, raw []byte) {
	t.Helper()
	got, gerr := events.Decode(raw)
	want, werr := decodeStd(raw)
	if (gerr == nil) != (werr == nil) {
		t.Errorf("case %d %.80q: Decode error %v, encoding/json error %v", i, raw, gerr, werr)
		return
	}
	if gerr == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("case %d %.80q:\nDecode        %+v\nencoding/json %+v", i, raw, got, want)
	}
}

// FuzzDecodeAgrees holds Decode to encoding/json on any bytes.
func FuzzDecodeAgrees(f *testing.F) {
	for _, c := range decodeCases(f) {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkDecodeAgrees(t, 0, raw) })
}

// BenchmarkDecode decodes a signed event as the projection, the audit and
// the service read it; BenchmarkDecodeEncodingJSON the same with the
// standard library's encoding/json, for the ratio.
func BenchmarkDecode(b *testing.B) {
	e := sampleEnvelope()
	raw, err := e.Encode()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := events.Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeEncodingJSON(b *testing.B) {
	e := sampleEnvelope()
	raw, err := e.Encode()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := decodeStd(raw); err != nil {
			b.Fatal(err)
		}
	}
}
