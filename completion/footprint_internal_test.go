package completion

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/scaledsm/scaledsm"
	"gonum.org/v1/gonum/mat"
)

// TestRunsWithoutResiduals solves completion problems with outliers by
// the default method (TrimmedL2, which keeps no residuals on one process)
// and again with the residuals kept: the same traces and factors, bit for
// bit, and the same fit fraction, below and above the size beyond which
// the first bounds come from a sample (obs.ScaleSample). The loss's tracker
// asks the run to keep no residuals.
func TestRunsWithoutResiduals(t *testing.T) {
	for _, n := range []int{120, 420} {
		const r = 3
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		star := scaledsm.Factors{L: mat.NewDense(n, r, nil), R: mat.NewDense(n, r, nil)}
		for _, f := range []*mat.Dense{star.L, star.R} {
			for i := range n {
				for j := range r {
					f.Set(i, j, rng.NormFloat64())
				}
			}
		}
		var rows, cols []int32
		var vals []float64
		for i := range n {
			for j := range n {
				if rng.Float64() < 0.45 {
					v := mat.Dot(star.L.RowView(i), star.R.RowView(j))
					if rng.Float64() < 0.1 {
						v += 20 * rng.NormFloat64()
					}
					rows, cols, vals = append(rows, int32(i)), append(cols, int32(j)), append(vals, v)
				}
			}
		}
		op, y, err := NewEntries(n, n, rows, cols, vals)
		if err != nil {
			t.Fatal(err)
		}
		p := scaledsm.Problem{Op: op, Y: y, Rank: r, Truth: star}
		s := DefaultSettings()
		s.MaxIter, s.Converger = 200, nil
		solve := func(spare bool) *Result {
			defer func(v bool) { spareResiduals = v }(spareResiduals)
			spareResiduals = spare
			res, err := Solve(context.Background(), p, s)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		kept, spared := solve(false), solve(true)
		if len(kept.Trace) != len(spared.Trace) || !mat.Equal(kept.L, spared.L) || !mat.Equal(kept.R, spared.R) {
			t.Fatalf("n %d (m %d): %d and %d records, or other factors", n, len(y), len(kept.Trace), len(spared.Trace))
		}
		bits := math.Float64bits
		for k, a := range kept.Trace {
			b := spared.Trace[k]
			if bits(a.Loss) != bits(b.Loss) || bits(a.RelError) != bits(b.RelError) || bits(a.Step) != bits(b.Step) {
				t.Fatalf("n %d: record %d differs: %+v and %+v", n, k, a, b)
			}
		}
		if last := kept.Trace[len(kept.Trace)-1]; !(last.RelError < 1e-6) {
			t.Fatalf("n %d: relative error %.3g after %d iterations: the comparison is of a failed run", n, last.RelError, kept.Iterations)
		}
		if math.Abs(kept.FitFraction-spared.FitFraction) > 1e-3 || kept.FitFraction < 0.8 {
			t.Fatalf("n %d: fit fractions %v and %v", n, kept.FitFraction, spared.FitFraction)
		}
		tr, err := TrimmedL2{}.Track(p, s.Settings)
		if err != nil {
			t.Fatal(err)
		}
		if tr.(*trimmer).residuals() {
			t.Fatalf("n %d: the default run would hold %d residuals", n, len(y))
		}
	}
}

// TestSpectralKeepsNoCopy checks the spectral initialization of entries
// under the median rule, which reads the observations and the rule's bound
// in place of a copy of those kept, against the operator's estimate from
// the copy: the same factors, bit for bit, with outliers that the rule
// drops.
func TestSpectralKeepsNoCopy(t *testing.T) {
	const n1, n2, r = 90, 70, 3
	rng := rand.New(rand.NewPCG(3, 9))
	var rows, cols []int32
	var vals []float64
	for i := range n1 {
		for j := range n2 {
			if rng.Float64() < 0.3 {
				v := rng.NormFloat64()
				if rng.Float64() < 0.1 {
					v *= 50
				}
				rows, cols, vals = append(rows, int32(i)), append(cols, int32(j)), append(vals, v)
			}
		}
	}
	op, y, err := NewEntries(n1, n2, rows, cols, vals)
	if err != nil {
		t.Fatal(err)
	}
	got, err := scaledsm.Problem{Op: op, Y: y, Rank: r}.Spectral(scaledsm.Truncation{})
	if err != nil {
		t.Fatal(err)
	}
	v, kept := make([]float64, len(y)), 0
	for _, k := range scaledsm.Truncated(y, scaledsm.Truncation{}) {
		v[k] = y[k]
		kept++
	}
	if kept == len(y) {
		t.Fatal("the median rule dropped nothing: the test needs outliers")
	}
	want, err := op.Spectral(v, kept, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got.L, want.L) || !mat.Equal(got.R, want.R) {
		t.Fatal("the spectral factors from the bound differ from those of the copy")
	}
}
