package completion

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm/internal/obs"
)

// TestHoldOut: HoldOut keeps every entry in one of its two parts, in the
// operator's order, holds out about the fraction asked for, and splits as
// the validation's holdOut does from the same stream.
func TestHoldOut(t *testing.T) {
	n1, n2 := 60, 30
	e, ey := randomEntries(t, rand.New(rand.NewPCG(3, 9)), n1, n2, 0.5, func(i, j int) float64 { return float64(i*n2 + j) })
	m := len(ey)
	_, want, _, wantTest := e.holdOut(obs.Obs{F64: ey}, 0.2, 5)
	wantY := want.F64
	c := &Entries{n1: n1, n2: n2, start: slices.Clone(e.start), cols: slices.Clone(e.cols)}
	fit, fitY, held, err := c.HoldOut(slices.Clone(ey), 0.2, 5, uint64(m))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fitY, wantY) || !slices.Equal(held.Y, wantTest) {
		t.Fatalf("HoldOut and holdOut split the same stream differently")
	}
	if f := float64(len(held.Y)) / float64(m); len(fitY)+len(held.Y) != m || f < 0.15 || f > 0.25 {
		t.Errorf("%d kept and %d held out of %d", len(fitY), len(held.Y), m)
	}
	for k, v := range held.Y { // each entry's value is its position
		if v != float64(int(held.Rows[k])*n2+int(held.Cols[k])) || k > 0 && !(held.Y[k-1] < v) {
			t.Fatalf("held-out entry %d: (%d, %d) = %v, out of order or misplaced", k, held.Rows[k], held.Cols[k], v)
		}
	}
	for i := range n1 {
		for k := fit.start[i]; k < fit.start[i+1]; k++ {
			if fitY[k] != float64(i*n2+int(fit.cols[k])) || k > 0 && !(fitY[k-1] < fitY[k]) {
				t.Fatalf("kept entry %d of row %d: %v, out of order or misplaced", k, i, fitY[k])
			}
		}
	}
	if _, _, _, err := e.HoldOut(ey[:m-1], 0.2, 5, 1); err == nil {
		t.Error("observations of another length were split")
	}
	for _, frac := range []float64{2, -0.1, 1, math.NaN()} { // 2 held every entry out, NaN none
		if _, _, _, err := e.HoldOut(slices.Clone(ey), frac, 5, 1); err == nil || !strings.Contains(err.Error(), "must lie in [0, 1)") {
			t.Errorf("fraction %v: %v", frac, err)
		}
	}
}

// randomEntries returns the entries of an n1×n2 matrix, each observed
// with probability p by the draw rng, with the values value(i, j).
func randomEntries(t *testing.T, rng *rand.Rand, n1, n2 int, p float64, value func(i, j int) float64) (*Entries, []float64) {
	t.Helper()
	var rows, cols []int32
	var y []float64
	for i := range n1 {
		for j := range n2 {
			if rng.Float64() < p {
				rows, cols, y = append(rows, int32(i)), append(cols, int32(j)), append(y, value(i, j))
			}
		}
	}
	e, ey, err := NewEntries(n1, n2, rows, cols, y)
	if err != nil {
		t.Fatal(err)
	}
	return e, ey
}
