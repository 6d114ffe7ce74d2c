package scaledsm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTSQRDistance: the distance between factors of tall matrices, by
// blocks, agrees with one Householder factorization, resolves a
// difference of 1e-13 relative (which Gram matrices could not), and has
// the same bits on one core and on several.
func TestTSQRDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, r = 3*tsqrRows + 123, 4
	a := Factors{L: randomFactor(rng, n, r), R: randomFactor(rng, n, r)}
	// b = a with L perturbed by 1e-13 relative in a direction d.
	d := randomFactor(rng, n, r)
	var bl mat.Dense
	bl.Scale(1e-13, d)
	bl.Add(&bl, a.L)
	b := Factors{L: &bl, R: a.R}
	// The difference is 1e-13 · d Rᵀ, whose squared norm is
	// tr((dᵀd)(RᵀR)), a sum of positive terms.
	var gd, gr, prod mat.Dense
	gd.Mul(d.T(), d)
	gr.Mul(a.R.T(), a.R)
	prod.Mul(&gd, &gr)
	want := 1e-13 * math.Sqrt(mat.Trace(&prod))

	var q lowRank
	got := q.distance(a, b)
	// Rounding of a (of size 1) limits a difference of 1e-13 to about
	// 1e-16/1e-13 = 1e-3 relative.
	if math.Abs(got-want) > 2e-2*want {
		t.Errorf("TSQR distance %v, want %v", got, want)
	}
	// One Householder factorization of the same stacked matrices.
	n1, k := n, 2*r
	left := stack(nil, n1, a.L, b.L, 1)
	right := stack(nil, n1, a.R, b.R, -1)
	var s lowRank
	s.t1 = s.householder(nil, left, n1, k)
	s.t2 = s.householder(nil, right, n1, k)
	var p mat.Dense
	p.Mul(mat.NewDense(k, k, s.t1), mat.NewDense(k, k, s.t2).T())
	if serial := mat.Norm(&p, 2); math.Abs(got-serial) > 2e-2*serial {
		t.Errorf("TSQR %v, Householder %v", got, serial)
	}
	old := runtime.GOMAXPROCS(1)
	var one lowRank
	alone := one.distance(a, b)
	runtime.GOMAXPROCS(old)
	if alone != got {
		t.Errorf("one core %v, several %v", alone, got)
	}
}

// TestChangeFromOneFactorization: change(a, b) = ||a - b||_F / ||a||_F
// from the one factorization of the stacked factors agrees with the
// distance over a separate size, for short and tall (TSQR) factors, of
// equal and of different ranks, and for symmetric factors.
func TestChangeFromOneFactorization(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct{ n1, n2, ka, kb int }{
		{30, 20, 3, 3}, {30, 20, 2, 5}, {3*tsqrRows + 7, 50, 4, 4}, {8, 6, 3, 3},
	} {
		a := Factors{L: randomFactor(rng, c.n1, c.ka), R: randomFactor(rng, c.n2, c.ka)}
		b := Factors{L: randomFactor(rng, c.n1, c.kb), R: randomFactor(rng, c.n2, c.kb)}
		var q lowRank
		want := q.distance(a, b) / q.size(a)
		if got := q.change(a, b); math.Abs(got-want) > 1e-13*want {
			t.Errorf("%+v: change %.17g, distance over size %.17g", c, got, want)
		}
	}
	a := Factors{L: randomFactor(rng, 40, 3)}
	b := Factors{L: randomFactor(rng, 40, 3)}
	var q lowRank
	if got, want := q.change(a, b), q.distance(a, b)/q.size(a); math.Abs(got-want) > 1e-13*want {
		t.Errorf("symmetric: change %.17g, distance over size %.17g", got, want)
	}
}

// TestTruncateTall: Truncate keeps L Rᵀ of full rank to rounding for
// short factors and for factors tall enough to be factored by blocks
// (TSQR), whose Q must come from one factorization's reflectors: with
// the blocks' it was off by 10^7.
func TestTruncateTall(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{100, 3*tsqrRows + 5} {
		f := Factors{L: randomFactor(rng, n, 3), R: randomFactor(rng, 50, 3)}
		g, ok := f.Truncate(3)
		if !ok {
			t.Fatalf("%d rows: not truncated", n)
		}
		var a, b mat.Dense
		a.Mul(f.L, f.R.T())
		b.Mul(g.L, g.R.T())
		b.Sub(&a, &b)
		if d, s := mat.Norm(&b, 2), mat.Norm(&a, 2); d > 1e-13*s {
			t.Errorf("%d rows: truncation to the full rank moved L Rᵀ by %g of %g", n, d, s)
		}
	}
}
