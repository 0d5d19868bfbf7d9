package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// TestDocsCommandLines: every `ledger` command line the documents show
// (README.md and docs/*.md, in their code blocks and in backquotes) names
// subcommands that exist and flags those subcommands take. It does not
// run them (TestDocsExamples runs the README's, docs/api.md's and
// docs/club.md's): it keeps the other documents' commands from naming a
// command or a flag the program does not have.
func TestDocsCommandLines(t *testing.T) {
	root := (&cli{v: viper.New()}).rootCommand()
	// cobra adds its "help" command when it runs; the documents show
	// `ledger help COMMAND` too.
	root.InitDefaultHelpCmd()
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	files := []string{"../../README.md"}
	more, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(f, "../../")
		lines := strings.Split(string(b), "\n")
		fenced, prompts := false, false
		for i, line := range lines {
			where := name + ":" + strconv.Itoa(i+1)
			if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
				fenced = !fenced
				prompts = false
				for j := i + 1; fenced && j < len(lines) && !strings.HasPrefix(strings.TrimLeft(lines[j], " "), "```"); j++ {
					prompts = prompts || strings.HasPrefix(lines[j], "$ ")
				}
				continue
			}
			var candidates []string
			if fenced {
				if prompts && !strings.HasPrefix(line, "$ ") {
					continue // an output
				}
				candidates = strings.FieldsFunc(strings.TrimPrefix(strings.TrimSpace(line), "$ "), func(r rune) bool { return r == ';' || r == '|' || r == '&' || r == '(' || r == ')' })
			} else {
				for _, m := range docCodeSpan.FindAllStringSubmatch(line, -1) {
					candidates = append(candidates, m[1])
				}
			}
			for _, c := range candidates {
				words := shellWords(c)
				for len(words) > 0 && docEnvAssign.MatchString(words[0]) {
					words = words[1:]
				}
				if len(words) < 2 || (words[0] != "ledger" && words[0] != "./ledger") {
					continue
				}
				checked++
				if msg := checkCommandLine(root, words[1:]); msg != "" {
					t.Errorf("%s: %s: %s", where, strings.TrimSpace(c), msg)
				}
			}
		}
	}
	t.Logf("%d ledger command lines checked", checked)
	if checked < 100 {
		t.Errorf("only %d ledger command lines found in the documents: the test no longer reads them", checked)
	}
}

var (
	docCodeSpan  = regexp.MustCompile("`([^`]+)`")
	docEnvAssign = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)
)

// checkCommandLine walks args (after the program's name) down root's
// subcommands and checks each flag; it returns what is wrong, or "".
func checkCommandLine(root *cobra.Command, args []string) string {
	cmd := root
	positional := false
	for i := 0; i < len(args); i++ {
		a := strings.Trim(args[i], "[]")
		if a == "" || a == "..." || a == "…" || strings.HasPrefix(a, "#") {
			if strings.HasPrefix(a, "#") {
				break
			}
			continue
		}
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 && !isNumber(a) {
			flag, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if flag == "help" || flag == "h" {
				continue
			}
			var f *pflag.Flag
			if strings.HasPrefix(a, "--") {
				f = lookupFlag(cmd, flag)
			} else if len(flag) == 1 {
				f = lookupShorthand(cmd, flag)
			}
			if f == nil {
				return "`" + cmd.CommandPath() + "` has no flag " + a
			}
			if !hasValue && f.Value.Type() != "bool" && f.NoOptDefVal == "" {
				i++ // its value
			}
			continue
		}
		if positional {
			continue
		}
		if sub := findSub(cmd, a); sub != nil {
			cmd = sub
			continue
		}
		if cmd == root {
			return "no command " + a
		}
		if cmd.HasSubCommands() && !cmd.Runnable() {
			return "`" + cmd.CommandPath() + "` has no subcommand " + a
		}
		positional = true
	}
	return ""
}

func findSub(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

func lookupFlag(cmd *cobra.Command, name string) *pflag.Flag {
	for c := cmd; c != nil; c = c.Parent() {
		if f := c.Flags().Lookup(name); f != nil {
			return f
		}
		if f := c.PersistentFlags().Lookup(name); f != nil {
			return f
		}
	}
	return nil
}

func lookupShorthand(cmd *cobra.Command, name string) *pflag.Flag {
	for c := cmd; c != nil; c = c.Parent() {
		if f := c.Flags().ShorthandLookup(name); f != nil {
			return f
		}
		if f := c.PersistentFlags().ShorthandLookup(name); f != nil {
			return f
		}
	}
	return nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// shellWords splits a command line into words, honouring quotes, and drops
// a trailing comment.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\\':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case r == '#' && !in:
			return words
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// TestHelpCitesFilesThatExist: every document the CLI's help texts name
// (a command's short and long help, its examples, its flags' usage) is in
// the repository.
func TestHelpCitesFilesThatExist(t *testing.T) {
	root := (&cli{v: viper.New()}).rootCommand()
	mention := regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]+\.md\b`)
	found := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		texts := []string{c.Short, c.Long, c.Example}
		c.Flags().VisitAll(func(f *pflag.Flag) { texts = append(texts, f.Usage) })
		for _, text := range texts {
			for _, m := range mention.FindAllString(text, -1) {
				found++
				ok := false
				for _, p := range []string{m, filepath.Join("docs", m)} {
					if _, err := os.Stat(filepath.Join("..", "..", p)); err == nil {
						ok = true
					}
				}
				if !ok {
					t.Errorf("`%s`'s help cites %s, which is not in the repository", c.CommandPath(), m)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if found < 5 {
		t.Errorf("only %d documents cited in the help texts: the test no longer reads them", found)
	}
}
