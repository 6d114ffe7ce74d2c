package scaledsm

import (
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// dist is the reductions of a run over a Reducer; its zero value (no
// Reducer) leaves every partial result as it is, the single-rank solve.
type dist struct{ red ranks.Reducer }

// on reports whether the results are partial and must be combined.
func (d dist) on() bool { return d.red != nil }

// sum replaces x by its sum over the ranks.
func (d dist) sum(x []float64) {
	if d.red != nil {
		d.red.Sum(x)
	}
}

// gather returns the ranks' x one after the other.
func (d dist) gather(x []float64) []float64 {
	if d.red == nil {
		return x
	}
	return reduce.Gather(d.red, x)
}

// sums replaces each compensated sum by its sum over the ranks (see
// reduce.Sums).
func (d dist) sums(s ...*fsum.Sum) {
	if d.red != nil {
		reduce.Sums(d.red, s...)
	}
}

// count returns n summed over the ranks.
func (d dist) count(n int) int {
	if d.red == nil {
		return n
	}
	return reduce.Count(d.red, n)
}

// counts returns the ranks' n in rank order.
func (d dist) counts(n int) []int {
	if d.red == nil {
		return []int{n}
	}
	return reduce.Counts(d.red, n)
}

// max returns the largest of the ranks' x.
func (d dist) max(x float64) float64 {
	if d.red == nil {
		return x
	}
	return reduce.Max(d.red, x)
}

// kth returns the k-th smallest (from 0) of the non-negative values of v
// over all ranks: alone selectKth, which reorders v; over ranks
// reduce.Kth, which leaves it as it is.
func (d dist) kth(v []float64, k int) float64 {
	if d.red == nil {
		return selectKth(v, k)
	}
	return reduce.Kth(d.red, v, k)
}
