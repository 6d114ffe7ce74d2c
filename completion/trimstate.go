package completion

import (
	"slices"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/inputerr"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/internal/track"
)

// TrimmedL2 is L2Squared over the residuals that are not outliers, for
// the entry models (Entries): the residual of entry (i, j) counts when
// |z_ij| is at most c times the larger of the mean |z| of row i and of
// column j over the residuals kept at the previous iterate (at the first,
// the medians). The factor c starts at 6 and follows the fit's progress,
// down to Floor while the fit stalls, so that gross errors are left out at
// every accuracy while an error that gathers in a few rows or columns is
// still fitted. A row or column whose kept residuals average 10 times the
// data's scale is gross and keeps nothing by its own bound, unless a fit
// of it alone shows it honest (see liftEvery). ScaledGD on it converges
// linearly with outliers, where the l1 loss converges sublinearly on
// sampled entries: it is the entry models' default (DefaultSettings).
type TrimmedL2 struct {
	// Floor is the least factor c that the bounds shrink to while the fit
	// stalls (0 means 4.5), in [1, 6]. A lower floor trims harder: it
	// frees an exactly low-rank fit from small outliers it keeps, as a
	// video's foreground blobs are, and trims honest entries of data that
	// are only approximately low rank; AutoRidge tries 2 by validation.
	Floor float64
	// Refit says whether the robust refit at a stall may run (see Refit).
	Refit Refit
}

// String returns "l2trim", the loss's name on the command line.
func (TrimmedL2) String() string { return "l2trim" }

// Base returns L2Squared, the loss over the residuals kept.
func (TrimmedL2) Base() scaledsm.Standard { return scaledsm.L2Squared }

// Validate reports a floor or a refit out of range, as an *InputError.
func (l TrimmedL2) Validate() error {
	if l.Floor != 0 && !(l.Floor >= 1 && l.Floor <= trimFactor) {
		return inputerr.New("trim floor", l.Floor, "must lie in [1, %g] (0: %g)", float64(trimFactor), trimFactorMin)
	}
	if l.Refit < RefitAuto || l.Refit > RefitNever {
		return inputerr.New("refit", l.Refit, "unknown")
	}
	return nil
}

// tracker is the trimmed loss's state along a run, as the solver's run
// loop calls it (see package track).
type tracker = track.Tracker[*scaledsm.Evaluation, scaledsm.Factors, scaledsm.Iteration]

var _ track.Tracked[scaledsm.Problem, scaledsm.Settings, tracker] = TrimmedL2{}

// Track returns the loss's state along a run of p, whose operator must be
// an Entries. It is for the solver's run loop (see package track), which
// calls it at the start of each run.
func (l TrimmedL2) Track(p scaledsm.Problem, s scaledsm.Settings) (tracker, error) {
	e, ok := p.Op.(*Entries)
	if !ok {
		return nil, inputerr.New("loss", l, "needs an operator that measures entries (Entries); use l2sq")
	}
	d := reduce.Over(p.Reducer)
	return &trimmer{op: e, y: observations(p), d: d, iso: e.Isometry(), trim: newTrimming(l.Floor),
		refits: !d.On() && l.refits(s.Converger, p.Truth != nil)}, nil
}

// withTrimFloor returns s with the floor of its TrimmedL2 set, when its
// loss is one.
func withTrimFloor(s Settings, floor float64) Settings {
	if l, ok := s.Loss.(TrimmedL2); ok {
		l.Floor = floor
		s.Loss = l
	}
	return s
}

// trimFloorOf returns the floor of the factor of s's TrimmedL2 (4.5 for
// its 0), 0 under another loss.
func trimFloorOf(s scaledsm.Settings) float64 {
	if l, ok := s.Loss.(TrimmedL2); ok {
		return trimFloor(l.Floor)
	}
	return 0
}

// spareResiduals lets a run of TrimmedL2 on one process keep no residuals
// (see trimmer.Residuals); tests turn it off to compare.
var spareResiduals = true

// A trimmer is TrimmedL2's state along a run: the bounds each pass reads
// with the marks that zero some of them (trimBounds, gross.go), the
// factor that sets them (trimming) and the robust refit (refit.go). The
// refit and the marks' lifts take iterations of their own (Intervene).
type trimmer struct {
	op       *Entries
	y        obs.Obs
	d        reduce.Ranks
	iso      float64
	refits   bool // the run may make its robust refit (see Refit)
	b        *trimBounds
	trim     trimming
	trial    *refitTrial // the robust refit on trial (see refit.go)
	refitted bool        // the run has made its refit
}

// residuals reports whether the passes keep their residuals: on one
// process they need not, since the pass sums what the bounds keep (the
// loss, the next bounds) as it goes, and the start's bounds and the end's
// evidence form residuals as they go. At 10^8 entries that is 800 MB of
// the 2 GB a solve holds.
func (t *trimmer) residuals() bool { return t.d.On() || !spareResiduals }

// Start sets the bounds of the first pass from the residuals at init,
// and gives ev the residuals' buffer when the passes keep them.
func (t *trimmer) Start(ev *scaledsm.Evaluation, init scaledsm.Factors, scale float64) error {
	if t.residuals() {
		m, _, _ := t.op.Dims()
		ev.Z = make([]float64, m)
	}
	if z := ev.Z; z == nil {
		t.b = t.op.startBoundsAt(init, t.y, t.trim.factor, scale)
	} else {
		t.op.Apply(z, init)
		for k := range z {
			z[k] -= t.y.At(k)
		}
		t.b = startBounds(t.op, z, t.trim.factor, scale, t.d)
	}
	passStateOf(ev).bounds = t.b
	return nil
}

// Pass sets the bounds of the next pass from the residuals that this
// pass's bounds kept (from the pass's sums), and the factor of the rebound
// after, and returns the loss (iso/2) Σ z² over the kept residuals of all
// the ranks.
func (t *trimmer) Pass(ev *scaledsm.Evaluation) float64 {
	sq := t.op.rebound(t.b, ev.Z, t.trim.factor, t.d, &passStateOf(ev).kept)
	t.d.Sums(&sq)
	t.trim.next(sq.Value())
	return t.iso / 2 * sq.Value()
}

// Intervene makes, judges or undoes the robust refit, or gives the marks
// their second look, in place of the step at iteration it.
func (t *trimmer) Intervene(it scaledsm.Iteration, trace []scaledsm.Iteration, f scaledsm.Factors) bool {
	return t.refit(it, trace, f) || t.lift(it, f)
}

// Step zeroes the factor rows of the rows and columns of X that keep too
// few of their observations after the refit (see markFew).
func (t *trimmer) Step(f scaledsm.Factors) {
	if t.b.few != nil {
		t.b.clearFew(f.L, f.R)
	}
}

// lift gives the marked rows and columns their second look (see
// liftEvery) at an iteration that makes it, and reports whether it lifted
// any: the iteration's update is then that refit of theirs, and no step.
func (t *trimmer) lift(it scaledsm.Iteration, f scaledsm.Factors) bool {
	if (it.Iter+1)%liftEvery != 0 || t.d.On() || !slices.Contains(t.b.marks, true) {
		return false
	}
	return t.op.lift(t.b, f.L, f.R, t.y)
}
