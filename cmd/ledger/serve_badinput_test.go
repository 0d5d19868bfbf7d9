package main

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestServeThousandBadCommands sends 1,000 commands over HTTP that are
// malformed, unauthorised, forbidden to the sender's role or side, or
// refused by the rules: every one is answered with a clear, structured
// error, and the battle's log gains nothing. Unknown tokens answer 401
// until the address has spent its failed checks, then 429 with
// Retry-After; the good tokens beside them are answered as ever.
func TestServeThousandBadCommands(t *testing.T) {
	ts := seed(t)
	before := ts.lastVersion()
	rng := rand.New(rand.NewPCG(1809, 5))
	t.Logf("seed 1809/5")
	move := func(unit string, y float64) map[string]any {
		return map[string]any{"command": map[string]any{"unit": unit, "to": map[string]float64{"x": 24, "y": y}}}
	}
	type bad struct {
		token  string
		name   string
		body   any
		status int
	}
	kinds := []func() bad{
		func() bad { return bad{"", "unit.move", move("33-ligne", 20), 401} },
		func() bad {
			return bad{"lt_" + fmt.Sprintf("%040x", rng.Uint64()), "unit.move", move("33-ligne", 20), 401}
		},
		func() bad { return bad{ts.tokens["rita"], "unit.move", move("33-ligne", 20), 403} },
		func() bad { return bad{ts.tokens["marie"], "unit.move", move("ir-4", 30), 403} },
		func() bad {
			return bad{ts.tokens["karl"], "phase.end", map[string]any{"command": map[string]any{"side": "french"}}, 403}
		},
		func() bad {
			return bad{ts.tokens["marie"], "battle.end", map[string]any{"command": map[string]any{"reason": "x"}}, 403}
		},
		func() bad { return bad{ts.tokens["marie"], "unit.move", "{" + fmt.Sprint(rng.IntN(100)), 400} },
		func() bad {
			return bad{ts.tokens["marie"], "unit.move", map[string]any{"command": map[string]any{"unit": "33-ligne", "bogus": rng.IntN(9)}}, 400}
		},
		func() bad { return bad{ts.tokens["marie"], "unit.teleport", move("33-ligne", 20), 404} },
		func() bad { return bad{ts.tokens["marie"], "unit.move", move("33-ligne", 22.1+rng.Float64()*20), 422} },
		func() bad {
			return bad{ts.tokens["karl"], "order.give", map[string]any{"dice": []int{3, 3}, "command": map[string]any{
				"general": "vukassovich", "units": []string{"ir-4"}, "content": map[string]any{"action": "move"}}}, 422}
		},
		func() bad {
			// A die that shows no such face is bad input, not a decision.
			return bad{ts.tokens["marie"], "order.give", map[string]any{"dice": []int{0, 7}, "command": map[string]any{
				"general": "friant", "units": []string{"48-ligne"}, "content": map[string]any{"action": "move"}}}, 400}
		},
	}
	counts := map[int]int{}
	for i := 0; i < 1000; i++ {
		b := kinds[rng.IntN(len(kinds))]()
		r := ts.do("POST", "/api/campaigns/demo/battles/b1/commands/"+b.name, b.token, b.body)
		if r.status == 429 && b.status == 401 && b.token != "" && r.errorField("code") == "too_many_failed_tokens" {
			// Unknown tokens from one address are throttled once it has
			// spent its failed checks (http.token_failures_per_minute).
			counts[r.status]++
			continue
		}
		if r.status != b.status {
			t.Fatalf("command %d (%s): status %d, want %d: %s", i, b.name, r.status, b.status, r.raw)
		}
		msg, _ := r.errorField("message").(string)
		code, _ := r.errorField("code").(string)
		if len(msg) < 8 || code == "" {
			t.Fatalf("command %d (%s): unclear error %s", i, b.name, r.raw)
		}
		if b.status == 422 && r.errorField("rule") == nil {
			t.Fatalf("command %d: a refusal without its rule: %s", i, r.raw)
		}
		counts[r.status]++
	}
	t.Logf("answers by status: %v", counts)
	if after := ts.lastVersion(); after != before {
		t.Fatalf("1,000 bad commands appended: last version %d -> %d", before, after)
	}
}
