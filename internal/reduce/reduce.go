// Package reduce combines the partial results of the ranks of a
// data-parallel solve over a Group (the method set of ranks.Reducer):
// compensated sums added in rank order, counts, maxima and order
// statistics. Every rank must make the same calls in the same order.
package reduce

import (
	"fmt"
	"math"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/order"
)

// Group is the collectives of the ranks (see ranks.Reducer).
type Group interface {
	Rank() int
	Size() int
	Sum(x []float64)
	Gather(all, x []float64)
	Broadcast(x []float64)
}

// Gather returns the ranks' x one after the other, in rank order.
func Gather(g Group, x []float64) []float64 {
	all := make([]float64, g.Size()*len(x))
	g.Gather(all, x)
	return all
}

// Sums replaces each compensated sum by its sum over the ranks: the parts
// of every rank (fsum.Sum.Parts) added in rank order, so that the result
// depends on the number of ranks only through the rounding of the
// compensated sum.
func Sums(g Group, s ...*fsum.Sum) {
	n := 2 * len(s)
	buf := make([]float64, n)
	for j, a := range s {
		buf[2*j], buf[2*j+1] = a.Parts()
	}
	all := Gather(g, buf)
	for j, a := range s {
		var t fsum.Sum
		for k := 0; k < len(all); k += n {
			t.AddParts(all[k+2*j], all[k+2*j+1])
		}
		*a = t
	}
}

// Relay runs f on each rank in turn, in rank order, each starting from
// the state (which f reads and updates in place) that the rank before it
// left; every rank ends with the last rank's state. A pass that one
// process makes over the ranks' parts one after the other, with the same
// bits (a compensated sum, a stream of draws), costs P small gathers.
func Relay(g Group, state []float64, f func()) {
	n := len(state)
	all := make([]float64, g.Size()*n)
	for r := range g.Size() {
		if r == g.Rank() {
			f()
		}
		g.Gather(all, state)
		copy(state, all[r*n:(r+1)*n])
	}
}

// Count returns n summed over the ranks.
func Count(g Group, n int) int {
	x := []float64{float64(n)}
	g.Sum(x)
	return int(x[0])
}

// Counts returns the ranks' n in rank order.
func Counts(g Group, n int) []int {
	all := Gather(g, []float64{float64(n)})
	c := make([]int, len(all))
	for k, v := range all {
		c[k] = int(v)
	}
	return c
}

// Max returns the largest of the ranks' x, NaN when any is NaN.
func Max(g Group, x float64) float64 {
	for _, v := range Gather(g, []float64{x}) {
		if math.IsNaN(v) {
			return v
		}
		x = max(x, v)
	}
	return x
}

// Kth returns the k-th smallest (from 0) of the non-negative values v of
// all the ranks, leaving v as it is: a radix selection on the bits of the
// values, whose order is that of the values, in eight rounds of 256-bin
// histograms summed over the ranks, each round keeping the candidates of
// the bin that holds the k-th. It reads v once and then the candidates
// left, and makes eight reductions of 256 counts.
func Kth(g Group, v []float64, k int) float64 {
	var prefix uint64
	cand := v
	var hist [256]float64
	for shift := 56; shift >= 0; shift -= 8 {
		clear(hist[:])
		for _, x := range cand {
			hist[math.Float64bits(x)>>shift&255]++
		}
		g.Sum(hist[:])
		bin := 0
		for ; bin < 255; bin++ {
			if float64(k) < hist[bin] {
				break
			}
			k -= int(hist[bin])
		}
		prefix |= uint64(bin) << shift
		var next []float64
		for _, x := range cand {
			if math.Float64bits(x)>>shift&255 == uint64(bin) {
				next = append(next, x)
			}
		}
		cand = next
	}
	return math.Float64frombits(prefix)
}

// Range returns the part [lo, hi) of n items that rank holds of size ranks:
// contiguous, in rank order, their lengths differing by at most 1.
func Range(n, rank, size int) (lo, hi int) {
	return rank * n / size, (rank + 1) * n / size
}

// Whole returns the measurements of a whole problem of which m are a
// shard's: total when set (a shard), m otherwise.
func Whole(m, total int) int {
	if total > 0 {
		return total
	}
	return m
}

// CheckShard reports a shard of m measurements larger than the whole
// problem's total.
func CheckShard(m, total int) error {
	if total < m {
		return fmt.Errorf("scaledsm: shard of %d measurements of a problem of %d: the whole must hold at least the shard", m, total)
	}
	return nil
}

// Ranks is the reductions of a run over the ranks of a Group; its zero
// value (no Group) leaves every partial result as it is, the single-rank
// computation.
type Ranks struct{ g Group }

// Over returns the reductions over g, which may be nil: one process.
func Over(g Group) Ranks { return Ranks{g} }

// On reports whether the results are partial and must be combined.
func (d Ranks) On() bool { return d.g != nil }

// Group returns the ranks' group, nil on one process.
func (d Ranks) Group() Group { return d.g }

// Sum replaces x by its sum over the ranks.
func (d Ranks) Sum(x []float64) {
	if d.g != nil {
		d.g.Sum(x)
	}
}

// Gather returns the ranks' x one after the other.
func (d Ranks) Gather(x []float64) []float64 {
	if d.g == nil {
		return x
	}
	return Gather(d.g, x)
}

// Sums replaces each compensated sum by its sum over the ranks (see
// the function Sums).
func (d Ranks) Sums(s ...*fsum.Sum) {
	if d.g != nil {
		Sums(d.g, s...)
	}
}

// Count returns n summed over the ranks.
func (d Ranks) Count(n int) int {
	if d.g == nil {
		return n
	}
	return Count(d.g, n)
}

// Counts returns the ranks' n in rank order.
func (d Ranks) Counts(n int) []int {
	if d.g == nil {
		return []int{n}
	}
	return Counts(d.g, n)
}

// Max returns the largest of the ranks' x.
func (d Ranks) Max(x float64) float64 {
	if d.g == nil {
		return x
	}
	return Max(d.g, x)
}

// Kth returns the k-th smallest (from 0) of the non-negative values of v
// over all ranks: alone order.Kth, which reorders v; over ranks the
// function Kth, which leaves it as it is.
func (d Ranks) Kth(v []float64, k int) float64 {
	if d.g == nil {
		return order.Kth(v, k)
	}
	return Kth(d.g, v, k)
}
