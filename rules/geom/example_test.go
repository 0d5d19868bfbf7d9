package geom_test

import (
	"fmt"

	"github.com/clubledger/ledger/rules/geom"
)

// A charge check as K.4 makes it: front arc, then distance from the
// charger's leader point to the nearest point of the target.
func Example() {
	charger := geom.Base{Center: geom.Vec{X: 10, Y: 10}, Facing: 0, Width: 4, Depth: 2}
	target := geom.Base{Center: geom.Vec{X: 12, Y: 24.4}, Facing: 180, Width: 4, Depth: 2}
	speed := 6.0

	fmt.Println("in front arc:", geom.InFrontArc(charger, target, geom.DefaultArcRule))
	d := target.DistanceToPoint(charger.LeaderPoint())
	fmt.Printf("distance %.2f > 2 x %.0f: %v\n", d, speed, d > 2*speed)
	fmt.Println("hits its", geom.ArcOf(target, charger.LeaderPoint(), geom.DefaultArcRule))
	// Output:
	// in front arc: true
	// distance 12.40 > 2 x 6: true
	// hits its front
}

func ExampleContact() {
	a := geom.Base{Center: geom.Vec{X: 0, Y: 0}, Width: 4, Depth: 2}
	for _, x := range []float64{5, 4.005, 3.995, 3} {
		b := geom.Base{Center: geom.Vec{X: x, Y: 0}, Width: 4, Depth: 2}
		verdict, n := geom.Contact(a, b)
		fmt.Printf("%s %.3f\n", verdict, n)
	}
	// Output:
	// apart 1.000
	// contact 0.005
	// contact 0.005
	// overlap 1.000
}
