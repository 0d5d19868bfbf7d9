package main

import (
	"strings"
	"testing"
	"unicode"
)

// TestAuditInRussian: the audit asked in Russian (?lang=ru, what the page's
// audit card asks when the page is in Russian) names each check, says its
// summary and its findings in Russian, and says so (lang); the ids, the
// statuses and the head are the same as in English.
func TestAuditInRussian(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "")
	path := "/api/campaigns/demo/battles/aspern/audit"
	en := ts.must(ts.do("GET", path+"?lang=en", ts.tokens["marie"], nil), 200)
	ru := ts.must(ts.do("GET", path+"?lang=ru", ts.tokens["marie"], nil), 200)
	if ru.body["lang"] != "ru" || en.body["lang"] != nil || ru.body["head"] != en.body["head"] {
		t.Fatalf("lang %v / %v, heads %v / %v", ru.body["lang"], en.body["lang"], ru.body["head"], en.body["head"])
	}
	cyrillic := func(s string) bool {
		return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) >= 0
	}
	ec, rc := en.body["checks"].([]any), ru.body["checks"].([]any)
	if len(ec) != len(rc) || len(rc) < 5 {
		t.Fatalf("%d checks in English, %d in Russian", len(ec), len(rc))
	}
	summaries := 0
	for i := range rc {
		e, r := ec[i].(map[string]any), rc[i].(map[string]any)
		if r["id"] != e["id"] || r["status"] != e["status"] {
			t.Errorf("check %d: %v %v in Russian, %v %v in English", i, r["id"], r["status"], e["id"], e["status"])
		}
		if title := r["title"].(string); !cyrillic(title) {
			t.Errorf("check %v's title in Russian: %q", r["id"], title)
		}
		if cyrillic(r["summary"].(string)) {
			summaries++
		}
	}
	if summaries < len(rc)/2 {
		t.Errorf("%d of %d summaries in Russian: %v", summaries, len(rc), rc)
	}
}
