package scaledsm

import (
	"context"
	"math"
	"time"

	"github.com/scaledsm/scaledsm/internal/dense"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"gonum.org/v1/gonum/mat"
)

// run is the state of one solve, advanced one iteration at a time: measure
// readies the evaluation at X_t, the operator evaluates it, and advance
// records the iteration and steps to X_{t+1} or stops.
type run struct {
	p    Problem
	s    Settings
	eval *Evaluation
	sym  bool
	iso  float64   // the operator's isometry factor (see Isometric)
	y    obs.Obs   // the problem's observations
	d    dist      // the ranks of a data-parallel solve (see Reducer)
	m    int       // the measurements of all of them
	sums []float64 // scratch of the subgradients' sum over them

	// The errors are measured either on formed n1×n2 matrices (dense, for
	// small problems or a truth given as a matrix) or from the factors (see
	// lowRank), whichever costs less.
	dense   bool
	x, prev *mat.Dense // X_t, X_{t-1} (dense)
	rt      []float64  // scratch of product (dense)
	lr      lowRank
	prevF   Factors // the factors of X_{t-1} (from the factors)

	// The truth, when known: formed (dense) or as factors, its norm, and
	// A(X*) for the gap f(X_t) - f(X*).
	truth   bool
	xStar   *mat.Dense
	star    Factors
	tnorm   float64
	fitStar []float64

	// A tracked loss's state (nil under a Standard loss), and the loss at
	// X = 0 over the observations the median rule keeps, which its run's
	// divergence is measured against (see stopAt).
	tracker  runTracker
	zeroLoss float64

	l, r   *mat.Dense // current factors
	dl, dr *mat.Dense // directions
	pl, pr preconditioner
	damp   damper

	res   Result
	cur   Iteration // the record of iteration t, under way
	t     int
	done  bool
	start time.Time

	// still is set when the last step left both factors bit for bit as
	// they were, the subgradients in u.eval being those the pass gave (not
	// rescaled by directions): the pass at X_t would give u.eval the very
	// bits it holds, and is skipped (see needsPass). A run whose steps
	// shrink below the rounding of its factors, as a geometric schedule's
	// do, stops costing a pass per iteration, with the same trace.
	still  bool
	scaled bool // directions rescaled the subgradients in place
}

// needsPass reports whether the operator must evaluate u.eval at X_t:
// false when X_t is X_{t-1} bit for bit and u.eval still holds the pass at
// it. A run with a tracker (whose state moves between passes) or on several
// ranks (whose pass is a collective) always makes its pass.
func (u *run) needsPass() bool {
	return !u.still || !skipStillPasses || u.tracker != nil || u.d.On()
}

// skipStillPasses turns the skipping of needsPass on; tests turn it off to
// compare.
var skipStillPasses = true

// formCost and factorCost are the flops, up to a common constant, of
// measuring an iteration's errors on formed matrices and from the factors.
func formCost(n1, n2, r int) int   { return n1 * n2 * (r + 2) }
func factorCost(n1, n2, r int) int { return 2 * (n1 + n2) * (2 * r) * (2 * r) }

