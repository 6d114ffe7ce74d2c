//go:build amd64 && !purego && !amd64.v3

package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCoordMovesCalls: the assembly of each implementation gives the bits
// of the same update made of that implementation's kernels a call each
// (coordMovesGeneric: CoordSums's and Dot's, the move's arithmetic in Go,
// which package recommend's row update made before), for ranks on both
// sides of the vector widths and rows from 1 to 27 ratings, magnitudes
// spread over 2^±20 so that a changed order or a fused rounding shows.
// From GOAMD64=v3 on the compiler fuses the Go move's multiply-adds, which
// the assembly does not.
func TestCoordMovesCalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20))
		}
		return v
	}
	for _, impl := range []int{implAVX2, implAVX512} {
		if supported(impl) != nil {
			continue
		}
		for _, k := range []int{1, 3, 4, 5, 7, 8, 9, 20, 40} {
			d := k + 1
			for n := 1; n <= 27; n++ {
				cols, res, w, prev := vec(n*k), vec(n), vec(n), vec(n)
				for i := range w {
					w[i] = math.Abs(w[i])
				}
				lam, lamMu, x, norm := vec(d*d), vec(d), vec(d), vec(k)
				for i := range d {
					lam[i*d+i] = math.Abs(lam[i*d+i]) + 1
				}
				m := &Moves{Res: res, W: w, Cols: cols, Prev: prev, Delta: rng.NormFloat64(), X: x, Lam: lam, LamMu: lamMu, Norm: norm}
				g := &Moves{Res: slices.Clone(res), W: w, Cols: cols, Prev: prev, Delta: m.Delta, X: slices.Clone(x), Lam: lam, LamMu: lamMu, Norm: norm}
				got, want := coordMoves(impl, m), coordMovesGeneric(impl, g)
				if math.Float64bits(got) != math.Float64bits(want) || !slices.Equal(m.X, g.X) || !slices.Equal(m.Res, g.Res) {
					t.Fatalf("%s, rank %d, %d ratings: change %v, want %v (x equal: %v, residuals equal: %v)", implNames[impl], k, n, got, want, slices.Equal(m.X, g.X), slices.Equal(m.Res, g.Res))
				}
			}
		}
	}
}
