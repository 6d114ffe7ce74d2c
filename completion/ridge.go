package completion

import (
	"context"
	"math"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/inputerr"
	"github.com/scaledsm/scaledsm/internal/obs"
)

// AutoRidge, as Settings.Ridge, asks Solve to choose the penalty: it fits
// without one first (on entries with TrimmedL2, from a second start and,
// on a small matrix, the convex start too when the first fit is not
// exact: see Choices.Restarted), and keeps that fit when it is exact
// (fitting at least half the entries to 10^-9 of the median |y|, as an
// exactly low-rank matrix with outliers is fitted), when the problem
// has a truth (a synthetic problem, exactly low rank, whose run measures
// recovery; as Plateau never stops one), when it is not one of entries on
// one process, or when the fit stopped at an iteration limit too soon to
// tell exact data from approximate ones (see cutShort).
// Otherwise the data are only approximately low rank, and ChooseRidge
// chooses μ and the iterations by validation for a second fit of all the
// entries, which ends Validated at those iterations (or earlier, as its
// Converger says). Runs of a batch (SolveBatch) take no penalty.
const AutoRidge = -1

// RidgeChoice is how ChooseRidge chose: the penalties tried in order,
// with their trimming floors, the validation error of each (the least
// clipped mean (y - x)² over the entries held out along its fit) and the
// iteration it was least at, and the penalty, floor and number of
// iterations chosen.
type RidgeChoice struct {
	Ridges     []float64
	TrimFloors []float64 // the trimming floor of each (TrimmedL2.Floor, 4.5 for its 0)
	Errors     []float64
	Iterations []int
	Ridge      float64
	TrimFloor  float64
	Iteration  int
	Runtime    time.Duration // wall time of the validation fits
}

// trimFloorExact is the trimming floor (TrimmedL2.Floor) that
// ChooseRidge tries beside the default: on a real video made exactly rank
// 2 with its own pedestrians as the sparse part (experiment's
// TestVideoRPCA), the default floor 4.5 stops at a relative error of
// 0.0105 with small foreground entries kept; 2.5 reaches 0.0020 but is
// still falling after 1000 iterations, 2 levels off at 0.0041 after 333
// and 1.5 at 0.0039 after 177. It trims the photograph's edges: 20.1 dB
// at rank 30 against 21.6.
const trimFloorExact = 2

// The ridge ladder of ChooseRidge: penalties base·2^(k/2) for k from
// ridgeTop down to ridgeBottom, and on up to ridgeCeiling while the best
// is the top's, where base is the scale of the noise's largest singular
// value (see ChooseRidge); the iterations between two scores of a
// validation fit; and the multiple of the residuals' scale at which a
// held-out square is clipped.
const (
	ridgeTop     = 2
	ridgeBottom  = -10
	ridgeCeiling = 16
	ridgeEvery   = 10
	ridgeClip    = 30
)

// ChooseRidge chooses the penalty of an entry problem (Settings.Ridge) and the number of
// iterations of its fit by validation. It holds out the same seeded 5% of the entries as
// ChooseRank, fits the others with the settings s at the penalties μ = base·2^(k/2) for k = 2, 1,
// 0, ... -10 (on upwards to 16 while the score falls, when the best is the first), and scores each
// fit every 10 iterations on the entries held out: early stopping, since on data only
// approximately low rank a fit first takes in the signal, then bends towards the noise and trims
// honest entries (an image's edges). It stops once a penalty's least score is above the best and
// returns the penalty and the iteration of the least score. fit is an unpenalized fit of all the
// entries: σ = 1.4826 median|y - x| over its residuals is the noise's scale, and base = σ (√n1 +
// √n2) √(n1 n2/m) the operator norm of dense noise of that size. The score is the mean of
// min((y - x)², (30σ)²): squares weigh a fit's tails as PSNR and RMSE do, and the clip makes a
// gross outlier held out add the same to every candidate (measurements: docs/completion.md,
// "More rank, no worse picture").
func ChooseRidge(ctx context.Context, p scaledsm.Problem, s Settings, fit scaledsm.Factors) (RidgeChoice, error) {
	return pipeline{}.chooseRidge(ctx, p, s, fit)
}

