package geom

import (
	"math"
	"math/rand"
	"testing"
)

// Property tests: many random configurations from fixed seeds, checking
// invariants that hold whatever the numbers.

const pairs = 4000

func TestPropSymmetry(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < pairs; i++ {
		a := randBase(r)
		b := randNearBase(r, a)
		if Separation(a, b) != Separation(b, a) || Distance(a, b) != Distance(b, a) {
			t.Fatalf("separation not symmetric for %+v, %+v: %g vs %g", a, b, Separation(a, b), Separation(b, a))
		}
		if Overlaps(a, b) != Overlaps(b, a) || Touching(a, b) != Touching(b, a) {
			t.Fatalf("overlap/contact not symmetric for %+v, %+v", a, b)
		}
		s, u := Seg(randPointIn(r, a), randPointIn(r, b)), Seg(randPointIn(r, b), randPointIn(r, a))
		if s.Distance(u) != u.Distance(s) {
			t.Fatalf("segment distance not symmetric")
		}
	}
}

func TestPropRigidMotionInvariance(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	rules := []ArcRule{ArcRuleDiagonals, ArcRuleQuadrants, ArcRuleEdgeExtended}
	for i := 0; i < pairs; i++ {
		a := randBase(r)
		b := randNearBase(r, a)
		pivot := Vec{r.Float64()*100 - 50, r.Float64()*100 - 50}
		deg := r.Float64()*720 - 360
		if i%10 == 0 {
			deg = float64(90 * r.Intn(4)) // exact turns too
		}
		d := Vec{r.Float64()*100 - 50, r.Float64()*100 - 50}
		a2, b2 := moveBase(a, pivot, deg, d), moveBase(b, pivot, deg, d)

		s, s2 := Separation(a, b), Separation(a2, b2)
		if !near(s, s2, 1e-9) {
			t.Fatalf("separation %g became %g after a rigid motion (%+v, %+v)", s, s2, a, b)
		}
		if math.Abs(s+ContactTolerance) > 1e-9 && Overlaps(a, b) != Overlaps(a2, b2) {
			t.Fatalf("overlap verdict changed by a rigid motion at separation %g", s)
		}
		if math.Abs(math.Abs(s)-ContactTolerance) > 1e-9 && Touching(a, b) != Touching(a2, b2) {
			t.Fatalf("contact verdict changed by a rigid motion at separation %g", s)
		}
		p := Vec{a.Center.X + r.Float64()*30 - 15, a.Center.Y + r.Float64()*30 - 15}
		p2 := moveRigid(p, pivot, deg, d)
		if !near(a.DistanceToPoint(p), a2.DistanceToPoint(p2), 1e-9) {
			t.Fatalf("point distance changed by a rigid motion")
		}
		for _, rule := range rules {
			if !nearArcBoundary(a, p, rule) && ArcOf(a, p, rule) != ArcOf(a2, p2, rule) {
				t.Fatalf("%s: arc of %v changed from %s to %s by a rigid motion", rule, p, ArcOf(a, p, rule), ArcOf(a2, p2, rule))
			}
			if !nearFrontArcBoundary(a, b, rule) && InFrontArc(a, b, rule) != InFrontArc(a2, b2, rule) {
				t.Fatalf("%s: front-arc verdict changed by a rigid motion for %+v, %+v", rule, a, b)
			}
		}
	}
}

// nearArcBoundary reports whether nudging p by 1e-7 changes its arc.
func nearArcBoundary(b Base, p Vec, rule ArcRule) bool {
	a := ArcOf(b, p, rule)
	for _, d := range []Vec{{1e-7, 0}, {-1e-7, 0}, {0, 1e-7}, {0, -1e-7}} {
		if ArcOf(b, p.Add(d), rule) != a {
			return true
		}
	}
	return false
}

// nearFrontArcBoundary reports whether growing or shrinking the target by
// 1e-7 changes the front-arc verdict.
func nearFrontArcBoundary(ch, target Base, rule ArcRule) bool {
	return InFrontArc(ch, target.Inset(1e-7), rule) != InFrontArc(ch, target.Inset(-1e-7), rule)
}