func newRun(p Problem, s Settings, init Factors) (*run, error) {
	m, n1, n2 := p.Op.Dims()
	u := &run{p: p, s: s, sym: p.Op.Symmetric(), iso: isometry(p.Op), start: time.Now(), d: reduce.Over(p.Reducer)}
	u.m = u.d.Count(m)
	var tracker runTracker
	if tl, ok := s.Loss.(trackedLoss); ok {
		t, err := tl.Track(p, s)
		if err != nil {
			return nil, err
		}
		tracker = t
	}
	u.eval = newEvaluation(p.Op, p.Rank, tracker == nil || !evaluatesWithoutZ(p.Op))
	u.y = p.observations()
	u.eval.Y, u.eval.Y32 = u.y.F64, u.y.F32
	u.eval.Weight = s.Loss.Base().weight()
	u.damp = newDamper(s.Damping, s.Loss, u.iso)
	u.damp.measure(u.y, u.eval.Z, u.d) // Z as its scratch, before any pass
	u.l = mat.DenseCopyOf(init.L)
	u.dl = mat.NewDense(n1, p.Rank, nil)
	if !u.sym {
		u.r = mat.DenseCopyOf(init.R)
		u.dr = mat.NewDense(n2, p.Rank, nil)
	}
	if tracker != nil {
		if err := u.track(tracker, init); err != nil {
			return nil, err
		}
	}
	star, factored := p.Truth.(Factors)
	u.dense = formCost(n1, n2, p.Rank) <= factorCost(n1, n2, p.Rank) || (p.Truth != nil && !factored)
	if u.dense {
		u.x = mat.NewDense(n1, n2, nil)
		u.prev = mat.NewDense(n1, n2, nil)
		u.rt = make([]float64, p.Rank*n2)
	} else {
		u.prevF.L = mat.NewDense(n1, p.Rank, nil)
		if !u.sym {
			u.prevF.R = mat.NewDense(n2, p.Rank, nil)
		}
	}
	if p.Truth == nil {
		return u, nil
	}
	u.truth = true
	if u.dense {
		if factored {
			u.xStar = star.Product()
		} else {
			u.xStar = mat.DenseCopyOf(p.Truth)
		}
		u.tnorm = dense.Frobenius(u.xStar)
	} else {
		u.star = star
		u.tnorm = u.lr.size(star)
	}
	if !(u.tnorm > 0) || math.IsInf(u.tnorm, 0) {
		return nil, inputError("truth", nil, "||X*||_F = %v: the relative error is undefined", u.tnorm)
	}
	if _, polyak := s.Step.(Polyak); polyak {
		// Polyak's numerator, f(X_t) - f(X*), summed term by term from
		// the fits (the other rules need no gap: two m-sized arrays
		// spared).
		u.fitStar = make([]float64, m)
		p.Op.Apply(u.fitStar, p.Truth)
		u.eval.Fit = make([]float64, m)
	}
	return u, nil
}

// A zFree operator may evaluate with a nil Evaluation.Z, keeping no
// residuals (package completion's entries): a run whose tracker keeps
// its own gives it none. Other operators always get one.
type zFree interface{ EvaluatesWithoutZ() bool }

// evaluatesWithoutZ reports whether op is a zFree operator that says so.
func evaluatesWithoutZ(op Operator) bool {
	f, ok := op.(zFree)
	return ok && f.EvaluatesWithoutZ()
}

// track readies the run's tracker for its first pass, from the
// initialization.
func (u *run) track(t runTracker, init Factors) error {
	u.tracker = t
	if u.damp.active() {
		u.zeroLoss = u.damp.scale // the same, in the base loss's units
	} else {
		u.zeroLoss = zeroLossOf(u.y, u.s.Loss.Base(), u.iso, u.d, u.eval.Z)
	}
	return t.Start(u.eval, init, u.fitScale())
}

// runOut iterates u until it stops and fills in its result, showing
// each iterate to the Observer once its pass is made.
func (u *run) runOut(ctx context.Context) {
	for !u.done {
		u.measure()
		if u.needsPass() {
			u.evaluate()
		}
		if u.s.Observer != nil {
			u.s.Observer(u.t, Factors{L: u.l, R: u.r})
		}
		u.advance(ctx)
	}
	u.finish()
}

// measure measures X_t's errors and readies the evaluation at it: the
// first half of an iteration, before the operator's pass.
func (u *run) measure() {
	it := Iteration{Iter: u.t, RelError: math.NaN(), Change: math.NaN(), Gap: math.NaN(), Step: math.NaN(), StepLength: math.NaN()}
	cur := Factors{L: u.l, R: u.r}
	if u.dense {
		u.x, u.prev = u.prev, u.x
		product(u.x, u.l, cur.right(), u.rt)
		if u.truth {
			it.RelError = dense.Distance(u.x, u.xStar) / u.tnorm
		}
		if u.t > 0 {
			it.Change = dense.Distance(u.x, u.prev) / dense.Frobenius(u.prev)
		}
	} else {
		if u.truth {
			it.RelError = u.lr.distance(cur, u.star) / u.tnorm
		}
		if u.t > 0 {
			it.Change = u.lr.change(u.prevF, cur)
		}
		u.prevF.L.Copy(u.l)
		if !u.sym {
			u.prevF.R.Copy(u.r)
		}
	}
	u.cur = it
	u.eval.L, u.eval.R = u.l, u.r
}

