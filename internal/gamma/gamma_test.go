package gamma

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestMoments: the draws of Draw and of a Table have the mean a and the
// variance a of the Gamma(a, 1) distribution.
func TestMoments(t *testing.T) {
	const n = 200000
	for _, a := range []float64{0.3, 1, 3.5, 40} {
		rng := rand.New(rand.NewPCG(1, 2))
		pcg := rand.NewPCG(3, 4)
		tab := TableOf(a)
		for _, kind := range []string{"Draw", "Table"} {
			var s, s2 float64
			for range n {
				x := tab.Draw(pcg.Uint64())
				if kind == "Draw" {
					x = Draw(rng, a)
				}
				s += x
				s2 += x * x
			}
			mean := s / n
			v := s2/n - mean*mean
			// Five standard errors of the mean, and 5% of the variance.
			if math.Abs(mean-a) > 5*math.Sqrt(a/n) || math.Abs(v-a) > 0.05*a {
				t.Errorf("%s Gamma(%v): mean %.4f, variance %.4f; want %v and %v", kind, a, mean, v, a, a)
			}
		}
	}
}

// TestTableLaw: a Table's draws follow the distribution function, in the
// body and in the far tail: the Kolmogorov-Smirnov distance of 10^5 draws
// is within its 1% critical value, and the share beyond the last cell's
// start is 1/1024.
func TestTableLaw(t *testing.T) {
	const n = 100000
	a := 3.5
	tab := TableOf(a)
	dist := distuv.Gamma{Alpha: a, Beta: 1}
	pcg := rand.NewPCG(5, 6)
	x := make([]float64, n)
	tail := 0
	for i := range x {
		x[i] = tab.Draw(pcg.Uint64())
		if x[i] > tab.q[cells-1] {
			tail++
		}
	}
	ks := 0.0
	slices.Sort(x)
	for i, v := range x {
		c := dist.CDF(v)
		ks = math.Max(ks, math.Max(math.Abs(c-float64(i)/n), math.Abs(c-float64(i+1)/n)))
	}
	if ks > 1.63/math.Sqrt(n) {
		t.Errorf("Kolmogorov-Smirnov distance %.5f, want below %.5f", ks, 1.63/math.Sqrt(n))
	}
	if want := float64(n) / cells; math.Abs(float64(tail)-want) > 5*math.Sqrt(want) {
		t.Errorf("%d draws in the last cell, want %.0f", tail, want)
	}
}

// TestTail: the tail table's draws are the exact quantiles of the upper
// tail within 1e-7 of a draw, from the last cell's start to its end, for
// the shapes the samplers use.
func TestTail(t *testing.T) {
	for _, a := range []float64{1, 2, 3.5, 10} {
		tab := TableOf(a)
		pcg := rand.NewPCG(7, 8)
		for i := range 20000 {
			bits := (cells-1)<<54 | pcg.Uint64()>>10
			switch i {
			case 0:
				bits = (cells - 1) << 54 // the cell's start
			case 1:
				bits = (cells-1)<<54 | (1<<53 - 1) // its last draw
			}
			f := float64(bits&(1<<53-1)) * 0x1p-53
			want := mathext.GammaIncRegCompInv(a, (1-f)/cells)
			if got := tab.Tail(bits); math.Abs(got-want) > 1e-7*want {
				t.Fatalf("shape %g, fraction %g of the last cell: %.12g, want %.12g", a, f, got, want)
			}
		}
	}
}

// TestPrepare checks that a table Prepare starts is the one TableOf
// makes, the same bits, and that callers racing it share one table.
func TestPrepare(t *testing.T) {
	const a = 2.75 // a shape no other test makes
	Prepare(a)
	got := make([]*Table, 4)
	var wg sync.WaitGroup
	for j := range got {
		wg.Go(func() { got[j] = TableOf(a) })
	}
	wg.Wait()
	want := newTable(a)
	for j, g := range got {
		if g != got[0] {
			t.Fatalf("caller %d got another table than caller 0", j)
		}
	}
	if got[0].a != a || got[0].q != want.q || !slices.Equal(got[0].tail, want.tail) {
		t.Fatalf("the prepared table of shape %v differs from a table made alone", a)
	}
	if TableOf(a) != got[0] {
		t.Fatal("a later TableOf made the table again")
	}
}
