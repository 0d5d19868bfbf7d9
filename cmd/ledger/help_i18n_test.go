package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// helpTree is the whole command tree as cobra runs it: the ledger's
// commands with cobra's help and completion commands and -h flags.
func helpTree() *cobra.Command {
	c := &cli{v: viper.New()}
	root := c.rootCommand()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.InitDefaultHelpFlag()
		cmd.InitDefaultVersionFlag()
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return root
}

// TestHelpRussianComplete: every command of the tree has its Russian
// short description (and long and examples, where it has them), every flag
// it defines (local and persistent) its Russian usage, cobra's words
// theirs; and help.ru.json has no key of a command or flag that is gone.
// A command or flag added without Russian fails here, by name.
func TestHelpRussianComplete(t *testing.T) {
	cat := messages()
	want := map[string]bool{}
	need := func(key, what string) {
		want[key] = true
		if s, ok := cat.Lookup("ru", key); !ok || strings.TrimSpace(s) == "" {
			t.Errorf("%s: no Russian: add %q to i18n/help.ru.json", what, key)
		}
	}
	commands, flags := 0, 0
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		commands++
		key := helpKey(cmd)
		path := cmd.CommandPath()
		need(key+".short", path)
		if cmd.Long != "" {
			need(key+".long", path+" (long)")
		}
		if cmd.Example != "" {
			need(key+".example", path+" (examples)")
		}
		flag := func(f *pflag.Flag) {
			flags++
			k := key + ".flag." + f.Name
			if generic := cobraFlag(cmd, f); generic != "" {
				k = generic
			}
			need(k, path+" --"+f.Name)
			// The kind of its value in words, where pflag names its type.
			if n, _ := pflag.UnquoteUsage(f); n != "" && !strings.Contains(f.Usage, "`") {
				need(helpPrefix+"type."+f.Value.Type(), path+" --"+f.Name+"'s "+f.Value.Type())
			}
			// The value's name pflag shows (`name` in backquotes, else
			// the type) is the same in both languages.
			ru := *f
			ru.Usage, _ = cat.Lookup("ru", k)
			if en, _ := pflag.UnquoteUsage(f); en != func() string { n, _ := pflag.UnquoteUsage(&ru); return n }() {
				t.Errorf("%s --%s: the Russian usage names another value (backquotes)", path, f.Name)
			}
		}
		cmd.LocalNonPersistentFlags().VisitAll(flag)
		cmd.PersistentFlags().VisitAll(flag)
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(helpTree())
	for _, w := range []string{"usage", "aliases", "examples", "available_commands", "additional_commands", "flags",
		"global_flags", "additional_help_topics", "more", "flags_placeholder", "command_placeholder", "default"} {
		need(helpPrefix+"template."+w, "cobra's word "+w)
	}
	for _, k := range cat.Keys("ru") {
		if strings.HasPrefix(k, helpPrefix) && !want[k] {
			t.Errorf("help.ru.json has %q, which is no command, flag or word of the help (stale: remove it)", k)
		}
	}
	if commands < 40 || flags < 150 {
		t.Errorf("only %d commands and %d flags found: the walk is broken", commands, flags)
	}
	t.Logf("%d commands, %d flags (cobra's -h and --version included)", commands, flags)
}

