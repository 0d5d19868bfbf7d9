package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestReportCountsTakeTheirPlural: the Russian report says how many events
// it tells and how many pictures it holds with the noun's form for the
// number ("о 21 событии", "не больше 21 рисунка"), not a fixed plural; the
// English as before.
func TestReportCountsTakeTheirPlural(t *testing.T) {
	for _, c := range []struct {
		lang          string
		events, limit int
		want          []string
	}{
		{"ru", 21, 21, []string{"донесение рассказывает о 21 событии,", "в донесении не больше 21 рисунка,"}},
		{"ru", 5, 12, []string{"донесение рассказывает о 5 событиях,", "в донесении не больше 12 рисунков,"}},
		{"en", 5, 12, []string{"this report tells the 5 events its reader may see", "a report holds at most 12 pictures"}},
	} {
		r := hostile(t)
		r.Lang, r.Events, r.PictureLimit, r.Unpictured = c.lang, c.events, c.limit, 2
		var b bytes.Buffer
		if err := r.Write(&b, Markdown); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: the report does not say %q", c.lang, w)
			}
		}
	}
}
