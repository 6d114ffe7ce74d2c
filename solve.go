package scaledsm

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
	"gonum.org/v1/gonum/mat"
)

// Problem is what is to be recovered: observations y = A(X*) + w + s of a
// rank-r matrix through an operator.
type Problem struct {
	Op   Operator
	Y    []float64 // observations, length m
	Rank int       // r, the rank of X*, an upper bound on it, or AutoRank

	// Y32, given instead of Y, holds the observations in single
	// precision, in half the memory: for matrix completion (package
	// completion's Entries) on one process, when the values are float32
	// exactly, as ratings and 8-bit images are. The solve is the one of
	// Y = float64(Y32), to the bit, whatever the settings; the convex
	// start alone takes a float64 copy.
	Y32 []float32

	// Truth, when known, is X*, as a matrix or as its Factors (which the
	// solver never forms when that would cost more than measuring the
	// errors from the factors). The relative error ||X_t - X*||_F/||X*||_F
	// is then traced and used to stop, and Polyak's step computes
	// f(X_t) - f(X*) from it. Without it, a run stops when the iterate stops
	// moving: ||X_t - X_{t-1}||_F/||X_{t-1}||_F <= Tol.
	Truth mat.Matrix

	// Clean declares the observations free of outliers (the command
	// line's --ps 0). A run without a truth that stops moving yet leaves
	// whole rows or columns of entries unfitted (see Evidence) then ends
	// Partial: on such data that is no recovery.
	Clean bool

	// Reducer, when not nil, makes this a shard of a problem solved on
	// several ranks (see ranks.Reducer): Op and Y hold this rank's measurements,
	// which come after those of the lower ranks, and Truth and Rank are the
	// whole problem's. Every rank calls Solve with the same Settings.
	Reducer ranks.Reducer
}

// Settings say how a Problem is solved. The zero value runs ScaledSM on the
// l1 loss with the automatic step (Auto) and the automatic damping (see
// Damping) for up to 1000 iterations to a tolerance of 1e-12, from the
// spectral initialization that drops the observations above three times
// their median magnitude.
type Settings struct {
	Method Method
	Loss   Loss // nil means the method's own (Method.DefaultLoss)
	Step   Step // nil means Auto{}, which needs no f(X*); Constant{Eta: 0.5} under completion.TrimmedL2

	MaxIter int     // iteration limit T of a fit; 0 means 1000
	Tol     float64 // stop at this relative error (or change); 0 means 1e-12; negative never stops early

	// Init, when not nil, is the starting point; otherwise the
	// initialization Start names: the spectral one (Spectral, the zero
	// value) with the truncation Truncation, small random factors (Random) of
	// relative size InitScale (0 means 1e-3) drawn from Seed,
	// or the convex relaxation's estimate of an operator that has one
	// (ConvexStart).
	Init       *Factors
	Truncation Truncation
	Start      Start
	InitScale  float64
	Seed       uint64

	// Ridge is the penalty μ >= 0 of μ/2 (||L||²_F + ||R||²_F) added to the
	// loss. At balanced factors it is μ ||L Rᵀ||_*, the nuclear norm, whose
	// minimizer shrinks every singular value of the unpenalized fit by μ
	// (in the loss's units: for entries, those of the whole matrix, the
	// sum of squares scaled by n1 n2/m): on data that are only
	// approximately low rank the directions that would fit noise stay
	// small, and a larger rank no longer gives a worse fit. 0, the zero
	// value, is no penalty (package completion chooses μ by validation). A
	// penalty applies to X = L Rᵀ on one process, with a step that does
	// not rest on f(X*) (Constant, Geometric).
	Ridge float64

	// Damping of the scaled methods' preconditioner (see Damping); the
	// zero value is the automatic rule, which fades as the fit becomes
	// exact and keeps an over-specified rank fast.
	Damping Damping

	// Converger, when not nil, may end a run early (see Converger).
	Converger Converger

	// Recorder, when not nil, is called after every iteration with its
	// record, for progress reports.
	Recorder func(Iteration)

	// Observer, when not nil, is shown each iterate X_t once its pass is
	// made, before the run moves from it (package completion scores its
	// fits on entries held out so, to stop them early).
	Observer func(t int, x Factors)
}

