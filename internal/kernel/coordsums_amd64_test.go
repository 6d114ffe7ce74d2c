//go:build amd64 && !purego && !amd64.v3

package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCoordSumsTail: the assembly's last n mod 8 elements are the generic
// code's, bit for bit: the whole row in one call gives the residuals and
// the sums of the assembly on the first n &^ 7 elements followed by
// coordSumsGeneric on the rest (as the dispatch did before the tail
// moved into the assembly), for every tail length, with a row's
// magnitudes spread so that a changed order or a fused rounding shows.
// From GOAMD64=v3 on the compiler fuses the generic code's multiply-adds
// and the two differ by design (the assembly's tail is unfused).
func TestCoordSumsTail(t *testing.T) {
	if !slices.Contains(Available(), "avx2") {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20))
		}
		return v
	}
	for n := 1; n <= 27; n++ {
		for trial := range 20 {
			res, w, zp, z := vec(n), vec(n), vec(n), vec(n)
			for i := range w {
				w[i] = math.Abs(w[i])
			}
			delta := rng.NormFloat64()
			want := slices.Clone(res)
			var out [2]float64
			n8 := n &^ 7
			if n8 > 0 {
				coordSumsAvx2(&want[0], &w[0], &zp[0], &z[0], n8, delta, &out[0])
			}
			wa, wb := coordSumsGeneric(want, w, zp, z, delta, n8, out[0], out[1])
			coordSumsAvx2(&res[0], &w[0], &zp[0], &z[0], n, delta, &out[0])
			if out != [2]float64{wa, wb} || !slices.Equal(res, want) {
				t.Fatalf("n %d, trial %d: sums %v, %v, want %v, %v (residuals equal: %v)", n, trial, out[0], out[1], wa, wb, slices.Equal(res, want))
			}
		}
	}
}
