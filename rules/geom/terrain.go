package geom

import (
	"fmt"
	"strings"
)

// Kind is what a terrain piece does to the game, as a set of flags: a wood
// is Difficult|BlocksSight, a walled farm Impassable|BlocksSight, a road
// Road, a river ford Difficult. The zero Kind is open ground.
type Kind uint8

// The terrain flags. Their names (Kind.String) are stable: scenario files
// store them.
const (
	// Impassable terrain may not be entered; a move, even a turn (K.3), must
	// end clear of it, and a charge goes round it (K.5).
	Impassable Kind = 1 << iota
	// Difficult terrain slows movement; a charge crosses it and the melee
	// records it (K.5).
	Difficult
	// Road gives march columns and limbered artillery the C.7 road bonus.
	Road
	// BlocksSight stops a line of sight (K.10).
	BlocksSight
)

var kindNames = [...]struct {
	k    Kind
	name string
}{{Impassable, "impassable"}, {Difficult, "difficult"}, {Road, "road"}, {BlocksSight, "blocks-sight"}}

// Has reports whether k has any of the flags in f.
func (k Kind) Has(f Kind) bool { return k&f != 0 }

// String lists the flags joined by commas ("difficult,blocks-sight"), or
// "open" for none.
func (k Kind) String() string { return strings.Join(k.Names(), ",") }

// Names are the flags' names ("difficult", "blocks-sight"), or "open" for
// none: what String joins.
func (k Kind) Names() []string {
	if k == 0 {
		return []string{"open"}
	}
	var parts []string
	for _, n := range kindNames {
		if k.Has(n.k) {
			parts = append(parts, n.name)
		}
	}
	if rest := k &^ (Impassable | Difficult | Road | BlocksSight); rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint8(rest)))
	}
	return parts
}

// ParseKind reads a comma-separated list of flag names ("open" or "" for
// none), as String writes it; spaces and '|' or '+' separators are accepted.
func ParseKind(s string) (Kind, error) {
	var k Kind
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '|' || r == '+' || r == ' ' })
	for _, w := range f {
		if w == "open" {
			continue
		}
		found := false
		for _, n := range kindNames {
			if n.name == w {
				k |= n.k
				found = true
			}
		}
		if !found {
			return 0, errorf("unknown terrain kind %q (want impassable, difficult, road, blocks-sight or open)", w)
		}
	}
	return k, nil
}

// MarshalText writes the kind as String does, so JSON and YAML files carry
// names, not bits.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads the kind as ParseKind does.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Terrain is a terrain piece: an outline on the table and what it does.
type Terrain struct {
	Name    string  `json:"name" yaml:"name"`
	Kind    Kind    `json:"kind" yaml:"kind"`
	Outline Polygon `json:"outline" yaml:"outline"`
}

// Validate reports why the piece cannot be placed: a bad outline.
func (t Terrain) Validate() error {
	if err := t.Outline.Validate(); err != nil {
		return errorf("terrain %q: %s", t.Name, err)
	}
	return nil
}

// OnRoad reports whether p lies on (inside or on the outline of) a road
// piece: the C.7 test, applied by the rules to whichever point they choose.
func OnRoad(p Vec, terrain []Terrain) bool {
	for _, t := range terrain {
		if t.Kind.Has(Road) && t.Outline.Contains(p) {
			return true
		}
	}
	return false
}

// Overlapping returns the indices, in order, of the pieces having any of the
// flags in k that overlap the base (Polygon.OverlapsBase): for K.3, the
// impassable pieces a move may not end on.
func Overlapping(b Base, terrain []Terrain, k Kind) []int {
	var out []int
	for i, t := range terrain {
		if t.Kind.Has(k) && t.Outline.OverlapsBase(b) {
			out = append(out, i)
		}
	}
	return out
}