func TestPropSeparationAgainstOracles(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < pairs; i++ {
		a := randBase(r)
		b := randNearBase(r, a)
		s := Separation(a, b)
		// Closed intersection by an independent method (edge crossings and
		// containment).
		meets := a.Polygon().meetsBase(b)
		if s > 1e-9 && meets || s < -1e-9 && !meets {
			t.Fatalf("separation %g but closed intersection %v for %+v, %+v", s, meets, a, b)
		}
		// Gap: brute force over points along a's outline.
		if s > 0 {
			brute := math.Inf(1)
			const n = 200
			for _, e := range a.Edges() {
				for k := 0; k <= n; k++ {
					brute = math.Min(brute, b.DistanceToPoint(e.At(float64(k)/n)))
				}
			}
			for _, e := range b.Edges() {
				for k := 0; k <= n; k++ {
					brute = math.Min(brute, a.DistanceToPoint(e.At(float64(k)/n)))
				}
			}
			if brute < s-1e-9 || brute > s+10.0/n {
				t.Fatalf("gap %g, brute force %g", s, brute)
			}
		}
		// Overlap: sliding b by the penetration depth (plus a hair) along
		// one of the four axes parts them; sliding by less in any direction
		// never does.
		if s < 0 {
			fa, fb := a.Forward(), b.Forward()
			parted := false
			for _, n := range []Vec{fa, {fa.Y, -fa.X}, fb, {fb.Y, -fb.X}} {
				for _, sign := range []float64{1, -1} {
					if Separation(a, b.Translate(n.Scale(sign*(-s+1e-7)))) > 0 {
						parted = true
					}
				}
			}
			if !parted {
				t.Fatalf("sliding by the penetration %g does not part %+v, %+v", -s, a, b)
			}
			for k := 0; k < 8; k++ {
				dir := Heading(r.Float64() * 360)
				if Separation(a, b.Translate(dir.Scale(-s*(1-1e-6)))) > 1e-9 {
					t.Fatalf("sliding by less than the penetration %g parts them", -s)
				}
			}
		}
	}
}

func TestPropTriangleInequalities(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for i := 0; i < pairs; i++ {
		a := randBase(r)
		b := randNearBase(r, a)
		d := Distance(a, b)
		// No pair of points, one in each, is nearer than the distance.
		pa, pb := randPointIn(r, a), randPointIn(r, b)
		if d > Dist(pa, pb)+1e-9 {
			t.Fatalf("distance %g exceeds that of two points in them, %g", d, Dist(pa, pb))
		}
		// Nor farther than the centres less the circumradii allow.
		if d < Dist(a.Center, b.Center)-a.Circumradius()-b.Circumradius()-1e-9 {
			t.Fatalf("distance %g below the centre bound", d)
		}
		// Moving a base by v changes the distance by at most |v|.
		v := Vec{r.Float64()*6 - 3, r.Float64()*6 - 3}
		if math.Abs(Distance(a.Translate(v), b)-d) > v.Len()+1e-9 {
			t.Fatalf("moving by %g changed the distance by more", v.Len())
		}
		// Point distance is 1-Lipschitz: d(p) <= d(q) + |pq|.
		p, q := pa.Add(v.Scale(5)), pb.Add(v.Scale(-3))
		if a.DistanceToPoint(p) > a.DistanceToPoint(q)+Dist(p, q)+1e-9 {
			t.Fatalf("point distance breaks the triangle inequality")
		}
		// Distance between bases is at most the distance from one to a point
		// of the other... via any point c: d(a,b) <= d(a,c) + d(c,b).
		c := Vec{a.Center.X + r.Float64()*20 - 10, a.Center.Y + r.Float64()*20 - 10}
		if d > a.DistanceToPoint(c)+b.DistanceToPoint(c)+1e-9 {
			t.Fatalf("distance %g > %g + %g through %v", d, a.DistanceToPoint(c), b.DistanceToPoint(c), c)
		}
		// Segments: the distance is no more than that of any two of their points.
		s, u := Seg(pa, pa.Add(v)), Seg(pb, q)
		if s.Distance(u) > Dist(s.At(r.Float64()), u.At(r.Float64()))+1e-9 {
			t.Fatalf("segment distance too large")
		}
	}
}

func TestPropArcSymmetries(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	swapLR := map[Arc]Arc{ArcFront: ArcFront, ArcRear: ArcRear, ArcLeft: ArcRight, ArcRight: ArcLeft}
	turn := map[Arc]Arc{ArcFront: ArcRear, ArcRear: ArcFront, ArcLeft: ArcRight, ArcRight: ArcLeft}
	for i := 0; i < pairs; i++ {
		b := randBase(r)
		l := Vec{r.Float64()*40 - 20, r.Float64()*40 - 20}
		for _, rule := range []ArcRule{ArcRuleDiagonals, ArcRuleQuadrants, ArcRuleEdgeExtended} {
			p := b.World(l)
			if nearArcBoundary(b, p, rule) {
				continue
			}
			a := ArcOf(b, p, rule)
			// Mirror image across the base's centre line: left and right swap.
			if got := ArcOf(b, b.World(Vec{-l.X, l.Y}), rule); got != swapLR[a] {
				t.Fatalf("%s: mirror of a %s point is %s", rule, a, got)
			}
			// The same base turned about: every arc swaps with its opposite.
			if got := ArcOf(Rotate(b, b.Center, 180), p, rule); got != turn[a] {
				t.Fatalf("%s: a %s point is %s of the base turned about", rule, a, got)
			}
			// Scaling the whole picture keeps the arc.
			k := 0.5 + r.Float64()*3
			bs := Base{Center: b.Center.Scale(k), Facing: b.Facing, Width: b.Width * k, Depth: b.Depth * k}
			if got := ArcOf(bs, p.Scale(k), rule); got != a {
				t.Fatalf("%s: scaling moved a point from %s to %s", rule, a, got)
			}
		}
	}
}

