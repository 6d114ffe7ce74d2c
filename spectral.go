package scaledsm

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/ranks"
	"gonum.org/v1/gonum/mat"
)

// Truncation says which observations the spectral initialization leaves out, so
// that gross outliers do not steer it. The zero value drops those above
// three times the median magnitude, a rule that needs no outlier fraction
// (beyond 2^20 observations on one process, the median of an evenly
// strided sample of 2^20 of them, which spares a copy of the
// observations).
//
// Clean observations seldom exceed three times their median magnitude (4%
// of Gaussian ones do, 5 to 11% of the heavier-tailed ones of quadratic
// sampling), while gross outliers mostly do; with a fraction p_s of
// outliers the median moves up a little and the rule drops about p_s·m
// observations (measurements: docs/figures.md, "The median rule of the
// spectral start").
type Truncation struct {
	// Fraction, when positive, drops instead the ceil(Fraction·m)
	// observations of largest magnitude, the paper's truncation for a known
	// outlier fraction p_s; it must be below 0.5.
	Fraction float64
	// None keeps every observation: the plain spectral method.
	None bool
}

// TruncateFraction returns the truncation that drops the ceil(p·m) observations
// of largest magnitude, or none for p = 0.
func TruncateFraction(p float64) Truncation {
	if p == 0 {
		return Truncation{None: true}
	}
	return Truncation{Fraction: p}
}

// String returns the truncation as the command line spells it.
func (t Truncation) String() string {
	switch {
	case t.None:
		return "none"
	case t.Fraction != 0:
		return strconv.FormatFloat(t.Fraction, 'g', -1, 64)
	}
	return "median"
}

// Describe returns what the truncation does, in words.
func (t Truncation) Describe() string {
	switch {
	case t.None:
		return "untruncated"
	case t.Fraction != 0:
		return fmt.Sprintf("dropping the largest %g%% of |y_i|", 100*t.Fraction)
	}
	return fmt.Sprintf("dropping |y_i| > %d·median|y|", medianMultiple)
}

func (t Truncation) validate() error {
	switch {
	case math.IsNaN(t.Fraction) || t.Fraction < 0 || t.Fraction >= 0.5:
		return inputError("trim", t.Fraction, "the fraction of observations dropped must lie in [0, 0.5)")
	case t.None && t.Fraction != 0:
		return inputError("trim", t.Fraction, "a fraction was given with None, which drops nothing")
	}
	return nil
}

// medianMultiple is the multiple of median|y| above which the median rule
// drops an observation.
const medianMultiple = 3

// A SpectralOperator is an Operator that forms its own spectral estimate
// of X*: each measurement model knows the estimator that suits it.
type SpectralOperator interface {
	Operator
	// Spectral returns the factors of the best rank-r approximation of the
	// model's spectral estimate of X* from the observations v, in which
	// those left out as outliers are set to zero, kept of them remaining:
	// L = U Σ^{1/2}, R = V Σ^{1/2}, or L = U Λ^{1/2} and R = nil for a
	// symmetric operator. On the ranks of red (nil: one process) v is this
	// rank's shard and kept counts the kept observations of them all.
	Spectral(v []float64, kept, r int, red ranks.Reducer) (Factors, error)
}

// A belowSpectral operator forms its spectral estimate from the
// observations whose magnitude is below a bound without a copy of those
// kept (package completion's entries: 800 MB spared at 10^8), for the
// median rule of Truncation on one process.
type belowSpectral interface {
	SpectralBelow(y []float64, y32 []float32, below float64, kept, r int) (Factors, error)
}

// spectral is Problem.Spectral over the ranks of d, each holding its shard of the
// observations y: the truncation's thresholds and counts and the
// operator's products are combined over them.
func spectral(op Operator, y obs.Obs, r int, trim Truncation, d dist) (Factors, error) {
	m, n1, n2 := op.Dims()
	if y.Len() != m {
		return Factors{}, inputError("y", nil, "%d observations, want m = %d", y.Len(), m)
	}
	if r < 1 || r > min(n1, n2) {
		return Factors{}, inputError("rank", r, "must lie in [1, min(n1, n2)] = [1, %d]", min(n1, n2))
	}
	if err := trim.validate(); err != nil {
		return Factors{}, err
	}
	so, ok := op.(SpectralOperator)
	if !ok {
		return Factors{}, fmt.Errorf("scaledsm: spectral initialization: operator %T has no spectral estimate; give Settings.Init", op)
	}
	if bs, ok := op.(belowSpectral); ok && !d.On() && !trim.None && trim.Fraction == 0 {
		// The median rule keeps |y_i| below a bound: the sparse matrix's
		// values are y and the bound, with no copy of those kept.
		below, _, every := keepRuleOf(y, trim, d, nil)
		kept := y.Len()
		if every {
			below = math.Inf(1)
		} else {
			kept = 0
			for k := range y.Len() {
				if math.Abs(y.At(k)) < below {
					kept++
				}
			}
		}
		if kept == 0 {
			return Factors{}, errNothingKept
		}
		return bs.SpectralBelow(y.F64, y.F32, below, kept, r)
	}
	v, kept := trimmedOf(y, nil, trim, d)
	if kept = d.Count(kept); kept == 0 {
		return Factors{}, errNothingKept
	}
	return so.Spectral(v, kept, r, d.Group())
}

var errNothingKept = errors.New("scaledsm: spectral initialization: no observation left after trimming")

// Truncated returns the indices of y that remain after the truncation, in
// increasing order. The fraction rule drops the ceil(Fraction·m)
// observations of largest magnitude, ties broken by index (the later
// ones go first), so the set is always the same; the median rule drops
// those above 3·median|y| (none when the median is 0).
func Truncated(y []float64, trim Truncation) []int {
	var idx []int
	keepEach(y, trim, dist{}, nil, func(i int) { idx = append(idx, i) })
	return idx
}

