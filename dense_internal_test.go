package scaledsm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/scaledsm/scaledsm/internal/dense"
	"github.com/scaledsm/scaledsm/internal/testkit"
	"gonum.org/v1/gonum/mat"
)

// gaussianDense returns an r×c matrix of N(0, scale²) entries.
var gaussianDense = testkit.Gaussian

// randomFactor returns an n×r matrix of standard Gaussian entries.
func randomFactor(rng *rand.Rand, n, r int) *mat.Dense { return testkit.Gaussian(rng, n, r, 1) }

// TestDenseHelpers checks product, distance and frobenius against gonum,
// at ordinary scales and at scales where the squares overflow or underflow.
func TestDenseHelpers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rnd := func(r, c int, scale float64) *mat.Dense { return gaussianDense(rng, r, c, scale) }
	l, r := rnd(7, 3, 1), rnd(5, 3, 1)
	x := mat.NewDense(7, 5, nil)
	product(x, l, r, make([]float64, 15))
	var want mat.Dense
	want.Mul(l, r.T())
	if !mat.EqualApprox(x, &want, 1e-14) {
		t.Errorf("product:\n%v\nwant\n%v", mat.Formatted(x), mat.Formatted(&want))
	}
	for _, scale := range []float64{1, 1e200, 1e-200} {
		a, b := rnd(6, 4, scale), rnd(6, 4, scale)
		var d mat.Dense
		d.Sub(a, b)
		if got, want := dense.Distance(a, b), mat.Norm(&d, 2); math.Abs(got-want) > 1e-14*want {
			t.Errorf("scale %g: distance %v, want %v", scale, got, want)
		}
		if got, want := dense.Frobenius(a), mat.Norm(a, 2); math.Abs(got-want) > 1e-14*want {
			t.Errorf("scale %g: frobenius %v, want %v", scale, got, want)
		}
	}
	if d := dense.Distance(l, l); d != 0 {
		t.Errorf("distance of a matrix to itself is %v", d)
	}
}

// TestPreconditionerTall checks the tall factors' path of the
// preconditioner (the Gram matrix and a multiply by its inverse, in row
// blocks)
// against gonum's solve of (fᵀf + λI) dᵀ = gᵀ, with and without damping,
// and that its bits do not depend on the number of cores.
func TestPreconditionerTall(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, r := tsqrRows+777, 4
	f, g := randomFactor(rng, n, r), randomFactor(rng, n, r)
	for _, rel := range []float64{0, 0.1} {
		var gram mat.SymDense
		gram.SymOuterK(1, f.T())
		lambda := rel * mat.Trace(&gram)
		for i := range r {
			gram.SetSym(i, i, gram.At(i, i)+lambda)
		}
		var want mat.Dense
		if err := want.Solve(&gram, g.T()); err != nil {
			t.Fatal(err)
		}
		var first *mat.Dense
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
		for _, procs := range []int{1, 2, 5} {
			runtime.GOMAXPROCS(procs)
			var p preconditioner
			d := mat.NewDense(n, r, nil)
			if fb, ok := p.apply(d, g, f, 0, rel); fb || !ok {
				t.Fatalf("apply: fallback %v, ok %v", fb, ok)
			}
			var diff mat.Dense
			diff.Sub(d, want.T())
			if e := mat.Norm(&diff, 2) / mat.Norm(d, 2); e > 1e-13 {
				t.Errorf("λ = %.3g, GOMAXPROCS %d: relative difference %.3g from the solve", lambda, procs, e)
			}
			if first == nil {
				first = d
			} else if !mat.Equal(d, first) {
				t.Errorf("λ = %.3g: GOMAXPROCS %d gives other bits than 1", lambda, procs)
			}
		}
	}
}
