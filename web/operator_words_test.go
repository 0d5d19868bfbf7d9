package web_test

import (
	"strings"
	"testing"

	"github.com/clubledger/ledger/web"
)

// TestOperatorRefusalsSayWhat: a person's token is forbidden (403) a
// backup, in words naming the backup (not the ledger's status), and
// campaign.create of a campaign that does not exist yet (not 404: only
// the operator creates campaigns); a stranger's token is 401 either way.
// A reused command id's 409 says its advice once and, in its detail, which
// command has the id.
func TestOperatorRefusalsSayWhat(t *testing.T) {
	s := startServer(t, web.Options{})
	s.seed()
	r := s.do("POST", "/api/admin/backup", s.tokens["marie"], nil)
	if msg, _ := r.errorField("message").(string); r.status != 403 || !strings.Contains(msg, "a backup is the operator's") || strings.Contains(msg, "status") {
		t.Errorf("backup with a player's token: %d %s, want 403 naming the backup", r.status, r.raw)
	}
	r = s.do("POST", "/api/campaigns/evil/commands/campaign.create", s.tokens["marie"], map[string]any{"command": map[string]any{
		"name": "Evil", "sides": []map[string]string{{"id": "a", "name": "A"}, {"id": "b", "name": "B"}}}})
	if msg, _ := r.errorField("message").(string); r.status != 403 || r.errorField("code") != "forbidden" || !strings.Contains(msg, "creating a campaign is the operator's") {
		t.Errorf("campaign.create with a player's token: %d %s, want 403 forbidden", r.status, r.raw)
	}
	if r = s.do("POST", "/api/campaigns/evil/commands/campaign.create", "lt_0000000000000000000000000000000000000000", map[string]any{"command": map[string]any{
		"name": "Evil", "sides": []map[string]string{{"id": "a", "name": "A"}, {"id": "b", "name": "B"}}}}); r.status != 401 {
		t.Errorf("campaign.create with nobody's token: %d %s, want 401", r.status, r.raw)
	}
	if r = s.do("GET", "/api/campaigns/evil", adminToken, nil); r.status != 404 {
		t.Errorf("campaign evil after the refusals: %d %s, want 404 (not created)", r.status, r.raw)
	}

	s.must(s.command(adminToken, "", "player.add", map[string]any{"id": "dup1", "command": map[string]string{"player": "anna", "role": "reader"}}), 201)
	r = s.command(adminToken, "", "player.add", map[string]any{"id": "dup1", "command": map[string]string{"player": "otto", "role": "reader"}})
	msg, _ := r.errorField("message").(string)
	if r.status != 409 || strings.Count(msg, "new id") != 1 || strings.Count(msg, "already used") != 1 || !strings.Contains(msg, `(command id "dup1": campaign.player_added, event`) {
		t.Errorf("a reused id: %d %q, want 409 saying its advice once and naming the command with the id", r.status, msg)
	}
}
