package scaledsm

import (
	"math"
	"sync"

	"github.com/scaledsm/scaledsm/internal/fsum"
)

// A bounder is an operator that implements TrimmedWeight: it sets the
// bounds of TrimmedL2 from residuals and sums the squares of the residuals
// its bounds keep.
type bounder interface {
	// bound sets b from the residuals z: each row's and each column's
	// median |z| times c.
	bound(b *Bounds, z []float64, c float64)
	// rebound sets b from the residuals z and the bounds that kept them:
	// each row's and each column's mean |z| over the residuals b kept,
	// times c.
	rebound(b *Bounds, z []float64, c float64)
	// keptSquares returns Σ z² over the residuals that b keeps.
	keptSquares(z []float64, b *Bounds) float64
}

var _ bounder = (*Entries)(nil)

// newBounds returns the bounds of an n1×n2 entry operator.
func newBounds(n1, n2 int) *Bounds {
	return &Bounds{Rows: make([]float64, n1), Cols: make([]float64, n2)}
}

// bound sets the bounds from the residuals: c times the median |z| of each
// row and of each column (the upper middle one; 0 for a row or column with
// no entry). Each median is an exact selection, so the bounds do not
// depend on the number of cores.
func (e *Entries) bound(b *Bounds, z []float64, c float64) {
	e.byColumn()
	buf := e.scratch()
	defer e.pool.Put(buf)
	a := *buf
	m := len(e.cols)
	parallel(teamSize(m), e.n1, func(i int) {
		b.Rows[i] = c * medianOf(a[e.start[i]:e.start[i+1]], z[e.start[i]:e.start[i+1]], nil)
	})
	parallel(teamSize(m), e.n2, func(j int) {
		lo, hi := e.colStart[j], e.colStart[j+1]
		b.Cols[j] = c * medianOf(a[lo:hi], z, e.colPerm[lo:hi])
	})
}

// rebound sets the bounds to c times the mean |z| of each row and each
// column over the residuals the bounds kept (+Inf for a row or column
// none of whose residuals was kept, or that has no entry). A mean over what was kept is robust as a
// median is, as the outliers beyond the bounds are left out, and unlike a
// median it does not collapse where half of a row fits exactly, as the
// rows of a structured X* can.
func (e *Entries) rebound(b *Bounds, z []float64, c float64) {
	e.byColumn()
	m := len(e.cols)
	kept := e.keptMask()
	defer e.masks.Put(kept)
	parallel(teamSize(m), e.n1, func(i int) {
		var s float64
		var n int
		for k := e.start[i]; k < e.start[i+1]; k++ {
			kept[k] = b.keeps(z[k], i, int(e.cols[k]))
			if kept[k] {
				s += math.Abs(z[k])
				n++
			}
		}
		b.Rows[i] = meanTimes(s, n, c) // row i's entries were all read above
	})
	parallel(teamSize(m), e.n2, func(j int) {
		var s float64
		var n int
		for _, k := range e.colPerm[e.colStart[j]:e.colStart[j+1]] {
			if kept[k] {
				s += math.Abs(z[k])
				n++
			}
		}
		b.Cols[j] = meanTimes(s, n, c)
	})
}

// keptMask returns a buffer of m flags from the operator's pool.
func (e *Entries) keptMask() []bool {
	if b, ok := e.masks.Get().([]bool); ok {
		return b
	}
	return make([]bool, len(e.cols))
}

// meanTimes returns c·s/n, the bound of a row or column whose n kept
// residuals sum to s in magnitude, or +Inf when none was kept: such a row
// or column would never be fitted again, so the next pass keeps all of
// it, and the pass after bounds it afresh.
func meanTimes(s float64, n int, c float64) float64 {
	if n == 0 {
		return math.Inf(1)
	}
	return c * s / float64(n)
}

// medianOf returns the median |z_k| over k in at (over all of z when at is
// nil), using buf (of the same length) as scratch; 0 when there is none.
func medianOf(buf, z []float64, at []int32) float64 {
	if len(buf) == 0 {
		return 0
	}
	if at == nil {
		for k, v := range z {
			buf[k] = math.Abs(v)
		}
	} else {
		for k, p := range at {
			buf[k] = math.Abs(z[p])
		}
	}
	return selectKth(buf, len(buf)/2)
}

// keptSquares returns Σ z_ij² over the entries whose residual b keeps,
// compensated, in the operator's order.
func (e *Entries) keptSquares(z []float64, b *Bounds) float64 {
	var s fsum.Sum
	for i := range e.n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			if b.keeps(z[k], i, int(e.cols[k])) {
				s.Add(z[k] * z[k])
			}
		}
	}
	return s.Value()
}

// byColumn builds, once, the entries' order by column: column j holds the
// entries colPerm[colStart[j]:colStart[j+1]], by increasing row (4 bytes
// an entry).
func (e *Entries) byColumn() {
	e.colOnce.Do(func() {
		m := len(e.cols)
		e.colStart = make([]int, e.n2+1)
		for _, j := range e.cols {
			e.colStart[j+1]++
		}
		for j := range e.n2 {
			e.colStart[j+1] += e.colStart[j]
		}
		next := make([]int, e.n2)
		copy(next, e.colStart[:e.n2])
		e.colPerm = make([]int32, m)
		for k, j := range e.cols {
			e.colPerm[next[j]] = int32(k)
			next[j]++
		}
	})
}

// scratch returns a buffer of m float64s from the operator's pool.
func (e *Entries) scratch() *[]float64 {
	if b, ok := e.pool.Get().(*[]float64); ok {
		return b
	}
	b := make([]float64, len(e.cols))
	return &b
}

// entryState is the lazily built state of an Entries operator that only
// TrimmedL2 needs.
type entryState struct {
	colOnce  sync.Once
	colStart []int
	colPerm  []int32
	pool     sync.Pool // *[]float64 of m
	masks    sync.Pool // []bool of m
}
