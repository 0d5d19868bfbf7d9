package geom

import (
	"math/rand"
	"testing"
)

func benchPairs() ([]Base, []Base) {
	r := rand.New(rand.NewSource(42))
	as, bs := make([]Base, 1024), make([]Base, 1024)
	for i := range as {
		as[i] = randBase(r)
		bs[i] = randNearBase(r, as[i])
	}
	return as, bs
}

var sink float64
var sinkB bool

func BenchmarkDistance(b *testing.B) {
	as, bs := benchPairs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sink += Distance(as[i&1023], bs[i&1023])
	}
}

func BenchmarkOverlaps(b *testing.B) {
	as, bs := benchPairs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkB = sinkB != Overlaps(as[i&1023], bs[i&1023])
	}
}

func BenchmarkInFrontArc(b *testing.B) {
	as, bs := benchPairs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkB = sinkB != InFrontArc(as[i&1023], bs[i&1023], DefaultArcRule)
	}
}

func BenchmarkCanSee(b *testing.B) {
	// A viewer facing a target across a field of 40 units.
	r := rand.New(rand.NewSource(43))
	var bases []Base
	for len(bases) < 40 {
		c := Base{Center: Vec{r.Float64()*40 - 20, 5 + r.Float64()*20}, Facing: r.Float64() * 360, Width: 4, Depth: 1.5}
		bases = append(bases, c)
	}
	target := box(0, 30, 4, 2)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, ok := CanSee(Vec{0, 0}, target, bases, nil)
		sinkB = sinkB != ok
	}
}
