package experiment_test

import (
	"fmt"
	"math"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/experiment"
)

// The claims checker works on traces, wherever they come from: here,
// made by hand for Figure 2, with ScaledSM taking 200 iterations to 1e-12
// at every κ and VanillaSM 200 κ^(1/2).
func ExampleCheck() {
	fig, err := experiment.Lookup(2)
	if err != nil {
		panic(err)
	}
	trace := func(k int) []scaledsm.Iteration { // error falls to 1e-12 at iteration k
		tr := make([]scaledsm.Iteration, k+1)
		for t := range tr {
			tr[t] = scaledsm.Iteration{Iter: t, RelError: math.Pow(10, -12*float64(t)/float64(k)) * (1 - 1e-9)}
		}
		return tr
	}
	res := &experiment.Result{Figure: fig}
	for _, p := range fig.Panels {
		var runs []experiment.Run
		for _, c := range p.Curves {
			k := 200
			if c.Method == scaledsm.VanillaSM {
				k = int(200 * math.Sqrt(c.Setting.Kappa))
			}
			runs = append(runs, experiment.Run{Curve: c, Trace: trace(k)})
		}
		res.Panels = append(res.Panels, runs)
	}
	for _, v := range experiment.Check(res)[:3] {
		fmt.Printf("(%s) %s: %v\n    %s\n", v.Panel, v.Claim, v.Holds, v.Measured)
	}
	// Output:
	// (a) ScaledSM reaches 1e-12 at every κ: true
	//     iterations to 1e-12: κ=1: 200; κ=5: 200; κ=10: 200; κ=20: 200
	// (a) ScaledSM's iterations to 1e-12 vary by at most 15% across κ: true
	//     200 to 200 iterations: 0.0%
	// (a) VanillaSM slows with κ: false
	//     iterations: κ=1: 200; κ=5: 447 (2.23×); κ=10: 632 (3.16×); κ=20: 894 (4.47×)
}
