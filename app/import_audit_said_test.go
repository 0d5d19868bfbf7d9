package app

import (
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
)

// TestImportAuditSaidInRussian: why an import's audit fails (a key given
// wrong, no key to audit against, an audit's failure) is said in Russian
// from its format and values (detail.import_refused, detail.import_audit,
// phrase.audit.failed), with no English but ids and flags; in English as
// it always printed. Before, the audit's error was a value of English
// words in the Russian ("аудит не пройден, ничего не импортировано: the
// key ... given with --key is not ...").
func TestImportAuditSaidInRussian(t *testing.T) {
	cat := i18n.MustLoad()
	x := &audit.Export{Meta: audit.Meta{Campaign: "camp-1", Battle: "b-1", Events: 1}, Events: []events.Envelope{{Version: 1, Campaign: "camp-1", Battle: "b-1", Type: "battle.created", Raw: []byte(`{}`)}}, Hashes: []string{"00"}}
	latin := regexp.MustCompile(`[A-Za-z][A-Za-z0-9_.\-]*`)
	cases := map[string][]string{
		"a key given wrong":  {"zz-not-hex"},
		"no key to audit":    nil,
		"an audit's failure": {"0123456789abcdef"},
	}
	for name, named := range cases {
		_, failed := importAudit(x, events.NewKeyring(0), named)
		if failed == nil {
			t.Fatalf("%s: the import passed its audit", name)
		}
		if en := cat.Detail("en", "detail.import_refused", failed.Words, failed.Reason); en != failed.Reason || failed.Words.String() != failed.Reason {
			t.Errorf("%s: the English %q, said %q", name, failed.Reason, en)
		}
		ru := cat.Detail("ru", "detail.import_refused", failed.Words, failed.Reason)
		if ru == failed.Reason {
			t.Errorf("%s: not said in Russian: %q", name, ru)
		}
		var left []string
		for _, w := range latin.FindAllString(ru, -1) {
			if strings.ContainsAny(w, "._-0123456789") || w == "key" || w == "JSON" {
				continue // ids, --key
			}
			left = append(left, w)
		}
		if len(left) > 0 {
			t.Errorf("%s: English left in %q: %v", name, ru, left)
		}
		t.Logf("%s:\n  en %s\n  ru %s", name, failed.Reason, ru)
	}
}
