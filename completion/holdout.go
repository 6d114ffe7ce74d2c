package completion

import (
	"math"
	"math/rand/v2"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/inputerr"
	"github.com/scaledsm/scaledsm/internal/obs"
	"gonum.org/v1/gonum/mat"
)

// HeldOut are the entries that a split held out, in the operator's order:
// their rows, their columns and their observations.
type HeldOut struct {
	Rows, Cols []int32
	Y          []float64
}

// HoldOut splits the entries e and their observations y: each entry is
// held out with probability frac, by a draw from the stream (seed, stream)
// in the operator's order, so that the split does not depend on the order
// of the files or the number of cores. It returns the operator of the
// entries kept and their observations, and those held out. It takes e's
// and y's arrays for the entries kept: e and y are not to be used after.
func (e *Entries) HoldOut(y []float64, frac float64, seed, stream uint64) (*Entries, []float64, HeldOut, error) {
	if len(y) != len(e.cols) {
		return nil, nil, HeldOut{}, inputerr.New("y", nil, "%d observations, want m = %d", len(y), len(e.cols))
	}
	if !(frac >= 0 && frac < 1) {
		return nil, nil, HeldOut{}, inputerr.New("holdout", frac, "the fraction held out must lie in [0, 1)")
	}
	held := heldDraw(frac, seed, stream)
	start, cols := e.start, e.cols
	var test HeldOut
	kept := 0
	for i := range e.n1 {
		lo, hi := start[i], start[i+1]
		start[i] = kept
		for k := lo; k < hi; k++ {
			if held() {
				test.Rows, test.Cols, test.Y = append(test.Rows, int32(i)), append(test.Cols, cols[k]), append(test.Y, y[k])
				continue
			}
			cols[kept], y[kept] = cols[k], y[k]
			kept++
		}
	}
	start[e.n1] = kept
	fit, err := NewEntriesCSR(e.n1, e.n2, start, cols[:kept])
	return fit, y[:kept], test, err
}

// heldDraw returns the draw of a split: each call tells whether the next
// entry, in the operator's order, is held out (with probability frac,
// from the stream (seed, stream)).
func heldDraw(frac float64, seed, stream uint64) func() bool {
	rng := rand.New(rand.NewPCG(seed, stream))
	return func() bool { return rng.Float64() < frac }
}

// holdOut is HoldOut of the stream len(y) into new arrays of their exact
// size (the draw is made twice, to count, then to split), with the entries
// held out as an operator: the split of the validation of ChooseRank and
// ChooseRidge, which leaves e and y as they are. The observations kept
// are of y's kind; those held out are float64.
func (e *Entries) holdOut(y obs.Obs, frac float64, seed uint64) (fit *Entries, fitY obs.Obs, test *Entries, testY []float64) {
	m := y.Len()
	held, n := heldDraw(frac, seed, uint64(m)), 0
	for range m {
		if held() {
			n++
		}
	}
	held = heldDraw(frac, seed, uint64(m))
	fitStart, testStart := make([]int, e.n1+1), make([]int, e.n1+1)
	fitCols, testCols := make([]int32, 0, m-n), make([]int32, 0, n)
	testY = make([]float64, 0, n)
	if y.F32 != nil {
		fitY.F32 = make([]float32, 0, m-n)
	} else {
		fitY.F64 = make([]float64, 0, m-n)
	}
	for i := range e.n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			switch {
			case held():
				testCols, testY = append(testCols, e.cols[k]), append(testY, y.At(k))
			case y.F32 != nil:
				fitCols, fitY.F32 = append(fitCols, e.cols[k]), append(fitY.F32, y.F32[k])
			default:
				fitCols, fitY.F64 = append(fitCols, e.cols[k]), append(fitY.F64, y.F64[k])
			}
		}
		fitStart[i+1], testStart[i+1] = len(fitCols), len(testCols)
	}
	fit, _ = NewEntriesCSR(e.n1, e.n2, fitStart, fitCols)
	test, _ = NewEntriesCSR(e.n1, e.n2, testStart, testCols)
	return fit, fitY, test, testY
}

// Errors returns the root mean square and the mean absolute error of the
// factors' predictions of the entries held out, and the fraction of them
// they predict to 10^-9 times the held-out observations' median |y| (about
// 1 - p_s after an exact recovery: gross errors are not predicted). All
// are NaN without an entry.
func (h HeldOut) Errors(f scaledsm.Factors) (rmse, mae, fit float64) {
	n := float64(len(h.Y))
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	var sq, ab fsum.Sum
	fits := 0
	tol := obs.FitTolerance * obs.FitScale(h.Y)
	for k, v := range h.Y {
		e := f.At(int(h.Rows[k]), int(h.Cols[k])) - v
		sq.Add(e * e)
		ab.Add(math.Abs(e))
		if math.Abs(e) <= tol {
			fits++
		}
	}
	return math.Sqrt(sq.Value() / n), ab.Value() / n, float64(fits) / n
}

// SparseMatrix returns the sparse part of the observations y of e and of
// the entries held out, as an n1×n2 matrix: on every observed entry the
// residual y - (L Rᵀ) where it is an outlier by OutlierBounds (the bounds
// of the entries fitted), 0 where the low-rank part explains it and where
// nothing was observed. A foreground mask is S != 0.
func (e *Entries) SparseMatrix(y []float64, f scaledsm.Factors, held HeldOut) (*mat.Dense, error) {
	b, err := e.OutlierBounds(y, f)
	if err != nil {
		return nil, err
	}
	s := mat.NewDense(e.n1, e.n2, nil)
	set := func(i, j int, v float64) {
		if r := v - f.At(i, j); !b.keeps(r, i, j) {
			s.Set(i, j, r)
		}
	}
	for i := range e.n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			set(i, int(e.cols[k]), y[k])
		}
	}
	for k, v := range held.Y {
		set(int(held.Rows[k]), int(held.Cols[k]), v)
	}
	return s, nil
}
