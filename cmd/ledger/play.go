package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/examples"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/rules"
)

func (c *cli) playCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "play SCENARIO.yaml...",
		Short: "Play scenario files against the ledger, printing each step's outcome (docs/scenario-format.md)",
		Long: `Play runs each step of a scenario file as a command, through the same door
as every other command (a running ledger serve's, when one owns the data
folder), and prints whether it was accepted (with its events) or refused
(with the rule). A step's actor is the person of the campaign the command is
entered for; it is recorded as entered by you on their behalf. A step may
say what it expects ("expect: refused C.17"); play exits with code 4 if any
step gave something else. What playing a file twice does:
docs/scenario-format.md.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			for _, path := range args {
				sc, err := campaign.LoadScenario(path)
				if err != nil {
					return scenarioWords(path, err)
				}
				if err := c.playScenario(api, sc); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// playScenario plays sc through api, printing each step.
func (c *cli) playScenario(api app.API, sc *campaign.Scenario) error {
	if c.output != "json" {
		fmt.Fprintf(c.stdout, "== %s\n", firstOf(sc.Name, sc.ID))
	}
	var results []stepJSON
	words := c.describer(api)
	stopped := 0 // the step Ctrl-C cut off
	// The caller plays the file: the API knows who that is.
	err := sc.Play(c.ctx, app.Executor(api), campaign.Principal{}, func(r campaign.StepResult) {
		if r.Err != nil && c.ctx.Err() != nil {
			// Stopped by the user (Ctrl-C), not by the ledger: said once,
			// below, in words.
			stopped = r.Number
			return
		}
		if c.output == "json" {
			results = append(results, toStepJSON(r))
			return
		}
		c.printStep(r, words)
	})
	if c.output == "json" {
		if werr := writeJSON(c.stdout, results); werr != nil && err == nil {
			err = werr
		}
	}
	if stopped > 0 && err != nil {
		return said(err, rules.Words{Format: "play of %s stopped at step %d of %d (%s): what was recorded stays recorded; step %d may or may not have been recorded: play the file again to go on (a step recorded before answers with its recorded outcome, duplicate, and is not recorded twice)",
			Args: []any{sc.ID, stopped, len(sc.Steps), sc.Steps[stopped-1].Do, stopped}})
	}
	if errors.Is(err, campaign.ErrExpectation) {
		return &checkError{msg: c.words().t("play.expectations", "scenario", sc.ID)}
	}
	return err
}

type stepJSON struct {
	Step     int               `json:"step"`
	Command  string            `json:"command"`
	ID       string            `json:"id"`
	Status   string            `json:"status"`
	Refusal  any               `json:"refusal,omitempty"`
	Events   []events.Envelope `json:"events,omitempty"`
	Mismatch string            `json:"mismatch,omitempty"`
}

func toStepJSON(r campaign.StepResult) stepJSON {
	s := stepJSON{Step: r.Number, Command: r.Step.Do, ID: r.Request.ID, Status: r.Status(), Events: r.Outcome.Events, Mismatch: r.Mismatch}
	if r.Refusal != nil {
		s.Refusal = r.Refusal
	}
	return s
}

func (c *cli) printStep(r campaign.StepResult, describe *app.Describer) {
	w := c.words()
	if r.Step.Note != "" {
		fmt.Fprintf(c.stdout, "\n-- %s\n", strings.TrimSpace(r.Step.Note))
	}
	who := firstOf(r.Request.For, w.t("play.you"))
	if len(r.Request.Dice.Values) > 0 {
		who = w.t("play.with_dice", "who", who, "dice", fmt.Sprint(r.Request.Dice.Values))
	}
	fmt.Fprintf(c.stdout, "#%d %s [%s]: %s\n", r.Number, r.Step.Do, who, w.stepStatus(r.State()))
	switch {
	case r.Refusal != nil:
		fmt.Fprintf(c.stdout, "   %s\n", w.t("play.refused", "rule", w.rule(r.Refusal.Rule), "message", w.cat.Refusal(w.lang, r.Refusal, i18n.Vars{})))
	case r.Err != nil:
		fmt.Fprintf(c.stdout, "   %s\n", w.t("play.error", "error", errorText(r.Err)))
	default:
		for _, e := range r.Outcome.Events {
			fmt.Fprintf(c.stdout, "   v%-3d %-18s %s\n", e.Version, e.Type, describe.Describe(e))
		}
	}
	if r.Mismatch != "" {
		fmt.Fprintf(c.stdout, "   !! %s\n", w.t("play.mismatch", "expected", w.stepStatus(r.Step.Expected()), "got", w.stepStatus(r.State())))
	}
}

// errorText is an error as the CLI shows it: the door's message (in the
// caller's language) when the door made it, else the error's own words.
func errorText(err error) string {
	var ae *app.Error
	if errors.As(err, &ae) {
		return ae.Error()
	}
	return err.Error()
}

func firstOf(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

func (c *cli) demoCommand() *cobra.Command {
	var keep string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Play the example battle into a fresh ledger and print its state and log",
		Long: `Demo starts a fresh ledger (embedded NATS and SQLite in a temporary folder,
or in --keep DIR), plays examples/first-battle.yaml, and prints every step's
outcome, the battle's state and its event log. Nothing else is needed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := c.config()
			if err != nil {
				return err
			}
			dir := keep
			if dir == "" {
				dir, err = os.MkdirTemp("", "ledger-demo-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
			} else if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
				return usagef("%s", c.words().t("demo.usage_keep", "dir", dir))
			}
			cfg.DataDir = dir
			cfg.DB = ""
			cfg.NATS.URL = ""
			cfg.NATS.Replicas = 1
			return c.runDemo(cfg, keep != "")
		},
	}
	cmd.Flags().StringVar(&keep, "keep", "", "play into this (new or empty) folder and keep it, so that other commands can look with --data")
	return cmd
}

