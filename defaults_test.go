package scaledsm_test

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// TestDefaultSteps: the constant step is 0.5 on sensing and 0.05 on
// quadratic sampling, GD's divided by the start's top singular value; the
// geometric step's first length is that of the first automatic step.
func TestDefaultSteps(t *testing.T) {
	ms := instance(t, synth.Config{Kind: synth.Sensing, N1: 12, Rank: 2, Seed: 1}, synth.Setting{Kappa: 3, SNR: noNoise})
	qs := instance(t, synth.Config{Kind: synth.Quadratic, N1: 12, Rank: 2, Seed: 1}, synth.Setting{Kappa: 3, SNR: noNoise})
	if a, b := scaledsm.DefaultEta(scaledsm.ScaledGD, ms.Op, nil), scaledsm.DefaultEta(scaledsm.ScaledGD, qs.Op, nil); a != 0.5 || b != 0.05 {
		t.Errorf("ScaledGD's steps %v on sensing and %v on quadratic sampling, want 0.5 and 0.05", a, b)
	}
	init := scaledsm.Factors{L: mat.NewDense(12, 1, nil), R: mat.NewDense(12, 1, nil)}
	init.L.Set(0, 0, 2)
	init.R.Set(3, 0, 4) // X = 8 e_0 e_3ᵀ: σ₁ = 8
	if got := scaledsm.DefaultEta(scaledsm.GD, ms.Op, &init); got != 0.5/8 {
		t.Errorf("GD's step %v, want 0.5/8", got)
	}
	p := ms.Problem()
	s := scaledsm.Settings{Method: scaledsm.ScaledSM, MaxIter: 3}
	lambda, err := scaledsm.DefaultLambda(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	s.Step = scaledsm.Auto{}
	res, err := scaledsm.Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if want := res.Trace[0].StepLength; !(lambda > 0) || math.Abs(lambda-want) > 1e-15*want {
		t.Errorf("λ = %v, want the first automatic step's length %v", lambda, want)
	}
}