// trimmed returns y with the observations the truncation drops set to
// zero, and the number kept, in v when it has len(y) values (a new
// slice otherwise); v serves first as keepEach's scratch.
func trimmed[T float](v []float64, y []T, trim Truncation, d dist) ([]float64, int) {
	if len(v) != len(y) {
		v = make([]float64, len(y))
	}
	kept := 0
	keepEach(y, trim, d, v, func(i int) {
		v[i] = float64(y[i])
		kept++
	})
	return v, kept
}

// keepEach calls keep(i) for the index i of every observation the
// truncation keeps, in increasing order. It takes O(m) time: the
// thresholds come from selections on a copy of |y|, not from a sort. Over
// the ranks of d, y is this rank's shard of the observations, which come
// after those of the lower ranks: the thresholds and counts are those of
// all of them. A scratch of len(y) values holds the copy of |y| (else a
// new slice does), and is all zeros when keep is first called.
func keepEach[T float](y []T, trim Truncation, d dist, scratch []float64, keep func(i int)) {
	if len(scratch) != len(y) {
		scratch = nil
	}
	below, allow, every := keepRule(y, trim, d, scratch)
	clear(scratch)
	keepBy(y, below, allow, every, keep)
}

// keepBy calls keep(i) for the index i of every observation that keepRule's
// thresholds keep, in increasing order.
func keepBy[T float](y []T, below float64, allow int, every bool, keep func(i int)) {
	if every {
		for i := range y {
			keep(i)
		}
		return
	}
	for i, x := range y {
		switch a := math.Abs(float64(x)); {
		case a < below:
			keep(i)
		case a == below && allow > 0:
			keep(i)
			allow--
		}
	}
}

// keepRule returns the thresholds of keepEach: keep |y_i| < below and the
// first allow of magnitude exactly below, or every observation.
func keepRule[T float](y []T, trim Truncation, d dist, scratch []float64) (below float64, allow int, every bool) {
	total := d.Count(len(y))
	if trim.None || total == 0 {
		return 0, 0, true
	}
	if trim.Fraction == 0 {
		med := trimMedian(y, d, scratch)
		if med == 0 {
			return 0, 0, true
		}
		return math.Nextafter(medianMultiple*med, math.Inf(1)), 0, false
	}
	n := total - dropCount(total, trim.Fraction)
	if n == 0 {
		return 0, 0, false // nothing is below 0
	}
	below = d.Kth(obs.AbsValues(scratch, y), n-1) // the largest magnitude kept
	less, ties := 0, 0
	for _, x := range y {
		switch a := math.Abs(float64(x)); {
		case a < below:
			less++
		case a == below:
			ties++
		}
	}
	allow = n - d.Count(less)
	if d.On() {
		// The ties of the lower ranks come first.
		for k, t := range d.Counts(ties) {
			if k == d.Group().Rank() {
				break
			}
			allow -= t
		}
		allow = max(allow, 0)
	}
	return below, allow, false
}

// trimMedian returns the median |y_i| of the median rule over the ranks of
// d: the mean of the two middle ones for an even count, or on one process
// beyond 2^20 observations the median of an evenly strided sample (see
// medianAbs), which spares an m-sized copy of |y|. The copy, when there
// is one, goes into scratch when it has len(y) values.
func trimMedian[T float](y []T, d dist, scratch []float64) float64 {
	m, total := len(y), d.Count(len(y))
	if !d.On() && m > obs.MedianSample {
		return obs.MedianAbs(y, obs.MedianSample)
	}
	abs := obs.AbsValues(scratch, y)
	med := d.Kth(abs, total/2)
	if total%2 == 0 {
		// Alone, the lower middle is the largest of the lower half that
		// the selection left in front.
		if d.On() {
			med = (d.Kth(abs, total/2-1) + med) / 2
		} else {
			med = (selectKth(abs[:m/2], m/2-1) + med) / 2
		}
	}
	return med
}

// dropCount returns ceil(f·m), the observations the fraction rule drops.
func dropCount(m int, f float64) int {
	return max(0, min(m, int(math.Ceil(f*float64(m)-1e-9))))
}

// topSingular returns the factors U_r Σ_r^{1/2}, V_r Σ_r^{1/2} of the best
// rank-r approximation of a.
func topSingular(a *mat.Dense, r int) (Factors, error) {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return Factors{}, errors.New("scaledsm: spectral initialization: SVD did not converge")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	s := svd.Values(nil)
	n1, n2 := a.Dims()
	f := Factors{L: mat.NewDense(n1, r, nil), R: mat.NewDense(n2, r, nil)}
	for k := range r {
		c := math.Sqrt(s[k])
		for i := range n1 {
			f.L.Set(i, k, u.At(i, k)*c)
		}
		for i := range n2 {
			f.R.Set(i, k, v.At(i, k)*c)
		}
	}
	return f, nil
}

// topEigen returns the factor U_r Λ_r^{1/2} of the top r eigenpairs of the
// symmetric part of a, negative eigenvalues clipped to 0.
func topEigen(a *mat.Dense, r int) (Factors, error) {
	n, _ := a.Dims()
	sym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return Factors{}, errors.New("scaledsm: spectral initialization: eigendecomposition did not converge")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	L := mat.NewDense(n, r, nil)
	for k := range r {
		src := n - 1 - k
		c := math.Sqrt(max(vals[src], 0))
		for i := range n {
			L.Set(i, k, vecs.At(i, src)*c)
		}
	}
	return Factors{L: L}, nil
}
