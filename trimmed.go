package scaledsm

import (
	"math"
	"sync"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/kernel"
)

// A bounder is an operator that implements TrimmedWeight: it sets the
// bounds of TrimmedL2 from residuals and sums the squares of the residuals
// its bounds keep. Over the ranks of a data-parallel solve, d combines its
// rows' and columns' sums.
type bounder interface {
	// rebound sets b from the residuals z and the bounds that kept them:
	// each row's and each column's mean |z| over the residuals b kept,
	// times c. It returns Σ z² over those residuals, this rank's.
	rebound(b *Bounds, z []float64, c float64, d dist) fsum.Sum
}

var _ bounder = (*Entries)(nil)

// A trimming is the factor c of TrimmedL2's bounds along a run, which
// follows the fit's progress: it starts at TrimFactor, shrinks by
// trimStep (down to TrimFactorMin) after a pass whose kept loss fell by
// less than the fraction 1 - trimProgress below the previous pass's, and
// grows back by as much (up to TrimFactor) after a pass whose loss fell by
// more. A fit that keeps improving keeps the lenient bound, which an error
// gathered in a few rows or columns needs; a fit that stalls, as one of an
// image that is only approximately low rank does once it has met its own
// residuals, has nothing to gain from the lenient bound but outliers to
// absorb, and is trimmed harder (see TrimFactorMin for the measurements).
type trimming struct {
	factor float64 // c of the next rebound
	last   float64 // the kept loss of the previous pass (Σ z² over all ranks)
}

// The progress and the step of trimming's factor: a kept loss falling by
// 10% a pass, and 5% of the factor a pass, measured with TrimFactorMin.
const (
	trimProgress = 0.9
	trimStep     = 0.95
)

// newTrimming returns the trimming at the start of a run.
func newTrimming() trimming { return trimming{factor: TrimFactor, last: math.Inf(1)} }

// next readies the factor of the next rebound after a pass whose kept
// residuals' squares sum to sq (over all ranks, so that every rank takes
// the same factor).
func (tr *trimming) next(sq float64) {
	if sq < trimProgress*tr.last {
		tr.factor = min(TrimFactor, tr.factor/trimStep)
	} else {
		tr.factor = max(TrimFactorMin, tr.factor*trimStep)
	}
	tr.last = sq
}

// startBounds sets the bounds of the first pass from the residuals z at
// the initialization: c times the median |z| of all of them, then one
// round of the rule (see rebound) from there. The median leaves the gross
// outliers out of the first means, which they would inflate.
func startBounds(b bounder, n1, n2 int, z []float64, c float64, d dist) *Bounds {
	abs := make([]float64, len(z))
	for k, v := range z {
		abs[k] = math.Abs(v)
	}
	floor := c * d.kth(abs, (d.count(len(z))-1)/2)
	bounds := &Bounds{Rows: make([]float64, n1), Cols: make([]float64, n2)}
	for _, v := range [][]float64{bounds.Rows, bounds.Cols} {
		for k := range v {
			v[k] = floor
		}
	}
	b.rebound(bounds, z, c, d)
	return bounds
}

// rebound sets the bounds to c times the mean |z| of each row and each
// column over the residuals the bounds kept (0 for a row or column none
// of whose residuals was kept).
// A mean over what was kept is robust as a median is, since the outliers
// beyond the bounds are left out, and unlike a median it does not collapse
// where half of a row fits exactly, as the rows of a structured X* can.
// The sums are taken in a fixed order, so the bounds do not depend on the
// number of cores. It returns Σ z² over the kept residuals, compensated
// row by row and over the rows in order.
func (e *Entries) rebound(b *Bounds, z []float64, c float64, d dist) fsum.Sum {
	st := e.state()
	m := len(e.cols)
	// Sums and counts of rows then of columns, in one buffer for the
	// ranks to combine; the columns' summed over the chunks of rows (see
	// split), each chunk into a partial of its own, added in chunk order:
	// one pass in the entries' order, whose scattered additions stay in
	// an n2-sized buffer.
	n1, n2 := e.n1, e.n2
	nc := len(e.chunks) - 1
	sums := make([]float64, 2*(n1+n2))
	rs, rn := sums[:n1], sums[n1:2*n1]
	squares := make([]float64, n1)
	parts := st.partials(2 * n2 * nc)
	defer st.bufs.Put(parts)
	parallel(teamSize(m), nc, func(ch int) {
		part := parts[2*n2*ch : 2*n2*(ch+1)]
		clear(part)
		for i := e.chunks[ch]; i < e.chunks[ch+1]; i++ {
			if i+1 < e.chunks[ch+1] {
				next := e.cols[e.start[i+1]:e.start[i+2]]
				kernel.PrefetchRows(part, next, 2, 2)
				kernel.PrefetchRows(b.Cols, next, 1, 1)
			}
			var s float64
			var sq fsum.Sum
			var n int
			for k := e.start[i]; k < e.start[i+1]; k++ {
				j := int(e.cols[k])
				if b.keeps(z[k], i, j) {
					a := math.Abs(z[k])
					s += a
					sq.Add(z[k] * z[k])
					n++
					part[2*j] += a
					part[2*j+1]++
				}
			}
			rs[i], rn[i], squares[i] = s, float64(n), sq.Value()
		}
	})
	cols := sums[2*n1:]
	const colsPer = 1024
	parallel(teamSize(nc*n2), (n2+colsPer-1)/colsPer, func(blk int) {
		lo, hi := blk*colsPer, min((blk+1)*colsPer, n2)
		for ch := 1; ch < nc; ch++ {
			kernel.Axpy(1, parts[2*n2*ch+2*lo:2*n2*ch+2*hi], parts[2*lo:2*hi])
		}
		for j := lo; j < hi; j++ {
			cols[j], cols[n2+j] = parts[2*j], parts[2*j+1]
		}
	})
	d.sum(sums)
	cs, cn := cols[:n2], cols[n2:]
	for i := range n1 {
		b.Rows[i] = meanTimes(rs[i], rn[i], c)
	}
	for j := range n2 {
		b.Cols[j] = meanTimes(cs[j], cn[j], c)
	}
	var sq fsum.Sum
	for _, v := range squares {
		sq.Add(v)
	}
	return sq
}

// meanTimes returns c·s/n, the bound of a row or column whose n kept
// residuals sum to s in magnitude, or 0 when none was kept: the entries of
// such a row are then kept by their columns' bounds alone. (A bound
// reopened to +Inf would let the row's outliers back in, whose mean would
// then keep them for good.)
func meanTimes(s, n, c float64) float64 {
	if n == 0 {
		return 0
	}
	return c * s / n
}

// entryState is the state of an Entries operator that only TrimmedL2
// needs, shared by the operator's shards: the buffers of the columns'
// partial sums, reused from one pass to the next.
type entryState struct {
	bufs sync.Pool
}

// state returns the operator's entryState.
func (e *Entries) state() *entryState {
	if e.st == nil {
		panic("scaledsm: Entries used before NewEntries or NewEntriesCSR")
	}
	return e.st
}

// partials returns a buffer of n values from the pool (of any contents).
func (st *entryState) partials(n int) []float64 {
	if b, ok := st.bufs.Get().([]float64); ok && len(b) == n {
		return b
	}
	return make([]float64, n)
}
