package scaledsm

import (
	"fmt"
	"math"
)

// Plateau is a Converger for data without a truth: it stops a run with
// status Plateaued once the loss has stopped falling, the least loss of
// the last Window iterations being above 1 - Progress times the loss
// Window iterations before. Real data are only approximately low rank: the
// loss levels off at the part no rank-r matrix explains, long before the
// relative change of X reaches a tolerance such as 1e-12, and the
// iterations after it change nothing a user can see. A loss still falling
// geometrically, as it does towards an exactly low-rank X*, is never
// stopped; with a truth (RelError not NaN) it never stops a run, whose
// tolerance on the error says when it is done.
type Plateau struct {
	Window   int     // 0 means 50
	Progress float64 // 0 means 1e-3 (0.1%)
}

// The default window and progress of Plateau: a run stops when 50
// iterations have lowered its loss by less than 0.1%.
const (
	defaultPlateauWindow   = 50
	defaultPlateauProgress = 1e-3
)

// resolved returns p's window and progress, the defaults for those not
// positive.
func (p Plateau) resolved() (w int, progress float64) {
	w, progress = p.Window, p.Progress
	if w <= 0 {
		w = defaultPlateauWindow
	}
	if progress <= 0 {
		progress = defaultPlateauProgress
	}
	return w, progress
}

// Validate reports a window or progress out of range: negative, or a
// progress that is not below 1 (a loss halving every iteration would
// stop) or is NaN (no loss would).
func (p Plateau) Validate() error {
	switch {
	case p.Window < 0:
		return inputError("plateau window", p.Window, "must be positive (0 means %d)", defaultPlateauWindow)
	case !(p.Progress >= 0 && p.Progress < 1):
		return inputError("plateau progress", p.Progress, "must lie in [0, 1) (0 means %g)", defaultPlateauProgress)
	}
	return nil
}

// String says when p stops a run, as "50 iterations lowered the loss by
// less than 0.1%" for the zero Plateau.
func (p Plateau) String() string {
	w, progress := p.resolved()
	return fmt.Sprintf("%d iterations lowered the loss by less than %g%%", w, 100*progress)
}

// Converged reports whether the loss has levelled off (see Plateau).
func (p Plateau) Converged(trace []Iteration) (Status, bool) {
	w, progress := p.resolved()
	t := len(trace) - 1
	if t < w || !math.IsNaN(trace[t].RelError) {
		return 0, false
	}
	base := trace[t-w].Loss
	best := math.Inf(1)
	for _, it := range trace[t-w+1:] {
		best = min(best, it.Loss)
	}
	if math.IsNaN(base) || math.IsNaN(best) {
		return 0, false
	}
	return Plateaued, best >= (1-progress)*base
}
