package scaledsm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// countingOp counts the passes of an operator (and hides its batched
// pass, so that a batch evaluates each run with Evaluate).
type countingOp struct {
	Operator
	passes int
}

func (c *countingOp) Evaluate(e *Evaluation) {
	c.passes++
	c.Operator.Evaluate(e)
}

// TestStillPassesSkipped solves with geometric steps that decay fast, so
// that the steps fall below the rounding of the factors long before the
// iteration limit, alone and in a batch, with and without skipping the
// passes at an iterate that did not move: the traces and factors are the
// same bits, and the skipping saved passes (the run ends with more records
// than passes). With the smooth loss, whose subgradients directions
// rescales in place, no pass is skipped.
func TestStillPassesSkipped(t *testing.T) {
	const m, n, r = 120, 8, 2
	rng := rand.New(rand.NewPCG(5, 6))
	op, star, y := gaussianSensing(t, rng, m, n, r)
	for i := range y {
		if rng.Float64() < 0.2 {
			y[i] += 10 * rng.NormFloat64()
		}
	}
	init := Factors{L: mat.DenseCopyOf(star.L), R: mat.DenseCopyOf(star.R)}
	init.L.Scale(1.3, init.L)
	settings := func(q float64, loss Loss) Settings {
		return Settings{Method: ScaledSM, Loss: loss, Step: Geometric{Lambda: 0.5, Q: q}, Init: &init, MaxIter: 300, Tol: -1}
	}
	solve := func(skip bool, q float64, loss Loss) (*Result, int) {
		defer func(v bool) { skipStillPasses = v }(skipStillPasses)
		skipStillPasses = skip
		c := &countingOp{Operator: op}
		res, err := Solve(context.Background(), Problem{Op: c, Y: y, Rank: r, Truth: star}, settings(q, loss))
		if err != nil {
			t.Fatal(err)
		}
		return res, c.passes
	}
	batch := func(skip bool, qs []float64) ([]*Result, int) {
		defer func(v bool) { skipStillPasses = v }(skipStillPasses)
		skipStillPasses = skip
		c := &countingOp{Operator: op}
		var jobs []Job
		for _, q := range qs {
			jobs = append(jobs, Job{Problem: Problem{Op: c, Y: y, Rank: r, Truth: star}, Settings: settings(q, L1)})
		}
		res, err := SolveBatch(context.Background(), jobs)
		if err != nil {
			t.Fatal(err)
		}
		return res, c.passes
	}
	same := func(what string, a, b *Result) {
		t.Helper()
		if len(a.Trace) != len(b.Trace) || !mat.Equal(a.L, b.L) || !mat.Equal(a.R, b.R) {
			t.Fatalf("%s: %d and %d records, or other factors", what, len(a.Trace), len(b.Trace))
		}
		bits := func(v float64) uint64 { return math.Float64bits(v) }
		for k, x := range a.Trace {
			y := b.Trace[k]
			if x.Iter != y.Iter || bits(x.RelError) != bits(y.RelError) || bits(x.Change) != bits(y.Change) ||
				bits(x.Loss) != bits(y.Loss) || bits(x.Gap) != bits(y.Gap) || bits(x.Step) != bits(y.Step) || bits(x.StepLength) != bits(y.StepLength) {
				t.Fatalf("%s: record %d differs: %+v and %+v", what, k, x, y)
			}
		}
	}
	full, fullPasses := solve(false, 0.7, L1)
	fast, passes := solve(true, 0.7, L1)
	same("q = 0.7", full, fast)
	if fullPasses != len(full.Trace) || passes >= fullPasses/2 {
		t.Errorf("q = 0.7: %d passes skipping and %d without, for %d records", passes, fullPasses, len(full.Trace))
	}
	smooth, smoothPasses := solve(true, 0.7, L2Squared)
	smoothFull, _ := solve(false, 0.7, L2Squared)
	same("l2sq", smoothFull, smooth)
	if smoothPasses != len(smooth.Trace) {
		t.Errorf("l2sq: %d passes for %d records", smoothPasses, len(smooth.Trace))
	}
	qs := []float64{0.6, 0.7, 0.99}
	fulls, fullPasses := batch(false, qs)
	fasts, passes := batch(true, qs)
	for i := range qs {
		same("batch", fulls[i], fasts[i])
	}
	if passes >= fullPasses*2/3 {
		t.Errorf("batch: %d passes skipping and %d without", passes, fullPasses)
	}
}

// gaussianSensing draws from rng m Gaussian n×n sensing matrices, then the
// factors of a rank-r truth with Gaussian entries, and returns the
// operator, the truth and its measurements.
func gaussianSensing(t *testing.T, rng *rand.Rand, m, n, r int) (*Sensing, Factors, []float64) {
	t.Helper()
	a := make([]float64, m*n*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	op, err := NewSensing(m, n, n, a)
	if err != nil {
		t.Fatal(err)
	}
	star := Factors{L: mat.NewDense(n, r, nil), R: mat.NewDense(n, r, nil)}
	for _, f := range []*mat.Dense{star.L, star.R} {
		for i := range n {
			for j := range r {
				f.Set(i, j, rng.NormFloat64())
			}
		}
	}
	y := make([]float64, m)
	op.Apply(y, star)
	return op, star, y
}
