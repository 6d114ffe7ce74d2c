package scaledsm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Problem is what is to be recovered: observations y = A(X*) + w + s of a
// rank-r matrix through an operator.
type Problem struct {
	Op   Operator
	Y    []float64 // observations, length m
	Rank int       // r, the rank of X*

	// Truth, when known, is X*: the relative error ||X_t - X*||_F/||X*||_F
	// is then traced and used to stop. Without it, a run stops when the
	// iterate stops moving: ||X_t - X_{t-1}||_F/||X_{t-1}||_F <= Tol.
	Truth mat.Matrix
}

// Settings say how a Problem is solved. The zero value runs ScaledSM on the
// l1 loss with the automatic step (Auto) for up to 1000 iterations to a
// tolerance of 1e-12, from the plain spectral initialization.
type Settings struct {
	Method Method
	Loss   Loss // DefaultLoss means the method's own (Method.DefaultLoss)
	Step   Step // nil means Auto{}, which needs no f(X*)

	MaxIter int     // iteration limit T; 0 means 1000
	Tol     float64 // stop at this relative error (or change); 0 means 1e-12; negative never stops early

	// Init, when not nil, is the starting point; otherwise the truncated
	// spectral initialization drops the ceil(InitTrim·m) observations of
	// largest magnitude (InitTrim in [0, 0.5); 0 is the plain spectral
	// method), or, for InitTrim = MedianTrim, those above 3·median|y|, a rule
	// that needs no p_s (see Trimmed).
	Init     *Factors
	InitTrim float64

	// Recorder, when not nil, is called after every iteration with its
	// record, for progress reports.
	Recorder func(Iteration)
}

// Factors are the factors of X = L Rᵀ; R is nil for X = L Lᵀ.
type Factors struct {
	L, R *mat.Dense
}

// Product returns L Rᵀ, or L Lᵀ when R is nil.
func (f Factors) Product() *mat.Dense {
	r := f.R
	if r == nil {
		r = f.L
	}
	var x mat.Dense
	x.Mul(f.L, r.T())
	return &x
}

// Iteration is the record of one iteration t: the state at X_t and the step
// taken from it.
type Iteration struct {
	Iter       int     // t, from 0 (the initialization)
	RelError   float64 // ||X_t - X*||_F/||X*||_F; NaN without a truth
	Change     float64 // ||X_t - X_{t-1}||_F/||X_{t-1}||_F; NaN at t = 0
	Loss       float64 // f(X_t)
	Step       float64 // η_t; NaN at the last record, from which no step is taken
	StepLength float64 // η_t · Norm: the distance moved in the method's metric
}

// Status is why a run stopped.
type Status int

const (
	// Converged: the relative error (or, without a truth, the relative
	// change of the iterate) reached the tolerance.
	Converged Status = iota
	// IterationLimit: MaxIter updates were made without converging.
	IterationLimit
	// Diverged: the relative error exceeded 1e3, or the error or loss was
	// not finite.
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
)

