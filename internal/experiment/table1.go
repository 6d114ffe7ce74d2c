package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// Table1Config sets up the measurement of Table 1: every method on both
// problems, without and with outliers, at each condition number.
type Table1Config struct {
	N, Rank int       // X* is N×N of rank Rank; m = 8·N·Rank measurements
	Kappas  []float64 // condition numbers
	PS      float64   // outlier fraction of the corrupted columns
	Sweep   []float64 // outlier fractions of ScaledSM's sweep (at Kappas[0])
	Tol     float64   // relative error to reach
	MaxIter int       // iteration limit of every run
	Steps   []float64 // grid of constant steps for the gradient methods (GD's divided by σ₁(X*))
	Seed    uint64

	// Progress, when not nil, is called after each run with the number of
	// runs done and a description of the last one.
	Progress func(done int, what string)
}

// DefaultTable1 is the configuration of "scaledsm table1": n = 40, r = 4,
// κ = 1, 3, 10, 30, 100, 20% outliers, a relative error of 1e-8 within
// 20000 iterations, and steps from 0.01 to 1 spaced by √2.
func DefaultTable1() Table1Config {
	var steps []float64
	for e := 1.0; e > 0.009; e /= math.Sqrt2 {
		steps = append(steps, e)
	}
	return Table1Config{
		N: 40, Rank: 4,
		Kappas:  []float64{1, 3, 10, 30, 100},
		PS:      0.2,
		Sweep:   []float64{0, 0.1, 0.2, 0.3, 0.4},
		Tol:     1e-8,
		MaxIter: 20000,
		Steps:   steps,
		Seed:    1,
	}
}

// QuickTable1 is a configuration small enough for a test: n = 12, r = 2,
// three condition numbers and a coarse step grid.
func QuickTable1() Table1Config {
	c := DefaultTable1()
	c.N, c.Rank = 12, 2
	c.Kappas = []float64{1, 3, 10}
	c.Sweep = []float64{0, 0.2}
	c.MaxIter = 3000
	c.Steps = []float64{1, 0.5, 0.25, 0.1, 0.05}
	return c
}

// Validate checks the configuration.
func (c Table1Config) Validate() error {
	switch {
	case c.N < 1:
		return fmt.Errorf("table1: n = %d must be at least 1", c.N)
	case c.Rank < 1 || c.Rank > c.N:
		return fmt.Errorf("table1: rank %d must lie in [1, n] = [1, %d]", c.Rank, c.N)
	case len(c.Kappas) == 0:
		return errors.New("table1: no condition numbers")
	case !(c.PS > 0 && c.PS < 0.5):
		return fmt.Errorf("table1: outlier fraction %v must lie in (0, 0.5)", c.PS)
	case !(c.Tol > 0 && c.Tol < 1):
		return fmt.Errorf("table1: tolerance %v must lie in (0, 1)", c.Tol)
	case c.MaxIter < 1:
		return fmt.Errorf("table1: iteration limit %d must be at least 1", c.MaxIter)
	case len(c.Steps) == 0:
		return errors.New("table1: no constant steps to try")
	}
	for _, k := range c.Kappas {
		if !(k >= 1) || math.IsInf(k, 0) {
			return fmt.Errorf("table1: condition number %v must be finite and at least 1", k)
		}
	}
	for _, p := range c.Sweep {
		if !(p >= 0 && p < 0.5) {
			return fmt.Errorf("table1: outlier fraction %v of the sweep must lie in [0, 0.5)", p)
		}
	}
	for _, e := range c.Steps {
		if !(e > 0) || math.IsInf(e, 0) {
			return fmt.Errorf("table1: step %v must be positive and finite", e)
		}
	}
	return nil
}

// Table1Methods are the rows of Table 1, in the paper's order.
var Table1Methods = []scaledsm.Method{scaledsm.GD, scaledsm.ScaledGD, scaledsm.VanillaSM, scaledsm.ScaledSM}

// Table1Run is one run of Table 1: a method on one problem and setting.
type Table1Run struct {
	Problem    synth.Kind
	PS         float64
	Kappa      float64
	Method     scaledsm.Method
	Converged  bool            // reached the tolerance
	Iterations int             // iterations to the tolerance, or made before stopping
	Status     scaledsm.Status // how the run stopped
	RelError   float64         // final relative error
	Step       float64         // the constant step of the gradient methods (NaN for Polyak)
	Seconds    float64
}

// Table1Trial is one constant step tried for a gradient method: the grid
// behind a Table1Run's Step.
type Table1Trial struct {
	Problem    synth.Kind
	PS         float64
	Kappa      float64
	Method     scaledsm.Method
	Step       float64
	Converged  bool
	Iterations int
	Status     scaledsm.Status
	RelError   float64
}

// Table1Cell is one cell of Table 1: a method on a problem, without or with
// outliers, across the condition numbers.
type Table1Cell struct {
	Problem  synth.Kind
	PS       float64
	Method   scaledsm.Method
	Runs     []Table1Run // one per condition number
	Exponent float64     // slope of log iterations against log κ over the converged runs; NaN for fewer than two
	Fitted   int         // runs in the fit
	Paper    string      // the paper's entry
	Expected float64     // the paper's exponent of κ; NaN where it gives none
}

