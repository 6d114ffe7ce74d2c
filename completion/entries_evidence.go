package completion

import (
	"math"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// Localize returns the evidence of the iterate of ev: the entries
// unfitted beyond tol, the rows and columns more than half of whose
// observations are beyond miss, and those its bounds marked gross.
func (e *Entries) Localize(ev *scaledsm.Evaluation, tol, miss float64, red ranks.Reducer) scaledsm.Evidence {
	counts := e.unfittedCounts(e.residualsOf(ev), tol, miss)
	reduce.Over(red).Sum(counts)
	n1, n2 := e.n1, e.n2
	evd := scaledsm.Evidence{Unfitted: int(counts[len(counts)-1])}
	for i := range n1 {
		if 2*counts[i] > counts[n1+n2+i] {
			evd.UnfittedRows++
		}
	}
	for j := range n2 {
		if 2*counts[n1+j] > counts[2*n1+n2+j] {
			evd.UnfittedCols++
		}
	}
	if st, ok := ev.State.(*passState); ok && st.bounds != nil {
		for k := range n1 + n2 {
			if st.bounds.zeroed(k) {
				if k < n1 {
					evd.GrossRows++
				} else {
					evd.GrossCols++
				}
			}
		}
	}
	return evd
}

// residualsOf returns the residual function of the iterate of ev: the
// pass's residuals when it kept them, formed with Apply's bits otherwise.
func (e *Entries) residualsOf(ev *scaledsm.Evaluation) func(i, k int) float64 {
	if z := ev.Z; z != nil {
		return func(_, k int) float64 { return z[k] }
	}
	return e.residualAt(scaledsm.Factors{L: ev.L, R: ev.R}, obs.Obs{F64: ev.Y, F32: ev.Y32})
}

// unfittedCounts returns the number of residuals z(i, k) beyond miss in
// magnitude in each row, then in each column, followed by the number of
// observations of each row, then of each column, and last the number of
// residuals beyond tol (all of this shard's): 2(n1 + n2) + 1 values, for
// the ranks to sum.
func (e *Entries) unfittedCounts(z func(i, k int) float64, tol, miss float64) []float64 {
	n1, n2, nc := e.n1, e.n2, len(e.chunks)-1
	counts := make([]float64, 2*(n1+n2)+1)
	parts := make([]float64, n2*nc)
	unfitted := make([]int, nc)
	par.Do(par.TeamSize(len(e.cols)), nc, func(ch int) {
		part := parts[n2*ch : n2*(ch+1)]
		for i := e.chunks[ch]; i < e.chunks[ch+1]; i++ {
			for k := e.start[i]; k < e.start[i+1]; k++ {
				a := math.Abs(z(i, k))
				if !(a <= tol) {
					unfitted[ch]++
				}
				if !(a <= miss) {
					counts[i]++
					part[e.cols[k]]++
				}
			}
		}
	})
	par.AddPartials(parts[:n2], parts, nc, n2)
	copy(counts[n1:n1+n2], parts[:n2])
	copy(counts[n1+n2:], e.observedCounts())
	for _, n := range unfitted {
		counts[len(counts)-1] += float64(n)
	}
	return counts
}
