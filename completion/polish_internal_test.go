package completion

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/dense"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/testkit"
	"gonum.org/v1/gonum/mat"
)

// fullEntries returns the operator of every entry of y and its values.
func fullEntries(t *testing.T, y *mat.Dense) (*Entries, []float64) {
	t.Helper()
	n1, n2 := y.Dims()
	var rows, cols []int32
	for i := range n1 {
		for j := range n2 {
			rows, cols = append(rows, int32(i)), append(cols, int32(j))
		}
	}
	e, v, err := NewEntries(n1, n2, rows, cols, slices.Clone(y.RawMatrix().Data))
	if err != nil {
		t.Fatal(err)
	}
	return e, v
}

// TestPolishDilate: a mark grows to its four neighbours in the matrix,
// and no further; at the borders, to those there are.
func TestPolishDilate(t *testing.T) {
	e, _ := fullEntries(t, mat.NewDense(3, 4, nil))
	m := make([]bool, 12)
	m[0], m[6] = true, true // (0, 0) and (1, 2)
	got := e.dilate(m)
	want := []bool{
		true, true, true, false,
		true, true, true, true,
		false, false, true, false,
	}
	if !slices.Equal(got, want) {
		t.Errorf("dilate: %v, want %v", got, want)
	}
}

// TestPolishCompletes: alternating least squares on the entries not
// dropped reaches an exactly rank-3 matrix from a start 10% off, whatever
// values the dropped entries hold, and a row with fewer entries kept than
// the rank keeps its start.
func TestPolishCompletes(t *testing.T) {
	const n1, n2, r = 60, 40, 3
	rng := rand.New(rand.NewPCG(5, 1))
	gauss := func(n, k int, scale float64) *mat.Dense { return gaussianDense(rng, n, k, scale) }
	star := scaledsm.Factors{L: gauss(n1, r, 1), R: gauss(n2, r, 1)}
	x := star.Product()
	y := mat.DenseCopyOf(x)
	drop := make([]bool, n1*n2)
	for k := range drop {
		if rng.Float64() < 0.2 {
			drop[k] = true
			y.RawMatrix().Data[k] += 100 * rng.NormFloat64()
		}
	}
	for j := range n2 - 2 { // row 7 keeps 2 < r entries
		drop[7*n2+j] = true
	}
	_, v := fullEntries(t, y)
	var start scaledsm.Factors
	start.L, start.R = mat.DenseCopyOf(star.L), mat.DenseCopyOf(star.R)
	start.L.Add(start.L, gauss(n1, r, 0.1))
	start.R.Add(start.R, gauss(n2, r, 0.1))
	f := newFull(n1, n2, v).complete(drop, start)
	if !mat.Equal(f.L.Slice(7, 8, 0, r), start.L.Slice(7, 8, 0, r)) {
		t.Error("row 7, with 2 entries kept for rank 3, moved")
	}
	var d mat.Dense
	d.Sub(f.Product(), x)
	for i := range n1 {
		if i == 7 {
			continue
		}
		if got := mat.Norm(d.RowView(i), 2) / mat.Norm(x.RowView(i), 2); got > 1e-10 {
			t.Fatalf("row %d: relative error %.3g after the completion, want <= 1e-10", i, got)
		}
	}
}

