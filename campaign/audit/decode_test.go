package audit_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// TestDecodersAgreeOnEveryEvent: every event of played battles decodes
// by events.Decode and rules.DecodeEvent (encoding/json's semantics on
// encoding/json/v2) exactly as the standard library's encoding/json
// decodes it.
func TestDecodersAgreeOnEveryEvent(t *testing.T) {
	types := map[string]bool{}
	for _, evs := range [][]events.Envelope{playFirstBattle(t), playNoncedBattle(t, dice.SchemeV2).evs} {
		for _, e := range evs {
			got, err := events.Decode(e.Raw)
			if err != nil {
				t.Fatalf("v%d: %v", e.Version, err)
			}
			var want events.Envelope
			if err := json.Unmarshal(e.Raw, &want); err != nil {
				t.Fatalf("v%d: %v", e.Version, err)
			}
			want.Raw = e.Raw
			if !reflect.DeepEqual(got, want) {
				t.Errorf("v%d %s: Decode %+v, encoding/json %+v", e.Version, e.Type, got, want)
			}
			ev, err := rules.DecodeEvent(e.Type, e.Payload)
			if err != nil {
				if strings.Contains(err.Error(), "unknown event type") {
					continue // a campaign's event, not a battle's
				}
				t.Fatalf("v%d %s: %v", e.Version, e.Type, err)
			}
			std := reflect.New(reflect.TypeOf(ev).Elem()).Interface()
			if err := json.Unmarshal(e.Payload, std); err != nil {
				t.Fatalf("v%d %s: %v", e.Version, e.Type, err)
			}
			if !reflect.DeepEqual(ev, std) {
				t.Errorf("v%d %s: DecodeEvent %+v, encoding/json %+v", e.Version, e.Type, ev, std)
			}
			types[e.Type] = true
		}
	}
	if len(types) < 12 {
		t.Errorf("only %d event types compared: %v", len(types), types)
	}
	t.Logf("%d battle event types compared", len(types))
}
