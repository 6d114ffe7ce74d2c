package fsum

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestCancellation adds terms whose plain sum loses every digit: 1e16, then
// a thousand ones, then -1e16. The plain loop rounds each 1 away; the
// compensated sum keeps them.
func TestCancellation(t *testing.T) {
	v := []float64{1e16}
	for range 1000 {
		v = append(v, 1)
	}
	v = append(v, -1e16)
	var plain float64
	for _, x := range v {
		plain += x
	}
	if plain == 1000 {
		t.Fatalf("plain sum is exact (%v): the test cannot tell", plain)
	}
	if got := Of(v); got != 1000 {
		t.Errorf("Of = %v, want 1000", got)
	}
}

// TestAgainstExact compares sums of terms of mixed signs, whose sum is
// much smaller than their magnitudes (as a loss differenced against
// f(X*)), with the exact sums computed by math/big: the compensated sum is
// within 2ε of the exact one relative to it, where the plain loop is not.
func TestAgainstExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worstPlain, worst := 0.0, 0.0
	for trial := range 20 {
		m := 1000 + 500*trial
		v := make([]float64, m)
		for i := range v {
			v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(8)))
			if i%2 == 1 {
				v[i] = -v[i-1] * (1 + 1e-9*rng.NormFloat64())
			}
		}
		exact := new(big.Float).SetPrec(2000)
		var plain float64
		for _, x := range v {
			exact.Add(exact, new(big.Float).SetFloat64(x))
			plain += x
		}
		want, _ := exact.Float64()
		rel := func(got float64) float64 { return math.Abs(got-want) / math.Abs(want) }
		worst = max(worst, rel(Of(v)))
		worstPlain = max(worstPlain, rel(plain))
	}
	const eps = 0x1p-52
	if worst > 2*eps {
		t.Errorf("compensated sums off by up to %.3g relative, want at most 2ε = %.3g", worst, 2*eps)
	}
	if worstPlain < 100*eps {
		t.Errorf("plain sums off by at most %.3g relative: the test cannot tell", worstPlain)
	}
	t.Logf("relative error: compensated %.3g, plain loop %.3g", worst, worstPlain)
}

func TestNorm(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3, 4}, 5},
		{[]float64{3e200, 4e200}, 5e200},
		{[]float64{3e-200, -4e-200}, 5e-200},
		{[]float64{math.Inf(-1), 1}, math.Inf(1)},
	} {
		if got := Norm(c.v); math.Abs(got-c.want) > 1e-15*c.want {
			t.Errorf("Norm(%v) = %v, want %v", c.v, got, c.want)
		}
	}
	if got := Norm([]float64{math.NaN(), 1}); !math.IsNaN(got) {
		t.Errorf("Norm with a NaN = %v, want NaN", got)
	}
}

func TestDot(t *testing.T) {
	x := []float64{1e16, 1, -1e16}
	y := []float64{1, 1, 1}
	if got := Dot(x, y); got != 1 {
		t.Errorf("Dot = %v, want 1", got)
	}
}

// TestNeumaierBits: Add forms each addition's rounding error by TwoSum,
// without a branch; the error is exact, so the sums have the bits of
// Neumaier's branch on |s| >= |x|, here on 10^5 sums of terms of random
// signs over 36 orders of magnitude, with zeros and exact cancellations.
func TestNeumaierBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		var got Sum
		var s, c float64 // Neumaier's, as Add had it
		for range 1 + rng.IntN(30) {
			x := rng.NormFloat64() * math.Ldexp(1, rng.IntN(120)-60)
			switch rng.IntN(10) {
			case 0:
				x = 0
			case 1:
				x = -s
			}
			got.Add(x)
			sum := s + x
			if math.Abs(s) >= math.Abs(x) {
				c += (s - sum) + x
			} else {
				c += (x - sum) + s
			}
			s = sum
		}
		if gs, gc := got.Parts(); math.Float64bits(gs) != math.Float64bits(s) || math.Float64bits(gc) != math.Float64bits(c) {
			t.Fatalf("sum %v + %v, Neumaier's %v + %v", gs, gc, s, c)
		}
	}
}
