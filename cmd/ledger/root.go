package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/i18n"
)

// Exit codes: 0 success, 1 an error, 2 bad usage, 3 refused by the rules,
// 4 a scenario or audit check failed.
const (
	exitOK      = 0
	exitError   = 1
	exitUsage   = 2
	exitRefused = 3
	exitCheck   = 4
)

// cli carries what every subcommand needs.
type cli struct {
	ctx    context.Context
	v      *viper.Viper
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	output string // "table" or "json"
	cfgSet *config.Config
	shared *App
	// entropy, when set, is the service's entropy source (tests fix the
	// dice with it); nil: the operating system's.
	entropy io.Reader
	// refusalVars are the words and measurement of the last command
	// submitted, for a refusal's message in another language.
	refusalVars i18n.Vars
}

// lang is the language of messages: --lang, LEDGER_LANG, the file, "en".
func (c *cli) lang() string {
	if c.cfgSet != nil {
		return c.cfgSet.Lang
	}
	if l := c.v.GetString("lang"); i18n.Supported(l) {
		return l
	}
	return "en"
}

// refusalText renders a refusal in the configured language; the rule id
// stays as it is ("C.17"), the words come from the message catalogue.
func (c *cli) refusalText(r *rules.Refusal) string {
	lang := c.lang()
	if lang == "en" {
		return "refused: " + r.Error()
	}
	cat, err := i18n.Load()
	if err != nil {
		return "refused: " + r.Error()
	}
	return cat.Text(lang, "cli.refused") + ": " + r.Rule + ": " + cat.Refusal(lang, r, c.refusalVars)
}

// Main runs the ledger CLI with args and returns the exit code. Tests call it
// directly; cfg, when not nil, replaces configuration from files and flags.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, args, stdin, stdout, stderr, nil, nil)
}

// run is Main with the configuration set directly (cfg, when not nil) and
// the service's entropy source fixed (entropy, when not nil): tests use
// both.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, cfg *config.Config, entropy io.Reader) int {
	c := &cli{ctx: ctx, v: viper.New(), stdin: stdin, stdout: stdout, stderr: stderr, cfgSet: cfg, entropy: entropy}
	root := c.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var r *rules.Refusal
	var ce *checkError
	var ue *usageError
	switch {
	case errors.As(err, &r):
		fmt.Fprintln(stderr, c.refusalText(r))
		return exitRefused
	case errors.As(err, &ce):
		fmt.Fprintf(stderr, "check failed: %s\n", ce.msg)
		return exitCheck
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "error: %s\n", ue.msg)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "error: %v\n", err)
		if strings.Contains(err.Error(), "unknown command") || strings.Contains(err.Error(), "unknown flag") ||
			strings.Contains(err.Error(), "accepts ") || strings.Contains(err.Error(), "required flag") {
			return exitUsage
		}
		return exitError
	}
}

// checkError is a failed check (a scenario expectation, an audit).
type checkError struct{ msg string }

func (e *checkError) Error() string { return e.msg }

// usageError is a mistake in how the command was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