func TestPropInFrontArcIsExact(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for i := 0; i < pairs; i++ {
		ch := randBase(r)
		target := randNearBase(r, ch)
		target.Center = ch.Center.Add(Vec{r.Float64()*30 - 15, r.Float64()*30 - 15})
		for _, rule := range []ArcRule{ArcRuleDiagonals, ArcRuleQuadrants, ArcRuleEdgeExtended} {
			in := InFrontArc(ch, target, rule)
			anyFront := false
			for k := 0; k < 64; k++ {
				if ArcOf(ch, randPointIn(r, target), rule) == ArcFront {
					anyFront = true
				}
			}
			for _, c := range target.Corners() {
				if ArcOf(ch, c, rule) == ArcFront {
					anyFront = true
				}
			}
			if anyFront && !in {
				t.Fatalf("%s: a point of the target is in front but InFrontArc is false (%+v, %+v)", rule, ch, target)
			}
			clip := ArcClip(ch, ArcFront, rule, target)
			for _, v := range clip {
				if ArcOf(ch, v, rule) != ArcFront && !nearArcBoundary(ch, v, rule) {
					t.Fatalf("%s: clipped vertex %v is in the %s arc", rule, v, ArcOf(ch, v, rule))
				}
			}
			// The four arcs' clips tile the target.
			var area float64
			for _, a := range Arcs() {
				area += ArcClip(ch, a, rule, target).Area()
			}
			if !near(area, target.Width*target.Depth, 1e-6) {
				t.Fatalf("%s: arc clips cover %g of a target of area %g", rule, area, target.Width*target.Depth)
			}
		}
	}
}

func TestPropRotateRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < pairs; i++ {
		b := randBase(r)
		pivot := Vec{r.Float64()*100 - 50, r.Float64()*100 - 50}
		deg := r.Float64()*400 - 200
		back := Rotate(Rotate(b, pivot, deg), pivot, -deg)
		if Dist(back.Center, b.Center) > 1e-9 || math.Abs(TurnDeg(back.Facing, b.Facing)) > 1e-9 {
			t.Fatalf("rotating by %g and back moved %+v to %+v", deg, b, back)
		}
		if got := Rotate(b, pivot, 360); Dist(got.Center, b.Center) > 1e-12 || math.Abs(TurnDeg(got.Facing, b.Facing)) > 1e-9 {
			t.Fatalf("a full turn moved the base")
		}
	}
}

func TestPropRotatingDistanceAgainstSampling(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for i := 0; i < 400; i++ {
		b := randBase(r)
		other := randNearBase(r, b)
		pivot := b.Center
		switch i % 3 {
		case 1:
			pivot = b.Corners()[0]
		case 2:
			pivot = b.Center.Add(Vec{r.Float64()*10 - 5, r.Float64()*10 - 5})
		}
		deg := r.Float64()*400 - 200
		got := RotatingDistance(b, pivot, deg, other)
		const n = 720
		brute := math.Inf(1)
		for k := 0; k <= n; k++ {
			brute = math.Min(brute, Distance(Rotate(b, pivot, deg*float64(k)/n), other))
		}
		reach := 0.0
		for _, c := range b.Corners() {
			reach = math.Max(reach, Dist(c, pivot))
		}
		slack := reach * math.Abs(deg) * math.Pi / 180 / n // how far a corner moves between samples
		if got > brute+1e-9 || brute-got > slack+1e-9 {
			t.Fatalf("rotating distance %g, sampled %g (slack %g) for %+v about %v by %g vs %+v", got, brute, slack, b, pivot, deg, other)
		}
	}
}

func TestPropPathAgainstSampling(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for i := 0; i < 300; i++ {
		b := randBase(r)
		other := randNearBase(r, b)
		other.Center = other.Center.Add(Vec{r.Float64()*10 - 5, r.Float64()*10 - 5})
		path := []Vec{}
		cur := b.Center
		for k := 0; k < 1+r.Intn(3); k++ {
			cur = cur.Add(Vec{r.Float64()*16 - 8, r.Float64()*16 - 8})
			path = append(path, cur)
		}
		final := r.Float64() * 360
		got, _ := MinDistanceAlongPath(b, path, final, other)
		brute := Distance(b, other)
		from := b
		const n = 400
		for _, p := range path {
			for k := 1; k <= n; k++ {
				brute = math.Min(brute, Distance(from.Translate(p.Sub(from.Center).Scale(float64(k)/n)), other))
			}
			from.Center = p
		}
		turn := TurnDeg(from.Facing, final)
		for k := 1; k <= n; k++ {
			brute = math.Min(brute, Distance(Rotate(from, from.Center, turn*float64(k)/n), other))
		}
		if got > brute+1e-9 || brute-got > 20.0/n {
			t.Fatalf("path distance %g, sampled %g", got, brute)
		}
		// Every intermediate position lies inside its leg's swept region.
		sw := SweptBase(b, path[0])
		mid := b.Translate(path[0].Sub(b.Center).Scale(r.Float64()))
		for _, c := range mid.Corners() {
			if !sw.Contains(c) {
				t.Fatalf("swept region misses corner %v", c)
			}
		}
	}
}

