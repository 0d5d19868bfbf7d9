package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/client"
	"github.com/clubledger/ledger/rules/geom"
)

// commandFlags are the flags every state-changing subcommand shares.
// Physical dice are recorded as entered by the person the command is for
// (the service decides it, docs/api.md): no flag names anyone else. Who
// entered a combat result is its body's entered_by (ledger do).
type commandFlags struct {
	id   string
	dice string
}

func (f *commandFlags) add(cmd *cobra.Command, rolls bool) {
	cmd.Flags().StringVar(&f.id, "id", "", "command id; repeating an id appends nothing new (default: a fresh random id)")
	if rolls {
		cmd.Flags().StringVar(&f.dice, "dice", "", "physical dice thrown on the table, in order (\"3,3\"); default: the ledger's digital dice")
	}
}

func (f *commandFlags) request(c *cli, name, campaignID, battle string, body any) (app.Command, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return app.Command{}, err
	}
	cmd := app.Command{ID: f.id, Campaign: campaignID, Battle: battle, Name: name, Body: raw, For: c.actor()}
	if f.dice != "" {
		vals, err := parseInts(f.dice)
		if err != nil {
			return cmd, usagef("--dice %q: %v", f.dice, usageWords(err))
		}
		cmd.Dice = vals
	}
	if cmd.ID == "" {
		// A fresh id, printed if the outcome is unknown (retry with it).
		cmd.ID = app.NewCommandID()
	}
	if c.token() != "" {
		// A player's own command mixes fresh randomness from this device
		// into any digital dice it rolls (docs/dice.md).
		cmd.Nonce = app.NewNonce()
	}
	return cmd, nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, usagef("%q is not a number", p)
		}
		out = append(out, n)
	}
	return out, nil
}

func parsePoint(s string) (map[string]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return nil, usagef("%q: want X,Y", s)
	}
	x, err1 := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
	if err1 != nil || err2 != nil || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return nil, usagef("%q: want X,Y in the battle's unit", s)
	}
	return map[string]float64{"x": x, "y": y}, nil
}

// splitKey parses "campaign/battle" (battle optional unless needBattle).
func splitKey(s string, needBattle bool) (string, string, error) {
	c, b, _ := strings.Cut(s, "/")
	if c == "" {
		return "", "", usagef("%q: want CAMPAIGN/BATTLE", s)
	}
	if needBattle && b == "" {
		return "", "", usagef("%q: want CAMPAIGN/BATTLE", s)
	}
	return c, b, nil
}

// readBody reads a YAML or JSON file into a generic body.
func readBody(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// submit runs one command through the door and prints its outcome.
func (c *cli) submit(cmd app.Command) error {
	api, release, err := c.api()
	if err != nil {
		return err
	}
	defer release()
	return c.execute(api, cmd)
}

// execute runs cmd through api and prints its outcome.
func (c *cli) execute(api app.API, cmd app.Command) error {
	res, err := api.Execute(c.ctx, cmd)
	if client.IsUnavailable(err) {
		fmt.Fprintln(c.stderr, c.words().t("result.send_again", "id", cmd.ID))
	}
	if err != nil {
		return err
	}
	if err := checkNonce(cmd, res); err != nil {
		return err
	}
	return c.printResult(res)
}

func (c *cli) printResult(res app.Result) error {
	if c.output == "json" {
		return writeJSON(c.stdout, res)
	}
	w := c.words()
	if res.Duplicate {
		fmt.Fprintln(c.stdout, w.t("result.duplicate", "command", res.CommandID))
	}
	for _, e := range res.Events {
		who := ""
		if e.OnBehalfOf != "" {
			who = " [" + w.actor(e.Actor, e.OnBehalfOf) + "]"
		}
		fmt.Fprintf(c.stdout, "  %s v%d %-18s %s%s\n", res.Key, e.Version, e.Type, e.Description, who)
	}
	return nil
}

func writeJSON(w interface{ Write([]byte) (int, error) }, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (c *cli) campaignCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "campaign", Short: "Create and show campaigns"}
	var f commandFlags
	var name, era, rulesetFile string
	var sides []string
	create := &cobra.Command{
		Use:   "create CAMPAIGN",
		Short: "Open a campaign with its two sides",
		Example: `  ledger campaign create peninsula --name "Peninsula 1809" \
      --side french:France:france --side british:Britain:britain`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			body := map[string]any{"campaign": args[0], "name": name}
			if era != "" {
				body["era"] = era
			}
			if rulesetFile != "" {
				b, err := os.ReadFile(rulesetFile)
				if err != nil {
					return err
				}
				body["ruleset"] = string(b)
			}
			var ss []map[string]string
			for _, s := range sides {
				p := strings.SplitN(s, ":", 3)
				side := map[string]string{"id": p[0], "name": p[0]}
				if len(p) > 1 {
					side["name"] = p[1]
				}
				if len(p) > 2 {
					side["nation"] = p[2]
				}
				ss = append(ss, side)
			}
			body["sides"] = ss
			req, err := f.request(c, campaign.CmdCreate, args[0], "", body)
			if err != nil {
				return err
			}
			return c.submit(req)
		},
	}
	create.Flags().StringVar(&name, "name", "", "the campaign's name")
	create.Flags().StringVar(&era, "era", "", "napoleonic (default) or awi (no attack columns, C.7)")
	create.Flags().StringVar(&rulesetFile, "ruleset", "", "YAML overlay on the default ruleset for every battle of the campaign")
	create.Flags().StringArrayVar(&sides, "side", nil, "a side as ID:NAME:NATION (give two)")
	f.add(create, false)
	cmd.AddCommand(create, c.campaignShowCommand())
	return cmd
}

