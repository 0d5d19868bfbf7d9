package main

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/clubledger/ledger/i18n"
)

// Help in the player's language (issue 26): every --help, `ledger help
// COMMAND` and a group's own help speak the language of --lang
// (LEDGER_LANG, the file's lang). The English is the commands' own Short,
// Long, Example and flag usages, and cobra's; the other languages' are in
// the catalogue (i18n/help.<lang>.json), under
//
//	cli.help.<command path, dots for spaces>.short, .long, .example
//	cli.help.<command path>.flag.<flag name>   (the command that defines it)
//	cli.help.flag.help, cli.help.flag.version  (cobra's -h and --version, {name})
//	cli.help.template.*                        (cobra's words: "Usage:", "Flags:" ...)
//
// e.g. cli.help.ledger.audit.long, cli.help.ledger.flag.lang. Command and
// flag names, ids, formats and rule numbers are never translated.
//
// Cobra parses flags only when it runs a command, and prints help without
// running PersistentPreRunE, so the language is not known when the tree is
// built: the help and usage functions find it when cobra calls them (the
// flags are parsed by then), translate the whole tree once, and print with
// the catalogue's words. In English they are cobra's own, untouched.

// helpPrefix begins every key of the CLI's help.
const helpPrefix = "cli.help."

// helpKey is the catalogue key of cmd's help: "cli.help.ledger.battle.create".
func helpKey(cmd *cobra.Command) string {
	return helpPrefix + strings.ReplaceAll(cmd.CommandPath(), " ", ".")
}

// localHelp makes root's help (and every subcommand's, which inherit it)
// speak the configured language. Call it once the tree is built.
func (c *cli) localHelp(root *cobra.Command) {
	help, usage := root.HelpFunc(), root.UsageFunc()
	translated := ""
	prepare := func(cmd *cobra.Command) string {
		lang := c.helpLang(cmd)
		if lang != "en" && translated == "" {
			translateHelp(cmd.Root(), lang)
			translated = lang
		}
		return lang
	}
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		prepare(cmd)
		help(cmd, args)
	})
	root.SetUsageFunc(func(cmd *cobra.Command) error {
		if lang := prepare(cmd); lang != "en" {
			return helpUsage(cmd, lang)
		}
		return usage(cmd)
	})
}

// helpLang is the language of the help: as c.lang() says it once the
// configuration is loaded (tests' configuration, else --lang, LEDGER_LANG,
// the file's lang), read here because cobra prints help before
// PersistentPreRunE loads the configuration. A file that cannot be read
// leaves the help in English: the command itself will say what is wrong.
func (c *cli) helpLang(cmd *cobra.Command) string {
	if c.cfgSet != nil {
		if i18n.Supported(c.cfgSet.Lang) {
			return c.cfgSet.Lang
		}
		return "en"
	}
	v := viper.New()
	pf := cmd.Root().PersistentFlags()
	if f := pf.Lookup("lang"); f != nil {
		_ = v.BindPFlag("lang", f)
	}
	_ = v.BindEnv("lang", "LEDGER_LANG")
	path, _ := pf.GetString("config")
	if path == "" {
		// As loadConfig finds it.
		for _, name := range []string{"ledger.yaml", "ledger.yml"} {
			if _, err := os.Stat(name); err == nil {
				path = name
				break
			}
		}
	}
	if path != "" {
		v.SetConfigFile(path)
		_ = v.ReadInConfig()
	}
	if l := v.GetString("lang"); i18n.Supported(l) {
		return l
	}
	return "en"
}

