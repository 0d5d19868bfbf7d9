package rules

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules/geom"
)

// kU places one unit for a charge test: an existing unit of the near battle
// (r1-inf1 is always the charger, b1-inf1 the usual target) or a new one.
type kU struct {
	id, side         string
	x, y, facing     float64
	width, depth     float64
	formation, utype string
}

func red(id string, x, y, facing, w, d float64) kU {
	return kU{id: id, side: "red", x: x, y: y, facing: facing, width: w, depth: d}
}
func blue(id string, x, y, facing, w, d float64) kU {
	return kU{id: id, side: "blue", x: x, y: y, facing: facing, width: w, depth: d}
}

func rect(name, kind string, x0, y0, x1, y1 float64) geom.Terrain {
	k, err := geom.ParseKind(kind)
	if err != nil {
		panic(err)
	}
	return geom.Terrain{Name: name, Kind: k, Outline: geom.Polygon{gv(x0, y0), gv(x1, y0), gv(x1, y1), gv(x0, y1)}}
}

// kBattle is the near battle (red's command phase, turn 1) with every unit
// but r1-inf1 off the table, then the units given placed, the terrain
// added, and r1-inf1 ordered to charge (rolled 2: three actions).
func kBattle(t testing.TB, units []kU, terrain ...geom.Terrain) *State {
	t.Helper()
	_, s := nearSetup(t)
	for id, u := range s.Units {
		if id != "r1-inf1" {
			u.Status = UnitOffTable
		}
	}
	for _, k := range units {
		u := s.Units[k.id]
		if u == nil {
			brigade := "r1"
			if k.side == "blue" {
				brigade = "b1"
			}
			u = &Unit{ID: k.id, Name: k.id, Side: k.side, Brigade: brigade, Type: "infantry", Formation: "line"}
			s.Units[k.id] = u
		}
		if k.utype != "" {
			u.Type = k.utype
		}
		if k.formation != "" {
			u.Formation = k.formation
		}
		u.Status = UnitOK
		u.Base = geom.Base{Center: gv(k.x, k.y), Facing: k.facing, Width: k.width, Depth: k.depth}
	}
	s.Terrain = append(s.Terrain, terrain...)
	mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"charge"}}`), NewFixedDice(1, 1))
	return s
}

func chargeCmd(t testing.TB, target string) Command {
	return cmd(t, CmdUnitCharge, fmt.Sprintf(`{"unit":"r1-inf1","target":%q}`, target))
}

// The charger of most cases: infantry in line, 4.5" x 1.5", at (20,10)
// facing north; its leader point is (20, 10.75).
var charger = red("r1-inf1", 20, 10, 0, 4.5, 1.5)

// TestChargeK4Range: exactly twice the speed (2 x 6") from the leader point
// to the nearest point of the target is allowed; a hair beyond is refused.
func TestChargeK4Range(t *testing.T) {
	s := kBattle(t, []kU{charger, blue("b1-inf1", 20, 23.5, 180, 4.5, 1.5)}) // front edge at y 22.75: 12" exactly
	evs := mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
	c := findEvent[*ChargeDeclared](evs)
	if c == nil || !c.Contact || c.Pending || c.Measured != 12 || c.Reach != 12 || c.Side != geom.ArcFront || c.Distance != 12 || len(c.Path) != 2 {
		t.Fatalf("%s", eventsJSON(t, evs))
	}
	if got := s.Units["r1-inf1"].Base; got.Center != gv(20, 22) || got.Facing != 0 {
		t.Fatalf("charger at %+v", got)
	}
	s = kBattle(t, []kU{charger, blue("b1-inf1", 20, 23.5+1e-6, 180, 4.5, 1.5)})
	r := refused(t, s, chargeCmd(t, "b1-inf1"), nil, "K.4", "out_of_range")
	if d := r.Numbers["distance"]; d <= 12 {
		t.Fatalf("numbers %v", r.Numbers)
	}
	// Two actions do not lengthen it: the charge move is unmeasured (K.5).
	s = kBattle(t, []kU{charger, blue("b1-inf1", 20, 24, 180, 4.5, 1.5)})
	refused(t, s, cmd(t, CmdUnitCharge, `{"unit":"r1-inf1","target":"b1-inf1","actions":3}`), nil, "K.4", "out_of_range")
}

// TestReachOfIsTheChargeRange: the reach the state gives a unit (what the
// page draws before a charge is chosen) is the range a charge is judged
// by: ReachOf's charge range is the refusal's "reach" and an accepted
// charge's Reach, and its distance per action the refusal's "speed".
func TestReachOfIsTheChargeRange(t *testing.T) {
	s := kBattle(t, []kU{charger, blue("b1-inf1", 20, 23.5+1e-6, 180, 4.5, 1.5)})
	reach, ok := s.ReachOf("r1-inf1")
	if !ok {
		t.Fatal("no reach for r1-inf1")
	}
	r := refused(t, s, chargeCmd(t, "b1-inf1"), nil, "K.4", "out_of_range")
	if reach.Charge != r.Numbers["reach"] || reach.PerAction != r.Numbers["speed"] {
		t.Errorf("ReachOf %+v; the refusal's numbers %v", reach, r.Numbers)
	}
	s = kBattle(t, []kU{charger, blue("b1-inf1", 20, 23.5, 180, 4.5, 1.5)})
	reach, _ = s.ReachOf("r1-inf1")
	if c := findEvent[*ChargeDeclared](mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)); c == nil || c.Reach != reach.Charge {
		t.Errorf("ReachOf %+v; the charge %+v", reach, c)
	}
	// The initiative range is the one C.15 refuses with.
	evs, _ := setup(t)
	far := given(evs...)
	reach, _ = far.ReachOf("r1-inf1")
	r = refused(t, far, cmd(t, CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"move"}}`), nil, "C.15", "no_enemy_near")
	if reach.Initiative != r.Numbers["range"] || reach.Initiative <= 0 {
		t.Errorf("ReachOf %+v; the initiative refusal's numbers %v", reach, r.Numbers)
	}
	if _, ok := s.ReachOf("nobody"); ok {
		t.Error("a reach for a unit that is not there")
	}
}