var statusNames = [...]string{
	Converged:      "converged",
	IterationLimit: "iteration-limit",
	Diverged:       "diverged",
	Singular:       "singular",
	Stalled:        "stalled",
	Interrupted:    "interrupted",
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

// Result is what a run produced.
type Result struct {
	Factors                  // the last iterate
	Status     Status        // why the run stopped
	Iterations int           // updates made before the stop
	RelError   float64       // final relative error; NaN without a truth
	Loss       float64       // final loss
	Trace      []Iteration   // one record per iterate, 0 ... Iterations
	Fallbacks  int           // updates whose preconditioner needed the pseudo-inverse
	Runtime    time.Duration // wall time of the iterations (initialization excluded)
}

// DivergenceThreshold is the relative error beyond which a run is declared
// diverged, as in the paper's experiments.
const DivergenceThreshold = 1e3

// Solve runs settings.Method on the problem. It returns an error, naming the
// input at fault, when the problem or the settings are invalid; otherwise
// the result's Status says how the run ended. Cancelling ctx stops the run
// after the current iteration with status Interrupted.
func Solve(ctx context.Context, p Problem, s Settings) (*Result, error) {
	run, err := start(p, s)
	if err != nil {
		return nil, err
	}
	for !run.done {
		run.measure()
		p.Op.Evaluate(run.eval)
		run.advance(ctx)
	}
	run.finish()
	return &run.res, nil
}

// start validates a problem and its settings and readies a run from the
// given or the spectral initialization.
func start(p Problem, s Settings) (*run, error) {
	if err := validate(p, &s); err != nil {
		return nil, err
	}
	init := s.Init
	if init == nil {
		l, r, err := Spectral(p.Op, p.Y, p.Rank, s.InitTrim)
		if err != nil {
			return nil, err
		}
		init = &Factors{L: l, R: r}
	}
	return newRun(p, s, *init), nil
}

// validate checks a problem and settings and fills in defaults.
func validate(p Problem, s *Settings) error {
	if p.Op == nil {
		return errors.New("scaledsm: problem has no operator")
	}
	m, n1, n2 := p.Op.Dims()
	if len(p.Y) != m {
		return fmt.Errorf("scaledsm: observations y have length %d, want m = %d", len(p.Y), m)
	}
	if i := firstNonFinite(p.Y); i >= 0 {
		return fmt.Errorf("scaledsm: observation y[%d] is %v", i, p.Y[i])
	}
	if p.Rank < 1 || p.Rank > min(n1, n2) {
		return fmt.Errorf("scaledsm: rank %d must lie in [1, min(n1, n2)] = [1, %d]", p.Rank, min(n1, n2))
	}
	if p.Truth != nil {
		if r, c := p.Truth.Dims(); r != n1 || c != n2 {
			return fmt.Errorf("scaledsm: truth is %d×%d, want %d×%d", r, c, n1, n2)
		}
	}
	if !s.Method.valid() {
		return fmt.Errorf("scaledsm: unknown method %v", s.Method)
	}
	if !s.Loss.valid() {
		return fmt.Errorf("scaledsm: unknown loss %v", s.Loss)
	}
	if s.Loss == DefaultLoss {
		s.Loss = s.Method.DefaultLoss()
	}
	if s.Method.Smooth() && !s.Loss.Smooth() {
		return fmt.Errorf("scaledsm: method %v is a gradient method and needs the smooth loss l2sq, not %v (the subgradient methods minimize it)", s.Method, s.Loss)
	}
	if s.Step == nil {
		s.Step = Auto{}
	}
	if v, ok := s.Step.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("scaledsm: %w", err)
		}
	}
	switch {
	case s.MaxIter < 0:
		return fmt.Errorf("scaledsm: iteration limit %d must be positive", s.MaxIter)
	case s.MaxIter == 0:
		s.MaxIter = 1000
	}
	switch {
	case math.IsNaN(s.Tol):
		return errors.New("scaledsm: tolerance is NaN")
	case s.Tol == 0:
		s.Tol = 1e-12
	}
	if !validTrim(s.InitTrim) {
		return fmt.Errorf("scaledsm: initialization trim %v must lie in [0, 0.5) or be MedianTrim", s.InitTrim)
	}
	if s.Init != nil {
		if err := checkFactors(*s.Init, p.Op, p.Rank); err != nil {
			return err
		}
	}
	return nil
}

func checkFactors(f Factors, op Operator, rank int) error {
	_, n1, n2 := op.Dims()
	if f.L == nil {
		return errors.New("scaledsm: initial factors have no L")
	}
	if r, c := f.L.Dims(); r != n1 || c != rank {
		return fmt.Errorf("scaledsm: initial L is %d×%d, want %d×%d", r, c, n1, rank)
	}
	if op.Symmetric() {
		if f.R != nil {
			return errors.New("scaledsm: initial R given for a symmetric operator, which uses X = L Lᵀ")
		}
		return nil
	}
	if f.R == nil {
		return errors.New("scaledsm: initial factors have no R")
	}
	if r, c := f.R.Dims(); r != n2 || c != rank {
		return fmt.Errorf("scaledsm: initial R is %d×%d, want %d×%d", r, c, n2, rank)
	}
	return nil
}

// run is the state of one solve, advanced one iteration at a time.
type run struct {
	p     Problem
	s     Settings
	eval  *Evaluation
	sym   bool
	truth *mat.Dense
	tnorm float64

	l, r    *mat.Dense // current factors
	dl, dr  *mat.Dense // directions
	pl, pr  preconditioner
	x, prev *mat.Dense // X_t, X_{t-1}
	rt      []float64  // scratch of product

	res   Result
	cur   Iteration // the record of iteration t, under way
	t     int
	done  bool
	start time.Time
}

func newRun(p Problem, s Settings, init Factors) *run {
	_, n1, n2 := p.Op.Dims()
	u := &run{p: p, s: s, sym: p.Op.Symmetric(), start: time.Now()}
	u.eval = NewEvaluation(p.Op, p.Rank)
	u.eval.Y = p.Y
	u.eval.Weight = s.Loss.weight()
	u.l = mat.DenseCopyOf(init.L)
	u.dl = mat.NewDense(n1, p.Rank, nil)
	if !u.sym {
		u.r = mat.DenseCopyOf(init.R)
		u.dr = mat.NewDense(n2, p.Rank, nil)
	}
	u.x = mat.NewDense(n1, n2, nil)
	u.prev = mat.NewDense(n1, n2, nil)
	u.rt = make([]float64, p.Rank*n2)
	if p.Truth != nil {
		u.truth = mat.DenseCopyOf(p.Truth)
		u.tnorm = mat.Norm(u.truth, 2)
	}
	return u
}

