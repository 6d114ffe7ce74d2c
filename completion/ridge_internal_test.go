package completion

import (
	"math"
	"testing"

	"github.com/scaledsm/scaledsm"
)

// TestCutShort: a fit stopped at the iteration limit is judged only when
// it ran a plateau window and its loss no longer fell tenfold over it.
func TestCutShort(t *testing.T) {
	trace := func(n int, rate float64) []scaledsm.Iteration {
		tr := make([]scaledsm.Iteration, n+1)
		for k := range tr {
			tr[k].Loss = math.Pow(rate, float64(k))
		}
		return tr
	}
	for _, c := range []struct {
		status scaledsm.Status
		iters  int
		rate   float64
		want   bool
	}{
		{scaledsm.IterationLimit, 30, 0.99, true},  // too short to tell
		{scaledsm.IterationLimit, 80, 0.9, true},   // still converging: 0.9^50 ≈ 0.005
		{scaledsm.IterationLimit, 80, 0.99, false}, // 0.99^50 ≈ 0.6: stuck
		{scaledsm.Plateaued, 80, 0.9, false},
	} {
		res := &Result{Result: scaledsm.Result{Status: c.status, Iterations: c.iters, Trace: trace(c.iters, c.rate)}}
		if got := cutShort(res); got != c.want {
			t.Errorf("%v after %d iterations at rate %v: cut short %v, want %v", c.status, c.iters, c.rate, got, c.want)
		}
	}
}