// TestChargeK4FrontArc: a target whose corner lies exactly on the boundary
// of the charger's front arc (the diagonal through its front-right corner,
// slope 1/3) is in it and charged on its flank; a hair outside, refused.
func TestChargeK4FrontArc(t *testing.T) {
	// The target's top-left corner at (26, 12): on the ray from the charger's
	// centre (20,10) through its front-right corner (22.25, 10.75).
	s := kBattle(t, []kU{charger, blue("b1-inf1", 28.25, 11.25, 180, 4.5, 1.5)})
	evs := mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
	c := findEvent[*ChargeDeclared](evs)
	if c.Side != geom.ArcRight || c.TurnDegrees != 90 || s.Units["r1-inf1"].Base.Facing != 90 {
		t.Fatalf("%s", eventsJSON(t, evs))
	}
	checkPlaced(t, s, c)
	s = kBattle(t, []kU{charger, blue("b1-inf1", 28.25+1e-6, 11.25, 180, 4.5, 1.5)})
	refused(t, s, chargeCmd(t, "b1-inf1"), nil, "K.4", "not_in_front_arc")
	// Edge-extended arcs: abreast (front edges on one line) is in the front arc.
	s = kBattle(t, []kU{charger, blue("b1-inf1", 27, 10, 0, 4.5, 1.5)})
	refused(t, s, chargeCmd(t, "b1-inf1"), nil, "K.4", "not_in_front_arc")
	rs := *s.Ruleset
	rs.Contact.Arcs = string(geom.ArcRuleEdgeExtended)
	s.Ruleset = &rs
	if _, err := Decide(s, chargeCmd(t, "b1-inf1"), nil); err != nil && strings.Contains(err.Error(), "front arc") {
		t.Fatalf("edge-extended: %v", err)
	}
}

// TestChargeK10Sight: a line of sight blocked by a unit (a friend too) and
// by blocking terrain; a unit sees out of the wood it stands in.
func TestChargeK10Sight(t *testing.T) {
	target := blue("b1-inf1", 20, 22, 180, 4.5, 1.5)
	s := kBattle(t, []kU{charger, target, red("r1-inf2", 20, 16, 0, 10, 1)})
	r := refused(t, s, chargeCmd(t, "b1-inf1"), nil, "K.4", "no_line_of_sight")
	if !strings.Contains(r.Message, "r1-inf2") {
		t.Fatalf("%v", r)
	}
	wood := rect("Bois", "difficult,blocks-sight", 10, 15, 30, 17)
	s = kBattle(t, []kU{charger, target}, wood)
	r = refused(t, s, chargeCmd(t, "b1-inf1"), nil, "K.4", "no_line_of_sight")
	if !strings.Contains(r.Message, `"Bois"`) {
		t.Fatalf("%v", r)
	}
	// Standing in the wood, it sees out, and crosses the wood (K.5).
	s = kBattle(t, []kU{charger, target}, rect("Bois", "difficult,blocks-sight", 10, 8, 30, 12))
	evs := mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
	if c := findEvent[*ChargeDeclared](evs); strings.Join(c.Crossed, ",") != "Bois" {
		t.Fatalf("%s", eventsJSON(t, evs))
	}
	// A narrow unit leaves part of the target in view; the charge goes
	// round it with one turn.
	s = kBattle(t, []kU{charger, target, red("r1-inf2", 20, 16, 0, 2, 1)})
	evs = mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
	c := findEvent[*ChargeDeclared](evs)
	if len(c.Path) != 3 {
		t.Fatalf("%s", eventsJSON(t, evs))
	}
	checkPlaced(t, s, c)
}

