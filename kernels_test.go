package scaledsm_test

import (
	"context"
	"math"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/synth"
)

// figure1b solves a small version of Figure 1(b) (matrix sensing, 20%
// outliers, κ = 1, 5, 10, 20, ScaledSM and VanillaSM with Polyak's steps)
// with the kernels in use, as one batch.
func figure1b(t *testing.T, precision synth.Precision) []*scaledsm.Result {
	t.Helper()
	d := newDraw(t, synth.Config{Kind: synth.Sensing, N1: 16, Rank: 2, Seed: 1, Precision: precision})
	var jobs []scaledsm.Job
	for _, kappa := range []float64{1, 5, 10, 20} {
		in := instanceOf(t, d, synth.Setting{Kappa: kappa, PS: 0.2, SNR: math.Inf(1)})
		for _, m := range []scaledsm.Method{scaledsm.ScaledSM, scaledsm.VanillaSM} {
			jobs = append(jobs, scaledsm.Job{Problem: in.Problem(), Settings: scaledsm.Settings{
				Method: m, Step: scaledsm.Polyak{FStar: in.FStar}, Truncation: scaledsm.TruncateFraction(0.2),
			}})
		}
	}
	res, err := scaledsm.SolveBatch(context.Background(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestKernelsAgreeOnFigure1b checks that the portable kernels and each wide
// one recover the truth to 1e-12 on a small Figure 1(b) with ScaledSM, and
// that every curve stops the same way within 2% of the iterations.
func TestKernelsAgreeOnFigure1b(t *testing.T) {
	defer kernel.Use("auto")
	for _, precision := range []synth.Precision{synth.Float64, synth.Float32} {
		runs := map[string][]*scaledsm.Result{}
		for _, name := range kernel.Available() {
			if err := kernel.Use(name); err != nil {
				t.Fatal(err)
			}
			runs[name] = figure1b(t, precision)
		}
		generic := runs["generic"]
		for name, res := range runs {
			var counts []int
			for j, r := range res {
				counts = append(counts, r.Iterations)
				if j%2 == 0 && (r.Status != scaledsm.Converged || r.RelError > 1e-12) {
					t.Errorf("%v, %s kernels, κ curve %d: ScaledSM %v at %.3g after %d iterations", precision, name, j/2, r.Status, r.RelError, r.Iterations)
				}
				g := generic[j]
				if r.Status != g.Status || math.Abs(float64(r.Iterations-g.Iterations)) > 0.02*float64(max(r.Iterations, g.Iterations)) {
					t.Errorf("%v, curve %d: %s kernels %v after %d iterations, generic %v after %d",
						precision, j, name, r.Status, r.Iterations, g.Status, g.Iterations)
				}
			}
			t.Logf("%v, %s kernels: iterations %v", precision, name, counts)
		}
	}
}