// A Converger can end a run before its tolerance or iteration limit, as
// gonum/optimize's Converger does: after the record of every iteration,
// Converged is given the trace so far and returns the status to stop
// with, and stop = true to stop.
type Converger interface {
	Converged(trace []Iteration) (status Status, stop bool)
}

// Iteration is the record of one iteration t: the state at X_t and the step
// taken from it.
type Iteration struct {
	Iter     int     // t, from 0 (the initialization)
	RelError float64 // ||X_t - X*||_F/||X*||_F; NaN without a truth
	Change   float64 // ||X_t - X_{t-1}||_F/||X_{t-1}||_F; NaN at t = 0
	Loss     float64 // f(X_t)
	// Gap is the estimate of f(X_t) - f(X*) that the step rule rests on:
	// Polyak's numerator, Auto's estimate; NaN for a rule without one and
	// at the last record.
	Gap        float64
	Step       float64 // η_t; NaN at the last record, from which no step is taken
	StepLength float64 // η_t · Norm: the distance moved in the method's metric
}

// Status is why a run stopped.
type Status int

const (
	// Converged: the problem has a truth, and the relative error reached
	// the tolerance.
	Converged Status = iota
	// IterationLimit: MaxIter updates were made without converging.
	IterationLimit
	// Diverged: the relative error exceeded 1e3, the loss grew beyond 1e3
	// times its value at the start, or the error or loss was not finite.
	Diverged
	// Singular: a factor's Gram matrix was zero or not finite, so the
	// scaled direction does not exist even through the pseudo-inverse.
	Singular
	// Stalled: the step rule gave a zero step (for Polyak, f(X_t) <= f(X*),
	// the iterate fits the data as well as the truth does) or the
	// subgradient vanished; the iterate can no longer move.
	Stalled
	// Interrupted: the context was cancelled; the result is the last
	// iterate reached.
	Interrupted
	// Stationary: the problem has no truth, and the iterate stopped moving
	// (its relative change reached the tolerance). That alone does not say
	// X* was recovered, as a step that shrinks too fast stops any iterate:
	// Result.FitFraction and the loss are the evidence.
	Stationary
	// Plateaued: the problem has no truth, and the loss stopped falling
	// (see Plateau): the method gets no closer to data that are only
	// approximately low rank or noisy. Result.FitFraction and the loss say
	// how well the iterate fits.
	Plateaued
	// Validated: the problem has no truth, and the run made the number of
	// iterations at which a fit of most of the entries predicted those
	// held out best (package completion's choice of the penalty): further
	// iterations would fit noise.
	Validated
	// Partial: the problem has no truth, the iterate stopped moving and
	// fits most of the measurements exactly, but the data were declared
	// free of outliers (Problem.Clean) and whole rows or columns are
	// mostly unfitted or were found gross (see Evidence): X* is not
	// recovered there.
	Partial
)

var statusNames = [...]string{
	Converged:      "converged",
	IterationLimit: "iteration-limit",
	Diverged:       "diverged",
	Singular:       "singular",
	Stalled:        "stalled",
	Interrupted:    "interrupted",
	Stationary:     "stationary",
	Plateaued:      "plateau",
	Validated:      "validated",
	Partial:        "partial",
}

// String returns the status as one word, as the command line prints it.
func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// MarshalText encodes the status as its String.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Failed reports whether the status is a numerical failure: Diverged or
// Singular.
func (s Status) Failed() bool { return s == Diverged || s == Singular }