// TestChargeK5Path: impassable terrain on the straight line; the path goes
// round it with one turn of at most 90 degrees, and difficult terrain on
// the way is crossed and recorded.
func TestChargeK5Path(t *testing.T) {
	target := blue("b1-inf1", 28, 20, 180, 4.5, 1.5)
	farm := rect("Ferme", "impassable", 22.5, 13, 25.5, 15.5)
	s := kBattle(t, []kU{charger, target}, farm)
	evs := mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
	c := findEvent[*ChargeDeclared](evs)
	if len(c.Path) != 3 || c.Side != geom.ArcFront {
		t.Fatalf("want one turn: %s", eventsJSON(t, evs))
	}
	if b := geom.BendDeg(c.Path[0], c.Path[1], c.Path[2]); b > 90+1e-9 {
		t.Fatalf("bend %g", b)
	}
	checkPlaced(t, s, c)
	if best := bruteForcePath(t, kBattle(t, []kU{charger, target}, farm), c.To); c.Distance > best*1.01 {
		t.Fatalf("path %g (%v), a grid of turn points finds %g", c.Distance, c.Path, best)
	}
	// A ford on the way is crossed, not avoided.
	ford := rect("Gué", "difficult", 15, 14, 30, 15)
	s = kBattle(t, []kU{charger, blue("b1-inf1", 20, 22, 180, 4.5, 1.5)}, ford)
	evs = mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
	if c := findEvent[*ChargeDeclared](evs); len(c.Path) != 2 || strings.Join(c.Crossed, ",") != "Gué" {
		t.Fatalf("%s", eventsJSON(t, evs))
	}
	// Walled in: no room.
	wall := rect("Mur", "impassable", 5, 13, 40, 15)
	s = kBattle(t, []kU{charger, blue("b1-inf1", 20, 22, 180, 4.5, 1.5)}, wall)
	refused(t, s, chargeCmd(t, "b1-inf1"), nil, "K.4", "no_room")
}

// TestChargeK6Slide: a friend of the charger already on the middle of the
// target's front; the charger slides as near the middle as room allows.
func TestChargeK6Slide(t *testing.T) {
	s := kBattle(t, []kU{charger, blue("b1-inf1", 20, 22, 180, 4.5, 1.5), red("r1-inf2", 18, 20.5, 0, 2, 1.5)})
	evs := mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
	c := findEvent[*ChargeDeclared](evs)
	checkPlaced(t, s, c)
	// The friend reaches x = 19; the charger's left edge must clear it.
	if x := c.To.Center.X; x < 21.25 || x > 21.25+0.1 {
		t.Fatalf("slid to x %g, want just right of 21.25: %s", x, eventsJSON(t, evs))
	}
	if c.Slide <= 1.25 {
		t.Fatalf("slide %g", c.Slide)
	}
}

// TestChargeK7CornerToCorner: the target's front is covered by a friend of
// the charger; only corner-to-corner contact is left: refused.
func TestChargeK7CornerToCorner(t *testing.T) {
	s := kBattle(t, []kU{red("r1-inf1", 36, 22, 0, 4, 2), blue("b1-inf1", 30, 30, 180, 4, 2), red("r1-inf2", 30, 28, 0, 4, 2)})
	refused(t, s, chargeCmd(t, "b1-inf1"), nil, "K.7", "corner_to_corner")
}

