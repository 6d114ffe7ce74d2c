package completion

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSampledColsAreRowsOfTheTranspose: the column fits of SolveSampled
// (ladCols, which gathers a block of columns at a time) are the row fits
// (ladRows) of the transposed matrix, to the bit, whether the blocks
// divide the columns or not and on one core or several; and the least
// absolute deviations ignore a gross outlier that least squares follows.
func TestSampledColsAreRowsOfTheTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 53))
	const n1, n2, k = 300, 37, 2
	l, r := mat.NewDense(n1, k, nil), mat.NewDense(n2, k, nil)
	for _, m := range []*mat.Dense{l, r} {
		d := m.RawMatrix().Data
		for i := range d {
			d[i] = rng.NormFloat64()
		}
	}
	m := Full32{N1: n1, N2: n2, Y: make([]float32, n1*n2)}
	for i := range n1 {
		for j := range n2 {
			v := mat.Dot(l.RowView(i), r.RowView(j))
			if rng.Float64() < 0.1 {
				v += 5 * rng.NormFloat64()
			}
			m.Y[i*n2+j] = float32(v)
		}
	}
	mt := Full32{N1: n2, N2: n1, Y: transposed(m.Y, n1, n2)}
	start := mat.DenseCopyOf(r)
	for i := range n2 * k {
		start.RawMatrix().Data[i] += 0.1 * rng.NormFloat64()
	}
	want := mat.DenseCopyOf(start)
	mt.ladRows(want, l, 1e-9, false)
	for _, procs := range []int{1, 2, 3} {
		old := runtime.GOMAXPROCS(procs)
		got := mat.DenseCopyOf(start)
		m.ladCols(got, l, 1e-9)
		runtime.GOMAXPROCS(old)
		if !slices.Equal(got.RawMatrix().Data, want.RawMatrix().Data) {
			t.Fatalf("%d cores: ladCols differs from ladRows of the transpose", procs)
		}
	}
	// The fit is r's, within float32's rounding of the data.
	var d mat.Dense
	d.Sub(want, r)
	if e := mat.Norm(&d, 2) / mat.Norm(r, 2); e > 1e-6 {
		t.Errorf("the columns' least absolute deviations are %.3g from R, want <= 1e-6", e)
	}
}
