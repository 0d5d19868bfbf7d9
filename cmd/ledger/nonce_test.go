package main

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/clubledger/ledger/app"
)

// TestCheckNonce: the CLI compares the nonce it sent with the one each
// digital roll recorded; a roll recorded with another nonce, or none, is a
// failed check (exit 4) naming the event, never a silent success.
func TestCheckNonce(t *testing.T) {
	roll := func(nonce string) app.EventView {
		p, _ := json.Marshal(map[string]any{"source": "digital", "nonce": nonce})
		return app.EventView{Version: 9, Type: "dice.rolled", Payload: p}
	}
	cmd := app.Command{Nonce: "00112233445566778899aabbccddeeff"}
	if err := checkNonce(cmd, app.Result{Events: []app.EventView{roll("00112233445566778899AABBCCDDEEFF")}}); err != nil {
		t.Errorf("the same nonce: %v", err)
	}
	for _, recorded := range []string{"", "ffeeddccbbaa99887766554433221100"} {
		err := checkNonce(cmd, app.Result{Events: []app.EventView{roll(recorded)}})
		var ce *checkError
		if !errors.As(err, &ce) {
			t.Errorf("recorded %q: %v", recorded, err)
		}
	}
	if err := checkNonce(app.Command{}, app.Result{Events: []app.EventView{roll("x")}}); err != nil {
		t.Errorf("no nonce sent (the operator's own command): %v", err)
	}
}