// chooseRidge is ChooseRidge within the pipeline pl.
func (pl pipeline) chooseRidge(ctx context.Context, p scaledsm.Problem, s Settings, fit scaledsm.Factors) (RidgeChoice, error) {
	e, ok := p.Op.(*Entries)
	if !ok || p.Reducer != nil {
		return RidgeChoice{}, inputerr.New("operator", nil, "ChooseRidge needs entries (Entries) on one process")
	}
	sigma, base, err := ridgeBase(p, e, fit)
	if err != nil {
		return RidgeChoice{}, err
	}
	v, err := newValidation(p, e, "choosing the penalty")
	if err != nil {
		return RidgeChoice{}, err
	}
	s = v.settings(s)
	if s.Start == scaledsm.ConvexStart {
		// The training entries' convex start, once for every penalty.
		init, err := scaledsm.Initial(ctx, v.problem(p.Rank), s.Settings)
		if err != nil {
			return RidgeChoice{}, err
		}
		s.Init = &init
	}
	t0 := time.Now()
	v.clip = ridgeClip * sigma
	c, err := pl.validating().climbRidges(ctx, v, s, p.Rank, base)
	c.Runtime = time.Since(t0)
	return c, err
}

// ridgeBase returns the scale σ of the residuals of the fit of p's
// entries e, and the base of the ladder of penalties (see ChooseRidge).
func ridgeBase(p scaledsm.Problem, e *Entries, fit scaledsm.Factors) (sigma, base float64, err error) {
	m, n1, n2 := e.Dims()
	if err := p.Validate(); err != nil {
		return 0, 0, err
	}
	y := observations(p)
	if err := fit.Validate(e, p.Rank); err != nil {
		return 0, 0, err
	}
	z := make([]float64, m)
	e.Apply(z, fit)
	for k := range z {
		z[k] -= y.At(k)
	}
	sigma = 1.4826 * obs.MedianAbs(z, len(z))
	base = sigma * (math.Sqrt(float64(n1)) + math.Sqrt(float64(n2))) * math.Sqrt(float64(n1)*float64(n2)/float64(m))
	if !(base > 0) || math.IsInf(base, 0) {
		return 0, 0, inputerr.New("fit", nil, "fits the entries exactly: no penalty to choose")
	}
	return sigma, base, nil
}

// climbRidges fits the penalties of the ladder from base at rank r with
// the settings s, each stopped early at its best score on the entries v
// holds out, then the harder trimming floor, and returns the choice.
func (pl pipeline) climbRidges(ctx context.Context, v validation, s Settings, r int, base float64) (RidgeChoice, error) {
	var c RidgeChoice
	best := math.Inf(1)
	// try fits the penalty mu with the trimming floor and reports
	// whether it scored best so far.
	try := func(mu, floor float64) (bool, error) {
		s.Ridge = mu
		s = withTrimFloor(s, floor)
		score, at, err := pl.earlyStop(ctx, v, v.problem(r), s)
		if err != nil {
			return false, err
		}
		c.Ridges, c.TrimFloors = append(c.Ridges, mu), append(c.TrimFloors, trimFloor(floor))
		c.Errors, c.Iterations = append(c.Errors, score), append(c.Iterations, at)
		if score >= best {
			return false, nil
		}
		best, c.Ridge, c.TrimFloor, c.Iteration = score, mu, trimFloor(floor), at
		return true, nil
	}
	tl, trimmed := s.Loss.(TrimmedL2)
	floor := tl.Floor
	ladder := func(k int) float64 { return base * math.Pow(2, float64(k)/2) }
	for k := ridgeTop; k >= ridgeBottom; k-- {
		better, err := try(ladder(k), floor)
		if err != nil {
			return c, err
		}
		if !better && best < math.Inf(1) {
			break
		}
	}
	// The best at the top: the residuals of an over-specified fit
	// underestimate the noise, and the ladder goes on upwards.
	for k := ridgeTop + 1; c.Ridge == c.Ridges[0] && k <= ridgeCeiling; k++ {
		better, err := try(ladder(k), floor)
		if err != nil {
			return c, err
		}
		if !better {
			break
		}
	}
	// An exactly low-rank matrix whose fit keeps small outliers (a
	// video's foreground) is not fitted exactly either: the harder
	// trimming of trimFloorExact, with the penalty chosen and without
	// one, frees it, where it would trim an image's edges.
	if trimmed && floor == 0 {
		for _, mu := range []float64{c.Ridge, 0} {
			if _, err := try(mu, trimFloorExact); err != nil {
				return c, err
			}
		}
	}
	if math.IsInf(best, 1) {
		return c, inputerr.New("ridge", nil, "no penalty gave a fit that did not fail")
	}
	return c, nil
}