func (c *cli) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "ledger",
		Short: "The campaign ledger: record, check, replay and audit wargame battles",
		Long: `The campaign ledger records every order, dice roll and move of a battle as an
immutable event on NATS JetStream, checks each against the rules (RULES.md),
and keeps SQLite projections of battlefield and campaign.

With no configuration it runs an embedded NATS server and a SQLite file under
./data. Configuration: ledger.yaml (in the working folder or --config),
LEDGER_* environment variables (LEDGER_DATA_DIR, LEDGER_NATS_URL, ...), flags.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return c.loadConfig(cmd)
		},
	}
	pf := root.PersistentFlags()
	pf.String("config", "", "configuration file (default ./ledger.yaml if present)")
	pf.String("data", "", "data folder (default ./data)")
	pf.String("nats-url", "", "external NATS server URL; empty runs an embedded server")
	pf.String("nats-creds", "", "NATS credentials file")
	pf.String("nats-listen", "", "let the embedded server also listen on this loopback address, for NATS tools")
	pf.String("actor", "", "who gives commands (default umpire)")
	pf.String("lang", "", "language of messages: en or ru")
	pf.StringVarP(&c.output, "output", "o", "table", "output format: table or json")
	for flag, key := range map[string]string{
		"data": "data_dir", "nats-url": "nats.url", "nats-creds": "nats.creds",
		"nats-listen": "nats.listen", "actor": "actor", "lang": "lang",
	} {
		_ = c.v.BindPFlag(key, pf.Lookup(flag))
	}
	root.AddCommand(
		c.demoCommand(),
		c.playCommand(),
		c.campaignCommand(),
		c.battleCommand(),
		c.orderCommand(),
		c.moveCommand(),
		c.phaseCommand(),
		c.doCommand(),
		c.stateCommand(),
		c.logCommand(),
		c.configCommand(),
	)
	for _, extra := range extraCommands {
		root.AddCommand(extra(c))
	}
	return root
}

// extraCommands are subcommands defined in their own files (audit, export,
// projections, replay, serve...), each registering itself in an init.
var extraCommands []func(*cli) *cobra.Command

// loadConfig layers defaults, the file, LEDGER_* variables and flags.
func (c *cli) loadConfig(cmd *cobra.Command) error {
	if c.output != "table" && c.output != "json" {
		return usagef("--output %q: want table or json", c.output)
	}
	if c.cfgSet != nil {
		return nil
	}
	def := config.Default()
	c.v.SetDefault("data_dir", def.DataDir)
	c.v.SetDefault("db", def.DB)
	c.v.SetDefault("nats.url", def.NATS.URL)
	c.v.SetDefault("nats.creds", "")
	c.v.SetDefault("nats.user", "")
	c.v.SetDefault("nats.password", "")
	c.v.SetDefault("nats.ca", "")
	c.v.SetDefault("nats.listen", "")
	c.v.SetDefault("nats.stream", def.NATS.Stream)
	c.v.SetDefault("nats.replicas", def.NATS.Replicas)
	c.v.SetDefault("nats.sync_always", def.NATS.SyncAlways)
	c.v.SetDefault("nats.duplicate_window", def.NATS.DuplicateWindow)
	c.v.SetDefault("http.addr", def.HTTP.Addr)
	c.v.SetDefault("http.tls_cert", "")
	c.v.SetDefault("http.tls_key", "")
	c.v.SetDefault("http.admin_token", "")
	c.v.SetDefault("lang", def.Lang)
	c.v.SetDefault("actor", def.Actor)
	c.v.SetDefault("retries", def.Retries)
	c.v.SetEnvPrefix("LEDGER")
	c.v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	c.v.AutomaticEnv()
	path, _ := cmd.Flags().GetString("config")
	if path == "" {
		// Only ledger.yaml or ledger.yml: viper's own search would also
		// take a file named just "ledger", such as the built binary.
		for _, name := range []string{"ledger.yaml", "ledger.yml"} {
			if _, err := os.Stat(name); err == nil {
				path = name
				break
			}
		}
	}
	if path == "" {
		return nil
	}
	c.v.SetConfigFile(path)
	if err := c.v.ReadInConfig(); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

// config returns the typed configuration.
func (c *cli) config() (config.Config, error) {
	if c.cfgSet != nil {
		return *c.cfgSet, nil
	}
	var cfg config.Config
	if err := c.v.Unmarshal(&cfg); err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

// open starts the ledger for one command, or lends the one already open
// (the demo runs several commands on one ledger). Call release when done.
func (c *cli) open() (*App, func(), error) {
	if c.shared != nil {
		return c.shared, func() {}, nil
	}
	cfg, err := c.config()
	if err != nil {
		return nil, nil, err
	}
	app, err := OpenApp(c.ctx, cfg, AppOptions{Entropy: c.entropy})
	if err != nil {
		return nil, nil, err
	}
	return app, func() { app.Close() }, nil
}

func (c *cli) actor() string {
	if c.cfgSet != nil {
		return c.cfgSet.Actor
	}
	return c.v.GetString("actor")
}
