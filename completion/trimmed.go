package completion

import (
	"cmp"
	"math"
	"slices"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/dense"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/inputerr"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/internal/reduce"
)

// A bounder is an operator that keeps TrimmedL2's bounds: it sets the
// bounds of TrimmedL2 from residuals and sums the squares of the residuals
// its bounds keep. Over the ranks of a data-parallel solve, d combines its
// rows' and columns' sums.
type bounder interface {
	// rebound sets b from the residuals z and the bounds that kept them:
	// each row's and each column's mean |z| over the residuals b kept,
	// times c. It returns Σ z² over those residuals, this rank's. ks,
	// when fresh, holds the sums of the pass that kept them.
	rebound(b *trimBounds, z []float64, c float64, d reduce.Ranks, ks *keptSums) fsum.Sum
	// Dims is the operator's: m measurements of an n1×n2 matrix.
	Dims() (m, n1, n2 int)
}

var _ bounder = (*Entries)(nil)

// trimFactor is the multiple of the row and column scales of |z| beyond
// which TrimmedL2 drops a residual. Measured on matrix completion
// (n1 = n2 = 1000, r = 5, p = 0.1, κ = 10): 6 recovers exactly with up to
// 30% outliers (174 and 218 iterations at p_s = 0.2 and 0.3), where 8
// stalls at 2.5e-2 from p_s = 0.2, and at 10% outliers keeps the
// iterations within 14% across κ = 1, 10, 100 on every seed; 5 slows
// κ = 100 to 320 iterations.
const trimFactor = 6

// trimFactorMin is the least factor TrimmedL2's bounds shrink to from
// trimFactor while the fit stalls: by 5% after each pass whose kept loss
// fell by less than 10%, growing back by 5% after each pass whose loss
// fell by more. A fit converging to an exactly low-rank X* falls fast and
// keeps trimFactor but on its plateaus, where 4.5 costs it little; the fit
// of a photograph, only approximately low rank, stalls at its own
// residuals, whose mean at rank 30 lets most salt-and-pepper errors under
// 6 times it, and is trimmed harder (measurements: docs/completion.md,
// "Why the trimming factor follows the fit").
const trimFactorMin = 4.5

// A trimming is the factor c of TrimmedL2's bounds along a run, which
// follows the fit's progress: it starts at trimFactor, shrinks by
// trimStep (down to TrimmedL2.Floor, trimFactorMin by default) after a pass whose kept loss fell by
// less than the fraction 1 - trimProgress below the previous pass's, and
// grows back by as much (up to trimFactor) after a pass whose loss fell by
// more. A fit that keeps improving keeps the lenient bound, which an error
// gathered in a few rows or columns needs; a fit that stalls, as one of an
// image that is only approximately low rank does once it has met its own
// residuals, has nothing to gain from the lenient bound but outliers to
// absorb, and is trimmed harder (see trimFactorMin for the measurements).
type trimming struct {
	factor float64 // c of the next rebound
	floor  float64 // the least factor (TrimmedL2.Floor)
	last   float64 // the kept loss of the previous pass (Σ z² over all ranks)
}

// The progress and the step of trimming's factor: a kept loss falling by
// 10% a pass, and 5% of the factor a pass, measured with trimFactorMin.
const (
	trimProgress = 0.9
	trimStep     = 0.95
)

// newTrimming returns the trimming at the start of a run whose factor
// shrinks down to floor (0: trimFactorMin).
func newTrimming(floor float64) trimming {
	return trimming{factor: trimFactor, floor: trimFloor(floor), last: math.Inf(1)}
}

// trimFloor is the trimming floor that TrimmedL2.Floor = floor sets.
func trimFloor(floor float64) float64 { return cmp.Or(floor, trimFactorMin) }

// next readies the factor of the next rebound after a pass whose kept
// residuals' squares sum to sq (over all ranks, so that every rank takes
// the same factor).
func (tr *trimming) next(sq float64) {
	if sq < trimProgress*tr.last {
		tr.factor = min(trimFactor, tr.factor/trimStep)
	} else {
		tr.factor = max(tr.floor, tr.factor*trimStep)
	}
	tr.last = sq
}

// startBounds sets the bounds of the first pass from the residuals z at
// the initialization: c times the median |z| of all of them (of a sample
// beyond 2^16 on one process, see medianAbs), then one
// round of the rule (see rebound) from there. The median leaves the gross
// outliers out of the first means, which they would inflate.
func startBounds(b bounder, z []float64, c, scale float64, d reduce.Ranks) *trimBounds {
	_, n1, n2 := b.Dims()
	var floor float64
	if !d.On() && len(z) > obs.ScaleSample {
		floor = c * obs.MedianAbs(z, obs.ScaleSample) // of a sample: a scale
	} else {
		floor = c * d.Kth(obs.AbsValues(nil, z), (d.Count(len(z))-1)/2)
	}
	bounds := newBounds(n1, n2, floor, scale)
	b.rebound(bounds, z, c, d, nil)
	return bounds
}