// helpOutput runs the real CLI in-process (Main: flags, LEDGER_* and the
// file as a user's ledger reads them) and returns what it printed.
func helpOutput(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 || errb.Len() > 0 {
		t.Fatalf("ledger %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// englishWords are cobra's words, none of which a Russian help may show.
var englishWords = []string{"Usage:", "Flags:", "Global Flags:", "Available Commands:", "Examples:", "Aliases:",
	"Additional help topics:", "for more information about a command", "[flags]", "[command]", "help for ", "(default "}

// TestHelpRussian: --lang ru audit --help, LEDGER_LANG=ru with --help,
// and help audit print the Russian descriptions, flag usages and cobra's
// words in Russian, and not one of cobra's English words.
func TestHelpRussian(t *testing.T) {
	cat := messages()
	ru := func(key string) string {
		s, ok := cat.Lookup("ru", key)
		if !ok {
			t.Fatalf("no %s", key)
		}
		return s
	}
	auditWants := []string{
		ru("cli.help.ledger.audit.long"),
		"Использование:\n  ledger audit CAMPAIGN/BATTLE | audit --file EXPORT [флаги]",
		"Флаги:\n", "Общие флаги:\n",
		ru("cli.help.ledger.audit.flag.head"),
		"-h, --help         справка по команде audit",
		ru("cli.help.ledger.flag.lang"),
		`формат вывода: table или json (по умолчанию "table")`,
	}
	check := func(name, out string, wants []string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, out)
			}
		}
		for _, w := range englishWords {
			if strings.Contains(out, w) {
				t.Errorf("%s shows cobra's English %q:\n%s", name, w, out)
			}
		}
		for _, w := range []string{"Audit checks a battle", "audit an export file instead", "language of messages"} {
			if strings.Contains(out, w) {
				t.Errorf("%s shows the English %q", name, w)
			}
		}
		checkFlagColumns(t, name, out)
	}
	check("--lang ru audit --help", helpOutput(t, "--lang", "ru", "audit", "--help"), auditWants)
	check("--lang=ru help audit", helpOutput(t, "--lang=ru", "help", "audit"), auditWants)
	check("audit -h --lang ru", helpOutput(t, "audit", "-h", "--lang", "ru"), auditWants)

	// Subcommands listed with their Russian short descriptions; examples.
	check("--lang ru move --help", helpOutput(t, "--lang", "ru", "move", "--help"), []string{
		ru("cli.help.ledger.move.long"), "Примеры:\n" + ru("cli.help.ledger.move.example"), ru("cli.help.ledger.move.flag.facing"),
	})
	check("--lang ru battle --help", helpOutput(t, "--lang", "ru", "battle", "--help"), []string{
		ru("cli.help.ledger.battle.short"), "Команды:\n", "start       " + ru("cli.help.ledger.battle.start.short"),
		`Справка по команде: "ledger battle [команда] --help".`,
	})

	// The kinds of the flags' values in words, the columns aligned.
	check("--lang ru report --help", helpOutput(t, "--lang", "ru", "report", "--help"), []string{
		"--max-pictures число", "--picture-format текст", `(по умолчанию "png")`})
	check("--lang ru bench --help", helpOutput(t, "--lang", "ru", "bench", "--help"), []string{"--batch число"})

	t.Setenv("LEDGER_LANG", "ru")
	check("LEDGER_LANG=ru --help", helpOutput(t, "--help"), []string{
		ru("cli.help.ledger.long"), "Команды:\n", "audit       " + ru("cli.help.ledger.audit.short"),
		"  -v, --version             версия ledger", ru("cli.help.ledger.flag.token"),
		`Справка по команде: "ledger [команда] --help".`,
	})
	check("LEDGER_LANG=ru help audit", helpOutput(t, "help", "audit"), auditWants)
	// --lang on the command line wins over LEDGER_LANG.
	if out := helpOutput(t, "--lang", "en", "audit", "--help"); !strings.Contains(out, "Usage:") || strings.Contains(out, "Использование") {
		t.Errorf("--lang en over LEDGER_LANG=ru:\n%s", out)
	}
}

// TestHelpEnglishUnchanged: in English the help is cobra's own, word for
// word, as without the translation hook.
func TestHelpEnglishUnchanged(t *testing.T) {
	plain := func(args ...string) string {
		c := &cli{ctx: context.Background(), v: viper.New()}
		root := c.rootCommand() // no localHelp: cobra alone
		var out bytes.Buffer
		root.SetArgs(args)
		root.SetOut(&out)
		root.SetErr(&out)
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	for _, args := range [][]string{
		{"--lang", "en", "audit", "--help"},
		{"--lang", "en", "--help"},
		{"--lang", "en", "help", "battle", "create"},
		{"move", "--help"},
	} {
		got, want := helpOutput(t, args...), plain(args...)
		if got != want {
			t.Errorf("ledger %s: the help changed in English:\n%s\nwant:\n%s", strings.Join(args, " "), got, want)
		}
		if !strings.Contains(got, "Usage:") || !strings.Contains(got, "Flags:") || strings.Contains(got, "Использование") {
			t.Errorf("ledger %s: not cobra's English:\n%s", strings.Join(args, " "), got)
		}
	}
	if out := helpOutput(t, "--lang", "en", "audit", "--help"); !strings.Contains(out, "Audit checks a battle from its events alone") ||
		!strings.Contains(out, "--head string   a head hash you kept") {
		t.Errorf("English audit help:\n%s", out)
	}
}

// flagLine is a flag's line of a help: the flag, the kind of its value,
// and the spaces before its usage.
var flagLine = regexp.MustCompile(`^(\s+(?:-\S, )?--\S+(?: (\S+))?)\s{2,}\S`)

// checkFlagColumns: in each list of flags of a Russian help, no value is
// named by pflag's English type ("string", "int", ...), and every usage
// starts in the same column, counted in characters.
func checkFlagColumns(t *testing.T, name, out string) {
	t.Helper()
	col := -1
	for _, l := range strings.Split(out, "\n") {
		m := flagLine.FindStringSubmatch(l)
		if m == nil {
			col = -1 // a new list starts after any other line
			continue
		}
		switch m[2] {
		case "string", "int", "uint", "float", "duration", "stringArray", "strings":
			t.Errorf("%s names a value by its English type: %q", name, l)
		}
		c := utf8.RuneCountInString(m[0]) - 1
		if col >= 0 && c != col {
			t.Errorf("%s: the usage of %q starts in column %d, the list's in %d", name, strings.TrimSpace(m[1]), c, col)
		}
		col = c
	}
}
