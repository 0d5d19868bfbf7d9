package main

import (
	"strings"
	"testing"
)

// TestCampaignCreateIsTheOperators: a person's token creating a campaign
// at the CLI, through the folder's door of a running server and on the
// folder alone, is forbidden (exit 7), not a campaign not found (exit 1).
func TestCampaignCreateIsTheOperators(t *testing.T) {
	ts := seed(t)
	c := &testCLI{t: t, cfg: ts.cfg}
	c.cfg.Token = ts.tokens["marie"]
	create := []string{"campaign", "create", "evil", "--name", "Evil", "--side", "a:A", "--side", "b:B"}
	if code, _, errs := c.run(create...); code != exitForbidden || !strings.Contains(errs, "creating a campaign is the operator's") {
		t.Errorf("marie's token creating a campaign through the door: exit %d, want %d\n%s", code, exitForbidden, errs)
	}

	// On the folder alone (no server): the same answer.
	op := newCLI(t)
	op.ok("campaign", "create", "club", "--name", "Club", "--side", "a:A", "--side", "b:B")
	var added struct {
		Token string `json:"token"`
	}
	mustJSON(t, []byte(op.ok("-o", "json", "player", "add", "club", "marie", "--role", "player", "--side", "a")), &added)
	p := &testCLI{t: t, cfg: op.cfg, entropy: op.entropy}
	p.cfg.Token = added.Token
	if code, _, errs := p.run(create...); code != exitForbidden || !strings.Contains(errs, "creating a campaign is the operator's") {
		t.Errorf("marie's token creating a campaign on the folder: exit %d, want %d\n%s", code, exitForbidden, errs)
	}
}
