package main

import (
	"strings"
	"testing"
)

// TestServeAuditHeadPattern: ?head= on a battle's audit is a head hash as
// docs/openapi.yaml gives its pattern (16 to 64 hexadecimal digits, lowercase);
// anything else is refused 400 in words, as any malformed request, instead
// of an audit that says a head "zz" is not in the chain.
func TestServeAuditHeadPattern(t *testing.T) {
	ts := seed(t)
	path := "/api/campaigns/demo/battles/b1/audit"
	for _, bad := range []string{"zz", strings.Repeat("A", 64), strings.Repeat("0", 15), strings.Repeat("0", 64) + "0"} {
		r := ts.do("GET", path+"?head="+bad, ts.tokens["rita"], nil)
		if r.status != 400 || r.errorField("code") != "bad_request" || !strings.Contains(r.errorField("message").(string), "head") {
			t.Errorf("?head=%s: %d %s, want 400 bad_request naming the head", bad, r.status, r.raw)
		}
	}
	head := ts.must(ts.do("GET", path, ts.tokens["rita"], nil), 200).body["head"].(string)
	r := ts.must(ts.do("GET", path+"?head="+head, ts.tokens["rita"], nil), 200)
	if !strings.Contains(string(r.raw), head) {
		t.Errorf("?head= the battle's own head: %s", r.raw)
	}
}
