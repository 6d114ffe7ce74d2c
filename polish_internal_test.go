package scaledsm

import (
	"math/rand/v2"
	"slices"
	"testing"

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
	star := Factors{L: gauss(n1, r, 1), R: gauss(n2, r, 1)}
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
	e, v := fullEntries(t, y)
	var start Factors
	start.L, start.R = mat.DenseCopyOf(star.L), mat.DenseCopyOf(star.R)
	start.L.Add(start.L, gauss(n1, r, 0.1))
	start.R.Add(start.R, gauss(n2, r, 0.1))
	f := e.complete(v, drop, start)
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