// advance finishes iteration t once the operator has evaluated u.eval: it
// records the iteration and either stops or steps to X_{t+1}.
func (u *run) advance(ctx context.Context) {
	it, interrupted := u.lossAt(ctx)
	if status, stop := u.stopAt(it, interrupted); stop {
		u.record(it, status)
		return
	}
	if u.tracker != nil && u.tracker.Intervene(it, u.res.Trace, Factors{L: u.l, R: u.r}) {
		u.record(it, -1)
		u.t++
		return
	}
	if u.s.Converger != nil {
		// The trace with this record; record appends it in the same place.
		if status, stop := u.s.Converger.Converged(append(u.res.Trace, it)); stop {
			u.record(it, status)
			return
		}
	}
	u.move(it)
}

// lossAt returns the record of this iteration with its loss (for a
// tracked loss, its tracker's, the next pass readied), and whether ctx was
// cancelled.
func (u *run) lossAt(ctx context.Context) (Iteration, bool) {
	it := u.cur
	var interrupted bool
	it.Loss, interrupted = u.loss(ctx)
	if u.tracker != nil {
		it.Loss = u.tracker.Pass(u.eval)
	}
	if mu := u.s.Ridge; mu > 0 {
		it.Loss += mu / 2 * (dense.Inner(u.l, u.l) + dense.Inner(u.r, u.r))
	}
	return it, interrupted
}

// stopAt returns the status to stop with, and true, when the run whose
// record is it diverged, converged, stopped moving, reached its iteration
// limit or was interrupted.
func (u *run) stopAt(it Iteration, interrupted bool) (Status, bool) {
	finite := !math.IsNaN(it.Loss) && !math.IsInf(it.Loss, 0)
	// Without a truth, the loss tells: grown a thousandfold from the
	// start's, the iterate is running away (least squares with too long a
	// step on real data reaches 1e243 before it overflows).
	// A tracked loss's may be over what its state keeps, which the first
	// state can hold small (TrimmedL2's bounds, from the start's median):
	// its measure is also the loss of X = 0 over the observations the
	// median rule keeps.
	ref := 0.0
	if len(u.res.Trace) > 0 {
		ref = u.res.Trace[0].Loss
		if u.tracker != nil {
			ref = max(ref, u.zeroLoss)
		}
	}
	grown := ref > 0 && it.Loss > divergenceThreshold*ref
	switch {
	case !finite || grown || (u.truth && !(it.RelError <= divergenceThreshold)):
		return Diverged, true
	case u.truth && it.RelError <= u.s.Tol:
		return Converged, true
	case !u.truth && it.Change <= u.s.Tol:
		return Stationary, true
	case u.t >= u.s.MaxIter:
		return IterationLimit, true
	case interrupted:
		return Interrupted, true
	}
	return 0, false
}

// move takes the step from the iterate whose record is it: the scaled
// directions, the step rule's size, both factors updated from the old
// pair; or it records why no step could be taken.
func (u *run) move(it Iteration) {
	sc := &StepContext{
		Iter: u.t, Loss: it.Loss, Gap: u.gap(),
		Residuals: u.eval.Z, Trace: u.res.Trace, Objective: u.s.Loss, isometry: u.iso,
		dist: u.d, measurements: u.m,
	}
	norm2, ok := u.directions(it.Loss, u.dampingMisfit(sc))
	if !ok {
		u.record(it, Singular)
		return
	}
	norm := math.Sqrt(norm2)
	sc.Norm = norm
	eta := u.s.Step.Size(sc)
	if g, ok := u.s.Step.(gapEstimator); ok {
		it.Gap = sc.gapOf(g)
	}
	if !(eta > 0) || math.IsInf(eta, 0) {
		it.Step, it.StepLength = 0, 0
		u.record(it, Stalled)
		return
	}
	if _, ok := u.s.Step.(gapEstimator); ok {
		eta = u.guard(eta)
	}
	it.Step, it.StepLength = eta, eta*norm
	// Both factors move from the old pair: the directions were computed
	// before either update.
	scaleInPlace(u.dl, eta)
	moved := subtract(u.l, u.dl)
	if !u.sym {
		scaleInPlace(u.dr, eta)
		moved = subtract(u.r, u.dr) || moved
	}
	if u.tracker != nil {
		u.tracker.Step(Factors{L: u.l, R: u.r})
	}
	u.still = !moved && !u.scaled
	u.record(it, -1)
	u.t++
}

