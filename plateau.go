package scaledsm

import "math"

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
	Window   int     // 0 means DefaultPlateauWindow
	Progress float64 // 0 means DefaultPlateauProgress
}

// The default window and progress of Plateau: a run stops when 50
// iterations have lowered its loss by less than 0.1%.
const (
	DefaultPlateauWindow   = 50
	DefaultPlateauProgress = 1e-3
)

// Converged reports whether the loss has levelled off (see Plateau).
func (p Plateau) Converged(trace []Iteration) (Status, bool) {
	w, progress := p.Window, p.Progress
	if w <= 0 {
		w = DefaultPlateauWindow
	}
	if progress <= 0 {
		progress = DefaultPlateauProgress
	}
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