// Table1Result is a measured Table 1.
type Table1Result struct {
	Config Table1Config
	M      [2]int // measurements of sensing and quadratic sampling
	Cells  []Table1Cell
	Trials []Table1Trial
	Sweep  []Table1Run // ScaledSM against the outlier fraction
}

// Table1Paper returns the paper's Table 1 entry for a cell and the exponent
// of κ it implies (NaN where the paper gives N/A).
func Table1Paper(kind synth.Kind, corrupted bool, m scaledsm.Method) (entry string, exponent float64) {
	type key struct {
		q, c bool
		m    scaledsm.Method
	}
	na := math.NaN()
	table := map[key]struct {
		s string
		e float64
	}{
		{false, false, scaledsm.GD}: {"κ", 1}, {false, true, scaledsm.GD}: {"N/A", na},
		{true, false, scaledsm.GD}: {"r²κ²", 2}, {true, true, scaledsm.GD}: {"N/A", na},
		{false, false, scaledsm.ScaledGD}: {"1", 0}, {false, true, scaledsm.ScaledGD}: {"N/A", na},
		{true, false, scaledsm.ScaledGD}: {"poly(n)", 0}, {true, true, scaledsm.ScaledGD}: {"N/A", na},
		{false, false, scaledsm.VanillaSM}: {"κ", 1}, {false, true, scaledsm.VanillaSM}: {"κ/(1−2p_s)²", 1},
		{true, false, scaledsm.VanillaSM}: {"rκ", 1}, {true, true, scaledsm.VanillaSM}: {"rκ/(1−2p_s)²", 1},
		{false, false, scaledsm.ScaledSM}: {"1", 0}, {false, true, scaledsm.ScaledSM}: {"1/(1−2p_s)²", 0},
		{true, false, scaledsm.ScaledSM}: {"r", 0}, {true, true, scaledsm.ScaledSM}: {"r/(1−2p_s)²", 0},
	}
	v := table[key{kind == synth.Quadratic, corrupted, m}]
	return v.s, v.e
}

// RunTable1 measures Table 1. The subgradient methods use Polyak's step
// with the known f(X*), as the paper's comparisons do; the gradient methods
// each step of the grid, keeping the one that reaches the tolerance in the
// fewest iterations (GD's steps are divided by σ₁(X*) = κ, as the authors'
// code does). Every method starts from the truncated spectral
// initialization that drops the fraction p_s of largest |y_i|. Cancelling
// ctx stops the measurement with ctx's error.
func RunTable1(ctx context.Context, c Table1Config) (*Table1Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	res := &Table1Result{Config: c}
	done := 0
	report := func(what string) {
		done++
		if c.Progress != nil {
			c.Progress(done, what)
		}
	}
	for k, kind := range []synth.Kind{synth.Sensing, synth.Quadratic} {
		draw, err := synth.New(synth.Config{Kind: kind, N1: c.N, Rank: c.Rank, Seed: c.Seed})
		if err != nil {
			return nil, err
		}
		res.M[k] = draw.M
		for _, ps := range []float64{0, c.PS} {
			cells := make([]Table1Cell, len(Table1Methods))
			for i, m := range Table1Methods {
				cells[i] = Table1Cell{Problem: kind, PS: ps, Method: m}
				cells[i].Paper, cells[i].Expected = Table1Paper(kind, ps > 0, m)
			}
			for _, kappa := range c.Kappas {
				in, err := draw.Instance(synth.Setting{Kappa: kappa, PS: ps, SNR: math.Inf(1)})
				if err != nil {
					return nil, err
				}
				for i, m := range Table1Methods {
					run, trials, err := c.measure(ctx, in, m)
					if err != nil {
						return nil, err
					}
					cells[i].Runs = append(cells[i].Runs, run)
					res.Trials = append(res.Trials, trials...)
					report(fmt.Sprintf("%v p_s=%g κ=%g %v: %s", kind, ps, kappa, m, run.outcome()))
				}
			}
			for i := range cells {
				cells[i].Exponent, cells[i].Fitted = kappaExponent(cells[i].Runs)
			}
			res.Cells = append(res.Cells, cells...)
		}
		for _, ps := range c.Sweep {
			in, err := draw.Instance(synth.Setting{Kappa: c.Kappas[0], PS: ps, SNR: math.Inf(1)})
			if err != nil {
				return nil, err
			}
			run, _, err := c.measure(ctx, in, scaledsm.ScaledSM)
			if err != nil {
				return nil, err
			}
			res.Sweep = append(res.Sweep, run)
			report(fmt.Sprintf("%v sweep p_s=%g: %s", kind, ps, run.outcome()))
		}
	}
	return res, nil
}

func (r Table1Run) outcome() string {
	if r.Converged {
		return fmt.Sprintf("%d iterations", r.Iterations)
	}
	return fmt.Sprintf("does not converge (%v at %.2g)", r.Status, r.RelError)
}