// Result is what a run produced: the last iterate and how the run ended,
// its spectrum and what it measured (Stats, embedded: res.Runtime is
// res.Stats.Runtime).
type Result struct {
	Factors                // the last iterate
	Status     Status      // why the run stopped
	Iterations int         // updates made before the stop
	RelError   float64     // final relative error; NaN without a truth
	Loss       float64     // final loss
	Trace      []Iteration // one record per iterate, 0 ... Iterations
	// SingularValues are those of the last iterate L Rᵀ, largest first,
	// computed from QR factorizations of the factors (never forming
	// L Rᵀ), and EffectiveRank is its effective rank (at the largest gap
	// of the spectrum, see AutoRank); with Problem.Rank = AutoRank, those
	// of the over-specified fit that the rank was read from (the factors
	// have EffectiveRank columns).
	SingularValues []float64
	EffectiveRank  int
	Stats
}

// Stats is what a run measured besides its iterate: the evidence of
// recovery, the preconditioner's fallbacks and the wall times.
type Stats struct {
	// FitFraction is the fraction of the measurements that the last
	// iterate fits exactly, to 10^-9 times the median |y_i|:
	// evidence of recovery that needs no truth. Without dense noise, an
	// exact recovery fits every measurement but the outliers, a fraction
	// 1 - p_s; an iterate far from X* fits almost none. Evidence says
	// how many are unfitted and, on entries, where.
	FitFraction float64
	Evidence
	Fallbacks   int           // updates whose preconditioner needed the pseudo-inverse
	Runtime     time.Duration // wall time of the iterations (initialization excluded)
	InitRuntime time.Duration // wall time of the initialization (a given Settings.Init: its checks)
}

// divergenceThreshold is the relative error beyond which a run is declared
// diverged, as in the paper's experiments, and the factor by which the
// loss may grow from its value at the start before it is.
const divergenceThreshold = 1e3

// Solve runs settings.Method on the problem. It returns an error, an
// *InputError naming the input at fault, when the problem or the settings
// are invalid; otherwise the result's Status says how the run ended.
// Cancelling ctx stops the run after the current iteration with status
// Interrupted. With Problem.Rank = AutoRank it fits twice (see AutoRank).
func Solve(ctx context.Context, p Problem, s Settings) (*Result, error) {
	if p.Rank != AutoRank {
		return fit(ctx, p, s)
	}
	if p.Op == nil {
		return nil, inputError("operator", nil, "the problem has none")
	}
	if err := s.resolve(); err != nil {
		return nil, err
	}
	return overspecified(ctx, p, s)
}

// fit makes one fit of p with the settings s from its initialization.
func fit(ctx context.Context, p Problem, s Settings) (*Result, error) {
	t0 := time.Now()
	u, err := start(ctx, p, s)
	if err != nil {
		return nil, err
	}
	u.start = time.Now() // the iterations' time, apart from the start's
	u.res.InitRuntime = u.start.Sub(t0)
	u.runOut(ctx)
	res := u.res
	return &res, nil
}

// start validates a problem and its settings and readies a run from the
// given, the spectral, a random or the convex initialization.
func start(ctx context.Context, p Problem, s Settings) (*run, error) {
	if err := validate(p, &s); err != nil {
		return nil, err
	}
	init, err := Initial(ctx, p, s)
	if err != nil {
		return nil, err
	}
	return newRun(p, s, init)
}

// A y32Reader is an operator whose pass reads float32 observations
// (Evaluation.Y32), so that a problem of it may give Problem.Y32.
type y32Reader interface{ ReadsY32() bool }