// earlyStop runs the settings on the problem and scores its iterate every
// ridgeEvery iterations, and the last, by the clipped squares of
// heldOutError on the entries v holds out: it returns the least score and
// its iteration (+Inf and 0 for a run that failed).
func (pl pipeline) earlyStop(ctx context.Context, v validation, p scaledsm.Problem, s Settings) (float64, int, error) {
	best, at := math.Inf(1), 0
	s.Observer = func(t int, x scaledsm.Factors) {
		if t%ridgeEvery == 0 {
			if _, sq, _ := v.score(x, v.clip, 0); sq < best {
				best, at = sq, t
			}
		}
	}
	res, err := pl.fit(ctx, p, s)
	switch {
	case err != nil:
		return 0, 0, err
	case res.Status == scaledsm.Interrupted:
		return 0, 0, ctx.Err()
	case res.Status.Failed():
		return math.Inf(1), 0, nil
	}
	if _, sq, _ := v.score(res.Factors, v.clip, 0); sq < best {
		best, at = sq, res.Iterations
	}
	return best, at, nil
}

// heldOutError returns the mean |y - x| and the mean min((y - x)², b²)
// over the entries held out (test, with their observations testY) at the
// factors f, summed with compensation: the candidates' scores are
// compared to a few digits; and the fraction predicted to within floor.
func heldOutError(test *Entries, testY []float64, f scaledsm.Factors, b, floor float64) (abs, sq, exact float64) {
	x := make([]float64, len(testY))
	test.Apply(x, f)
	var a, q fsum.Sum
	within := 0
	for k, y := range testY {
		d := y - x[k]
		a.Add(math.Abs(d))
		q.Add(min(d*d, b*b))
		if math.Abs(d) <= floor {
			within++
		}
	}
	n := float64(len(x))
	return a.Value() / n, q.Value() / n, float64(within) / n
}

// needsPenalty reports whether AutoRidge validates a penalty for res, an
// unpenalized fit of p (see AutoRidge for when it does not).
func needsPenalty(p scaledsm.Problem, res *Result) bool {
	_, ok := p.Op.(*Entries)
	return ok && p.Reducer == nil && p.Truth == nil &&
		res.Status != scaledsm.Interrupted && !res.Status.Failed() && res.FitFraction < obs.ExactFraction && !cutShort(res)
}

// cutWindow is the iterations over which cutShort judges a fit's fall: the
// default Plateau's window.
const cutWindow = 50

// cutShort reports whether res stopped at the iteration limit before its
// fit could be judged: within cutWindow iterations, or while
// its loss still fell tenfold over the last cutWindow, as a fit
// of exact data converging linearly does (issue 36: `solve --iters 80` of
// a clean 10^7-entry completion, at 8.6e-6 and falling, was judged
// approximately low rank and validated ten penalties for 294 s). Neither
// another start nor a penalty is tried for it: more iterations would do.
func cutShort(res *Result) bool {
	if res.Status != scaledsm.IterationLimit {
		return false
	}
	n := len(res.Trace)
	return res.Iterations < cutWindow || n > cutWindow &&
		res.Trace[n-1].Loss < 0.1*res.Trace[n-1-cutWindow].Loss
}

// penalize finishes AutoRidge from res, the unpenalized fit of p with the
// resolved settings s: it returns res when it needs no penalty, and
// otherwise the refit with the penalty, floor and iterations that
// ChooseRidge chooses.
func (pl pipeline) penalize(ctx context.Context, p scaledsm.Problem, s Settings, res *Result) (*Result, error) {
	if !needsPenalty(p, res) {
		return res, nil
	}
	c, err := pl.chooseRidge(ctx, p, s, res.Factors)
	if err != nil {
		if ctx.Err() != nil {
			res.Status = scaledsm.Interrupted
			return res, nil
		}
		return nil, err
	}
	s.Ridge = c.Ridge
	s = withTrimFloor(s, c.TrimFloor)
	limit := s.MaxIter
	s.MaxIter = max(c.Iteration, 1)
	pen, err := pl.solve(ctx, p, s)
	if err != nil {
		return nil, err
	}
	if pen.Status == scaledsm.IterationLimit && s.MaxIter < limit {
		pen.Status = scaledsm.Validated
	}
	pen.RidgeChoice = &c
	return pen, nil
}