// TestChargeK9Pushback: a charger wider than its target ends touching the
// target's neighbour, which moves back 1".
func TestChargeK9Pushback(t *testing.T) {
	s := kBattle(t, []kU{red("r1-inf1", 30, 22, 0, 6, 2), blue("b1-inf1", 30, 30, 180, 4, 2), blue("b1-inf2", 25.5, 30, 180, 4, 2)})
	evs := mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
	c := findEvent[*ChargeDeclared](evs)
	p := findEvent[*ChargePushedBack](evs)
	if p == nil || p.Unit != "b1-inf2" || !p.Full || p.Distance != 1 || strings.Join(c.Pushed, ",") != "b1-inf2" {
		t.Fatalf("%s", eventsJSON(t, evs))
	}
	if got := s.Units["b1-inf2"].Base.Center; got != gv(25.5, 31) {
		t.Fatalf("pushed to %v", got)
	}
	if c.To.Center != gv(30, 28) || geom.Touching(c.To, s.Units["b1-inf2"].Base) {
		t.Fatalf("charger %+v", c.To)
	}
	checkPlaced(t, s, c)
}

// TestChargeK9Room: the touched neighbour moves back 1" when the room
// behind it allows, else as far back as the room allows (docs/rules.md K.9: so
// that the bases are clearly apart, not a hair's breadth). Behind it stands
// a blue battalion whose front edge is room inches from its rear edge.
func TestChargeK9Room(t *testing.T) {
	for _, tc := range []struct {
		room, want float64
		full       bool
	}{
		{room: 2, want: 1, full: true},
		{room: 1, want: 1, full: true},
		{room: 0.4, want: 0.4},
		{room: 0.1, want: 0.1},
	} {
		t.Run(fmt.Sprint(tc.room), func(t *testing.T) {
			// b1-inf2's rear edge is at y=31; the unit behind faces south.
			behind := blue("b1-inf3", 25.5, 31+tc.room+1, 180, 4, 2)
			s := kBattle(t, []kU{red("r1-inf1", 30, 22, 0, 6, 2), blue("b1-inf1", 30, 30, 180, 4, 2), blue("b1-inf2", 25.5, 30, 180, 4, 2), behind})
			evs := mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
			p := findEvent[*ChargePushedBack](evs)
			if p == nil || p.Unit != "b1-inf2" || p.Full != tc.full || math.Abs(p.Distance-tc.want) > 1e-6 {
				t.Fatalf("pushed %s", eventsJSON(t, evs))
			}
			if got := s.Units["b1-inf2"].Base.Center; math.Abs(got.Y-(30+tc.want)) > 1e-6 || got.X != 25.5 {
				t.Fatalf("pushed to %v", got)
			}
			if geom.Overlaps(s.Units["b1-inf2"].Base, s.Units["b1-inf3"].Base) {
				t.Fatal("pushed into the unit behind")
			}
			how := "as far as the room allows"
			if tc.full {
				how = "the full gap"
			}
			if d := Describe(p); !strings.Contains(d, how) {
				t.Fatalf("%q", d)
			}
			checkPlaced(t, s, findEvent[*ChargeDeclared](evs))
		})
	}
}

// TestChargeSides: front, flank and rear from the arc of the target that
// holds the leader point (K.8).
func TestChargeSides(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target kU
		side   geom.Arc
	}{
		{"front", blue("b1-inf1", 20, 20, 180, 4.5, 1.5), geom.ArcFront},
		{"rear", blue("b1-inf1", 20, 20, 0, 4.5, 1.5), geom.ArcRear},
		{"right flank", blue("b1-inf1", 22, 20, 90, 4.5, 1.5), geom.ArcRight}, // facing east: its right is south
		{"left flank", blue("b1-inf1", 18, 20, 270, 4.5, 1.5), geom.ArcLeft},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := kBattle(t, []kU{charger, tc.target})
			evs := mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
			c := findEvent[*ChargeDeclared](evs)
			if c.Side != tc.side {
				t.Fatalf("side %s, want %s: %s", c.Side, tc.side, eventsJSON(t, evs))
			}
			checkPlaced(t, s, c)
			if !strings.Contains(Describe(c), string(tc.side)) {
				t.Fatalf("%q", Describe(c))
			}
		})
	}
}

// TestChargeOnce: a unit charges once a turn (C.6).
func TestChargeOnce(t *testing.T) {
	s := kBattle(t, []kU{charger, blue("b1-inf1", 20, 20, 180, 4.5, 1.5)})
	mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
	refused(t, s, chargeCmd(t, "b1-inf1"), nil, "C.6", "already_charged")
}