// translateHelp replaces, in the whole tree under root, each command's
// Short, Long and Example and each flag's usage with lang's, where the
// catalogue has it (else the English stays).
func translateHelp(root *cobra.Command, lang string) {
	cat := messages()
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		key := helpKey(cmd)
		for _, field := range []struct {
			name string
			text *string
		}{{"short", &cmd.Short}, {"long", &cmd.Long}, {"example", &cmd.Example}} {
			if *field.text == "" {
				continue
			}
			if s, ok := cat.Lookup(lang, key+"."+field.name); ok {
				*field.text = s
			}
		}
		// Cobra adds -h (and the root's --version) when it runs a command:
		// add them now, as it would, to say them in lang.
		cmd.InitDefaultHelpFlag()
		cmd.InitDefaultVersionFlag()
		flag := func(f *pflag.Flag) {
			k := key + ".flag." + f.Name
			if generic := cobraFlag(cmd, f); generic != "" {
				k = generic
			}
			if s, ok := cat.Lookup(lang, k); ok {
				f.Usage = strings.ReplaceAll(s, "{name}", cmd.Name())
			}
		}
		cmd.LocalNonPersistentFlags().VisitAll(flag)
		cmd.PersistentFlags().VisitAll(flag)
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// cobraFlag is the key of cobra's own -h or --version, "" for a flag of
// the ledger's.
func cobraFlag(cmd *cobra.Command, f *pflag.Flag) string {
	switch {
	case f.Name == "help" && f.Usage == "help for "+cmd.Name():
		return helpPrefix + "flag.help"
	case f.Name == "version" && f.Usage == "version for "+cmd.Name():
		return helpPrefix + "flag.version"
	}
	return ""
}

// helpUsage is cobra's usage (its defaultUsageFunc, cobra v1.10) with its
// words in lang.
func helpUsage(cmd *cobra.Command, lang string) error {
	cat := messages()
	word := func(name string) string { return cat.Text(lang, helpPrefix+"template."+name) }
	var b strings.Builder
	b.WriteString(word("usage"))
	if cmd.Runnable() {
		line := cmd.UseLine()
		if rest, ok := strings.CutSuffix(line, " [flags]"); ok {
			line = rest + " " + word("flags_placeholder")
		}
		fmt.Fprintf(&b, "\n  %s", line)
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n  %s %s", cmd.CommandPath(), word("command_placeholder"))
	}
	if len(cmd.Aliases) > 0 {
		fmt.Fprintf(&b, "\n\n%s\n  %s", word("aliases"), cmd.NameAndAliases())
	}
	if cmd.HasExample() {
		fmt.Fprintf(&b, "\n\n%s\n%s", word("examples"), cmd.Example)
	}
	pad := func(s string, n int) string { return fmt.Sprintf("%-*s", n, s) }
	if cmd.HasAvailableSubCommands() {
		list := func(title string, in func(*cobra.Command) bool) {
			fmt.Fprintf(&b, "\n\n%s", title)
			for _, sub := range cmd.Commands() {
				if in(sub) && (sub.IsAvailableCommand() || sub.Name() == "help") {
					fmt.Fprintf(&b, "\n  %s %s", pad(sub.Name(), sub.NamePadding()), sub.Short)
				}
			}
		}
		if len(cmd.Groups()) == 0 {
			list(word("available_commands"), func(*cobra.Command) bool { return true })
		} else {
			for _, g := range cmd.Groups() {
				list(g.Title, func(sub *cobra.Command) bool { return sub.GroupID == g.ID })
			}
			if !cmd.AllChildCommandsHaveGroup() {
				list(word("additional_commands"), func(sub *cobra.Command) bool { return sub.GroupID == "" })
			}
		}
	}
	if cmd.HasAvailableLocalFlags() {
		fmt.Fprintf(&b, "\n\n%s\n%s", word("flags"), flagUsages(cmd.LocalFlags(), word("default"), valueWords(lang)))
	}
	if cmd.HasAvailableInheritedFlags() {
		fmt.Fprintf(&b, "\n\n%s\n%s", word("global_flags"), flagUsages(cmd.InheritedFlags(), word("default"), valueWords(lang)))
	}
	if cmd.HasHelpSubCommands() {
		fmt.Fprintf(&b, "\n\n%s", word("additional_help_topics"))
		for _, sub := range cmd.Commands() {
			if sub.IsAdditionalHelpTopicCommand() {
				fmt.Fprintf(&b, "\n  %s %s", pad(sub.CommandPath(), sub.CommandPathPadding()), sub.Short)
			}
		}
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n\n%s", strings.ReplaceAll(word("more"), "{command}", cmd.CommandPath()))
	}
	b.WriteString("\n")
	_, err := fmt.Fprint(cmd.OutOrStderr(), b.String())
	return err
}

// flagUsages is pflag's list of flags (its FlagUsages, pflag v1.0.10)
// said in the language: "(default ...)" as def ("по умолчанию"), and the
// kind of each flag's value, which pflag names by its Go type ("string",
// "int"), by words (valueWords, by type). Columns are aligned by
// characters, not bytes, as a terminal shows them.
func flagUsages(fs *pflag.FlagSet, def string, words map[string]string) string {
	type row struct{ left, right string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		name, usage := pflag.UnquoteUsage(f)
		if w, ok := words[f.Value.Type()]; ok && name != "" && !strings.Contains(f.Usage, "`") {
			name = w
		}
		if name != "" {
			left += " " + name
		}
		if f.NoOptDefVal != "" {
			switch f.Value.Type() {
			case "string":
				left += fmt.Sprintf("[=%q]", f.NoOptDefVal)
			case "bool", "boolfunc":
				if f.NoOptDefVal != "true" {
					left += "[=" + f.NoOptDefVal + "]"
				}
			case "count":
				if f.NoOptDefVal != "+1" {
					left += "[=" + f.NoOptDefVal + "]"
				}
			default:
				left += "[=" + f.NoOptDefVal + "]"
			}
		}
		switch {
		case zeroDefault(f):
		case f.Value.Type() == "string":
			usage += fmt.Sprintf(" (%s %q)", def, f.DefValue)
		default:
			usage += fmt.Sprintf(" (%s %s)", def, f.DefValue)
		}
		if f.Deprecated != "" {
			usage += fmt.Sprintf(" (DEPRECATED: %s)", f.Deprecated)
		}
		rows = append(rows, row{left, usage})
		width = max(width, utf8.RuneCountInString(left))
	})
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteString("\n")
		}
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(r.left)+3)
		b.WriteString(r.left + pad + strings.ReplaceAll(r.right, "\n", "\n"+strings.Repeat(" ", width+3)))
	}
	return strings.TrimRight(b.String(), " \t\n")
}

// zeroDefault says that f's default is its type's zero value, which pflag
// does not print.
func zeroDefault(f *pflag.Flag) bool {
	switch f.Value.Type() {
	case "bool", "boolfunc":
		return f.DefValue == "false" || f.DefValue == ""
	case "duration":
		return f.DefValue == "0" || f.DefValue == "0s"
	case "string":
		return f.DefValue == ""
	}
	switch f.DefValue {
	case "", "0", "false", "<nil>", "[]", "0s":
		return true
	}
	return false
}

// valueWords are lang's words for the types of flags' values
// (cli.help.type.<pflag's type>: "текст" for string), by type.
func valueWords(lang string) map[string]string {
	out := map[string]string{}
	cat := messages()
	for _, k := range cat.Keys(lang) {
		if typ, ok := strings.CutPrefix(k, helpPrefix+"type."); ok {
			out[typ], _ = cat.Lookup(lang, k)
		}
	}
	return out
}
