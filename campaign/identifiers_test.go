package campaign_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/rules"
)

// sayInvalid says an InvalidInput in lang as the door does (app's
// errors.go): its field, then its reason from its format and values.
func sayInvalid(t *testing.T, cat *i18n.Catalogue, lang string, ii *campaign.InvalidInput) string {
	t.Helper()
	said := rules.Words{Format: campaign.InvalidFormat, Args: []any{ii.Field, ii.Why}}
	return cat.Detail(lang, "detail.bad_request", said, ii.Error())
}

var codePoints = regexp.MustCompile(`U\+[0-9A-F]{4,6}`)

// latinOutside reports a Latin letter of s outside the values it names
// (the field, the ids, the code points): English words left in Russian.
func latinOutside(s string, named ...string) bool {
	for _, n := range named {
		s = strings.ReplaceAll(s, n, "")
	}
	s = codePoints.ReplaceAllString(s, "")
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Latin, r) }) >= 0
}

// TestIdentifierRefusalsInRussian: the identifier refusals (a character
// that does not show, two scripts, two ids differing only in case) are
// said in Russian, with no English words.
func TestIdentifierRefusalsInRussian(t *testing.T) {
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]string{
		`{"unit":"\u3164"}`:                          "unit: каждый символ идентификатора должен быть виден (не U+3164)",
		`{"unit":"33-lign\u0435"}`:                   "unit: все буквы идентификатора должны быть одной письменности (не U+006C и U+0435)",
		`{"objectives":[{"id":"a-1"},{"id":"A-1"}]}`: "objectives[1].id: идентификаторы «a-1» и «A-1» различаются только регистром",
	} {
		err := campaign.CheckBody([]byte(body))
		ii, ok := err.(*campaign.InvalidInput)
		if !ok {
			t.Fatalf("%s: %v, want an InvalidInput", body, err)
		}
		ru := sayInvalid(t, cat, "ru", ii)
		if ru != want {
			t.Errorf("%s: %q, want %q", body, ru, want)
		}
		if latinOutside(ru, ii.Field, "a-1", "A-1") {
			t.Errorf("%s: %q has English words", body, ru)
		}
		if en := sayInvalid(t, cat, "en", ii); en != err.Error() {
			t.Errorf("%s: English %q, want %q", body, en, err.Error())
		}
	}
}