// measure forms X_t, its errors, and readies the evaluation at it: the
// first half of an iteration, before the operator's pass.
func (u *run) measure() {
	u.x, u.prev = u.prev, u.x
	right := u.r
	if u.sym {
		right = u.l
	}
	product(u.x, u.l, right, u.rt)

	it := Iteration{Iter: u.t, RelError: math.NaN(), Change: math.NaN(), Step: math.NaN(), StepLength: math.NaN()}
	if u.truth != nil {
		it.RelError = distance(u.x, u.truth) / u.tnorm
	}
	if u.t > 0 {
		it.Change = distance(u.x, u.prev) / frobenius(u.prev)
	}
	u.cur = it
	u.eval.L, u.eval.R = u.l, u.r
}

// advance finishes iteration t once the operator has evaluated u.eval: it
// records the iteration and either stops or steps to X_{t+1}.
func (u *run) advance(ctx context.Context) {
	it := u.cur
	it.Loss = u.s.Loss.Value(u.eval.Z)

	finite := !math.IsNaN(it.Loss) && !math.IsInf(it.Loss, 0)
	switch {
	case !finite || (u.truth != nil && !(it.RelError <= DivergenceThreshold)):
		u.record(it, Diverged)
		return
	case u.truth != nil && it.RelError <= u.s.Tol,
		u.truth == nil && it.Change <= u.s.Tol:
		u.record(it, Converged)
		return
	case u.t >= u.s.MaxIter:
		u.record(it, IterationLimit)
		return
	case ctx.Err() != nil:
		u.record(it, Interrupted)
		return
	}

	norm2, ok := u.directions(it.Loss)
	if !ok {
		u.record(it, Singular)
		return
	}
	norm := math.Sqrt(norm2)
	eta := u.s.Step.Size(&StepContext{
		Iter: u.t, Loss: it.Loss, Norm: norm,
		Residuals: u.eval.Z, Trace: u.res.Trace, Objective: u.s.Loss,
	})
	if !(eta > 0) || math.IsInf(eta, 0) {
		it.Step, it.StepLength = 0, 0
		u.record(it, Stalled)
		return
	}
	it.Step, it.StepLength = eta, eta*norm
	// Both factors move from the old pair: the directions were computed
	// before either update.
	u.dl.Scale(eta, u.dl)
	u.l.Sub(u.l, u.dl)
	if !u.sym {
		u.dr.Scale(eta, u.dr)
		u.r.Sub(u.r, u.dr)
	}
	u.record(it, -1)
	u.t++
}

// directions sets the search directions from the factor subgradients and
// returns the squared norm of the subgradient in the method's metric.
func (u *run) directions(loss float64) (norm2 float64, ok bool) {
	e := u.eval
	if c := u.s.Loss.gradientScale(loss, len(e.Z)); c != 1 {
		e.GL.Scale(c, e.GL)
		if !u.sym {
			e.GR.Scale(c, e.GR)
		}
	}
	if !u.s.Method.scaled() {
		u.dl.Copy(e.GL)
		norm2 = inner(e.GL, e.GL)
		if !u.sym {
			u.dr.Copy(e.GR)
			norm2 += inner(e.GR, e.GR)
		}
		return norm2, true
	}
	// GL is preconditioned by the Gram matrix of the other factor.
	other := u.r
	if u.sym {
		other = u.l
	}
	fb, ok := u.pl.apply(u.dl, e.GL, other)
	if !ok {
		return 0, false
	}
	norm2 = inner(e.GL, u.dl)
	if !u.sym {
		fb2, ok := u.pr.apply(u.dr, e.GR, u.l)
		if !ok {
			return 0, false
		}
		fb = fb || fb2
		norm2 += inner(e.GR, u.dr)
	}
	if fb {
		u.res.Fallbacks++
	}
	return norm2, true
}

// record appends it to the trace and, for a status >= 0, ends the run.
func (u *run) record(it Iteration, status Status) {
	u.res.Trace = append(u.res.Trace, it)
	if u.s.Recorder != nil {
		u.s.Recorder(it)
	}
	if status >= 0 {
		u.stop(status)
	}
}

func (u *run) stop(status Status) {
	u.res.Status = status
	u.done = true
}

// finish fills in the result of a stopped run.
func (u *run) finish() {
	r := &u.res
	r.L, r.R = u.l, u.r
	r.Iterations = u.t
	r.RelError, r.Loss = math.NaN(), math.NaN()
	if n := len(r.Trace); n > 0 {
		r.RelError = r.Trace[n-1].RelError
		r.Loss = r.Trace[n-1].Loss
	}
	r.Runtime = time.Since(u.start)
}

// inner returns the Frobenius inner product <a, b> of two matrices of the
// same shape.
func inner(a, b *mat.Dense) float64 {
	ra, rb := a.RawMatrix(), b.RawMatrix()
	var s float64
	for i := range ra.Rows {
		x := ra.Data[i*ra.Stride : i*ra.Stride+ra.Cols]
		y := rb.Data[i*rb.Stride : i*rb.Stride+rb.Cols]
		for j, v := range x {
			s += v * y[j]
		}
	}
	return s
}