// checkPlaced checks the invariants of an accepted charge against the state
// after it: the charger stands where the event says, overlaps no unit and
// no impassable terrain, touches the target with part of its front edge
// (K.7), touches no other enemy (K.9); the path has at most one turn of at
// most 90 degrees, and each leg is forward.
func checkPlaced(t testing.TB, s *State, c *ChargeDeclared) {
	t.Helper()
	b := s.Units[c.Unit].Base
	if b != c.To {
		t.Fatalf("charger at %+v, event says %+v", b, c.To)
	}
	tg := s.Units[c.Target].Base
	if !geom.Touching(b, tg) || geom.ContactLength(b.FrontEdge(), tg) < geom.MinEdgeContact {
		t.Fatalf("not in edge contact: separation %g, contact %g", geom.Separation(b, tg), geom.ContactLength(b.FrontEdge(), tg))
	}
	if !s.Table.Contains(b) || len(geom.Overlapping(b, s.Terrain, geom.Impassable)) > 0 {
		t.Fatal("off the table or on impassable terrain")
	}
	for _, id := range s.sortedUnitIDs() {
		o := s.Units[id]
		if id == c.Unit || !o.active() {
			continue
		}
		if geom.Overlaps(b, o.Base) {
			t.Fatalf("overlaps %s", id)
		}
		if id != c.Target && geom.Touching(b, o.Base) && o.Side != s.Units[c.Unit].Side {
			t.Fatalf("still touching enemy %s", id)
		}
	}
	if n := len(c.Path); n < 2 || n > 3 {
		t.Fatalf("path %v", c.Path)
	}
	if len(c.Path) == 3 {
		if bend := geom.BendDeg(c.Path[0], c.Path[1], c.Path[2]); bend > 90+1e-9 {
			t.Fatalf("bend %g", bend)
		}
	}
	if math.Abs(c.TurnDegrees) > 90+1e-9 || c.Path[0] != c.From.LeaderPoint() || geom.Dist(c.Path[len(c.Path)-1], c.To.LeaderPoint()) > 1e-9 {
		t.Fatalf("turn %g, path %v", c.TurnDegrees, c.Path)
	}
}

// TestChargeProperties plays charges in random layouts (fixed seed): every
// accepted charge satisfies checkPlaced, and its legs (swept exactly) cross
// no unit and no impassable terrain as they stood.
func TestChargeProperties(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	accepted, refusals := 0, map[string]int{}
	for i := 0; i < 250; i++ {
		units := []kU{red("r1-inf1", 30+r.Float64()*6, 15+r.Float64()*6, r.Float64()*60-30, 3+r.Float64()*3, 1+r.Float64())}
		units = append(units, blue("b1-inf1", 30+r.Float64()*12-6, 26+r.Float64()*6, r.Float64()*360, 3+r.Float64()*3, 1+r.Float64()*1.5))
		for k := 0; k < 4; k++ {
			side, id := "blue", fmt.Sprintf("b1-x%d", k)
			if r.Intn(2) == 0 {
				side, id = "red", fmt.Sprintf("r1-x%d", k)
			}
			units = append(units, kU{id: id, side: side, x: 18 + r.Float64()*24, y: 12 + r.Float64()*24, facing: r.Float64() * 360, width: 2 + r.Float64()*3, depth: 1 + r.Float64()})
		}
		var terrain []geom.Terrain
		for k := 0; k < 2; k++ {
			x, y := 20+r.Float64()*20, 14+r.Float64()*20
			terrain = append(terrain, rect(fmt.Sprintf("T%d", k), "impassable", x, y, x+1+r.Float64()*3, y+1+r.Float64()*3))
		}
		if !clearLayout(units, terrain) {
			continue
		}
		s := kBattle(t, units, terrain...)
		before := s.Clone()
		evs, err := Decide(s, chargeCmd(t, "b1-inf1"), nil)
		if err != nil {
			refusals[err.(*Refusal).Rule+"/"+err.(*Refusal).Code]++
			continue
		}
		accepted++
		for _, e := range evs {
			Apply(s, e)
		}
		c := findEvent[*ChargeDeclared](evs)
		checkPlaced(t, s, c)
		// The legs, swept exactly, against everything as it stood.
		facings := []float64{c.From.Facing, c.To.Facing}
		for l := 0; l+1 < len(c.Path); l++ {
			f := facings[l]
			if len(c.Path) == 2 {
				f = c.To.Facing
				if c.TurnAt == 1 {
					f = c.From.Facing
				}
			}
			sw := geom.SweptBase(geom.AtLeader(c.From, c.Path[l], f).Inset(geom.ContactTolerance), geom.AtLeader(c.From, c.Path[l+1], f).Center)
			for id, o := range before.Units {
				if id != c.Unit && o.active() && sw.DistanceToBase(o.Base) <= 0 {
					t.Fatalf("layout %d: leg %d crosses %s: %s", i, l, id, eventsJSON(t, evs))
				}
			}
			for _, tr := range before.Terrain {
				if geom.PolygonsMeet(sw, tr.Outline) {
					t.Fatalf("layout %d: leg %d crosses %s", i, l, tr.Name)
				}
			}
		}
	}
	t.Logf("accepted %d, refused %v", accepted, refusals)
	if accepted < 20 {
		t.Fatalf("only %d charges accepted: the layouts test little", accepted)
	}
}

