package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/client"
	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/rules"
)

// Exit codes (README.md): 0 success, 1 an error, 2 bad usage, 3 refused by
// the rules, 4 a scenario or audit check failed, 5 the log is unavailable
// (the outcome of a command is unknown: retry with the same id), 6 the
// command id was already used by another command, 7 not allowed (the
// token is unknown, or its person may not do this).
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitRefused     = 3
	exitCheck       = 4
	exitUnavailable = 5
	exitIDConflict  = 6
	exitForbidden   = 7
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
	// name is the subcommand running, for the folder's lock.
	name string
	// hasID: the subcommand running takes an --id (a command of the
	// campaign's), which a retry gives again; a query or an admin
	// command has none and is simply run again.
	hasID bool
	// root is the command tree, for the language of an error said before
	// the configuration is loaded (usageWords).
	root *cobra.Command
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

// token is the person's token the CLI acts with (--token, LEDGER_TOKEN);
// empty: the folder's owner, the operator.
func (c *cli) token() string {
	if c.cfgSet != nil {
		return c.cfgSet.Token
	}
	return c.v.GetString("token")
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
	c.root = root
	c.localHelp(root)  // --help in the configured language (help_i18n.go)
	c.localUsage(root) // and cobra's usage errors (usage_i18n.go)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd(args...)
	if err := c.findCommand(root, args); err != nil {
		return c.exit(err)
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	return c.exit(err)
}

// exit prints err once, in the configured language, and picks the exit
// code: the one place the CLI maps errors (as web/errors.go is for HTTP).
func (c *cli) exit(err error) int {
	var ce *checkError
	var ue *usageError
	var held *HeldError
	var busy *BusyError
	var se *saidError
	var ae *app.Error
	w := c.words()
	if c.name == "" && c.root != nil {
		// Before the configuration was loaded (a mistake in the command
		// line itself): the language as the help finds it.
		w = c.usageWords(c.root)
	}
	switch {
	case errors.As(err, &busy):
		busy.SameID = c.hasID
		fmt.Fprintln(c.stderr, w.t("exit.error", "message", messages().Detail(w.lang, "detail.usage", busy.Words(), busy.Error())))
		return exitUnavailable
	case errors.As(err, &se):
		fmt.Fprintln(c.stderr, w.t("exit.error", "message", se.in(w.lang)))
		return exitError
	case errors.As(err, &ce):
		fmt.Fprintln(c.stderr, w.t("exit.check_failed", "message", ce.msg))
		return exitCheck
	case errors.As(err, &ue):
		fmt.Fprintln(c.stderr, w.t("exit.error", "message", ue.in(w.lang)))
		return exitUsage
	case errors.As(err, &held):
		fmt.Fprintln(c.stderr, w.t("exit.error", "message", messages().Detail(w.lang, "detail.usage", held.Words(), held.Error())))
		return exitError
	}
	if !errors.As(err, &ae) {
		ae = app.Classify(err, messages(), c.lang(), i18n.Vars{})
		if ae.Kind == app.KindInternal {
			// Not the door's own words: say what happened as it is.
			fmt.Fprintln(c.stderr, w.t("exit.error", "message", err.Error()))
			return exitError
		}
	} else if cause := errors.Unwrap(ae); ae.Kind == app.KindInternal && cause != nil {
		// The door in this process (the CLI owns the folder) has the
		// cause at hand, where a server's only says it logged it: say
		// what happened as it is, to the operator at this terminal.
		fmt.Fprintln(c.stderr, w.t("exit.error", "message", cause.Error()))
		return exitError
	}
	switch ae.Kind {
	case app.KindRefused:
		fmt.Fprintln(c.stderr, w.t("exit.refused", "rule", w.rule(ae.Rule), "message", ae.Message))
		return exitRefused
	case app.KindInvalid:
		fmt.Fprintln(c.stderr, w.t("exit.error", "message", ae.Message))
		return exitUsage
	case app.KindUnavailable:
		if !c.hasID {
			// Nothing to give again: a query, a rebuild is run again.
			fmt.Fprintln(c.stderr, w.t("exit.unavailable_again", "message", ae.Message))
			return exitUnavailable
		}
		fmt.Fprintln(c.stderr, w.t("exit.unavailable", "message", ae.Message))
		return exitUnavailable
	case app.KindIdempotencyConflict:
		fmt.Fprintln(c.stderr, w.t("exit.error", "message", ae.Message))
		return exitIDConflict
	case app.KindForbidden, app.KindUnauthenticated:
		fmt.Fprintln(c.stderr, w.t("exit.not_allowed", "message", ae.Message))
		return exitForbidden
	}
	fmt.Fprintln(c.stderr, w.t("exit.error", "message", ae.Message))
	return exitError
}

// checkError is a failed check (a scenario expectation, an audit).
type checkError struct{ msg string }

func (e *checkError) Error() string { return e.msg }

// usageError is a mistake in how the command was called. One made by
// usagef keeps its English format and values: exit says it in the user's
// language by the catalogue's entry of that format ("detail.usage#N",
// i18n.Catalogue.Detail: an exact lookup), as the door's details are.
type usageError struct {
	msg    string
	format string
	args   []any
}

func (e *usageError) Error() string { return e.msg }

// in says the error in lang: by its format's entry, else as it is (its
// English, or words already said in the language).
func (e *usageError) in(lang string) string {
	if e.format == "" {
		return e.msg
	}
	return messages().Detail(lang, "detail.usage", rules.Words{Format: e.format, Args: e.args}, e.msg)
}

func usagef(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...), format: format, args: a}
}

