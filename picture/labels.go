package picture

import (
	"math"
	"sort"
	"unicode"
)

// Labels are sized in screen pixels, not in the table's unit: a 12 px name
// reads the same on a 72" table in inches and a 180 cm table in
// centimetres. The picture is drawn for Options.Scale pixels per unit, so a
// label's font size in the picture's coordinates is its pixel size divided
// by the scale; the web page, which zooms, sets the same sizes again for
// the zoom it shows (app code: static/map.js, which places labels with the
// same candidates as Place below).
//
// Label sizes in pixels. None is under 10 px: the page's readability test
// holds every label to that.
const (
	unitLabelPx      = 12.0
	generalLabelPx   = 11.0
	terrainLabelPx   = 11.0
	objectiveLabelPx = 11.0
	flankLabelPx     = 11.0
	coordPx          = 11.0
	titlePx          = 15.0
)

// Label priorities: units are placed first, so that their names never give
// way to a wood's.
const (
	prioUnit = iota
	prioGeneral
	prioObjective
	prioFlank
	prioTerrain
)

// Box is a rectangle in pixels (x right, y down).
type Box struct{ X0, Y0, X1, Y1 float64 }

// Overlap is the area two boxes share (0 if they do not touch).
func (b Box) Overlap(o Box) float64 {
	w := math.Min(b.X1, o.X1) - math.Max(b.X0, o.X0)
	h := math.Min(b.Y1, o.Y1) - math.Max(b.Y0, o.Y0)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// Disc is a round obstacle in pixels: a unit's base or a general's mark,
// which a label should rather not cover.
type Disc struct{ X, Y, R float64 }

func (d Disc) overlap(b Box) float64 {
	// The part of the box within the disc's bounding square, enough to rank
	// candidates.
	return b.Overlap(Box{d.X - d.R, d.Y - d.R, d.X + d.R, d.Y + d.R})
}

// Item is a label to place: its anchor (in pixels), the radius round the
// anchor it must stay out of (the base it names), and its size.
type Item struct {
	X, Y, R float64
	W, H    float64
	Prio    int
}

// Placed is where a label goes: its centre in pixels, and whether it sits
// away from its anchor (then a leader line joins them).
type Placed struct {
	X, Y   float64
	Leader bool
}

// Candidates are the centres Place tries for item, in order: above, below,
// right, left and the four diagonals just outside the anchor's radius, then
// rows further out, above and below and to each side; the first rows need
// no leader line.
func Candidates(it Item) []Placed {
	const gap = 3.0
	r, w, h := it.R+gap, it.W, it.H
	d := r * 0.7
	out := []Placed{
		{0, -(r + h/2), false}, {0, r + h/2, false}, {r + w/2, 0, false}, {-(r + w/2), 0, false},
		{d + w/2, -(d + h/2), false}, {-(d + w/2), -(d + h/2), false}, {d + w/2, d + h/2, false}, {-(d + w/2), d + h/2, false},
	}
	for k := 1.0; k <= 6; k++ {
		out = append(out,
			Placed{0, -(r + h/2 + k*h), true}, Placed{0, r + h/2 + k*h, true},
			Placed{r + w/2, -k * h, true}, Placed{r + w/2, k * h, true},
			Placed{-(r + w/2), -k * h, true}, Placed{-(r + w/2), k * h, true})
	}
	for i := range out {
		out[i].X += it.X
		out[i].Y += it.Y
	}
	return out
}

// Place puts each item where it overlaps no label placed before it (items
// are placed by priority, then from the top of the picture down, then left
// to right), preferring spots that cover no obstacle and stay within
// bounds; when every candidate overlaps, the one that overlaps least. It
// returns the placements in the items' order.
func Place(items []Item, obstacles []Disc, bounds Box) []Placed {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := items[order[a]], items[order[b]]
		if x.Prio != y.Prio {
			return x.Prio < y.Prio
		}
		if x.Y != y.Y {
			return x.Y < y.Y
		}
		return x.X < y.X
	})
	out := make([]Placed, len(items))
	var boxes []Box
	for _, i := range order {
		it := items[i]
		best, bestScore := Placed{X: it.X, Y: it.Y}, math.Inf(1)
		for _, c := range Candidates(it) {
			b := Box{c.X - it.W/2, c.Y - it.H/2, c.X + it.W/2, c.Y + it.H/2}
			var labels, covered, outside float64
			for _, o := range boxes {
				labels += b.Overlap(o)
			}
			for _, d := range obstacles {
				if d.X == it.X && d.Y == it.Y {
					continue // its own base: the radius keeps it clear
				}
				covered += d.overlap(b)
			}
			if outside = it.W*it.H - b.Overlap(bounds); outside < 1e-6 {
				outside = 0 // inside, but for rounding
			}
			score := 1000*labels + 50*outside + covered
			if score < 1e-6 {
				best = c
				break
			}
			if score < bestScore-1e-9 {
				best, bestScore = c, score
			}
		}
		out[i] = best
		boxes = append(boxes, Box{best.X - it.W/2, best.Y - it.H/2, best.X + it.W/2, best.Y + it.H/2})
	}
	return out
}

// TextWidth estimates the width in pixels of s set at px pixels in the
// system sans-serif font, on the generous side (the page measures the
// real text instead).
func TextWidth(s string, px float64) float64 {
	var w float64
	for _, r := range s {
		switch {
		case r == ' ' || r == 'i' || r == 'l' || r == 'j' || r == '.' || r == ',' || r == ':' || r == ';' || r == '\'' || r == '|' || r == '!' || r == '(' || r == ')' || r == 'I' || r == 'f' || r == 't':
			w += 0.34
		case r == 'm' || r == 'w' || r == 'M' || r == 'W' || r == 'ш' || r == 'щ' || r == 'ж' || r == 'Ш' || r == 'Щ' || r == 'Ж' || r == 'ю' || r == 'Ю' || r == 'ы':
			w += 0.9
		case unicode.IsDigit(r) || r == '-' || r == '·':
			w += 0.58
		case unicode.IsUpper(r):
			w += 0.7
		case r > 0x3ff:
			w += 0.64
		default:
			w += 0.58
		}
	}
	return w * px
}
