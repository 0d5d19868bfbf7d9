package picture

import (
	"strconv"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// aspernState is examples/aspern-turn.yaml after the French turn: a 180 x
// 120 cm table, seven units, five generals (one C-in-C riding with a unit).
func aspernState() *rules.State {
	s := rules.NewState()
	s.Name = "Aspern"
	s.Measurement = "cm"
	s.Table = geom.Table{Width: 180, Depth: 120}
	s.Terrain = []geom.Terrain{
		{Name: "Aspern road", Kind: geom.Road, Outline: geom.Polygon{{X: 87, Y: 0}, {X: 93, Y: 0}, {X: 93, Y: 120}, {X: 87, Y: 120}}},
		{Name: "Gemeindeau wood", Kind: geom.Difficult | geom.BlocksSight, Outline: geom.Polygon{{X: 100, Y: 55}, {X: 118, Y: 55}, {X: 118, Y: 72}, {X: 100, Y: 72}}},
	}
	s.Sides = []rules.Side{
		{ID: "french", CInC: &rules.Commander{ID: "lannes", Position: geom.Vec{X: 90, Y: 40}}, Brigades: []rules.Brigade{
			{ID: "bde-claparede", General: rules.General{ID: "claparede", Position: geom.Vec{X: 60, Y: 12}}},
			{ID: "bde-lasalle", General: rules.General{ID: "lasalle", Position: geom.Vec{X: 132, Y: 12}}}}},
		{ID: "austrians", CInC: &rules.Commander{ID: "charles", Position: geom.Vec{X: 90, Y: 115}}, Brigades: []rules.Brigade{
			{ID: "bde-hiller", General: rules.General{ID: "hiller", Position: geom.Vec{X: 60, Y: 100}}}}},
	}
	line := func(id, side string, x, y, f float64) *rules.Unit {
		return &rules.Unit{ID: id, Side: side, Formation: "line", Status: rules.UnitOK, Base: geom.Base{Center: geom.Vec{X: x, Y: y}, Facing: f, Width: 7.5, Depth: 2.5}}
	}
	s.Units = map[string]*rules.Unit{
		"1-leger":     line("1-leger", "french", 50, 24, 0),
		"2-leger":     line("2-leger", "french", 65, 30, 0),
		"3-ligne":     {ID: "3-ligne", Side: "french", Formation: "march_column", Status: rules.UnitOK, Base: geom.Base{Center: geom.Vec{X: 90, Y: 40}, Width: 2.5, Depth: 7.5}},
		"8-hussards":  line("8-hussards", "french", 125, 20, 0),
		"5-chasseurs": line("5-chasseurs", "french", 140, 20, 0),
		"jaeger":      line("jaeger", "austrians", 52, 38, 180),
		"ir-14":       line("ir-14", "austrians", 70, 95, 180),
	}
	return s
}

// TestLabelsReadable: the Aspern table in centimetres drawn 400 px wide
// (2 px per cm) and 2,160 px wide (12 px per cm): every label is at least
// 10 px high at the picture's scale, and no two unit or general labels
// overlap (their boxes as Place estimated them).
func TestLabelsReadable(t *testing.T) {
	for _, scale := range []float64{2, 12} {
		doc := Render(aspernState(), Options{Scale: scale})
		type box struct {
			text string
			Box
		}
		var boxes []box
		for _, e := range Parse(t, doc) {
			cls := e.Attrs["class"]
			if e.Name != "text" || !strings.Contains(cls, "label") {
				continue
			}
			px, _ := strconv.ParseFloat(e.Attrs["data-px"], 64)
			size, _ := strconv.ParseFloat(e.Attrs["font-size"], 64)
			if px < 10 || size*scale < 10-1e-9 {
				t.Errorf("scale %g: %s %v is %g px (font-size %g)", scale, cls, e.Attrs["data-for"], px, size)
			}
			if !strings.Contains(cls, "unit-label") && !strings.Contains(cls, "general-label") {
				continue
			}
			x, _ := strconv.ParseFloat(e.Attrs["x"], 64)
			y, _ := strconv.ParseFloat(e.Attrs["y"], 64)
			w, h := TextWidth(e.Attrs["data-for"], px), px*1.25
			boxes = append(boxes, box{e.Attrs["data-for"], Box{x*scale - w/2, y*scale - h/2, x*scale + w/2, y*scale + h/2}})
		}
		if len(boxes) != 12 {
			t.Fatalf("scale %g: %d unit and general labels, want 12", scale, len(boxes))
		}
		for i := range boxes {
			for j := i + 1; j < len(boxes); j++ {
				if o := boxes[i].Overlap(boxes[j].Box); o > 1e-6 {
					t.Errorf("scale %g: labels %s and %s overlap (%.1f px²)", scale, boxes[i].text, boxes[j].text, o)
				}
			}
		}
	}
}

// TestPlace: a label takes the first free candidate (above its anchor);
// one that would cover it moves to the next; when every spot is taken,
// the least covered wins and a leader line is asked for past the first
// ring.
func TestPlace(t *testing.T) {
	bounds := Box{-1000, -1000, 1000, 1000}
	items := []Item{{X: 0, Y: 0, R: 5, W: 40, H: 15}, {X: 1, Y: 0, R: 5, W: 40, H: 15}}
	got := Place(items, nil, bounds)
	if got[0].X != 0 || got[0].Y != -(5+3+7.5) || got[0].Leader {
		t.Errorf("first label at %+v, want above its anchor", got[0])
	}
	if got[1].X != 1 || got[1].Y != 5+3+7.5 {
		t.Errorf("second label at %+v, want below its anchor", got[1])
	}
	// Ten labels on one spot: all placed apart, the later ones with leaders.
	var many []Item
	for range 10 {
		many = append(many, Item{W: 30, H: 12})
	}
	placed := Place(many, nil, bounds)
	leaders := 0
	for i := range placed {
		a := Box{placed[i].X - 15, placed[i].Y - 6, placed[i].X + 15, placed[i].Y + 6}
		for j := range i {
			b := Box{placed[j].X - 15, placed[j].Y - 6, placed[j].X + 15, placed[j].Y + 6}
			if a.Overlap(b) > 1e-6 {
				t.Errorf("labels %d and %d overlap: %+v %+v", i, j, placed[i], placed[j])
			}
		}
		if placed[i].Leader {
			leaders++
		}
	}
	if leaders == 0 {
		t.Error("ten labels on one spot and no leader line")
	}
}
