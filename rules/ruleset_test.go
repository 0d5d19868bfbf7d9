package rules

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDefaultRuleset guards the embedded file: it parses strictly, validates,
// and survives a JSON round trip (battle.created carries it as JSON).
func TestDefaultRuleset(t *testing.T) {
	r := DefaultRuleset()
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Ruleset
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*r, back) {
		t.Fatal("ruleset changed in a JSON round trip")
	}
	// Numbers of the seeds, read back as data.
	checks := []struct {
		name   string
		got    Distance
		in, cm float64
	}{
		{"C.17 infantry", r.UnitTypes["infantry"].MovePerAction, 6, 10},
		{"C.17 light cavalry", r.UnitTypes["light_cavalry"].MovePerAction, 12, 20},
		{"C.17 dragoons", r.UnitTypes["dragoons"].MovePerAction, 9, 15},
		{"C.7 distance step", r.Command.Modifiers.Distance.Step, 12, 20},
		{"C.7 enemy near", r.Command.Modifiers.EnemyNear.Distance, 6, 10},
		{"C.7 ЧП", r.Command.Modifiers.EnemyNear.VariantDistance, 12, 20},
		{"C.8", r.Command.GroupDistance, 6, 10},
		{"C.13", r.Command.FollowMe.Range, 12, 20},
		{"C.15", r.Command.Initiative.Range, 12, 20},
		{"M.12 foot", r.Movement.TacticalMarch.Speeds["foot"], 18, 30},
		{"M.12 mounted", r.Movement.TacticalMarch.Speeds["mounted"], 24, 40},
		{"M.13", r.Movement.TacticalMarch.StopDistance, 20, 35},
		{"K.2", r.Contact.Gap, 1, 2.5},
		{"F.8", r.FlankMarch.EdgeExclusion, 12, 20},
	}
	for _, c := range checks {
		if c.got.In != c.in || c.got.Cm != c.cm {
			t.Errorf("%s: got %v, want %v\"/%v cm", c.name, c.got, c.in, c.cm)
		}
	}
	for _, e := range r.FlankMarch.Arrival.Entries {
		if e.Roll == 5 && e.DelayTurns != 4 {
			t.Errorf("F.2 house default for 5: %d", e.DelayTurns)
		}
	}
	if got := r.Turn.Phases; strings.Join(got, ",") != "command,movement,combat" {
		t.Errorf("T phases %v", got)
	}
}

// TestDefaultRulesetLabels: every unit type's victory points and base carry
// the house-default label in the file.
func TestDefaultRulesetLabels(t *testing.T) {
	text := string(DefaultRulesetYAML())
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "victory_points:") || strings.HasPrefix(l, "base:") {
			if !strings.Contains(l, "house default") {
				t.Errorf("unlabelled: %s", l)
			}
		}
	}
	if !strings.Contains(text, "house default: the number is missing from the text") {
		t.Error("F.2 house default not labelled")
	}
}

func TestLoadRulesetOverlay(t *testing.T) {
	base := DefaultRuleset()
	r, err := LoadRuleset(base, []byte(`
era: awi
unit_types:
  infantry:
    move_per_action: {in: 5}
command:
  modifiers:
    enemy_near: {use_variant: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Era != "awi" || !r.Command.Modifiers.EnemyNear.UseVariant {
		t.Fatalf("overlay not applied: %+v", r.Command.Modifiers.EnemyNear)
	}
	inf := r.UnitTypes["infantry"]
	if inf.MovePerAction.In != 5 || inf.MovePerAction.Cm != 10 || inf.VictoryPoints != 3 || len(inf.Formations) == 0 {
		t.Fatalf("mappings must merge key by key: %+v", inf)
	}
	if r.Command.Modifiers.EnemyNear.Distance.In != 6 {
		t.Fatal("sibling keys lost")
	}
	if base.Era != "napoleonic" || base.UnitTypes["infantry"].MovePerAction.In != 6 {
		t.Fatal("base was changed")
	}
	// Lists replace.
	r, err = LoadRuleset(nil, []byte(`turn: {phases: [command, combat]}`))
	if err != nil || strings.Join(r.Turn.Phases, ",") != "command,combat" {
		t.Fatalf("phases %v %v", r, err)
	}
	for _, bad := range []string{
		"unit_types: {infantry: {speed: 6}}",                // unknown key
		"turn: {phases: [movement]}",                        // no command phase
		"command: {results: [{min_offset: 1, actions: 1}]}", // offset 0 uncovered
		"command: {blunder: {table: {entries: []}}}",        // blunder table empty
		"flank_march: {arrival: {entries: [{roll: 1, entry: ordered}]}}",
		"unit_types: {infantry: {default_formation: limbered}}",
		"measurement: {default: furlongs}",
		"contact: {leader_point: centre}", // K.10: the engine knows front_center only
		"- a list",
	} {
		if _, err := LoadRuleset(nil, []byte(bad)); err == nil {
			t.Errorf("overlay %q: want an error", bad)
		}
	}
	if r, err := LoadRuleset(nil, nil); err != nil || r.Name != "default" {
		t.Fatalf("empty overlay: %v", err)
	}
}

// TestNoSeedNumbersInCode: no Go file of the package (tests aside) holds a
// number of the seeds as a literal; they belong in the ruleset.
func TestNoSeedNumbersInCode(t *testing.T) {
	seed := map[string]bool{"3": true, "6": true, "9": true, "10": true, "12": true, "15": true, "18": true, "20": true, "24": true, "30": true, "35": true, "40": true, "2.5": true}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fs := token.NewFileSet()
		af, err := parser.ParseFile(fs, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && (lit.Kind == token.INT || lit.Kind == token.FLOAT) && seed[lit.Value] {
				t.Errorf("%s: literal %s: read it from the ruleset", fs.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
}