func (c *cli) battleCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "battle", Short: "Create, deploy, start and end battles"}

	var cf commandFlags
	var file string
	create := &cobra.Command{
		Use:   "create CAMPAIGN/BATTLE --file battle.yaml",
		Short: "Create a battle of a campaign from a YAML description (docs/scenario-format.md)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], true)
			if err != nil {
				return err
			}
			body, err := readBody(file)
			if err != nil {
				return err
			}
			body["battle"] = battle
			req, err := cf.request(c, "battle.create", camp, battle, body)
			if err != nil {
				return err
			}
			return c.submit(req)
		},
	}
	create.Flags().StringVar(&file, "file", "", "the battle's YAML: name, measurement, table, first_side, turn_limit")
	_ = create.MarkFlagRequired("file")
	cf.add(create, false)

	var df commandFlags
	var side, oob string
	deploy := &cobra.Command{
		Use:   "deploy CAMPAIGN/BATTLE --side SIDE --file oob.yaml",
		Short: "Deploy a side's army from a YAML order of battle",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], true)
			if err != nil {
				return err
			}
			body, err := readBody(oob)
			if err != nil {
				return err
			}
			if side != "" {
				body["side"] = side
			}
			req, err := df.request(c, "army.deploy", camp, battle, body)
			if err != nil {
				return err
			}
			return c.submit(req)
		},
	}
	deploy.Flags().StringVar(&side, "side", "", "the side deploying")
	deploy.Flags().StringVar(&oob, "file", "", "order of battle (YAML)")
	_ = deploy.MarkFlagRequired("file")
	df.add(deploy, false)

	var sf commandFlags
	start := &cobra.Command{
		Use:   "start CAMPAIGN/BATTLE",
		Short: "Start a battle once both sides are deployed (T.1)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], true)
			if err != nil {
				return err
			}
			req, err := sf.request(c, "battle.start", camp, battle, map[string]any{})
			if err != nil {
				return err
			}
			return c.submit(req)
		},
	}
	sf.add(start, false)

	var ef commandFlags
	var reason string
	end := &cobra.Command{
		Use:   "end CAMPAIGN/BATTLE",
		Short: "End a battle (T.5)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], true)
			if err != nil {
				return err
			}
			req, err := ef.request(c, "battle.end", camp, battle, map[string]any{"reason": reason})
			if err != nil {
				return err
			}
			return c.submit(req)
		},
	}
	end.Flags().StringVar(&reason, "reason", "ended by the umpire", "why the battle ends")
	ef.add(end, false)

	cmd.AddCommand(create, deploy, start, end)
	return cmd
}

func (c *cli) orderCommand() *cobra.Command {
	var f commandFlags
	var general, action string
	var units []string
	cmd := &cobra.Command{
		Use:   "order CAMPAIGN/BATTLE --general G --units U1,U2 [--action move]",
		Short: "A general gives an order: 2D6 against his command rating (C.2-C.4)",
		Example: `  ledger order demo/b1 --general ney --units 1-ligne --dice 3,3
  ledger order demo/b1 --general ney --units 1-ligne,2-ligne --action formation`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], true)
			if err != nil {
				return err
			}
			body := map[string]any{"general": general, "units": units, "content": map[string]any{"action": action}}
			req, err := f.request(c, "order.give", camp, battle, body)
			if err != nil {
				return err
			}
			return c.submit(req)
		},
	}
	cmd.Flags().StringVar(&general, "general", "", "the general giving the order")
	cmd.Flags().StringSliceVar(&units, "units", nil, "the units ordered")
	cmd.Flags().StringVar(&action, "action", "move", "what the order is for: move, formation or charge")
	_ = cmd.MarkFlagRequired("general")
	_ = cmd.MarkFlagRequired("units")
	f.add(cmd, true)
	return cmd
}