// checkObservations checks that the problem has m observations, all
// finite, in Y or, for an operator that reads them on one process, in
// Y32.
func (p Problem) checkObservations(m int) error {
	name, o := "y", p.observations()
	if p.Y32 != nil {
		name = "y32"
		if p.Y != nil {
			return inputError("y32", nil, "given with y: give the observations once")
		}
		if r, ok := p.Op.(y32Reader); !ok || !r.ReadsY32() || p.Reducer != nil {
			return inputError("y32", nil, "applies to matrix completion (Entries) on one process; give y")
		}
	}
	if o.Len() == 0 {
		return inputError(name, nil, "no observations")
	}
	if o.Len() != m {
		return inputError(name, nil, "%d observations, want m = %d, one per measurement", o.Len(), m)
	}
	if i := o.FirstNonFinite(); i >= 0 {
		return inputError(name, nil, "observation %d is %v", i, o.At(i))
	}
	return nil
}

// Validate reports the first invalid part of the problem, as an
// *InputError: no operator, observations that are not one per measurement
// or not all finite (or float32 ones for an operator that reads none), a
// rank outside [1, min(n1, n2)] (AutoRank passes), a truth of another
// shape.
func (p Problem) Validate() error {
	if p.Op == nil {
		return inputError("operator", nil, "the problem has none")
	}
	m, n1, n2 := p.Op.Dims()
	if err := p.checkObservations(m); err != nil {
		return err
	}
	if p.Rank != AutoRank && (p.Rank < 1 || p.Rank > min(n1, n2)) {
		return inputError("rank", p.Rank, "must lie in [1, min(n1, n2)] = [1, %d]", min(n1, n2))
	}
	if p.Truth != nil {
		if r, c := p.Truth.Dims(); r != n1 || c != n2 {
			return inputError("truth", nil, "%d×%d, want %d×%d", r, c, n1, n2)
		}
	}
	return nil
}

// validate checks a problem and settings and fills in defaults.
func validate(p Problem, s *Settings) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if p.Rank == AutoRank {
		return inputError("rank", "auto", "is resolved by Solve alone, which fits twice; give a batch job its rank")
	}
	if err := s.resolve(); err != nil {
		return err
	}
	if s.Ridge > 0 && p.Reducer != nil {
		return inputError("ridge", s.Ridge, "applies to a problem on one process")
	}
	if s.Ridge > 0 && p.Op.Symmetric() {
		return inputError("ridge", s.Ridge, "applies to X = L Rᵀ, not to a symmetric operator's X = L Lᵀ")
	}
	if s.Init != nil {
		if err := s.Init.Validate(p.Op, p.Rank); err != nil {
			return err
		}
	}
	return nil
}

// Validate reports the first invalid setting, as an *InputError, without
// a problem: what Solve checks of the settings alone, so that a program can
// refuse bad settings before it loads a problem.
func (s Settings) Validate() error { return s.resolve() }

// Resolved returns the settings as Solve reads them, with each zero field
// that stands for a default (Loss, Step, MaxIter, Tol, InitScale) set to
// it, and Validate's error.
func (s Settings) Resolved() (Settings, error) {
	err := s.resolve()
	return s, err
}

// resolve checks the settings and fills in their defaults.
func (s *Settings) resolve() error {
	if !s.Method.valid() {
		return inputError("method", s.Method, "unknown")
	}
	if s.Loss == nil {
		s.Loss = s.Method.DefaultLoss()
	}
	if !s.Loss.Base().valid() {
		return inputError("loss", s.Loss, "unknown")
	}
	if v, ok := s.Loss.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	if s.Method.Smooth() && !s.Loss.Base().Smooth() {
		return inputError("loss", s.Loss, "%v is a gradient method and needs the smooth loss l2sq (the subgradient methods minimize %v)", s.Method, s.Loss)
	}
	_, tracked := s.Loss.(trackedLoss)
	switch {
	case s.Step == nil && tracked:
		s.Step = Constant{Eta: 0.5}
	case s.Step == nil:
		s.Step = Auto{}
	}
	if tracked {
		switch s.Step.(type) {
		case Constant, Geometric:
		default:
			return inputError("step", s.Step, "%v rests on f(X) - f(X*), which %v's moving state does not keep; use a constant or geometric step", s.Step, s.Loss)
		}
	}
	for _, part := range []any{s.Step, s.Converger} { // those that check themselves
		if v, ok := part.(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				return err
			}
		}
	}
	switch {
	case s.MaxIter < 0:
		return inputError("iterations", s.MaxIter, "the iteration limit must be positive (0 means 1000)")
	case s.MaxIter == 0:
		s.MaxIter = 1000
	}
	switch {
	case math.IsNaN(s.Tol):
		return inputError("tol", s.Tol, "must be a number")
	case s.Tol == 0:
		s.Tol = 1e-12
	}
	if err := s.Truncation.validate(); err != nil {
		return err
	}
	if err := s.validateRidge(); err != nil {
		return err
	}
	if !s.Start.valid() {
		return inputError("init", s.Start, "unknown initialization")
	}
	if math.IsNaN(s.InitScale) || math.IsInf(s.InitScale, 0) || s.InitScale < 0 {
		return inputError("init scale", s.InitScale, "must be positive and finite (0 means %g)", defaultInitScale)
	}
	s.InitScale = s.initScale()
	return s.Damping.validate()
}