// newBounds returns the bounds of n1 rows and n2 columns, each at floor,
// for data of the scale given (see Bounds).
func newBounds(n1, n2 int, floor, scale float64) *trimBounds {
	b := &trimBounds{Bounds: Bounds{Rows: make([]float64, n1), Cols: make([]float64, n2)}, scale: scale}
	for _, v := range [][]float64{b.Rows, b.Cols} {
		for k := range v {
			v[k] = floor
		}
	}
	return b
}

// rebound sets the bounds to c times the mean |z| of each row and each
// column over the residuals the bounds kept (c times the data's scale for
// a row or column none of whose residuals was kept, 0 for a gross one:
// see Bounds.bound).
// A mean over what was kept is robust as a median is, since the outliers
// beyond the bounds are left out, and unlike a median it does not collapse
// where half of a row fits exactly, as the rows of a structured X* can.
// The sums are taken in a fixed order, so the bounds do not depend on the
// number of cores. It returns Σ z² over the kept residuals, compensated
// row by row and over the rows in order.
//
// The sums come from the pass that kept the residuals (ks, which Evaluate
// fills under bounds) when it has not been used yet, or else from
// one pass over z here.
func (e *Entries) rebound(b *trimBounds, z []float64, c float64, d reduce.Ranks, ks *keptSums) fsum.Sum {
	if ks == nil || !ks.fresh {
		ks = &keptSums{}
		e.keptBy(ks, &b.Bounds, z)
	}
	ks.fresh = false
	// Sums and counts of rows then of columns, in one buffer for the
	// ranks to combine.
	n1, n2 := e.n1, e.n2
	ks.sums = dense.Grow(ks.sums, 2*(n1+n2))
	sums := ks.sums
	for i := range n1 {
		sums[i], sums[n1+i] = ks.rows[3*i], ks.rows[3*i+1]
	}
	cols := sums[2*n1:]
	copy(cols, ks.cols)
	d.Sum(sums)
	if b.scale > 0 {
		b.mark(sums[:n1], sums[n1:2*n1], cols[:n2], cols[n2:])
	}
	if b.fewRank > 0 {
		b.markFew(sums[n1:2*n1], cols[n2:])
	}
	for i := range n1 {
		b.Rows[i] = b.bound(i, sums[i], sums[n1+i], c)
	}
	for j := range n2 {
		b.Cols[j] = b.bound(n1+j, cols[j], cols[n2+j], c)
	}
	var sq fsum.Sum
	for i := range n1 {
		sq.Add(ks.rows[3*i+2])
	}
	return sq
}

// keptSums are the sums over the residuals that a pass's bounds kept
// from which rebound sets the next bounds: each row's Σ|z|, count and Σz²
// (compensated), and each column's Σ|z| and count, summed over the chunks
// of rows (see split) in chunk order.
type keptSums struct {
	rows  []float64 // 3 a row
	cols  []float64 // Σ|z| of each column, then their counts
	sums  []float64 // rebound's buffer: the rows' sums and counts, then the columns'
	fresh bool      // set by the pass that filled them, cleared by rebound
}

// ready sizes the sums for n1 rows and n2 columns.
func (ks *keptSums) ready(n1, n2 int) {
	if len(ks.rows) != 3*n1 {
		ks.rows = make([]float64, 3*n1)
	}
	if len(ks.cols) != 2*n2 {
		ks.cols = make([]float64, 2*n2)
	}
}

// rowKept accumulates the kept residuals of one row.
type rowKept struct {
	abs, n, sq float64
}

// add counts the kept residual z in the row's sums and in col, its
// column's partial Σ|z| and count.
func (rk *rowKept) add(z float64, col []float64) {
	a := math.Abs(z)
	rk.abs += a
	rk.n++
	// Squares: a plain sum of positive terms is accurate to n·ε relative;
	// fused, as the vector pass (kernel.EvaluateEntries) adds them.
	rk.sq = math.FMA(z, z, rk.sq)
	col[0] += a
	col[1]++
}

// set stores row i's sums.
func (ks *keptSums) set(i int, rk *rowKept) {
	ks.rows[3*i], ks.rows[3*i+1], ks.rows[3*i+2] = rk.abs, rk.n, rk.sq
}

// keptBy fills ks with the sums over the residuals z that b keeps, in one
// pass in the entries' order on every core, each chunk's columns into a
// partial of its own, added in chunk order as Evaluate adds them.
func (e *Entries) keptBy(ks *keptSums, b *Bounds, z []float64) {
	e.keptByAt(ks, b, func(_, k int) float64 { return z[k] })
}