// usageWords is err as a value of another usage error: its format and
// values (said by their own entry), or err itself.
func usageWords(err error) any {
	var ue *usageError
	if errors.As(err, &ue) && ue.format != "" {
		return rules.Words{Format: ue.format, Args: ue.args}
	}
	return err
}

func (c *cli) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "ledger",
		Short: "The campaign ledger: record, check, replay and audit wargame battles",
		Long: `The campaign ledger records every order, dice roll and move of a battle as an
immutable event on NATS JetStream, checks each against the rules (docs/rules.md),
and keeps SQLite projections of battlefield and campaign.

With no configuration it runs an embedded NATS server and a SQLite file under
./data. Configuration: ledger.yaml (in the working folder or --config),
LEDGER_* environment variables (LEDGER_DATA_DIR, LEDGER_NATS_URL, ...), flags.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			c.name = cmd.CommandPath()
			c.hasID = cmd.Flags().Lookup("id") != nil
			if err := c.loadConfig(cmd); err != nil {
				return err
			}
			return c.requiredFlags(cmd)
		},
	}
	pf := root.PersistentFlags()
	pf.String("config", "", "configuration file (default ./ledger.yaml if present)")
	pf.String("data", "", "data folder (default ./data)")
	pf.String("nats-url", "", "external NATS server URL; empty runs an embedded server")
	pf.String("nats-creds", "", "NATS credentials file")
	pf.String("nats-listen", "", "let the embedded server also listen on this loopback address, for NATS tools")
	pf.String("actor", "", "enter commands for this person of the campaign (recorded as entered by you on their behalf)")
	pf.String("token", "", "act as the person whose token this is (LEDGER_TOKEN), instead of as the data folder's owner")
	pf.String("lang", "", "language of messages: en or ru")
	pf.StringVarP(&c.output, "output", "o", "table", "output format: table or json")
	for flag, key := range map[string]string{
		"data": "data_dir", "nats-url": "nats.url", "nats-creds": "nats.creds",
		"nats-listen": "nats.listen", "actor": "actor", "lang": "lang", "token": "token",
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
	strictGroups(root)
	return root
}

// strictGroups makes a command that only groups others (ledger campaign,
// ledger battle...) refuse an unknown subcommand as bad usage (exit 2),
// instead of printing its help and succeeding.
func strictGroups(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		strictGroups(sub)
	}
	if cmd.HasSubCommands() && cmd.Run == nil && cmd.RunE == nil && cmd.HasParent() {
		cmd.Args = cobra.NoArgs
		cmd.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	}
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
	c.v.SetDefault("key_file", def.KeyFile)
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
	c.v.SetDefault("nats.batches_in_flight", def.NATS.BatchesInFlight)
	c.v.SetDefault("http.addr", def.HTTP.Addr)
	c.v.SetDefault("http.tls_cert", "")
	c.v.SetDefault("http.tls_key", "")
	c.v.SetDefault("http.admin_token", "")
	c.v.SetDefault("http.read_header_timeout", def.HTTP.ReadHeaderTimeout)
	c.v.SetDefault("http.read_timeout", def.HTTP.ReadTimeout)
	c.v.SetDefault("http.streams_per_caller", def.HTTP.StreamsPerCaller)
	c.v.SetDefault("http.streams", def.HTTP.Streams)
	c.v.SetDefault("http.ready_max_lag", def.HTTP.ReadyMaxLag)
	c.v.SetDefault("http.request_budget", def.HTTP.RequestBudget)
	c.v.SetDefault("http.token_failures_per_minute", def.HTTP.TokenFailuresPerMinute)
	c.v.SetDefault("lang", def.Lang)
	c.v.SetDefault("actor", "")
	c.v.SetDefault("token", "")
	c.v.SetDefault("retries", def.Retries)
	c.v.SetDefault("cache.streams", def.Cache.Streams)
	c.v.SetDefault("cache.timeline_events", def.Cache.TimelineEvents)
	c.v.SetEnvPrefix("LEDGER")
	c.v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	c.v.AutomaticEnv()
	if err := c.checkEnv(os.Environ()); err != nil {
		return err
	}
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
		return configOpenWords(path, err)
	}
	// A key the ledger does not know is a typo, never ignored.
	file := viper.New()
	file.SetConfigFile(path)
	if err := file.ReadInConfig(); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	known := map[string]bool{}
	for _, k := range config.Keys() {
		known[k] = true
	}
	var unknown []rules.Words
	for _, k := range file.AllKeys() {
		if !known[k] {
			unknown = append(unknown, rules.Words{Format: "%q (did you mean %q?)", Args: []any{k, config.Nearest(k)}})
		}
	}
	if len(unknown) > 0 {
		return usagef("config %s: unknown key %s", path, joinWords(unknown, "%s, unknown key %s"))
	}
	return nil
}

// joinWords joins a list's words by pair, right to left (a, pair(b, c)),
// each pair's format having the words between (and its own entry in the
// catalogues): printed, the English as strings.Join would say it.
func joinWords(list []rules.Words, pair string) rules.Words {
	out := list[len(list)-1]
	for i := len(list) - 2; i >= 0; i-- {
		out = rules.Words{Format: pair, Args: []any{list[i], out}}
	}
	return out
}

// harnessEnv are the LEDGER_* variables (and prefixes, ending in _) that
// the tests, the benchmarks and .ci/run read, not the program: the ledger
// started by a test inherits them and does not refuse them.
var harnessEnv = []string{"LEDGER_TEST_", "LEDGER_REQUIRE_", "LEDGER_SKIP_", "LEDGER_DOCS_", "LEDGER_BENCH_",
	"LEDGER_CLUSTER_", "LEDGER_KILL_", "LEDGER_CHROMIUM", "LEDGER_WEB_SCREENSHOT", "LEDGER_ARGS"}

// checkEnv refuses a LEDGER_* variable that sets no configuration key: a
// typo (LEDGER_HTTP_ADRR) would otherwise be ignored and the default used,
// as an unknown key in ledger.yaml is refused. The refusal names every
// such variable and the nearest it may have meant.
func (c *cli) checkEnv(environ []string) error {
	known := map[string]bool{}
	for _, k := range append(config.Keys(), c.v.AllKeys()...) {
		known[envName(k)] = true
	}
	var unknown []rules.Words
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "LEDGER_") || known[name] {
			continue
		}
		if slices.ContainsFunc(harnessEnv, func(h string) bool {
			return name == h || strings.HasSuffix(h, "_") && strings.HasPrefix(name, h)
		}) {
			continue
		}
		key := strings.ToLower(strings.TrimPrefix(name, "LEDGER_"))
		unknown = append(unknown, rules.Words{Format: "%s (did you mean %s?)", Args: []any{name, envName(nearestEnvKey(key, c.v.AllKeys()))}})
	}
	if len(unknown) > 0 {
		sort.Slice(unknown, func(i, j int) bool { return unknown[i].String() < unknown[j].String() })
		return usagef("environment: unknown variable %s: the ledger reads LEDGER_ and a configuration key in capitals, dots as _ (`ledger config` shows them); unset it", joinWords(unknown, "%s, unknown variable %s"))
	}
	return nil
}

// envName is the variable that sets a configuration key: http.admin_token
// is LEDGER_HTTP_ADMIN_TOKEN.
func envName(key string) string {
	return "LEDGER_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// nearestEnvKey is the key whose variable is nearest the one given (as
// lowercase, underscores for dots: http_adrr).
func nearestEnvKey(key string, keys []string) string {
	best, bestD := "", -1
	for _, k := range keys {
		if d := config.Distance(key, strings.ReplaceAll(k, ".", "_")); bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	return best
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
		return cfg, configInvalid(err)
	}
	return cfg, nil
}

// open opens the ledger in this process, owning the data folder (its
// lock), for the commands that work on the log itself (restore, import):
// refused, naming the server, when `ledger serve` owns the folder. Call
// release when done.
func (c *cli) open() (*App, func(), error) {
	if c.shared != nil {
		return c.shared, func() {}, nil
	}
	cfg, err := c.config()
	if err != nil {
		return nil, nil, err
	}
	if wanting, holder := serveWanting(cfg.DataDir); wanting {
		return nil, nil, fmt.Errorf("%s works on the log itself and cannot run while a ledger server owns or is starting on %s (%s): stop it first",
			c.name, cfg.DataDir, holder)
	}
	lock, err := waitLock(c.ctx, cfg, c.name, lockWait, c.doorAnswers(cfg))
	if errors.Is(err, errServed) {
		holder, _ := os.ReadFile(filepath.Join(cfg.DataDir, lockName))
		return nil, nil, fmt.Errorf("%s works on the log itself and cannot run while a ledger server owns %s (%s): stop it first",
			c.name, cfg.DataDir, strings.TrimSpace(string(holder)))
	}
	if err != nil {
		return nil, nil, err
	}
	a, err := OpenApp(c.ctx, cfg, AppOptions{Entropy: c.entropy, Lock: lock})
	if err != nil {
		return nil, nil, err
	}
	c.noticeDamaged(a)
	if err := a.CatchUp(c.ctx, nil); err != nil {
		a.Close()
		return nil, nil, err
	}
	return a, func() { a.Close() }, nil
}

// lockWait is how long a CLI command waits for another CLI command on the
// same folder to finish (serveWait when a server is starting on it).
const lockWait = 15 * time.Second

// api returns the ledger as the CLI's caller sees it (the operator, or
// --token's person): through the local door when a ledger server owns the
// data folder, or else opened in this process, which then owns the folder
// for the length of the command. Call release when done.
func (c *cli) api() (app.API, func(), error) {
	api, _, release, err := c.connect()
	return api, release, err
}

// connect is api, and the App when the ledger was opened in this process
// (nil through the door).
func (c *cli) connect() (app.API, *App, func(), error) {
	caller := operatorCaller(c.token(), c.lang())
	if c.shared != nil {
		return c.shared.Ledger.As(caller), c.shared, func() {}, nil
	}
	cfg, err := c.config()
	if err != nil {
		return nil, nil, nil, err
	}
	door := c.doorAnswers(cfg)
	if door() {
		return c.doorClient(cfg), nil, func() {}, nil
	}
	lock, err := waitLock(c.ctx, cfg, c.name, lockWait, door)
	if errors.Is(err, errServed) {
		return c.doorClient(cfg), nil, func() {}, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	a, err := OpenApp(c.ctx, cfg, AppOptions{Entropy: c.entropy, Lock: lock})
	if err != nil {
		return nil, nil, nil, err
	}
	c.noticeDamaged(a)
	// The projection is brought up to the log's end before any query.
	if err := a.CatchUp(c.ctx, nil); err != nil {
		a.Close()
		return nil, nil, nil, err
	}
	return a.Ledger.As(caller), a, func() { a.Close() }, nil
}

// noticeDamaged says so when the projection file could not be read and was
// moved aside, to be rebuilt from the log.
func (c *cli) noticeDamaged(a *App) {
	if d := a.DB.Damaged(); d != nil {
		fmt.Fprintln(c.stderr, d.String())
	}
}

// doorClient is the client of a data folder's local door.
func (c *cli) doorClient(cfg config.Config) *client.Client {
	return client.Socket(socketPath(cfg), client.Options{Token: c.token(), Lang: c.lang(), Timeout: 5 * time.Minute})
}

// doorAnswers returns a check of whether a server answers at the folder's
// local door.
func (c *cli) doorAnswers(cfg config.Config) func() bool {
	return func() bool {
		if _, err := os.Stat(socketPath(cfg)); err != nil {
			return false
		}
		ctx, cancel := context.WithTimeout(c.ctx, 2*time.Second)
		defer cancel()
		return client.Socket(socketPath(cfg), client.Options{}).Ping(ctx) == nil
	}
}

// actor is the person commands are entered for (--actor): empty for the
// caller themselves.
func (c *cli) actor() string {
	if c.cfgSet != nil {
		return c.cfgSet.Actor
	}
	return c.v.GetString("actor")
}
