package scaledsm_test

import (
	"math"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm"
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

// TestPlateauValidate: a window or progress out of range is refused by
// Settings.Validate, not taken for the default (negative) or run with (a
// NaN progress never stopped; one of 5 stopped a loss halving each
// iteration).
func TestPlateauValidate(t *testing.T) {
	for _, p := range []scaledsm.Plateau{{Window: -5}, {Progress: math.NaN()}, {Progress: 5}, {Progress: -1}} {
		if err := (scaledsm.Settings{Converger: p}).Validate(); err == nil || !strings.Contains(err.Error(), "plateau") {
			t.Errorf("%+v: %v", p, err)
		}
	}
	if err := (scaledsm.Settings{Converger: scaledsm.Plateau{Window: 10, Progress: 0.01}}).Validate(); err != nil {
		t.Error(err)
	}
}
