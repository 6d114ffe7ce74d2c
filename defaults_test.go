package scaledsm_test

import (
	"context"
	"math"
	"strings"
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

// TestResolvedDefaults: the zero Settings resolve to the defaults their
// docs give, a value set is kept, and an invalid one is refused; Plateau
// says its own rule.
func TestResolvedDefaults(t *testing.T) {
	s, err := scaledsm.Settings{}.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	if s.Loss != scaledsm.L1 || s.MaxIter != 1000 || s.Tol != 1e-12 || s.InitScale != 1e-3 || s.Step != (scaledsm.Auto{}) {
		t.Errorf("the zero Settings resolve to %+v", s)
	}
	if s, err := (scaledsm.Settings{InitScale: 0.01, MaxIter: 7}).Resolved(); err != nil || s.InitScale != 0.01 || s.MaxIter != 7 {
		t.Errorf("set values resolve to %+v, %v", s, err)
	}
	for _, bad := range []scaledsm.Settings{{InitScale: -1}, {Ridge: -1}} {
		if _, err := bad.Resolved(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	for p, want := range map[scaledsm.Plateau]string{
		{}:                           "50 iterations lowered the loss by less than 0.1%",
		{Window: 20, Progress: 0.01}: "20 iterations lowered the loss by less than 1%",
	} {
		if got := p.String(); got != want {
			t.Errorf("%+v: %q, want %q", p, got, want)
		}
	}
}

// TestRankExcess: 1000 measurements of a 50×50 matrix support rank
// floor(1000 / (2.5·100)) = 4, and RankExcess words rank 5's excess.
func TestRankExcess(t *testing.T) {
	if got := scaledsm.SupportedRank(1000, 50, 50, 0); got != 4 {
		t.Fatalf("SupportedRank = %d, want 4", got)
	}
	if got := scaledsm.RankExcess(4, 1000, 50, 50, 0); got != "" {
		t.Errorf("rank 4: %q, want nothing", got)
	}
	want := "rank 5 has (n1+n2)·r = 500 unknowns, more than the m(1-p_s)/2.5 = 400 that 1000 measurements with a fraction 0 of outliers support"
	if got := scaledsm.RankExcess(5, 1000, 50, 50, math.NaN()); !strings.HasPrefix(got, want) {
		t.Errorf("rank 5: %q, want it to begin %q", got, want)
	}
}
