package scaledsm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDenseHelpers checks product, distance and frobenius against gonum,
// at ordinary scales and at scales where the squares overflow or underflow.
func TestDenseHelpers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rnd := func(r, c int, scale float64) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				m.Set(i, j, scale*rng.NormFloat64())
			}
		}
		return m
	}
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
		if got, want := distance(a, b), mat.Norm(&d, 2); math.Abs(got-want) > 1e-14*want {
			t.Errorf("scale %g: distance %v, want %v", scale, got, want)
		}
		if got, want := frobenius(a), mat.Norm(a, 2); math.Abs(got-want) > 1e-14*want {
			t.Errorf("scale %g: frobenius %v, want %v", scale, got, want)
		}
	}
	if d := distance(l, l); d != 0 {
		t.Errorf("distance of a matrix to itself is %v", d)
	}
}
