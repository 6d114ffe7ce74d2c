package completion

import (
	"context"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/obs"
)

// restartTruncation is the truncation of the spectral start from which
// AutoRidge fits again when the fit from its start (by default the median
// rule's) fits the entries inexactly: the paper's, dropping the 40% of the
// observations largest in magnitude, since a start, not the loss, is what
// some draws with outliers lack. When that fit is not exact either and
// the matrix is small (n1·n2·min(n1, n2) at most 200³), AutoRidge fits
// from the convex start (ConvexStart), which reaches draws that no
// truncation does. A later fit is kept only when it fits the entries
// exactly (see ExactFraction), which a fit of data that are only approximately
// low rank never does: there it costs a fit or two and changes nothing
// (measurements: docs/completion.md, "A second start").
const restartTruncation = 0.4

// restart fits p again from the spectral start truncated at restartTruncation,
// then, for a small matrix and with convex, from the convex start, when
// res, the fit of p
// with the resolved unpenalized settings s, fits the entries inexactly,
// and returns the first of those fits that fits them exactly
// (Choices.Restarted), res otherwise: whatever the first start was, a fit
// that is not exact can only be replaced by one that is. The start that
// Start and Truncation name is not tried again (an Init is taken for it: the
// command line and AutoRidge compute that start ahead). A loss other than
// TrimmedL2, several processes, a run stopped by the caller or at an
// iteration limit too soon to judge it (see cutShort), or settings with OneStart,
// are left as they are. Each later start has MaxIter iterations of its
// own; Result.Fits names the fits not kept.
func (pl pipeline) restart(ctx context.Context, p scaledsm.Problem, s Settings, res *Result, convex bool) (*Result, error) {
	e, ok := p.Op.(*Entries)
	if _, trimmed := s.Loss.(TrimmedL2); !ok || p.Reducer != nil || !trimmed || s.OneStart ||
		res.FitFraction >= obs.ExactFraction || res.Status == scaledsm.Converged || res.Status == scaledsm.Interrupted || res.Status.Failed() ||
		cutShort(res) {
		return res, nil
	}
	again := scaledsm.TruncateFraction(restartTruncation)
	var starts []Settings
	if s.Start != scaledsm.SpectralStart || s.Truncation != again {
		t := s
		t.Init, t.Start, t.Truncation = nil, scaledsm.SpectralStart, again
		starts = append(starts, t)
	}
	if _, n1, n2 := e.Dims(); convex && convexSmall(n1, n2) && s.Start != scaledsm.ConvexStart {
		t := s
		t.Init, t.Start = nil, scaledsm.ConvexStart
		starts = append(starts, t)
	}
	earlier := res.Runtime
	for _, t := range starts {
		next, err := pl.solve(ctx, p, t)
		if err != nil {
			if ctx.Err() != nil {
				break // stopped during the convex start
			}
			return nil, err
		}
		if next.Status == scaledsm.Interrupted {
			break
		}
		if next.FitFraction >= obs.ExactFraction {
			next.Restarted, next.RestartStart, next.RestartTruncation, next.FirstRuntime = true, t.Start, t.Truncation, earlier
			return next, nil
		}
		earlier += next.Runtime
	}
	if ctx.Err() != nil {
		// Stopped during a later fit: the first, marked as stopped.
		res.Status = scaledsm.Interrupted
	}
	return res, nil
}