// TestPolishLADIsTheRefit: the polish's least absolute deviations of the
// rows of L and then of R (ladRows, on the entries row by row and column
// by column) are the robust refit's (refitRows, refitCols) to the last
// bit, on a matrix with outliers from a start away from it.
func TestPolishLADIsTheRefit(t *testing.T) {
	for _, r := range []int{2, 3} { // rank 2 has loops of its own
		const n1, n2 = 70, 50
		rng := rand.New(rand.NewPCG(8, uint64(r)))
		star := scaledsm.Factors{L: gaussianDense(rng, n1, r, 1), R: gaussianDense(rng, n2, r, 1)}
		y := star.Product()
		for k := range y.RawMatrix().Data {
			if rng.Float64() < 0.1 {
				y.RawMatrix().Data[k] += 10 * rng.NormFloat64()
			}
		}
		e, v := fullEntries(t, y)
		scale := obs.FitScale(v)
		want := scaledsm.Factors{L: mat.DenseCopyOf(star.L), R: mat.DenseCopyOf(star.R)}
		want.L.Add(want.L, gaussianDense(rng, n1, r, 0.3))
		want.R.Add(want.R, gaussianDense(rng, n2, r, 0.3))
		got := scaledsm.Factors{L: mat.DenseCopyOf(want.L), R: mat.DenseCopyOf(want.R)}
		m := newFull(n1, n2, v)
		for range 2 {
			e.refitRows(want.L, want.R, obs.Obs{F64: v}, scale)
			e.refitCols(want.L, want.R, obs.Obs{F64: v}, scale)
			ladRows(got.L, got.R, m.y, scale)
			ladRows(got.R, got.L, m.yt, scale)
		}
		if !mat.Equal(got.L, want.L) || !mat.Equal(got.R, want.R) {
			t.Errorf("rank %d: ladRows differs from refitRows and refitCols", r)
		}
		var d mat.Dense
		d.Sub(got.Product(), star.Product())
		if moved := mat.Norm(&d, 2) / mat.Norm(star.Product(), 2); !(moved < 0.1) {
			t.Errorf("rank %d: relative error %.3g after two sweeps from 0.3 off, want < 0.1", r, moved)
		}
	}
}

// BenchmarkPolishLAD is a sweep of the polish's least absolute deviations
// (the rows of L, then of R) on a video's shape: 19200 pixels × 300
// frames of rank 2, 2% of the entries outliers, from factors 1% off.
func BenchmarkPolishLAD(b *testing.B) {
	const n1, n2, r = 19200, 300, 2
	rng := rand.New(rand.NewPCG(1, 1))
	star := scaledsm.Factors{L: gaussianDense(rng, n1, r, 1), R: gaussianDense(rng, n2, r, 1)}
	y := star.Product().RawMatrix().Data
	for k := range y {
		if rng.Float64() < 0.02 {
			y[k] += 10
		}
	}
	m := newFull(n1, n2, y)
	scale := obs.FitScale(y)
	start := scaledsm.Factors{L: mat.DenseCopyOf(star.L), R: mat.DenseCopyOf(star.R)}
	start.L.Add(start.L, gaussianDense(rng, n1, r, 0.01))
	start.R.Add(start.R, gaussianDense(rng, n2, r, 0.01))
	b.SetBytes(int64(8 * len(y)))
	for b.Loop() {
		f := scaledsm.Factors{L: mat.DenseCopyOf(start.L), R: mat.DenseCopyOf(start.R)}
		ladRows(f.L, f.R, m.y, scale)
		ladRows(f.R, f.L, m.yt, scale)
	}
}

// TestPolishNormalsRankTwo: the rank-2 loops of ladNormal and keptNormal
// sum what addNormal sums, to the bit.
func TestPolishNormalsRankTwo(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const n = 200
	o := gaussianDense(rng, n, 2, 1).RawMatrix()
	x := []float64{rng.NormFloat64(), rng.NormFloat64()}
	y, drop := make([]float64, n), make([]bool, n)
	for j := range y {
		y[j], drop[j] = rng.NormFloat64(), rng.Float64() < 0.3
	}
	const eps = 1e-9
	wantA, wantB, keptA, keptB := make([]float64, 4), make([]float64, 2), make([]float64, 4), make([]float64, 2)
	kept := 0
	for j, v := range y {
		oj := o.Data[j*o.Stride : j*o.Stride+2]
		addNormal(wantA, wantB, 1/max(math.Abs(v-dense.Dot(x, oj)), eps), v, oj)
		if !drop[j] {
			addNormal(keptA, keptB, 1, v, oj)
			kept++
		}
	}
	a, b := make([]float64, 4), make([]float64, 2)
	ladNormal(a, b, x, y, o, eps)
	if !slices.Equal(a, wantA) || !slices.Equal(b, wantB) {
		t.Errorf("ladNormal: %v %v, addNormal's %v %v", a, b, wantA, wantB)
	}
	if got := keptNormal(a, b, y, drop, o); got != kept || !slices.Equal(a, keptA) || !slices.Equal(b, keptB) {
		t.Errorf("keptNormal: %d kept, %v %v; addNormal's %d, %v %v", got, a, b, kept, keptA, keptB)
	}
}

// gaussianDense returns an r×c matrix of N(0, scale²) entries.
var gaussianDense = testkit.Gaussian