// gap returns f(X_t) - f(X*) from the truth, NaN without one.
func (u *run) gap() float64 {
	if u.fitStar == nil {
		return math.NaN()
	}
	if u.y.F32 != nil {
		return gapOver(u.s.Loss.Base(), gapTerms[float32]{u.eval.Fit, u.fitStar, u.y.F32}, u.iso, u.d)
	}
	return gapOver(u.s.Loss.Base(), gapTerms[float64]{u.eval.Fit, u.fitStar, u.y.F64}, u.iso, u.d)
}

// directions sets the search directions from the factor subgradients and
// returns the squared norm of the subgradient in the method's metric,
// damped for the relative misfit rho (see Damping).
func (u *run) directions(loss, rho float64) (norm2 float64, ok bool) {
	e := u.eval
	c := u.s.Loss.Base().gradientScale(loss, u.iso)
	u.scaled = c != 1
	if c != 1 {
		scaleInPlace(e.GL, c)
		if !u.sym {
			scaleInPlace(e.GR, c)
		}
	}
	mu := u.s.Ridge
	if mu > 0 {
		// The penalty's gradient μL, μR; directions rescaled the
		// subgradients in place.
		addScaled(e.GL, u.l, mu)
		if !u.sym {
			addScaled(e.GR, u.r, mu)
		}
		u.scaled = true
	}
	if !u.s.Method.scaled() {
		u.dl.Copy(e.GL)
		norm2 = dense.Inner(e.GL, e.GL)
		if !u.sym {
			u.dr.Copy(e.GR)
			norm2 += dense.Inner(e.GR, e.GR)
		}
		return norm2, true
	}
	// GL is preconditioned by the Gram matrix of the other factor.
	other := u.r
	if u.sym {
		other = u.l
	}
	fixed, rel := u.damp.terms(rho)
	// The penalty's curvature μI joins the Gram matrix, as in ridge
	// regression: each factor's rows move by g (FᵀF + μI)^{-1}.
	fixed += mu
	fb, ok := u.pl.apply(u.dl, e.GL, other, fixed, rel)
	if !ok {
		return 0, false
	}
	norm2 = dense.Inner(e.GL, u.dl)
	if !u.sym {
		fb2, ok := u.pr.apply(u.dr, e.GR, u.l, fixed, rel)
		if !ok {
			return 0, false
		}
		fb = fb || fb2
		norm2 += dense.Inner(e.GR, u.dr)
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
		u.res.Status = status
		u.done = true
	}
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
	r.Evidence = u.evidence()
	r.FitFraction = float64(u.m-r.Unfitted) / float64(u.m)
	if r.Status == Stationary && u.p.Clean && r.Evidence.contradicts(u.m) {
		r.Status = Partial
	}
	r.SingularValues = Factors{L: u.l, R: u.r}.singularValues(&u.lr)
	r.EffectiveRank = effectiveRank(r.SingularValues)
	r.Runtime = time.Since(u.start)
}

// subtract sets a to a - b, element by element (the rounding of mat's Sub),
// and reports whether any element of a changed its bits.
func subtract(a, b *mat.Dense) bool {
	ra, rb := a.RawMatrix(), b.RawMatrix()
	moved := false
	for i := range ra.Rows {
		x := ra.Data[i*ra.Stride : i*ra.Stride+ra.Cols]
		y := rb.Data[i*rb.Stride : i*rb.Stride+ra.Cols]
		for j, v := range x {
			d := v - y[j]
			moved = moved || math.Float64bits(d) != math.Float64bits(v)
			x[j] = d
		}
	}
	return moved
}

// scaleInPlace sets a to f·a, element by element (mat's Scale of a into
// itself copies a through a workspace of its own, which for a factor of
// the Netflix shape is 38 MB copied and a 64 MB buffer kept).
func scaleInPlace(a *mat.Dense, f float64) {
	ra := a.RawMatrix()
	for i := range ra.Rows {
		x := ra.Data[i*ra.Stride : i*ra.Stride+ra.Cols]
		for j := range x {
			x[j] *= f
		}
	}
}

// addScaled sets a to a + f·b, element by element.
func addScaled(a, b *mat.Dense, f float64) {
	ra, rb := a.RawMatrix(), b.RawMatrix()
	for i := range ra.Rows {
		x := ra.Data[i*ra.Stride : i*ra.Stride+ra.Cols]
		y := rb.Data[i*rb.Stride : i*rb.Stride+rb.Cols]
		for j := range x {
			x[j] += f * y[j]
		}
	}
}
