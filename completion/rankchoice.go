package completion

import (
	"context"
	"math"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/inputerr"
	"github.com/scaledsm/scaledsm/internal/obs"
)

// RankChoice is how ChooseRank chose: the ranks fitted in order, the
// validation error of each (the mean |y - x| over the entries held out),
// and the rank chosen.
type RankChoice struct {
	Ranks  []int
	Errors []float64
	Rank   int
	// Exact reports that the fit at Rank fitted most of its entries and
	// predicted most of those held out to 10^-9 of their median |y|: an
	// exactly low-rank matrix, whose outliers, if any, the mean |y - x| of
	// Errors counts.
	Exact   bool
	Runtime time.Duration // wall time of the validation fits
}

// rankLadder are the ranks ChooseRank tries, in order, up to its limit.
var rankLadder = []int{1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500}

// Validation settings of ChooseRank: the fraction of the entries held out
// and the seed of the draw; the patience, ranks tried past the best before
// stopping; and the tolerance within which a smaller rank is as good as a
// larger: its error at most the best plus rankTolerance times the fall
// from rank 1's error to the best.
const (
	rankHoldout   = 0.05
	rankSeed      = 0x7a2c
	rankPatience  = 2
	rankTolerance = 0.005
)

// ChooseRank chooses the rank of an entry problem (Entries: matrix completion, robust PCA) by
// validation: it holds a seeded 5% of the entries out, fits the others with the settings s at the
// ranks 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, ... up to maxRank (SupportedRank of the entries
// fitted when 0), scores each fit by the mean |y - x| over the entries held out, stops two ranks
// past the best and returns the smallest rank whose error is within 0.5% of the fall from rank 1's
// error to the best (on an exactly low-rank X* fitted to 10^-9 of the median |y|, the first such rank).
// Absolute values, not squares: an outlier held out shifts every rank's score alike, while a fit
// that chases noise or outliers into a few large errors where entries are scarce pays for each.
// A rank whose fit fits most of the entries fitted and predicts most of those held out to
// 10^-9 of the median |y| is exact and ends the search (RankChoice.Exact); a smaller rank exact from the
// spectral start truncated harder (the largest 40% of |y| dropped) is taken instead. On data only
// approximately low rank the choice is the rank at which the matrix is best, not the largest one
// asked for (docs/rank.md, "Entries: the rank by validation").
func ChooseRank(ctx context.Context, p scaledsm.Problem, s Settings, maxRank int) (RankChoice, error) {
	return pipeline{}.chooseRank(ctx, p, s, maxRank)
}

// chooseRank is ChooseRank within the pipeline pl.
func (pl pipeline) chooseRank(ctx context.Context, p scaledsm.Problem, s Settings, maxRank int) (RankChoice, error) {
	e, ok := p.Op.(*Entries)
	if !ok {
		return RankChoice{}, inputerr.New("operator", nil, "ChooseRank needs entries (Entries); use AutoRank")
	}
	if p.Reducer != nil {
		return RankChoice{}, inputerr.New("rank", "auto", "is not chosen by validation over ranks; give the rank")
	}
	v, err := newValidation(p, e, "choosing the rank")
	if err != nil {
		return RankChoice{}, err
	}
	_, n1, n2 := e.Dims()
	if maxRank <= 0 {
		maxRank = scaledsm.SupportedRank(v.fitY.Len(), n1, n2, s.Truncation.Fraction)
	}
	maxRank = min(maxRank, n1, n2)
	if s.Ridge == AutoRidge {
		// The ranks are compared unpenalized; Solve chooses the
		// penalty of the rank chosen.
		s.Ridge = 0
	}
	t0 := time.Now()
	c, err := pl.validating().climbRanks(ctx, v, v.settings(s), maxRank)
	c.Runtime = time.Since(t0)
	return c, err
}

