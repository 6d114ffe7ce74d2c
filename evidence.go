package scaledsm

import (
	"math"

	"github.com/scaledsm/scaledsm/internal/obs"
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
	// 10^-9 times the observations' scale (their median magnitude):
	// Result.FitFraction is 1 - Unfitted/m, exactly.
	Unfitted int
	// UnfittedRows and UnfittedCols count, on entries, the rows and the
	// columns more than half of whose observations are unfitted by more
	// than 1e-6 times the observations' scale: not fitted even
	// roughly. (A row whose few observations converge more slowly than
	// the rest is unfitted at the fit tolerance when the iterate stops moving,
	// yet recovered to 1e-9: two rows of 18 and 19 of a 20000 × 5000
	// completion of rank 5, whose residuals were 3 times the tolerance.)
	UnfittedRows, UnfittedCols int
	// GrossRows and GrossCols count, under TrimmedL2, the rows and the
	// columns that the loss found gross and keeps nothing of at the end
	// (their kept residuals averaged 10 times the data's scale).
	GrossRows, GrossCols int
}

// localized reports whether the unfitted measurements gather in whole
// rows or columns: some are mostly unfitted, or marked gross.
func (ev Evidence) localized() bool {
	return ev.UnfittedRows+ev.UnfittedCols+ev.GrossRows+ev.GrossCols > 0
}

// contradicts reports whether the evidence of a fit that fits most of
// the m measurements contradicts a recovery of data declared free of
// outliers (Problem.Clean): an exact recovery of such data leaves no row or
// column mostly unfitted, and none gross.
func (ev Evidence) contradicts(m int) bool {
	return ev.localized() && float64(m-ev.Unfitted) >= obs.ExactFraction*float64(m)
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
	tol := obs.FitTolerance * u.fitScale()
	if l, ok := u.p.Op.(localizer); ok {
		return l.Localize(u.eval, tol, tol/obs.FitTolerance*obs.MissTolerance, u.p.Reducer)
	}
	n := 0
	for _, v := range u.eval.Z {
		if !(math.Abs(v) <= tol) {
			n++
		}
	}
	return Evidence{Unfitted: u.d.Count(n)}
}