// measure runs method m on an instance: with Polyak's step for the
// subgradient methods, with each constant step of the grid for the
// gradient methods, returning the best run and the trials.
func (c Table1Config) measure(ctx context.Context, in *synth.Instance, m scaledsm.Method) (Table1Run, []Table1Trial, error) {
	run := Table1Run{Problem: kindOf(in), PS: in.PS, Kappa: in.Kappa, Method: m, Step: math.NaN()}
	init, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: len(in.Sigma)}.Spectral(scaledsm.TruncateFraction(in.PS))
	if err != nil {
		return run, nil, err
	}
	// The paper's preconditioner, undamped.
	settings := scaledsm.Settings{Method: m, Tol: c.Tol, MaxIter: c.MaxIter, Init: &init, Damping: scaledsm.Damping{None: true}}
	if !m.Smooth() {
		settings.Step = scaledsm.Polyak{FStar: in.FStar}
		res, err := scaledsm.Solve(ctx, in.Problem(), settings)
		if err != nil {
			return run, nil, err
		}
		if res.Status == scaledsm.Interrupted {
			return run, nil, ctx.Err()
		}
		run.fill(res)
		return run, nil, nil
	}
	// Steps from the largest down: each trial stops once it has used as many
	// iterations as the best so far, since it cannot beat it, or once its
	// error stalls (least squares with outliers).
	var trials []Table1Trial
	best := Table1Run{}
	limit := c.MaxIter
	for _, e := range c.Steps {
		eta := e
		if m == scaledsm.GD {
			eta /= in.Sigma[0]
		}
		window := stallClean
		if in.PS > 0 {
			window = stallCorrupted
		}
		settings.Step = scaledsm.Constant{Eta: eta}
		settings.Converger = stallConverger{window}
		settings.MaxIter = limit
		res, err := scaledsm.Solve(ctx, in.Problem(), settings)
		if err != nil {
			return run, nil, err
		}
		if res.Status == scaledsm.Interrupted {
			return run, nil, ctx.Err()
		}
		t := run
		t.Step = eta
		t.fill(res)
		trials = append(trials, Table1Trial{Problem: t.Problem, PS: t.PS, Kappa: t.Kappa, Method: m, Step: eta,
			Converged: t.Converged, Iterations: t.Iterations, Status: t.Status, RelError: t.RelError})
		switch {
		case t.Converged && (!best.Converged || t.Iterations < best.Iterations):
			best = t
			limit = t.Iterations
		case !best.Converged && (best.Method != m || better(t, best)):
			best = t
		}
	}
	return best, trials, nil
}

// better reports whether a run that did not converge got closer than
// another.
func better(a, b Table1Run) bool {
	if math.IsNaN(b.RelError) {
		return true
	}
	return a.RelError < b.RelError
}

func (r *Table1Run) fill(res *scaledsm.Result) {
	r.Converged = res.Status == scaledsm.Converged
	r.Iterations = res.Iterations
	r.Status = res.Status
	r.RelError = res.RelError
	r.Seconds = res.Runtime.Seconds()
}

func kindOf(in *synth.Instance) synth.Kind {
	if in.Op.Symmetric() {
		return synth.Quadratic
	}
	return synth.Sensing
}

// kappaExponent fits log(iterations) = a + b log(κ) by least squares over
// the converged runs and returns b and the number of runs fitted; b is NaN
// with fewer than two runs or a single κ.
func kappaExponent(runs []Table1Run) (float64, int) {
	var x, y []float64
	for _, r := range runs {
		if r.Converged && r.Iterations > 0 {
			x = append(x, math.Log(r.Kappa))
			y = append(y, math.Log(float64(r.Iterations)))
		}
	}
	if len(x) < 2 || stat.Variance(x, nil) == 0 {
		return math.NaN(), len(x)
	}
	_, b := stat.LinearRegression(x, y, nil, false)
	return b, len(x)
}

// A gradient method's trial is stopped as not converging when its error has
// not fallen by 10% over the last stallCorrupted iterations with outliers,
// where least squares settle at a biased point, or over the last
// stallClean without them, long enough for GD's slow phase at κ = 100
// (measured: 250 iterations at relative error near 1e-2, n = 40, r = 4).
const (
	stallCorrupted = 100
	stallClean     = 500
	stallFactor    = 0.9
)

// stallConverger stops a trial with status Stalled once the relative error
// of the last window iterations is no lower than stallFactor times the best
// before them.
type stallConverger struct {
	window int
}

// Converged reports whether the relative error has stalled. It is checked
// every tenth iteration, so that its cost stays small next to the runs'.
func (s stallConverger) Converged(trace []scaledsm.Iteration) (scaledsm.Status, bool) {
	past := trace[:len(trace)-1] // the records before the current one
	t := len(past)
	if t <= s.window || t%10 != 0 {
		return 0, false
	}
	before, recent := math.Inf(1), math.Inf(1)
	for _, it := range past[:t-s.window] {
		before = min(before, it.RelError)
	}
	for _, it := range past[t-s.window:] {
		recent = min(recent, it.RelError)
	}
	return scaledsm.Stalled, recent > stallFactor*before
}