func TestPropCanSeeAgainstSampling(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	found, missedBySampling := 0, 0
	for i := 0; i < 150; i++ {
		from := Vec{0, 0}
		target := Base{Center: Vec{r.Float64()*10 - 5, 12 + r.Float64()*4}, Facing: r.Float64() * 360, Width: 1 + r.Float64()*3, Depth: 1 + r.Float64()}
		var bases []Base
		for k := 0; k < 2+r.Intn(4); k++ {
			bases = append(bases, Base{Center: Vec{r.Float64()*10 - 5, 5 + r.Float64()*4}, Facing: r.Float64() * 360, Width: 0.5 + r.Float64()*3, Depth: 0.5 + r.Float64()})
		}
		var terrain []Terrain
		if i%3 == 0 {
			c := Vec{r.Float64()*8 - 4, 7}
			terrain = append(terrain, Terrain{Kind: BlocksSight, Outline: Polygon{c.Add(Vec{-1, -1}), c.Add(Vec{1, -0.5}), c.Add(Vec{0.3, 0}), c.Add(Vec{1.2, 1}), c.Add(Vec{-1, 0.8})}})
		}
		_, seen := CanSee(from, target, bases, terrain)
		brute := false
		for _, e := range target.Edges() {
			for k := 0; k <= 1000 && !brute; k++ {
				if _, b := SightBlocked(Seg(from, e.At(float64(k)/1000)), bases, terrain); !b {
					brute = true
				}
			}
		}
		if brute && !seen {
			t.Fatalf("case %d: sampling sees the target, CanSee does not", i)
		}
		if seen {
			found++
			if !brute {
				missedBySampling++
			}
		}
	}
	if found == 0 || found == 150 {
		t.Errorf("degenerate sample: %d of 150 seen", found)
	}
	t.Logf("%d of 150 seen; %d only through gaps sampling missed", found, missedBySampling)
}

func TestPropPolygonAgainstStarOracle(t *testing.T) {
	// Star-shaped outlines round the origin (five or more vertices, one in
	// each equal sector, so no two are 180 degrees apart): a point is inside
	// iff it is nearer the origin than the outline in its direction.
	r := rand.New(rand.NewSource(11))
	for i := 0; i < 200; i++ {
		n := 5 + r.Intn(10)
		angles := make([]float64, n)
		for k := range angles {
			angles[k] = (float64(k) + 0.1 + 0.8*r.Float64()) * 2 * math.Pi / float64(n)
		}
		p := make(Polygon, n)
		for k, a := range angles {
			rad := 1 + 4*r.Float64()
			p[k] = Vec{rad * math.Cos(a), rad * math.Sin(a)}
		}
		inside := func(q Vec) bool {
			for k := range p {
				s := Seg(p[k], p[(k+1)%n])
				if t, ok := rayParam(Vec{}, q, s); ok {
					hit := s.At(t)
					if hit.Dot(q) > 0 { // the ray itself, not its backward extension
						return q.Len() < hit.Len()
					}
				}
			}
			return false
		}
		for k := 0; k < 200; k++ {
			q := Vec{r.Float64()*12 - 6, r.Float64()*12 - 6}
			if p.boundaryDistance(q) < 1e-6 {
				continue
			}
			if p.Contains(q) != inside(q) {
				t.Fatalf("polygon %v: Contains(%v) = %v", p, q, p.Contains(q))
			}
		}
		// InsideLength against sampling.
		s := Seg(Vec{r.Float64()*12 - 6, r.Float64()*12 - 6}, Vec{r.Float64()*12 - 6, r.Float64()*12 - 6})
		got, _ := p.InsideLength(s)
		const m = 4000
		cnt := 0
		for k := 0; k < m; k++ {
			if inside(s.At((float64(k) + 0.5) / m)) {
				cnt++
			}
		}
		if math.Abs(got-float64(cnt)/m*s.Len()) > 2*float64(n)*s.Len()/m {
			t.Fatalf("InsideLength %g, sampled %g", got, float64(cnt)/m*s.Len())
		}
	}
}