// keptByAt is keptBy of the residuals z(i, k) of the entries k of rows i,
// each asked for once.
func (e *Entries) keptByAt(ks *keptSums, b *Bounds, z func(i, k int) float64) {
	n2, nc := e.n2, len(e.chunks)-1
	ks.ready(e.n1, n2)
	parts := make([]float64, 2*n2*nc)
	par.Do(par.TeamSize(len(e.cols)), nc, func(ch int) {
		part := parts[2*n2*ch : 2*n2*(ch+1)]
		for i := e.chunks[ch]; i < e.chunks[ch+1]; i++ {
			var rk rowKept
			for k := e.start[i]; k < e.start[i+1]; k++ {
				if j, zk := int(e.cols[k]), z(i, k); b.keeps(zk, i, j) {
					rk.add(zk, part[2*j:2*j+2])
				}
			}
			ks.set(i, &rk)
		}
	})
	par.AddPartials(parts[:2*n2], parts, nc, 2*n2)
	for j := range n2 {
		ks.cols[j], ks.cols[n2+j] = parts[2*j], parts[2*j+1]
	}
	ks.fresh = true
}

// residualAt returns the residual function of the observations y at the
// factors f: entry k of row i, with Apply's bits.
func (e *Entries) residualAt(f scaledsm.Factors, y obs.Obs) func(i, k int) float64 {
	l, rr := f.L.RawMatrix(), f.R.RawMatrix()
	r := l.Cols
	fit := func(i, k int) float64 {
		j := int(e.cols[k])
		return fsum.Dot(l.Data[i*l.Stride:i*l.Stride+r], rr.Data[j*rr.Stride:j*rr.Stride+r])
	}
	// one closure for each kind of observations, no test an entry
	if y.F32 != nil {
		return func(i, k int) float64 { return fit(i, k) - float64(y.F32[k]) }
	}
	return func(i, k int) float64 { return fit(i, k) - y.F64[k] }
}

// startBoundsAt is startBounds on one process of the residuals of y at
// the factors f, formed as they are needed rather than held: the bits of
// startBounds of Apply's residuals, without their m values.
func (e *Entries) startBoundsAt(f scaledsm.Factors, y obs.Obs, c, scale float64) *trimBounds {
	m := y.Len()
	at := e.residualAt(f, y)
	if m <= obs.ScaleSample {
		z := make([]float64, m)
		for i := range e.n1 {
			for k := e.start[i]; k < e.start[i+1]; k++ {
				z[k] = at(i, k)
			}
		}
		return startBounds(e, z, c, scale, reduce.Ranks{})
	}
	// medianAbs's sample of the residuals, which is all it reads.
	stride := (m + obs.ScaleSample - 1) / obs.ScaleSample
	sample := make([]float64, 0, (m+stride-1)/stride)
	for k := 0; k < m; k += stride {
		sample = append(sample, at(e.Row(k), k))
	}
	floor := c * obs.MedianAbs(sample, obs.ScaleSample)
	b := newBounds(e.n1, e.n2, floor, scale)
	ks := &keptSums{}
	e.keptByAt(ks, &b.Bounds, at)
	e.rebound(b, nil, c, reduce.Ranks{}, ks)
	return b
}

// bound returns the bound of row or column k (rows first, then columns)
// whose n kept residuals sum to s in magnitude: c times their mean, or 0
// once the row or column is gross (see grossFactor), until the rest of
// the fit explains it (see liftEvery). One
// none of whose residuals was kept is bounded by c times the data's scale:
// at 0, as meanTimes has it, an honest row whose fit starts far off would
// keep only what its columns' bounds keep, which its own error exceeds,
// and never be fitted (5 rows of a 200 × 200 matrix with whole corrupted
// columns stopped so at 1.5e-4); the data's scale lets its honest entries
// in and leaves gross outliers out.
func (b *trimBounds) bound(k int, s, n, c float64) float64 {
	if b.zeroed(k) {
		return 0
	}
	if n == 0 && b.scale > 0 {
		return c * b.scale
	}
	return meanTimes(s, n, c)
}

// observedCounts returns the number of observations of each row, then of
// each column (of this shard: the refit, which uses them, runs on one
// process).
func (e *Entries) observedCounts() []float64 {
	c := make([]float64, e.n1+e.n2)
	for i := range e.n1 {
		c[i] = float64(e.start[i+1] - e.start[i])
	}
	for _, j := range e.cols {
		c[e.n1+int(j)]++
	}
	return c
}

// meanTimes returns c·s/n, the bound of a row or column whose n kept
// residuals sum to s in magnitude, or 0 when none was kept: the entries of
// such a row are then kept by their columns' bounds alone. (A bound
// reopened to +Inf would let the row's outliers back in, whose mean would
// then keep them for good; bound reopens it to the data's scale when it
// knows that.)
func meanTimes(s, n, c float64) float64 {
	if n == 0 {
		return 0
	}
	return c * s / n
}