func (c *cli) moveCommand() *cobra.Command {
	var f commandFlags
	var to, toward string
	var via []string
	var facing, by, heading float64
	var actions int
	cmd := &cobra.Command{
		Use:   "move CAMPAIGN/BATTLE UNIT (--to X,Y | --by DIST (--heading DEG | --toward TARGET) | --toward TARGET) [--facing DEG] [--via X,Y]... [--actions N]",
		Short: "Move a unit with actions granted by its order (C.6, C.17)",
		Long: `Move a unit: to a point (--to X,Y, the centre of its base), or by a
distance in a direction as measured at the table (--by 6 --heading 30: six
inches, or centimetres on a cm table, at 30 degrees clockwise from north),
or towards another unit or general (--toward TARGET, with --by to go that
far, else as far as the target: a move that would come within 1" of an
enemy without a charge order stops 1" short, C.9). The facing stays as it
is unless --facing says otherwise. Without --actions the rules use the
fewest of the unit's actions that cover the distance.`,
		Example: `  ledger move demo/b1 1-ligne --to 20,18 --facing 0
  ledger move demo/b1 1-ligne --by 6 --heading 30
  ledger move demo/b1 1-ligne --toward ir-4`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := battleArg(args[0])
			if err != nil {
				return err
			}
			changed := cmd.Flags().Changed
			switch {
			case to != "" && (changed("by") || toward != "" || changed("heading")):
				return usagef("--to is a point; --by, --heading and --toward are a distance and a direction: give one or the other")
			case to == "" && toward == "" && !(changed("by") && changed("heading")):
				return usagef("where to? give --to X,Y, or --by DIST with --heading DEG or --toward TARGET, or --toward TARGET")
			case changed("heading") && toward != "":
				return usagef("--heading and --toward are both a direction: give one")
			}
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			var dest map[string]float64
			if to != "" {
				if dest, err = parsePoint(to); err != nil {
					return usagef("--to %v", usageWords(err))
				}
			} else {
				b, err := api.State(c.ctx, key)
				if err != nil {
					return err
				}
				if dest, err = destination(b, args[1], by, changed("by"), heading, toward); err != nil {
					return err
				}
			}
			body := map[string]any{"unit": args[1], "to": dest}
			if changed("actions") {
				body["actions"] = actions
			}
			if changed("facing") {
				body["facing"] = facing
			}
			var path []map[string]float64
			for _, v := range via {
				p, err := parsePoint(v)
				if err != nil {
					return usagef("--via %v", usageWords(err))
				}
				path = append(path, p)
			}
			if len(path) > 0 {
				body["path"] = path
			}
			req, err := f.request(c, "unit.move", key.Campaign, key.Battle, body)
			if err != nil {
				return err
			}
			return c.execute(api, req)
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "where the unit's centre ends, X,Y")
	cmd.Flags().Float64Var(&by, "by", 0, "how far the unit moves, in the battle's unit (inches or cm)")
	cmd.Flags().Float64Var(&heading, "heading", 0, "the direction of a --by move, degrees clockwise from north")
	cmd.Flags().StringVar(&toward, "toward", "", "move towards this unit or general (as far as --by, else up to it)")
	cmd.Flags().Float64Var(&facing, "facing", 0, "the facing at the end, degrees clockwise from north (default: unchanged)")
	cmd.Flags().StringArrayVar(&via, "via", nil, "waypoints X,Y, in order")
	cmd.Flags().IntVar(&actions, "actions", 0, "how many of the unit's actions the move uses (default: the fewest that cover it)")
	f.add(cmd, true)
	return cmd
}

