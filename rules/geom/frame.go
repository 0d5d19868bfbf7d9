package geom

import "math"

// frame is a base with its unit vectors worked out once: Heading costs a
// sine and a cosine, and a pair test would otherwise pay for a dozen.
type frame struct {
	c, f, r Vec // centre, forward, right
	hw, hd  float64
}

func (b Base) frame() frame {
	f := b.Forward()
	return frame{c: b.Center, f: f, r: Vec{f.Y, -f.X}, hw: b.Width / 2, hd: b.Depth / 2}
}

func (fr frame) local(p Vec) Vec {
	d := p.Sub(fr.c)
	return Vec{d.Dot(fr.r), d.Dot(fr.f)}
}

func (fr frame) corners() [4]Vec {
	f := fr.f.Scale(fr.hd)
	r := fr.r.Scale(fr.hw)
	c := fr.c
	return [4]Vec{c.Add(f).Sub(r), c.Add(f).Add(r), c.Sub(f).Add(r), c.Sub(f).Sub(r)}
}

func (fr frame) distanceToPoint(p Vec) float64 {
	l := fr.local(p)
	return hypot(math.Max(math.Abs(l.X)-fr.hw, 0), math.Max(math.Abs(l.Y)-fr.hd, 0))
}

// projRadius is half the length of the base's shadow on the unit axis n.
func (fr frame) projRadius(n Vec) float64 {
	return float64(fr.hw*math.Abs(n.Dot(fr.r))) + float64(fr.hd*math.Abs(n.Dot(fr.f)))
}

// satOverlap returns the least overlap of the two rectangles' shadows over
// the four axes of their edges: negative when some axis separates them
// (then they are apart), else the penetration depth. Symmetric bit for bit:
// the same sums over the same axes, in whatever order.
func satOverlap(fa, fb frame) float64 {
	axes := [4]Vec{fa.f, fa.r, fb.f, fb.r}
	d := fb.c.Sub(fa.c)
	m := math.Inf(1)
	for _, n := range axes {
		m = math.Min(m, fa.projRadius(n)+fb.projRadius(n)-math.Abs(d.Dot(n)))
	}
	return m
}
