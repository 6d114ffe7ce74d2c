package scaledsm_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// TestRepeatedFallback keeps both factors rank-deficient along the same
// direction, L = [l, 2l] and R = [r, 2r]: every direction keeps that form,
// so every iteration goes through the pseudo-inverse. Reusing it used to
// panic at the second fallback.
func TestRepeatedFallback(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Sensing, N1: 12, Rank: 2, Seed: 52}, synth.Setting{Kappa: 2, SNR: noNoise})
	spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 2}.Spectral(scaledsm.TruncateFraction(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*mat.Dense{spec.L, spec.R} {
		for i := range 12 {
			f.Set(i, 1, 2*f.At(i, 0))
		}
	}
	res := solve(t, in.Problem(), scaledsm.Settings{Step: scaledsm.Geometric{Lambda: 1, Q: 0.9}, Init: &spec, MaxIter: 20, Damping: scaledsm.Damping{None: true}})
	if res.Fallbacks < 2 {
		t.Errorf("%d fallbacks in %d iterations, want one per iteration", res.Fallbacks, res.Iterations)
	}
	if math.IsNaN(res.Loss) || math.IsNaN(res.RelError) {
		t.Errorf("NaN after repeated fallbacks: loss %v, error %v", res.Loss, res.RelError)
	}
}