// destination turns a distance and a direction, as measured at the table,
// into the point the unit's centre ends at: from where it stands now, by
// dist along heading (degrees clockwise from north, y growing north), or
// towards target's centre (all the way when dist is not given).
func destination(b app.Board, unit string, dist float64, hasDist bool, heading float64, target string) (map[string]float64, error) {
	var from *app.BoardUnit
	for i := range b.Units {
		if b.Units[i].Unit == unit {
			from = &b.Units[i]
		}
	}
	if from == nil {
		return nil, usagef("battle %s/%s has no unit %q", b.Campaign, b.Battle, unit)
	}
	if hasDist && (dist <= 0 || math.IsInf(dist, 0) || math.IsNaN(dist)) {
		return nil, usagef("--by %g: a distance above 0", dist)
	}
	if target != "" {
		tx, ty, ok := boardPosition(b, target)
		if !ok {
			return nil, usagef("--toward %q: no such unit or general in %s/%s", target, b.Campaign, b.Battle)
		}
		at, to := geom.Vec{X: from.X, Y: from.Y}, geom.Vec{X: tx, Y: ty}
		if !hasDist {
			dist = geom.Dist(at, to)
		}
		p, ok := geom.Toward(at, to, dist)
		if !ok {
			return nil, usagef("--toward %q: it stands where %s stands", target, unit)
		}
		return map[string]float64{"x": p.X, "y": p.Y}, nil
	}
	p := geom.Along(geom.Vec{X: from.X, Y: from.Y}, dist, heading)
	return map[string]float64{"x": p.X, "y": p.Y}, nil
}

// boardPosition is where a unit's centre or a general stands.
func boardPosition(b app.Board, id string) (x, y float64, ok bool) {
	for _, u := range b.Units {
		if u.Unit == id {
			return u.X, u.Y, true
		}
	}
	for _, g := range b.Generals {
		if g.General == id {
			return g.X, g.Y, true
		}
	}
	return 0, 0, false
}

func (c *cli) phaseCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "phase", Short: "Phase sequencing (T.1-T.5)"}
	var f commandFlags
	var side string
	end := &cobra.Command{
		Use:   "end CAMPAIGN/BATTLE --side SIDE",
		Short: "End the current phase for a side",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], true)
			if err != nil {
				return err
			}
			req, err := f.request(c, "phase.end", camp, battle, map[string]any{"side": side})
			if err != nil {
				return err
			}
			return c.submit(req)
		},
	}
	end.Flags().StringVar(&side, "side", "", "the side ending its phase")
	f.add(end, false)
	cmd.AddCommand(end)
	return cmd
}

func (c *cli) doCommand() *cobra.Command {
	var f commandFlags
	var jsonBody, file string
	cmd := &cobra.Command{
		Use:   "do CAMPAIGN[/BATTLE] COMMAND [--json BODY | --file BODY.yaml]",
		Short: "Give any command by name with a JSON or YAML body (docs/scenario-format.md lists them)",
		Example: `  ledger do demo/b1 unit.move --json '{"unit":"1-ligne","to":{"x":20,"y":18}}'
  ledger do demo/b1 order.give --file order.yaml --dice 6,4`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], false)
			if err != nil {
				return err
			}
			var body any = map[string]any{}
			switch {
			case jsonBody != "" && file != "":
				return usagef("--json and --file together")
			case jsonBody != "":
				var m map[string]any
				if err := json.Unmarshal([]byte(jsonBody), &m); err != nil {
					return usagef("--json: %v", jsonWords(err))
				}
				body = m
			case file != "":
				m, err := readBody(file)
				if err != nil {
					return err
				}
				body = m
			}
			req, err := f.request(c, args[1], camp, battle, body)
			if err != nil {
				return err
			}
			return c.submit(req)
		},
	}
	cmd.Flags().StringVar(&jsonBody, "json", "", "the command's body as JSON")
	cmd.Flags().StringVar(&file, "file", "", "the command's body as a YAML or JSON file")
	f.add(cmd, true)
	return cmd
}

// checkNonce compares the nonce this device sent with the one each digital
// roll of the command recorded: a ledger that recorded another (or none)
// chose the roll itself, and the player must know at once (docs/dice.md).
func checkNonce(cmd app.Command, res app.Result) error {
	if cmd.Nonce == "" || res.Duplicate || res.DryRun {
		return nil
	}
	for _, e := range res.Events {
		if e.Type != "dice.rolled" {
			continue
		}
		var r struct {
			Source string `json:"source"`
			Nonce  string `json:"nonce"`
		}
		if json.Unmarshal(e.Payload, &r) != nil || r.Source != "digital" {
			continue
		}
		if !strings.EqualFold(r.Nonce, cmd.Nonce) {
			return &checkError{msg: fmt.Sprintf("event %d: the digital roll recorded the nonce %q, but this device sent %q: the ledger did not roll with your randomness; raise a dispute and tell the umpire", e.Version, r.Nonce, cmd.Nonce)}
		}
	}
	return nil
}
