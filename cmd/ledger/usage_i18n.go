package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cobra's and pflag's own usage errors (an unknown command or flag, a
// flag without its value or with a value of the wrong kind, a wrong number
// of arguments, a required flag left out) said in the configured language,
// from the errors' parts (pflag's typed errors) or from what the command
// declares, never by reading their English back. Each is a usageError:
// exit 2.

// usageWords speak the language of a usage error: the configuration's once it
// is loaded, else as the help finds it (cobra checks flags and arguments
// before the configuration is loaded).
func (c *cli) usageWords(cmd *cobra.Command) words {
	lang := c.lang()
	if c.name == "" && cmd != nil {
		lang = c.helpLang(cmd)
	}
	return words{cat: messages(), lang: lang}
}

// flagError is the root's FlagErrorFunc (subcommands inherit it).
func (c *cli) flagError(cmd *cobra.Command, err error) error {
	w := c.usageWords(cmd)
	var (
		notExist *pflag.NotExistError
		noValue  *pflag.ValueRequiredError
		badValue *pflag.InvalidValueError
		syntax   *pflag.InvalidSyntaxError
	)
	switch {
	case errors.As(err, &notExist):
		flag := "--" + notExist.GetSpecifiedName()
		if notExist.GetSpecifiedShortnames() != "" {
			flag = "-" + notExist.GetSpecifiedName()
		}
		return &usageError{msg: w.t("usage.unknown_flag", "flag", flag, "command", cmd.CommandPath())}
	case errors.As(err, &noValue):
		return &usageError{msg: w.t("usage.flag_needs_value", "flag", flagName(noValue.GetFlag(), noValue.GetSpecifiedName()))}
	case errors.As(err, &badValue):
		f := badValue.GetFlag()
		kind := "text"
		if f != nil {
			kind = f.Value.Type()
		}
		return &usageError{msg: w.t("usage.bad_value", "flag", flagName(f, ""), "value", badValue.GetValue(), "kind", valueKind(w, kind))}
	case errors.As(err, &syntax):
		return &usageError{msg: w.t("usage.bad_syntax", "flag", syntax.GetSpecifiedFlag())}
	}
	return &usageError{msg: err.Error()}
}

// flagName is how the command line spells a flag: --name (or -s, --name).
func flagName(f *pflag.Flag, name string) string {
	if f == nil {
		return "--" + name
	}
	if f.Shorthand != "" {
		return "-" + f.Shorthand + ", --" + f.Name
	}
	return "--" + f.Name
}

// valueKind says, by pflag's value type, what the user must type.
func valueKind(w words, typ string) string {
	switch typ {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		return w.t("usage.kind.whole")
	case "float32", "float64":
		return w.t("usage.kind.number")
	case "bool":
		return w.t("usage.kind.bool")
	case "duration":
		return w.t("usage.kind.duration")
	case "intSlice", "int32Slice", "int64Slice", "uintSlice":
		return w.t("usage.kind.wholes")
	case "float32Slice", "float64Slice":
		return w.t("usage.kind.numbers")
	}
	return w.t("usage.kind.text")
}

// localUsage makes every command of the tree say its usage errors in the
// configured language: flags (the root's FlagErrorFunc), arguments (each
// Args wrapped: its own check decides, the words say how the command is
// called) and required flags (checked before cobra does).
func (c *cli) localUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(c.flagError)
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
		check := cmd.Args
		if check == nil {
			return
		}
		cmd.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			if err == nil {
				return nil
			}
			w := c.usageWords(cmd)
			if cmd.HasSubCommands() && len(args) > 0 {
				// A group given a word that is none of its commands.
				return c.unknownCommand(cmd, args[0])
			}
			return &usageError{msg: w.t("usage.args", "usage", cmd.UseLine(), "n", len(args))}
		}
	}
	walk(root)
}

// unknownCommand says that name is not a command of cmd, with the ones
// it may have meant.
func (c *cli) unknownCommand(cmd *cobra.Command, name string) error {
	w := c.usageWords(cmd)
	msg := w.t("usage.unknown_command", "name", name, "command", cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "\n" + w.t("usage.did_you_mean", "names", strings.Join(s, ", "))
	}
	return &usageError{msg: msg}
}

// findCommand checks, before cobra runs anything, that args name a command
// of the tree (cobra's own answer to a word that is none is English).
func (c *cli) findCommand(root *cobra.Command, args []string) error {
	cmd, rest, err := root.Find(args)
	if err == nil {
		return nil
	}
	if cmd == nil {
		cmd = root
	}
	// cobra has parsed no flag yet: the language a --lang names is read
	// here, for the words.
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--lang="); ok {
			_ = root.PersistentFlags().Set("lang", v)
		} else if a == "--lang" && i+1 < len(args) {
			_ = root.PersistentFlags().Set("lang", args[i+1])
		}
	}
	if word := firstWord(cmd, rest); word != "" {
		return c.unknownCommand(cmd, word)
	}
	return &usageError{msg: err.Error()}
}

// firstWord is the first of args that is neither a flag nor a flag's
// value (--lang ru: ru is the value), as cobra strips them.
func firstWord(cmd *cobra.Command, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "="):
			if f := cmd.Flags().Lookup(a[2:]); f == nil || f.NoOptDefVal == "" {
				i++ // its value follows
			}
		case strings.HasPrefix(a, "-") && len(a) == 2:
			if f := cmd.Flags().ShorthandLookup(a[1:]); f == nil || f.NoOptDefVal == "" {
				i++
			}
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// requiredFlags says which of the command's required flags were left out
// (cobra would say it in English, after PersistentPreRunE).
func (c *cli) requiredFlags(cmd *cobra.Command) error {
	var missing []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if req, ok := f.Annotations[cobra.BashCompOneRequiredFlag]; ok && len(req) > 0 && req[0] == "true" && !f.Changed {
			missing = append(missing, "--"+f.Name)
		}
	})
	if len(missing) == 0 {
		return nil
	}
	w := c.usageWords(cmd)
	return &usageError{msg: w.t("usage.required", "command", cmd.CommandPath(), "flags", strings.Join(missing, ", "), "n", len(missing))}
}
