package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm/synth"
)

// TestOverSpecQuick runs a small study (n = 16 and 20, r = 2, factors 1
// and 3): every claim holds, and the table has a row per model, factor
// and variant.
func TestOverSpecQuick(t *testing.T) {
	c := DefaultOverSpec()
	c.Sensing = synth.Config{Kind: synth.Sensing, N1: 16, Rank: 2}
	c.Quadratic = synth.Config{Kind: synth.Quadratic, N1: 20, Rank: 2}
	c.Factors = []int{1, 3}
	c.VanillaIter = 200
	res, err := RunOverSpec(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * 2 * 2 * len(variantNames); len(res.Runs) != want {
		t.Fatalf("%d runs, want %d", len(res.Runs), want)
	}
	for _, v := range res.Claims() {
		if !v.Holds {
			t.Errorf("(%s) %s: %s", v.Panel, v.Claim, v.Measured)
		}
	}
	var b strings.Builder
	if err := res.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(b.String(), "| matrix sensing n=16 r=2 |"); rows != 2*len(variantNames) {
		t.Errorf("%d sensing rows, want %d:\n%s", rows, 2*len(variantNames), b.String())
	}
	t.Log("\n" + b.String())
}

// TestOverSpecClaimsCanFail: a damped run that did not converge, or whose
// count grows with κ, fails the claims.
func TestOverSpecClaimsCanFail(t *testing.T) {
	c := DefaultOverSpec()
	c.Factors = []int{1}
	var runs []OverSpecRun
	for _, kind := range []synth.Kind{synth.Sensing, synth.Quadratic} {
		runs = append(runs,
			OverSpecRun{Problem: kind, Factor: 1, Kappa: 1, Variant: Damped, Converged: true, Iterations: 50},
			OverSpecRun{Problem: kind, Factor: 1, Kappa: 100, Variant: Damped, Converged: true, Iterations: 80},
			OverSpecRun{Problem: kind, Factor: 1, Kappa: 1, Variant: DampedRandom, Converged: false, Iterations: 3000, RelError: 0.1},
		)
	}
	res := &OverSpecResult{Config: c, Runs: runs}
	held := map[string]bool{}
	for _, v := range res.Claims() {
		held[v.Claim] = v.Holds
	}
	for claim, holds := range held {
		expect := strings.Contains(claim, "contrast") || strings.Contains(claim, "at every over-specification")
		if holds != expect {
			t.Errorf("%q holds = %v, want %v", claim, holds, expect)
		}
	}
}
