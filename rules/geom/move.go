package geom

import "math"

// PathLength returns the length of the polyline through the points in
// order: the distance a move along those waypoints measures.
func PathLength(pts []Vec) float64 {
	var l float64
	for i := 1; i < len(pts); i++ {
		l += Dist(pts[i-1], pts[i])
	}
	return l
}

// Rotate returns the base turned clockwise by deg degrees about pivot
// (negative deg turns anticlockwise): its facing grows by deg and its
// centre swings round the pivot. Pivot on the centre to turn on the spot
// (K.3), on a front corner to wheel.
func Rotate(b Base, pivot Vec, deg float64) Base {
	b.Center = pivot.Add(RotateVec(b.Center.Sub(pivot), deg))
	b.Facing = NormDeg(b.Facing + deg)
	return b
}

// Wheel returns the base wheeled by deg degrees, pivoting on the front
// corner it turns toward (the front-right one for a clockwise wheel, deg >
// 0; the front-left one for deg < 0), and the distance the outer front
// corner travels: Width × |deg| in radians, what a wheel measures.
func Wheel(b Base, deg float64) (Base, float64) {
	c := b.Corners()
	pivot := c[1]
	if deg < 0 {
		pivot = c[0]
	}
	return Rotate(b, pivot, deg), b.Width * math.Abs(deg) * math.Pi / 180
}

// SweptBase returns the region the base covers while its centre slides in a
// straight line to to, facing unchanged: the convex hull of its start and
// end rectangles, exactly. Compare it with other bases (DistanceToBase) to
// test what a move passes within some distance of.
func SweptBase(b Base, to Vec) Polygon {
	e := b
	e.Center = to
	c0, c1 := b.Corners(), e.Corners()
	return ConvexHull([]Vec{c0[0], c0[1], c0[2], c0[3], c1[0], c1[1], c1[2], c1[3]})
}

// RotatingDistance returns the least distance between other and the base
// while it turns by deg degrees (clockwise if positive) about pivot, start
// and end included: 0 if they meet at any moment. It is exact: every corner
// of one traces a circular arc against the other's edges, and the least
// distance between an arc and a segment has a closed form.
func RotatingDistance(b Base, pivot Vec, deg float64, other Base) float64 {
	d := Distance(b, other)
	if d == 0 || deg == 0 {
		return d
	}
	sweep := -deg * math.Pi / 180 // math angles run anticlockwise
	// b's corners turn against other's edges, in table coordinates.
	for _, c := range b.Corners() {
		for _, e := range other.Edges() {
			d = math.Min(d, arcSegDist(pivot, c, sweep, e))
		}
	}
	// other's corners, seen from b, turn the opposite way against b's
	// starting edges.
	for _, c := range other.Corners() {
		for _, e := range b.Edges() {
			d = math.Min(d, arcSegDist(pivot, c, -sweep, e))
		}
	}
	return d
}

// arcSegDist returns the least distance between segment s and the arc that
// point p traces turning by sweep radians (anticlockwise if positive) about
// centre.
func arcSegDist(centre, p Vec, sweep float64, s Segment) float64 {
	r := Dist(centre, p)
	if r == 0 {
		return s.DistanceToPoint(centre)
	}
	a0 := math.Atan2(p.Y-centre.Y, p.X-centre.X)
	end := centre.Add(Vec{math.Cos(a0 + sweep), math.Sin(a0 + sweep)}.Scale(r))
	inArc := func(q Vec) bool {
		if math.Abs(sweep) >= 2*math.Pi {
			return true
		}
		a := math.Atan2(q.Y-centre.Y, q.X-centre.X) - a0
		if sweep > 0 {
			a = math.Mod(a+4*math.Pi, 2*math.Pi)
			return a <= sweep
		}
		a = math.Mod(a-4*math.Pi, 2*math.Pi)
		return a >= sweep
	}
	toArc := func(q Vec) float64 {
		if q != centre && inArc(q) {
			return math.Abs(Dist(centre, q) - r)
		}
		return math.Min(Dist(q, p), Dist(q, end))
	}
	d := math.Min(s.DistanceToPoint(p), s.DistanceToPoint(end))
	d = math.Min(d, math.Min(toArc(s.A), toArc(s.B)))
	d = math.Min(d, toArc(s.ClosestPoint(centre)))
	// Where the segment crosses the circle, if on the arc, they meet.
	dv := s.B.Sub(s.A)
	w := s.A.Sub(centre)
	qa, qb, qc := dv.Dot(dv), 2*w.Dot(dv), w.Dot(w)-float64(r*r)
	if disc := float64(qb*qb) - float64(4*qa*qc); qa > 0 && disc >= 0 {
		sq := math.Sqrt(disc)
		for _, t := range [2]float64{(-qb - sq) / (2 * qa), (-qb + sq) / (2 * qa)} {
			if t >= 0 && t <= 1 && inArc(s.At(t)) {
				return 0
			}
		}
	}
	return d
}

// MinDistanceAlongPath returns the least distance between other and a base
// that moves from where it stands through the waypoints path (its centre
// goes in straight legs, facing unchanged) and then turns on the spot, the
// shorter way, to finalFacing. It also returns the step where that least
// distance is first reached: i for the leg ending at path[i], len(path) for
// the final turn, -1 for the starting position. K.2 ("may not come within 1"
// of an enemy") and K.1 checks read it. Exact: each leg's swept region is a
// convex hull, the turn is RotatingDistance.
func MinDistanceAlongPath(b Base, path []Vec, finalFacing float64, other Base) (float64, int) {
	best, step := Distance(b, other), -1
	cur := b
	for i, p := range path {
		if d := SweptBase(cur, p).DistanceToBase(other); d < best {
			best, step = d, i
		}
		cur.Center = p
	}
	if turn := TurnDeg(cur.Facing, finalFacing); turn != 0 {
		if d := RotatingDistance(cur, cur.Center, turn, other); d < best {
			best, step = d, len(path)
		}
	}
	return best, step
}
