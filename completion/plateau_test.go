package completion_test

import (
	"context"
	"math"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/synth"
)

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
		s := completion.DefaultSettings()
		s.MaxIter = 3000
		s.Ridge = 0 // the plateau alone, without the validation of a penalty
		res, err := completion.Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		long := s
		long.Converger = nil
		ref, err := completion.Solve(context.Background(), p, long)
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
