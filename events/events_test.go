package events

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func batch(n int) []Envelope {
	out := make([]Envelope, n)
	for i := range out {
		out[i] = Envelope{ID: "c1/b1/cmd/" + string(rune('a'+i)), Campaign: "c1", Battle: "b1", Type: "t.happened", Schema: 1,
			Time: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), Actor: "umpire", CommandID: "cmd", Audience: AudienceAll,
			Payload: json.RawMessage(`{"n":` + string(rune('0'+i)) + `}`)}
	}
	return out
}

func TestChainAndVerify(t *testing.T) {
	first := batch(3)
	if err := Chain(nil, first); err != nil {
		t.Fatal(err)
	}
	second := batch(2)
	if err := Chain(&first[2], second); err != nil {
		t.Fatal(err)
	}
	all := append(append([]Envelope(nil), first...), second...)
	for i, e := range all {
		if e.Version != uint64(i+1) {
			t.Fatalf("event %d has version %d", i, e.Version)
		}
	}
	if all[0].PrevHash != "" || all[3].PrevHash != Hash(all[2].Raw) {
		t.Fatal("prev_hash does not link the batches")
	}
	if err := VerifyChain(all); err != nil {
		t.Fatal(err)
	}
	// Decoding the stored bytes gives back the same envelope and bytes.
	d, err := Decode(all[4].Raw)
	if err != nil || d.ID != all[4].ID || string(d.Raw) != string(all[4].Raw) || d.PrevHash != all[4].PrevHash {
		t.Fatalf("decode: %+v %v", d, err)
	}
	if re, _ := d.Encode(); string(re) != string(all[4].Raw) {
		t.Fatal("re-encoding a decoded envelope changed its bytes")
	}
}

func TestVerifyChainNamesTheBrokenEvent(t *testing.T) {
	evs := batch(5)
	if err := Chain(nil, evs); err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		tampered := append([]Envelope(nil), evs...)
		raw := append([]byte(nil), evs[i].Raw...)
		raw[len(raw)-3] ^= 1 // flip a bit inside the payload
		tampered[i].Raw = raw
		err := VerifyChain(tampered)
		var ce *ChainError
		if i == len(evs)-1 {
			// The last event's own bytes are covered by no later hash.
			if err != nil {
				t.Fatalf("last event: %v", err)
			}
			continue
		}
		if !errors.As(err, &ce) || ce.Version != uint64(i+2) {
			t.Fatalf("flipped event %d: %v", i+1, err)
		}
	}
	gap := append(append([]Envelope(nil), evs[:2]...), evs[3:]...)
	var ce *ChainError
	if err := VerifyChain(gap); !errors.As(err, &ce) || !strings.Contains(ce.Reason, "version 4 where 3 was expected") {
		t.Fatalf("gap: %v", err)
	}
}

func TestKeyValidation(t *testing.T) {
	for _, ok := range []Key{{Campaign: "c1"}, {Campaign: "autumn-1809", Battle: "b_2"}} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
	for _, bad := range []Key{{}, {Campaign: "C1"}, {Campaign: "c.1"}, {Campaign: "c1", Battle: "b 1"}, {Campaign: "c1", Battle: ">"}, {Campaign: strings.Repeat("a", 65)}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%q accepted", bad.String())
		}
	}
}

// TestUpcastVersionOneReadByVersionTwo: a payload stored at schema 1 is
// read by code whose type is at schema 3, through the registered upcasters,
// and the stored envelope is left as it was.
func TestUpcastVersionOneReadByVersionTwo(t *testing.T) {
	r := NewRegistry()
	r.Register("unit.moved", 3, "a unit moved")
	r.RegisterUpcaster("unit.moved", 1, func(p json.RawMessage) (json.RawMessage, error) {
		var v1 struct {
			Unit string  `json:"unit"`
			Dist float64 `json:"dist"`
		}
		if err := json.Unmarshal(p, &v1); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"unit": v1.Unit, "distance": v1.Dist})
	})
	r.RegisterUpcaster("unit.moved", 2, func(p json.RawMessage) (json.RawMessage, error) {
		var v2 map[string]any
		if err := json.Unmarshal(p, &v2); err != nil {
			return nil, err
		}
		v2["actions_used"] = 1
		return json.Marshal(v2)
	})
	e := Envelope{ID: "x", Type: "unit.moved", Schema: 1, Payload: json.RawMessage(`{"unit":"u1","dist":6}`)}
	got, err := r.Upcast(&e)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"actions_used":1,"distance":6,"unit":"u1"}` {
		t.Fatalf("upcast to %s", got)
	}
	if string(e.Payload) != `{"unit":"u1","dist":6}` || e.Schema != 1 {
		t.Fatal("upcasting changed the stored envelope")
	}
	if _, err := r.Upcast(&Envelope{ID: "y", Type: "unit.moved", Schema: 4}); err == nil {
		t.Fatal("a payload newer than the program was read")
	}
	if _, err := r.Upcast(&Envelope{ID: "z", Type: "unit.vanished", Schema: 1}); err == nil {
		t.Fatal("an unknown type was read")
	}
	r2 := NewRegistry()
	r2.Register("a", 2, "")
	if _, err := r2.Upcast(&Envelope{ID: "w", Type: "a", Schema: 1}); err == nil || !strings.Contains(err.Error(), "no upcaster") {
		t.Fatalf("missing upcaster: %v", err)
	}
}

func TestRegistryRefusesReuse(t *testing.T) {
	r := NewRegistry()
	r.Register("a.happened", 1, "")
	defer func() {
		if recover() == nil {
			t.Fatal("a type name was registered twice")
		}
	}()
	r.Register("a.happened", 2, "")
}
