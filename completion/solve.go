package completion

import (
	"context"
	"time"

	"github.com/scaledsm/scaledsm"
)

// Settings say how Solve fits entries: the settings of each fit, with
// Ridge = AutoRidge for a penalty chosen by validation, and the policy's
// own. The zero value's fits are package scaledsm's zero Settings;
// DefaultSettings are the entry models' defaults.
type Settings struct {
	scaledsm.Settings

	// OneStart keeps AutoRidge to the fit from the first start: without
	// it, a fit of entries that is not exact is made again from other
	// starts (see Choices.Restarted), each with its own MaxIter, and
	// Result.Fits names every one.
	OneStart bool

	// Polish says whether the last stage on robust PCA may complete the
	// entries its fit does not mark as outliers (see Polish and
	// Choices.Polished); the zero value, PolishAuto, lets it.
	Polish Polish
}

// DefaultSettings returns the entry models' settings: ScaledGD on
// TrimmedL2 with the constant step 0.5, which converges linearly with
// outliers at a rate that does not depend on the condition number (the l1
// loss converges only sublinearly on entries), the Plateau stop for data
// without a truth, and AutoRidge: a fit that is not exact gets a penalty,
// a trimming floor and a number of iterations chosen on entries held out.
func DefaultSettings() Settings {
	return Settings{Settings: scaledsm.Settings{Method: scaledsm.ScaledGD, Loss: TrimmedL2{},
		Step: scaledsm.Constant{Eta: 0.5}, Converger: scaledsm.Plateau{}, Ridge: AutoRidge}}
}

// resolve fills in the defaults of the fits' settings (see
// scaledsm.Settings.Resolved) and checks them, keeping AutoRidge.
func (s *Settings) resolve() error {
	ridge := s.Ridge
	if ridge == AutoRidge {
		s.Ridge = 0 // checked as none: the policy chooses it
	}
	r, err := s.Settings.Resolved()
	if err != nil {
		return err
	}
	s.Settings, s.Ridge = r, ridge
	return nil
}

// Validate reports the first invalid setting, as an *InputError (see
// scaledsm.Settings.Validate), AutoRidge allowed.
func (s Settings) Validate() error { return s.resolve() }

// Result is what Solve produced: the fit it kept, what the policy chose
// for it, and the other fits it made.
type Result struct {
	scaledsm.Result
	Choices
	// Fits are the fits Solve made besides this one, in order (see Fit).
	Fits []Fit
	fit  int // this fit's place in its Solve's log, from 1 (see fitLog)
}

// Choices is what the policy chose for a fit, and what that took: the
// rank and the penalty by validation, another start, the polish, the
// trimming floor.
type Choices struct {
	// RankChoice, with Problem.Rank = AutoRank on entries, is how the rank
	// was chosen by validation (see ChooseRank); nil otherwise.
	RankChoice *RankChoice
	// RidgeChoice, with Settings.Ridge = AutoRidge, is how the penalty
	// was chosen by validation (see ChooseRidge); nil when the
	// unpenalized fit was kept.
	RidgeChoice *RidgeChoice
	// Restarted, with Settings.Ridge = AutoRidge, reports that the fit
	// from the default start fitted the entries inexactly and that this
	// one, from the start RestartStart (the spectral start truncated at
	// the largest 40% of |y| dropped, or ConvexStart), fits them
	// exactly.
	Restarted         bool
	RestartStart      scaledsm.Start
	RestartTruncation scaledsm.Truncation // the truncation of RestartStart, for SpectralStart
	// Polished, with Settings.Ridge = AutoRidge on robust PCA, is the
	// number of the polish's rounds kept (see Polish): the factors are
	// then those of the completion of the entries the fit did not mark,
	// and RelError, Loss, the evidence and the singular values are
	// theirs, while Status, Iterations and Trace are the fit's.
	Polished  int
	TrimFloor float64 // with TrimmedL2, the floor of its factor (TrimmedL2.Floor, 4.5 for its 0)

	FirstRuntime  time.Duration // with Restarted, the earlier fits' Runtime
	PolishRuntime time.Duration // wall time of the polish, kept or not
}

// Solve fits the problem with the settings s: one fit (package
// scaledsm's), unless the problem asks for a choice, the rank
// (Problem.Rank = scaledsm.AutoRank) or the penalty (s.Ridge = AutoRidge),
// when the stages of the policy run (see pipeline.solve). It returns an
// *InputError naming the input at fault when the problem or the settings
// are invalid; otherwise the result's Status says how the fit it kept
// ended. Cancelling ctx stops it with status Interrupted.
func Solve(ctx context.Context, p scaledsm.Problem, s Settings) (*Result, error) {
	log := &fitLog{}
	res, err := pipeline{log: log}.solve(ctx, p, s)
	if res != nil {
		res.Fits = log.others(res)
	}
	return res, err
}