// climbRanks fits the ranks of rankLadder up to maxRank with the settings
// s and scores each on the entries v holds out, until one is exact, the
// patience runs out or a fit predicts them exactly; it returns the choice.
func (pl pipeline) climbRanks(ctx context.Context, v validation, s Settings, maxRank int) (RankChoice, error) {
	var c RankChoice
	best := math.Inf(1)
	since := 0
	var fits []*Result // the fits of the ranks tried, before an exact one
	for _, r := range rankLadder {
		if r > maxRank {
			break
		}
		res, err := pl.solve(ctx, v.problem(r), s)
		if err != nil {
			return c, err
		}
		if res.Status == scaledsm.Interrupted {
			return c, ctx.Err()
		}
		score, exact := math.Inf(1), 0.0
		if !res.Status.Failed() {
			score, _, exact = v.score(res.Factors, math.Inf(1), v.floor)
		}
		c.Ranks, c.Errors = append(c.Ranks, r), append(c.Errors, score)
		if res.FitFraction >= obs.ExactFraction && exact >= obs.ExactFraction {
			// Exact, outliers or not: the entries fitted and most of
			// those held out are predicted to the fit tolerance, which
			// no smaller rank did from its start; one may from another
			// (see restart), as an over-specified rank needs no start
			// near X*.
			c.Rank, c.Exact = r, true
			return c, pl.exactBelow(ctx, v, s, &c, fits)
		}
		fits = append(fits, res)
		if score < best {
			best, since = score, 0
		} else if since++; since >= rankPatience {
			break
		}
		if best <= v.floor {
			break // exact: no larger rank does better
		}
	}
	c.Rank = c.Ranks[0]
	for k, r := range c.Ranks {
		if c.Errors[k] <= max(best+rankTolerance*(c.Errors[0]-best), v.floor) {
			c.Rank = r
			break
		}
	}
	return c, nil
}

// exactBelow sets c.Rank to the smallest rank tried before the exact one
// whose fit (fits, in the order of c.Ranks), made again from the other
// starts (see restart), fits its entries exactly and predicts most of
// those held out to the fit tolerance.
func (pl pipeline) exactBelow(ctx context.Context, v validation, s Settings, c *RankChoice, fits []*Result) error {
	for k, f := range fits {
		again, err := pl.restart(ctx, v.problem(c.Ranks[k]), s, f, false)
		if err != nil {
			return err
		}
		if again.Restarted {
			if _, _, held := v.score(again.Factors, math.Inf(1), v.floor); held >= obs.ExactFraction {
				c.Rank = c.Ranks[k]
				return nil
			}
		}
	}
	return nil
}

// validation holds out a seeded rankHoldout of a problem's entries and
// scores fits of the others on them: what ChooseRank and ChooseRidge
// share.
type validation struct {
	fit   *Entries // the entries fitted
	fitY  obs.Obs
	test  *Entries // the entries held out
	testY []float64
	floor float64 // the fit tolerance in the observations' units
	clip  float64 // ChooseRidge's clip of the errors it squares
}

// newValidation checks p's observations, of the entries e, and holds out
// their share; what names the use in the error when too few are left to
// hold any out.
func newValidation(p scaledsm.Problem, e *Entries, what string) (validation, error) {
	p.Rank = scaledsm.AutoRank // to be chosen
	if err := p.Validate(); err != nil {
		return validation{}, err
	}
	y := observations(p)
	var v validation
	v.fit, v.fitY, v.test, v.testY = e.holdOut(y, rankHoldout, rankSeed)
	if len(v.testY) == 0 {
		return validation{}, inputerr.New("entries", nil, "%d are too few to hold any out for %s", y.Len(), what)
	}
	v.floor = obs.FitTolerance * y.FitScale()
	return v, nil
}

// problem is the problem of the entries fitted at rank r.
func (v validation) problem(r int) scaledsm.Problem {
	return scaledsm.Problem{Op: v.fit, Y: v.fitY.F64, Y32: v.fitY.F32, Rank: r}
}

// score is heldOutError of the factors f on the entries held out.
func (v validation) score(f scaledsm.Factors, clip, floor float64) (abs, sq, exact float64) {
	return heldOutError(v.test, v.testY, f, clip, floor)
}

// settings are the settings s of the validation fits: from their own
// starts, stopped when the loss levels off (see Plateau) unless s has a
// Converger, as the scores need a few digits, not a fit to 1e-12.
func (v validation) settings(s Settings) Settings {
	s.Init = nil
	if s.Converger == nil {
		s.Converger = scaledsm.Plateau{}
	}
	return s
}

// ValidationBytes is the memory, in bytes, that choosing the rank or the
// penalty by validation (ChooseRank, ChooseRidge, and AutoRank and
// AutoRidge, which use them) holds for m entries of an n1×n2 matrix beyond
// what a run on them holds: the entries split into those fitted and those
// held out (a column index and an observation each, and the row starts of
// both), and the residuals of the fit that ChooseRidge starts from. The
// runs on the entries fitted hold no more than a run on all of them.
func ValidationBytes(m, n1 int) int64 {
	return int64(m)*(4+8+8) + 2*8*int64(n1+1)
}