// clearLayout: no two units overlap or touch, no unit on impassable terrain.
func clearLayout(units []kU, terrain []geom.Terrain) bool {
	for i, a := range units {
		ba := geom.Base{Center: gv(a.x, a.y), Facing: a.facing, Width: a.width, Depth: a.depth}
		if len(geom.Overlapping(ba, terrain, geom.Impassable)) > 0 {
			return false
		}
		for _, b := range units[i+1:] {
			bb := geom.Base{Center: gv(b.x, b.y), Facing: b.facing, Width: b.width, Depth: b.depth}
			if geom.Distance(ba, bb) <= 2*geom.ContactTolerance {
				return false
			}
		}
	}
	return true
}

// chargeLog is the events of a charge that pushes an enemy back, for the
// codec and describe tests.
func chargeLog(t testing.TB) []Event {
	s := kBattle(t, []kU{red("r1-inf1", 30, 22, 0, 6, 2), blue("b1-inf1", 30, 30, 180, 4, 2), blue("b1-inf2", 25.5, 30, 180, 4, 2)})
	return mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil)
}

// bruteForcePath returns the length of the shortest legal path (by the
// engine's own leg rules) to the placement to through a turn point on a
// 0.05" grid round both ends: the oracle for the path search.
func bruteForcePath(t testing.TB, s *State, to geom.Base) float64 {
	u, tg := s.Units["r1-inf1"], s.Units["b1-inf1"]
	j := &chargeJudge{s: s, u: u, t: tg, maxTurn: 90, l0: u.Base.LeaderPoint(), f0: u.Base.Facing, f1: to.Facing, leg1: map[geom.Vec]string{}}
	for _, id := range s.sortedUnitIDs() {
		if o := s.Units[id]; id != u.ID && o.active() {
			j.others = append(j.others, o)
		}
	}
	l1 := to.LeaderPoint()
	best := math.Inf(1)
	const step = 0.05
	for x := math.Min(j.l0.X, l1.X) - 8; x <= math.Max(j.l0.X, l1.X)+8; x += step {
		for y := math.Min(j.l0.Y, l1.Y) - 8; y <= math.Max(j.l0.Y, l1.Y)+8; y += step {
			tp := gv(x, y)
			l := geom.Dist(j.l0, tp) + geom.Dist(tp, l1)
			if l >= best || geom.BendDeg(j.l0, tp, l1) > 90 || !forward(j.l0, tp, j.f0) || !forward(tp, l1, j.f1) {
				continue
			}
			if j.leg(j.l0, tp, j.f0) == "" && j.leg(tp, l1, j.f1) == "" {
				best = l
			}
		}
	}
	return best
}

// TestChargeK9Scenario: k-pushback.yaml's two pushes go 0.4" (the room
// behind) and the full 1" (2" of room).
func TestChargeK9Scenario(t *testing.T) {
	run := playScenarioFile(t, "../testdata/scenarios/k-pushback.yaml")
	for id, want := range map[string]struct {
		unit     string
		distance float64
		full     bool
	}{"k9-room-04": {"au-a2", 0.4, false}, "k9-room-2": {"au-b2", 1, true}} {
		p := findEvent[*ChargePushedBack](run.step(t, id).Events)
		if p == nil || p.Unit != want.unit || p.Distance != want.distance || p.Full != want.full {
			t.Errorf("%s: %+v", id, p)
		}
	}
	s := run.States["b1"]
	if d := geom.Separation(s.Units["au-a2"].Base, s.Units["au-a3"].Base); math.Abs(d) > geom.ContactTolerance {
		t.Errorf("au-a2 should end against au-a3: separation %v", d)
	}
}