// validateRidge checks Settings.Ridge: a finite μ >= 0, and
// a penalty with a step that does not rest on f(X*), which a penalty
// changes.
func (s *Settings) validateRidge() error {
	if s.Ridge == 0 {
		return nil
	}
	if !(s.Ridge > 0) || math.IsInf(s.Ridge, 0) {
		return inputError("ridge", s.Ridge, "must be positive and finite (0: none; package completion's AutoRidge chooses it by validation)")
	}
	switch s.Step.(type) {
	case Constant, Geometric:
		return nil
	}
	return inputError("step", s.Step, "%v rests on f(X*), which a ridge penalty moves; use a constant or geometric step", s.Step)
}

// Validate reports factors that are not those of a rank-rank start for
// op, as an *InputError: L n1×rank, and R n2×rank or, for a symmetric
// operator, nil.
func (f Factors) Validate(op Operator, rank int) error {
	_, n1, n2 := op.Dims()
	if f.L == nil {
		return inputError("init", nil, "the initial factors have no L")
	}
	if r, c := f.L.Dims(); r != n1 || c != rank {
		return inputError("init", nil, "initial L is %d×%d, want %d×%d", r, c, n1, rank)
	}
	if op.Symmetric() {
		if f.R != nil {
			return inputError("init", nil, "initial R given for a symmetric operator, which uses X = L Lᵀ")
		}
		return nil
	}
	if f.R == nil {
		return inputError("init", nil, "the initial factors have no R")
	}
	if r, c := f.R.Dims(); r != n2 || c != rank {
		return inputError("init", nil, "initial R is %d×%d, want %d×%d", r, c, n2, rank)
	}
	return nil
}

// TruthLoss returns f(X*), the loss l of the residuals A(X*) - y at the
// truth (over all the ranks of a sharded problem), or NaN when the problem
// has none.
func (p Problem) TruthLoss(l Standard) float64 {
	if p.Truth == nil || p.Op == nil {
		return math.NaN()
	}
	m, _, _ := p.Op.Dims()
	z := make([]float64, m)
	p.Op.Apply(z, p.Truth)
	y := p.observations()
	for i := range z {
		z[i] -= y.At(i)
	}
	f, _ := l.valueOver(z, isometry(p.Op), reduce.Over(p.Reducer), false)
	return f
}

// Spectral returns the truncated spectral initialization of Section 4 for
// rank p.Rank: it leaves out the observations that trim drops (see
// Truncated) and asks the operator for its spectral estimate from the rest,
// over the ranks of a sharded problem. The operator must be a
// SpectralOperator; the models of this package are.
func (p Problem) Spectral(trim Truncation) (Factors, error) {
	if p.Op == nil {
		return Factors{}, inputError("operator", nil, "the problem has none")
	}
	return spectral(p.Op, p.observations(), p.Rank, trim, reduce.Over(p.Reducer))
}