// outlierRounds is the number of times OutlierBounds applies TrimmedL2's
// rule from the median: the bounds settle in two or three.
const outlierRounds = 8

// OutlierBounds returns the bounds beyond which a residual of the
// observations y at the factors f is an outlier: TrimmedL2's, trimFactor
// times the larger of the mean |z| of the entry's row and of its column
// over the residuals the bounds keep, from trimFactor times the median of
// all the |z|, the rule applied until the bounds settle (at most
// outlierRounds times). A residual within trimFactor times the root mean
// square of those kept, or within 10^-9 times the observations' median |y|,
// is never an outlier.
func (e *Entries) OutlierBounds(y []float64, f scaledsm.Factors) (*Bounds, error) {
	return e.outlierBounds(y, f, true)
}

// outlierBounds is OutlierBounds, with the floor of trimFactor times the
// root mean square of the residuals kept when floored.
func (e *Entries) outlierBounds(y []float64, f scaledsm.Factors, floored bool) (*Bounds, error) {
	m, n1, n2 := e.Dims()
	if len(y) != m {
		return nil, inputerr.New("y", nil, "%d observations, want %d", len(y), m)
	}
	if fn1, fn2 := f.Dims(); fn1 != n1 || fn2 != n2 {
		return nil, inputerr.New("factors", nil, "of a %d×%d matrix, want %d×%d", fn1, fn2, n1, n2)
	}
	z := make([]float64, m)
	e.Apply(z, f)
	for k, v := range y {
		z[k] -= v
	}
	b := startBounds(e, z, trimFactor, obs.FitScale(y), reduce.Ranks{})
	floor := obs.FitTolerance * obs.FitScale(y)
	prev := &Bounds{Rows: make([]float64, n1), Cols: make([]float64, n2)}
	for range outlierRounds {
		copy(prev.Rows, b.Rows)
		copy(prev.Cols, b.Cols)
		e.rebound(b, z, trimFactor, reduce.Ranks{}, nil)
		if slices.Equal(prev.Rows, b.Rows) && slices.Equal(prev.Cols, b.Cols) {
			break
		}
	}
	// A floor under every bound, trimFactor times the root mean square
	// of the residuals kept: where the fit is not exact (a validated fit
	// of real data), the rows' and columns' means are those of mostly
	// tiny residuals, and the few that the fit misses by a little lie
	// beyond them. (The real video of docs/completion.md: the mask s != 0
	// of SparsePart had precision 0.677 and recall 0.992 against its
	// foreground, 0.955 and 0.987 with the floor; PCP's has 0.908 and
	// 1.000.) An exact fit's kept residuals are rounding, and its floor
	// stays FitTolerance's.
	var sq fsum.Sum
	kept := 0
	for i := range n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			if b.keeps(z[k], i, int(e.cols[k])) {
				sq.Add(z[k] * z[k])
				kept++
			}
		}
	}
	if kept > 0 && floored {
		floor = max(floor, trimFactor*math.Sqrt(sq.Value()/float64(kept)))
	}
	for _, v := range [][]float64{b.Rows, b.Cols} {
		for k := range v {
			v[k] = max(v[k], floor)
		}
	}
	return &b.Bounds, nil
}

// Bounds are the residual bounds of TrimmedL2: the residual of entry
// (i, j) is kept when |z_ij| <= max(Rows[i], Cols[j]).
type Bounds struct {
	Rows, Cols []float64
}

// Keeps reports whether the bounds keep the residual z of entry (i, j):
// whether |z| <= max(Rows[i], Cols[j]).
func (b *Bounds) Keeps(z float64, i, j int) bool { return b.keeps(z, i, j) }

// keeps is Keeps.
func (b *Bounds) keeps(z float64, i, j int) bool {
	return math.Abs(z) <= max(b.Rows[i], b.Cols[j])
}

// SparsePart returns the sparse part of the observations y at the factors
// f, in the operator's order: y_k - (L Rᵀ)_k where that residual is an
// outlier by OutlierBounds, and 0 where the low-rank part explains the
// observation. Its support is the estimate of the outliers' (a mask is
// s != 0).
func (e *Entries) SparsePart(y []float64, f scaledsm.Factors) ([]float64, error) {
	b, err := e.OutlierBounds(y, f)
	if err != nil {
		return nil, err
	}
	s := make([]float64, len(y))
	e.Apply(s, f)
	for i := range e.n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			if r := y[k] - s[k]; b.keeps(r, i, int(e.cols[k])) {
				s[k] = 0
			} else {
				s[k] = r
			}
		}
	}
	return s, nil
}
