package scaledsm_test

import (
	"context"
	"math"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// TestPlateauRule: a loss falling geometrically is never stopped, one
// that levels off is, after the window; and never a run with a truth.
func TestPlateauRule(t *testing.T) {
	trace := func(loss func(k int) float64, relErr float64, n int) []scaledsm.Iteration {
		tr := make([]scaledsm.Iteration, n)
		for k := range tr {
			tr[k] = scaledsm.Iteration{Iter: k, Loss: loss(k), RelError: relErr}
		}
		return tr
	}
	p := scaledsm.Plateau{}
	w := scaledsm.DefaultPlateauWindow
	falling := func(k int) float64 { return math.Pow(0.99, float64(k)) }
	level := func(k int) float64 { return 1 + math.Pow(0.5, float64(k)) }
	for n := 1; n < 400; n++ {
		if _, stop := p.Converged(trace(falling, math.NaN(), n)); stop {
			t.Fatalf("a loss falling 1%% an iteration stopped after %d", n-1)
		}
		if _, stop := p.Converged(trace(level, 0.5, n)); stop {
			t.Fatalf("a run with a truth stopped after %d", n-1)
		}
	}
	first := -1
	for n := 1; n < 400 && first < 0; n++ {
		if status, stop := p.Converged(trace(level, math.NaN(), n)); stop {
			if status != scaledsm.Plateaued {
				t.Fatalf("status %v", status)
			}
			first = n - 1
		}
	}
	// 1 + 2^-k levels off by k = 10 (below 0.1% of progress in 50).
	if first < w || first > w+20 {
		t.Errorf("a levelled loss stopped at iteration %d, want soon after %d", first, w)
	}
	if _, stop := (scaledsm.Plateau{Window: 5, Progress: 0.01}).Converged(trace(falling, math.NaN(), 10)); stop {
		t.Error("a window of 5 at 1% progress stopped a loss falling 5% in 5")
	}
	if _, stop := (scaledsm.Plateau{Window: 5, Progress: 0.01}).Converged(trace(func(int) float64 { return 2 }, math.NaN(), 6)); !stop {
		t.Error("a constant loss was not stopped after the window")
	}
}

// TestPlateauOnApproximateData: the entry models' default, on a rank-3
// matrix with dense noise and outliers and no truth, stops "plateau" long
// before its iteration limit and no farther from X* than a run to it; on an
// exactly low-rank matrix without a truth it runs on to "stationary".
func TestPlateauOnApproximateData(t *testing.T) {
	for _, snr := range []float64{30, math.Inf(1)} {
		d, err := synth.New(synth.Config{Kind: synth.Completion, N1: 300, Rank: 3, P: 0.2, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		in, err := d.Instance(synth.Setting{Kappa: 5, PS: 0.1, SNR: snr})
		if err != nil {
			t.Fatal(err)
		}
		p := in.Problem()
		p.Truth = nil
		s := scaledsm.DefaultSettings(p.Op)
		s.MaxIter = 3000
		s.Ridge = 0 // the plateau alone, without the validation of a penalty
		res, err := scaledsm.Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		long := s
		long.Converger = nil
		ref, err := scaledsm.Solve(context.Background(), p, long)
		if err != nil {
			t.Fatal(err)
		}
		e, eRef := relativeTo(res.Factors, in.Star), relativeTo(ref.Factors, in.Star)
		t.Logf("SNR %v: %v after %d at %.3g; without the plateau %v after %d at %.3g", snr, res.Status, res.Iterations, e, ref.Status, ref.Iterations, eRef)
		if math.IsInf(snr, 1) {
			if res.Status != scaledsm.Stationary || e > 1e-10 {
				t.Errorf("exact data: %v at %.3g, want stationary at 1e-10", res.Status, e)
			}
			continue
		}
		if res.Status != scaledsm.Plateaued || res.Iterations > 3*ref.Iterations/4 || e > 1.01*eRef {
			t.Errorf("noisy data: %v after %d at %.3g; to the limit %d at %.3g", res.Status, res.Iterations, e, ref.Iterations, eRef)
		}
	}
}

// relativeTo returns ||L Rᵀ - X*||_F / ||X*||_F, formed densely.
func relativeTo(f, star scaledsm.Factors) float64 {
	return relativeToMatrix(f, star.Product())
}
