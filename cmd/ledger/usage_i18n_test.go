package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestUsageErrorsInTheirLanguage: cobra's and pflag's own usage errors (a
// command or flag that does not exist, a flag without its value or with
// one of the wrong kind, a wrong number of arguments, a required flag left
// out) are said in the configured language, name what was typed wrong and
// exit 2. In Russian no English word of cobra's or pflag's is left (they
// were: "unknown flag: --bogus", "accepts 2 arg(s), received 1",
// "required flag(s) \"file\" not set").
func TestUsageErrorsInTheirLanguage(t *testing.T) {
	english := regexp.MustCompile(`(?i)\b(unknown|accepts|received|required|invalid|argument|arg\(s\)|needs|flag|shorthand|syntax|did you mean)\b`)
	cases := []struct {
		args   []string
		en, ru string // what each says (a part)
	}{
		{[]string{"mve"}, `ledger has no command "mve"`, "у ledger нет команды «mve»"},
		{[]string{"mve"}, "did you mean move?", "может быть, move?"},
		{[]string{"campaign", "lst"}, `ledger campaign has no command "lst"`, "у ledger campaign нет команды «lst»"},
		{[]string{"move", "--bogus"}, "ledger move has no flag --bogus", "у ledger move нет флага --bogus"},
		{[]string{"move", "-q"}, "ledger move has no flag -q", "у ledger move нет флага -q"},
		{[]string{"order", "c/b", "--general"}, "--general needs a value", "флагу --general нужно значение"},
		{[]string{"move", "c/b", "u", "--by", "abc"}, `--by "abc": want a number`, "--by «abc»: нужно число"},
		{[]string{"move", "c/b"}, "wrong number of arguments (1 given): ledger move CAMPAIGN/BATTLE UNIT", "неверное число аргументов (дано 1): ledger move CAMPAIGN/BATTLE UNIT"},
		{[]string{"battle", "create", "c/b"}, "ledger battle create needs --file", "ledger battle create: не хватает --file"},
	}
	for _, lang := range []string{"en", "ru"} {
		c := newCLI(t)
		c.cfg.Lang = lang
		for _, tc := range cases {
			code, out, errs := c.run(tc.args...)
			want := tc.en
			if lang == "ru" {
				want = tc.ru
			}
			if code != exitUsage || !strings.Contains(errs, want) {
				t.Errorf("%s: ledger %s: exit %d, stderr %q, want exit %d saying %q (stdout %.100q)", lang, strings.Join(tc.args, " "), code, errs, exitUsage, want, out)
			}
			if lang == "ru" {
				// Typed words and the command's own usage line are kept.
				said := strings.NewReplacer("--bogus", "", "--general", "", "--by", "", "--file", "", "CAMPAIGN/BATTLE", "", "UNIT", "").Replace(errs)
				if _, usage, ok := strings.Cut(said, "): "); ok && strings.HasPrefix(usage, "ledger ") {
					said = strings.TrimSuffix(said, usage)
				}
				if m := english.FindString(said); m != "" {
					t.Errorf("ru: ledger %s: English %q in %q", strings.Join(tc.args, " "), m, errs)
				}
			}
		}
	}
}
