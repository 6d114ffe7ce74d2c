package scaledsm

import (
	"math"

	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// Evidence is what the last iterate of a run shows of its own recovery,
// with or without a truth: how many measurements it leaves unfitted, and
// on entries (matrix completion, robust PCA) where they lie. An exact
// recovery fits every measurement but the outliers; outliers spread at
// random leave no row or column mostly unfitted, while a row or column
// that is mostly unfitted is either wholly corrupted or not recovered.
type Evidence struct {
	// Unfitted is the number of measurements whose residual exceeds
	// FitTolerance times the observations' scale (see FitScale):
	// Result.FitFraction is 1 - Unfitted/m, exactly.
	Unfitted int
	// UnfittedRows and UnfittedCols count, on entries, the rows and the
	// columns more than half of whose observations are unfitted by more
	// than 1e-6 times the observations' scale: not fitted even
	// roughly. (A row whose few observations converge more slowly than
	// the rest is unfitted at FitTolerance when the iterate stops moving,
	// yet recovered to 1e-9: two rows of 18 and 19 of a 20000 × 5000
	// completion of rank 5, whose residuals were 3 times FitTolerance's.)
	UnfittedRows, UnfittedCols int
	// GrossRows and GrossCols count, under TrimmedL2, the rows and the
	// columns that the loss found gross and keeps nothing of at the end
	// (their kept residuals averaged 10 times the data's scale).
	GrossRows, GrossCols int
}

// missTolerance is the residual, relative to the observations' scale
// (see FitScale), beyond which Evidence counts an observation of a row or
// column as missed: a thousand times FitTolerance, far below a residual of
// a row or column that is not recovered (issue 34's column, whose
// residuals averaged 12 times the median |y|).
const missTolerance = 1e-6

// Localized reports whether the unfitted measurements gather in whole
// rows or columns: some are mostly unfitted, or marked gross.
func (ev Evidence) Localized() bool {
	return ev.UnfittedRows+ev.UnfittedCols+ev.GrossRows+ev.GrossCols > 0
}

// contradicts reports whether the evidence of a fit that fits most of
// the m measurements contradicts a recovery of data declared free of
// outliers (Problem.Clean): an exact recovery of such data leaves no row or
// column mostly unfitted, and none gross.
func (ev Evidence) contradicts(m int) bool {
	return ev.Localized() && float64(m-ev.Unfitted) >= exactFit*float64(m)
}

// A localizer is an operator that says where the unfitted measurements of
// an iterate lie (package completion's entries: in which rows and columns).
type localizer interface {
	// Localize returns the evidence of the iterate of e, over the ranks
	// of red: the measurements unfitted beyond tol, and where those beyond
	// miss gather.
	Localize(e *Evaluation, tol, miss float64, red ranks.Reducer) Evidence
}

// evidence returns the evidence of the run's last iterate, over all the
// ranks.
func (u *run) evidence() Evidence {
	tol := FitTolerance * u.fitScale()
	if l, ok := u.p.Op.(localizer); ok {
		return l.Localize(u.eval, tol, tol/FitTolerance*missTolerance, u.p.Reducer)
	}
	n := 0
	for _, v := range u.eval.Z {
		if !(math.Abs(v) <= tol) {
			n++
		}
	}
	return Evidence{Unfitted: u.d.Count(n)}
}

// Localize returns the evidence of the iterate of ev: the entries
// unfitted beyond tol, the rows and columns more than half of whose
// observations are beyond miss, and those its bounds marked gross.
func (e *Entries) Localize(ev *Evaluation, tol, miss float64, red ranks.Reducer) Evidence {
	counts := e.unfittedCounts(e.residualsOf(ev), tol, miss)
	reduce.Over(red).Sum(counts)
	n1, n2 := e.n1, e.n2
	evd := Evidence{Unfitted: int(counts[len(counts)-1])}
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
func (e *Entries) residualsOf(ev *Evaluation) func(i, k int) float64 {
	if z := ev.Z; z != nil {
		return func(_, k int) float64 { return z[k] }
	}
	return e.residualAt(Factors{L: ev.L, R: ev.R}, obs.Obs{F64: ev.Y, F32: ev.Y32})
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