func (c *cli) runDemo(cfg config.Config, kept bool) error {
	dir, err := os.MkdirTemp("", "ledger-demo-scenario-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// Copy the embedded examples out so that with_file paths resolve.
	if err := fs.WalkDir(examples.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := examples.FS.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, p), b, 0o644)
	}); err != nil {
		return err
	}
	sc, err := campaign.LoadScenario(filepath.Join(dir, examples.Demo))
	if err != nil {
		return err
	}
	a, err := OpenApp(c.ctx, cfg, AppOptions{Entropy: c.entropy, What: "demo"})
	if err != nil {
		return err
	}
	defer a.Close()
	if err := c.playScenario(a.Ledger.As(operatorCaller("", c.lang())), sc); err != nil {
		return err
	}
	key := events.Key{Campaign: sc.Campaign, Battle: sc.LastBattle()}
	inner := &cli{entropy: c.entropy, ctx: c.ctx, v: c.v, stdin: c.stdin, stdout: c.stdout, stderr: c.stderr, output: c.output, cfgSet: &cfg, shared: a}
	w := c.words()
	fmt.Fprintf(c.stdout, "\n== %s\n", w.t("demo.state", "battle", key.String()))
	if err := inner.stateCommand().RunE(nil, []string{key.String()}); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "\n== %s\n", w.t("demo.log", "battle", key.String()))
	if err := inner.logCommand().RunE(nil, []string{key.String()}); err != nil {
		return err
	}
	if kept {
		fmt.Fprintf(c.stdout, "\n%s\n", w.t("demo.kept", "dir", cfg.DataDir, "battle", key.String()))
	}
	return nil
}

// describer says events in the configured language (the door's own
// describer), asking api for a battle's measurement when needed.
func (c *cli) describer(api app.API) *app.Describer {
	cat := messages()
	return app.NewDescriber(cat, c.lang(), func(key events.Key) string {
		if b, err := api.State(c.ctx, key); err == nil {
			return b.Measurement
		}
		return ""
	}).WithSides(func(key events.Key) map[string]string {
		b, err := api.State(c.ctx, key)
		if err != nil {
			return nil
		}
		names := map[string]string{}
		for _, s := range b.Sides {
			if s.Name != "" {
				names[s.Side] = s.Name
			}
		}
		return names
	})
}
