package scaledsm

import "context"

// RestartTrim is the truncation of the spectral start from which
// AutoRidge fits again when the fit from its start (by default the median
// rule's) fits the entries inexactly: the paper's, dropping the 40% of the
// observations largest in magnitude. A start is what some draws with
// outliers lack, not the loss (issue 24: n = 100, r = 2, p = 0.3,
// κ = 100, p_s = 0.1, seeds 2 and 3, stop at 0.13 and 0.041 from the
// median rule's start and converge from this one; a 200 × 50 matrix with
// whole columns corrupted, κ = 100, p_s = 0.05, seed 2, stops at 0.14 and
// converges from the truncations 0.1 to 0.4). Over the phase study's
// grid, 0.4 recovers 3 runs more than 0.3 (random outliers, κ = 100,
// p_s 0.2 and 0.3) and none fewer. The second fit is kept only when it
// fits the entries exactly (see exactFit), which a fit of data that are
// only approximately low rank never does: there it costs one fit and
// changes nothing.
const RestartTrim = 0.4

// restart fits p again from the spectral start truncated at RestartTrim
// when res, the fit of p with the resolved settings s, fits the entries
// inexactly, and returns the second fit when it fits them exactly
// (Result.Restarted), res otherwise: whatever the first start was (the
// command line's Init is the default start, computed ahead), a fit that
// is not exact can only be replaced by one that is. A first start that
// was this one, a loss other than TrimmedL2, several processes, a run
// stopped by the caller or at an iteration limit below
// DefaultPlateauWindow are left as they are.
func restart(ctx context.Context, p Problem, s Settings, res *Result) (*Result, error) {
	again := TrimFraction(RestartTrim)
	same := s.Init == nil && s.Start == SpectralStart && s.Trim == again
	if _, ok := p.Op.(*Entries); !ok || p.Reducer != nil || s.Loss != TrimmedL2 || same ||
		res.FitFraction >= exactFit || res.Status == Converged || res.Status == Interrupted || res.Status.Failed() ||
		(res.Status == IterationLimit && res.Iterations < DefaultPlateauWindow) {
		return res, nil
	}
	s.Init, s.Start, s.Trim = nil, SpectralStart, again
	res2, err := Solve(ctx, p, s)
	if err != nil {
		return nil, err
	}
	if res2.Status == Interrupted {
		// Stopped during the second fit: the first, marked as stopped.
		res.Status = Interrupted
		return res, nil
	}
	if res2.FitFraction < exactFit {
		return res, nil
	}
	res2.Restarted, res2.FirstRuntime = true, res.Runtime
	return res2, nil
}
