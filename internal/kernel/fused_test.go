package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDotAxpyRows checks that the fused kernels give the bits of AxpyRows
// then DotRows (and their float32 versions) for every implementation,
// whatever the lengths, the row counts of either block and the alignment,
// and that they write nothing past n.
func TestDotAxpyRows(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, n := range lengths {
			for _, rows := range [][2]int{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {7, 7}, {8, 8}, {9, 9}, {13, 13}, {17, 17}, {8, 3}, {3, 8}, {0, 5}, {6, 0}} {
				na, nb := rows[0], rows[1]
				pad := 1 + n%3
				stride := n + pad
				off := (n + na) % 3
				// a and b in one buffer, as in a pass (b first), and apart.
				all := rowData(rng, off, na+nb, stride, n)
				all32 := to32(all)
				for _, split := range []bool{false, true} {
					b, a := all, all[nb*stride:]
					b32, a32 := all32, all32[nb*stride:]
					if split {
						a = slices.Clone(a)
						a32 = slices.Clone(a32)
					}
					alpha := make([]float64, nb)
					for k := range alpha {
						alpha[k] = rng.NormFloat64()
					}
					x := vec(rng, off%2, n)
					for _, is32 := range []bool{false, true} {
						y0 := vec(rng, (off+1)%2, n)
						y, ref := slices.Clone(y0), slices.Clone(y0)
						out, want := make([]float64, na+1), make([]float64, na+1)
						out[na], want[na] = 7, 7
						if is32 {
							DotAxpyRows32(out[:na], a32, y, alpha, b32, stride, n, x)
							AxpyRows32(ref, alpha, b32, stride, n)
							DotRows32(want[:na], a32, stride, n, x)
						} else {
							DotAxpyRows(out[:na], a, y, alpha, b, stride, n, x)
							AxpyRows(ref, alpha, b, stride, n)
							DotRows(want[:na], a, stride, n, x)
						}
						for k := range out {
							if !same(out[k], want[k]) {
								t.Fatalf("n=%d rows=%v 32=%v split=%v: out[%d] = %v, DotRows %v: not the same bits", n, rows, is32, split, k, out[k], want[k])
							}
						}
						for j := range y {
							if j >= n {
								if !math.IsNaN(y[j]) {
									t.Fatalf("n=%d: DotAxpyRows wrote y[%d] past n", n, j)
								}
								continue
							}
							if !same(y[j], ref[j]) {
								t.Fatalf("n=%d rows=%v 32=%v split=%v: y[%d] = %v, AxpyRows %v: not the same bits", n, rows, is32, split, j, y[j], ref[j])
							}
						}
					}
				}
			}
		}
	})
}
