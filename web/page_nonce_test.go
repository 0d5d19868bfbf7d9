package web_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestPageNonce runs the page's own web/static/nonce.js (the module
// play.js sends every command with) in Node.js: a command resent after a
// network failure keeps its id and its nonce, so a server that dropped the
// first attempt has no second roll to choose from (issue 25, item 8); a
// command the ledger answered is forgotten, the next one has a new id and
// nonce; and the nonce is checked on a duplicate answer too: a repeat that
// comes back with a roll of another nonce is named. Skipped where there is
// no node.
func TestPageNonce(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node: the page's nonce module is not run")
	}
	mod, err := filepath.Abs("static/nonce.js")
	if err != nil {
		t.Fatal(err)
	}
	script := `
import { commandBody, settle, foreignRolls } from ` + strconv.Quote("file://"+filepath.ToSlash(mod)) + `;
let n = 0;
const hex = k => (++n).toString(16).padStart(2 * k, "0");
const holder = {};
const first = commandBody(holder, null, hex);
const resent = commandBody(holder, null, hex);          // the network failed: sent again
const withDice = commandBody({}, [3, 4], hex);
settle(holder);
const next = commandBody(holder, null, hex);
const roll = nonce => ({ version: 7, type: "dice.rolled", payload: { source: "digital", nonce } });
console.log(JSON.stringify({ first, resent, withDice, next,
  mine: foreignRolls(first, { events: [roll(first.nonce.toUpperCase())] }),
  foreign: foreignRolls(first, { events: [roll("ab".repeat(16))] }),
  foreignDuplicate: foreignRolls(resent, { duplicate: true, events: [roll("ab".repeat(16))] }),
  mineDuplicate: foreignRolls(resent, { duplicate: true, events: [roll(first.nonce)] }),
  physical: foreignRolls(withDice, { events: [{ version: 3, type: "dice.rolled", payload: { source: "physical" } }] }),
}));
`
	out, err := exec.Command(node, "--input-type=module", "-e", script).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	type body struct {
		ID    string `json:"id"`
		Nonce string `json:"nonce"`
		Dice  []int  `json:"dice"`
	}
	var got struct {
		First, Resent, WithDice, Next                            body
		Mine, Foreign, ForeignDuplicate, MineDuplicate, Physical []int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("%s", out)
	if got.First.ID == "" || len(got.First.Nonce) != 32 {
		t.Errorf("first attempt %+v: want an id and a 32-hex-digit nonce", got.First)
	}
	if got.Resent.ID != got.First.ID || got.Resent.Nonce != got.First.Nonce {
		t.Errorf("resent as %+v after %+v: want the same id and the same nonce", got.Resent, got.First)
	}
	if got.WithDice.Nonce != "" || len(got.WithDice.Dice) != 2 {
		t.Errorf("with physical dice: %+v, want the dice and no nonce", got.WithDice)
	}
	if got.Next.ID == got.First.ID || got.Next.Nonce == got.First.Nonce {
		t.Errorf("the next command %+v repeats the answered one's %+v", got.Next, got.First)
	}
	if len(got.Mine) != 0 || len(got.MineDuplicate) != 0 || len(got.Physical) != 0 {
		t.Errorf("rolls with this device's nonce (or physical) named: %v %v %v", got.Mine, got.MineDuplicate, got.Physical)
	}
	if len(got.Foreign) != 1 || got.Foreign[0] != 7 || len(got.ForeignDuplicate) != 1 || got.ForeignDuplicate[0] != 7 {
		t.Errorf("a roll of another nonce: named %v, on a duplicate answer %v; want [7] both", got.Foreign, got.ForeignDuplicate)
	}
}
