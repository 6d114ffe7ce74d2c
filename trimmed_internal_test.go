package scaledsm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRebound: the bounds are c times each row's and each column's mean
// |z| over the residuals the previous bounds kept, 0 where none was kept,
// computed here entry by entry from the definition.
func TestRebound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	n1, n2 := 30, 20
	var rows, cols []int32
	for i := range n1 {
		for j := range n2 {
			if rng.Float64() < 0.4 && i != 7 { // row 7 has no entry
				rows, cols = append(rows, int32(i)), append(cols, int32(j))
			}
		}
	}
	e, _, err := NewEntries(n1, n2, rows, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := len(rows)
	z := make([]float64, m)
	for k := range z {
		z[k] = rng.NormFloat64()
		if rng.Float64() < 0.1 {
			z[k] *= 100
		}
	}
	b := &Bounds{Rows: make([]float64, n1), Cols: make([]float64, n2)}
	for i := range b.Rows {
		b.Rows[i] = 2 * rng.Float64()
	}
	for j := range b.Cols {
		b.Cols[j] = 2 * rng.Float64()
	}
	b.Rows[3] = 0
	b.Cols[5] = 0
	rs, rn := make([]float64, n1), make([]float64, n1)
	cs, cn := make([]float64, n2), make([]float64, n2)
	for i := range n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			j := int(e.cols[k])
			if math.Abs(z[k]) <= max(b.Rows[i], b.Cols[j]) {
				rs[i] += math.Abs(z[k])
				rn[i]++
				cs[j] += math.Abs(z[k])
				cn[j]++
			}
		}
	}
	e.rebound(b, z, 3, dist{})
	check := func(what string, got []float64, s, n []float64) {
		for k := range got {
			want := 0.0
			if n[k] > 0 {
				want = 3 * s[k] / n[k]
			}
			if math.Abs(got[k]-want) > 1e-12*want {
				t.Errorf("%s %d: %v, want %v", what, k, got[k], want)
			}
		}
	}
	check("row", b.Rows, rs, rn)
	check("column", b.Cols, cs, cn)
	if b.Rows[7] != 0 {
		t.Errorf("the empty row's bound is %v", b.Rows[7])
	}
}
