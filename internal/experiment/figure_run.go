package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// Options say how a figure is run.
type Options struct {
	Seed uint64 // seed of the figure's one draw

	// N and Rank, when positive, replace the paper's n and r (for quick
	// runs and tests); m stays 8nr.
	N, Rank int

	// Progress, when not nil, is called after every iteration of every run
	// with the work done so far, never by two goroutines at once.
	Progress func(Progress)
}

// Progress is the work done so far on a figure.
type Progress struct {
	Runs, RunsDone int // runs in the figure's batch, and those stopped
	Iterations     int // updates made, over all runs
	// Bound is the most updates the figure can take: those made, plus
	// those the runs under way may still make before their limits. It
	// falls as runs stop early; Iterations/Bound never decreases.
	Bound int
}

// Run is one curve of a figure as solved: its specification and its trace,
// one record per iterate from the initialization on.
type Run struct {
	Curve  Curve
	Trace  []scaledsm.Iteration
	Status scaledsm.Status // how the run stopped
}

// Result is a solved figure.
type Result struct {
	Figure *Figure
	Config synth.Config // the sizes and seed used
	Panels [][]Run      // Panels[i][j] is curve j of panel i of the figure

	Elapsed    time.Duration // wall time of the draw, initializations and runs
	Machine    string        // where it ran (see Machine)
	Runs       int           // distinct runs solved (panels may share runs)
	Iterations int           // updates made over all runs
}

// Config returns the sizes a figure runs at with the options (the
// paper's unless overridden) and the seed.
func (f *Figure) Config(o Options) (synth.Config, error) {
	c := f.Problem
	c.Seed = o.Seed
	if o.N < 0 || o.Rank < 0 {
		return c, fmt.Errorf("experiment: size override n = %d, r = %d must not be negative", o.N, o.Rank)
	}
	if o.N > 0 {
		c.N1, c.N2 = o.N, o.N
	}
	if o.Rank > 0 {
		c.Rank = o.Rank
	}
	c.M = 0 // 8nr for the sizes in force
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

// RunFigure solves every curve of a figure: one draw of the random
// ingredients from the seed, one instance and one truncated spectral
// initialization per setting (shared by the curves on it, as in the
// paper), and one scaledsm.SolveBatch for all distinct curves. Cancelling
// ctx stops the runs and returns ctx's error.
func RunFigure(ctx context.Context, f *Figure, o Options) (*Result, error) {
	start := time.Now()
	cfg, err := f.Config(o)
	if err != nil {
		return nil, err
	}
	draw, err := synth.New(cfg)
	if err != nil {
		return nil, err
	}

	type prepared struct {
		in   *synth.Instance
		init scaledsm.Factors
	}
	settings := map[synth.Setting]*prepared{}
	prepare := func(s synth.Setting) (*prepared, error) {
		if p, ok := settings[s]; ok {
			return p, nil
		}
		in, err := draw.Instance(s)
		if err != nil {
			return nil, err
		}
		spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: cfg.Rank}.Spectral(scaledsm.TruncateFraction(s.PS))
		if err != nil {
			return nil, fmt.Errorf("experiment: figure %d, initialization at %+v: %w", f.Number, s, err)
		}
		p := &prepared{in: in, init: spec}
		settings[s] = p
		return p, nil
	}

	// Distinct curves, in order of first appearance.
	index := map[Curve]int{}
	var curves []Curve
	for _, p := range f.Panels {
		for _, c := range p.Curves {
			if _, ok := index[c]; !ok {
				index[c] = len(curves)
				curves = append(curves, c)
			}
		}
	}

	var mu sync.Mutex // the runs may record from several goroutines
	var done Progress
	done.Runs = len(curves)
	for _, c := range curves {
		done.Bound += c.MaxIter
	}
	recorder := func(maxIter int) func(scaledsm.Iteration) {
		return func(it scaledsm.Iteration) {
			mu.Lock()
			defer mu.Unlock()
			// Every record but a run's last carries the positive step
			// taken from it; the last (converged, limit, diverged,
			// stalled) does not.
			if it.Step > 0 {
				done.Iterations++
			} else {
				done.RunsDone++
				done.Bound -= maxIter - it.Iter
			}
			if o.Progress != nil {
				o.Progress(done)
			}
		}
	}
	jobs := make([]scaledsm.Job, len(curves))
	for i, c := range curves {
		p, err := prepare(c.Setting)
		if err != nil {
			return nil, err
		}
		var step scaledsm.Step
		switch c.Step.Rule {
		case Polyak:
			step = scaledsm.Polyak{FStar: p.in.FStar}
		case Geometric:
			step = scaledsm.Geometric{Lambda: c.Step.Lambda, Q: c.Step.Q}
		default:
			return nil, fmt.Errorf("experiment: figure %d: unknown step rule %v", f.Number, c.Step.Rule)
		}
		init := p.init
		jobs[i] = scaledsm.Job{Problem: p.in.Problem(), Settings: scaledsm.Settings{
			Method: c.Method, Step: step, MaxIter: c.MaxIter, Tol: Tol,
			Init: &init, Truncation: scaledsm.TruncateFraction(c.Setting.PS), Recorder: recorder(c.MaxIter),
			Damping: scaledsm.Damping{None: true}, // the paper's preconditioner
		}}
	}
	results, err := scaledsm.SolveBatch(ctx, jobs)
	if err != nil {
		return nil, fmt.Errorf("experiment: figure %d: %w", f.Number, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	res := &Result{Figure: f, Config: cfg, Runs: len(curves), Machine: Machine()}
	for _, r := range results {
		res.Iterations += r.Iterations
	}
	res.Panels = make([][]Run, len(f.Panels))
	for i, p := range f.Panels {
		res.Panels[i] = make([]Run, len(p.Curves))
		for j, c := range p.Curves {
			res.Panels[i][j] = Run{Curve: c, Trace: results[index[c]].Trace, Status: results[index[c]].Status}
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// Panel returns the runs of the panel named name, or nil.
func (r *Result) Panel(name string) []Run {
	for i, p := range r.Figure.Panels {
		if p.Name == name && i < len(r.Panels) {
			return r.Panels[i]
		}
	}
	return nil
}

// ItersTo returns the first iteration at which the run's relative error is
// at most level, or -1 if it never is.
func (r Run) ItersTo(level float64) int {
	for _, it := range r.Trace {
		if it.RelError <= level {
			return it.Iter
		}
	}
	return -1
}

// Final returns the relative error of the run's last iterate (NaN for an
// empty trace).
func (r Run) Final() float64 {
	if len(r.Trace) == 0 {
		return math.NaN()
	}
	return r.Trace[len(r.Trace)-1].RelError
}

// Converged reports whether the run reached Tol.
func (r Run) Converged() bool { return r.ItersTo(Tol) >= 0 }

// Iterations returns the number of updates the run made.
func (r Run) Iterations() int {
	if len(r.Trace) == 0 {
		return 0
	}
	return r.Trace[len(r.Trace)-1].Iter
}

// Fit is a geometric schedule λ q^t.
type Fit struct {
	Lambda, Q float64
	Points    int // step lengths fitted
}

// FitGeometric fits λ q^t to the positive, finite step lengths of a trace
// by least squares on their logarithm, with t counting those step lengths
// from 0, as the authors' code does for panels (d) of Figures 5 and 6.
func FitGeometric(trace []scaledsm.Iteration) (Fit, error) {
	var ys []float64
	for _, it := range trace {
		if it.StepLength > 0 && !math.IsInf(it.StepLength, 1) {
			ys = append(ys, math.Log(it.StepLength))
		}
	}
	n := len(ys)
	if n < 2 {
		return Fit{Points: n}, errors.New("experiment: fewer than two positive step lengths to fit")
	}
	var mt, my float64
	for t, y := range ys {
		mt += float64(t)
		my += y
	}
	mt /= float64(n)
	my /= float64(n)
	var stt, sty float64
	for t, y := range ys {
		dt := float64(t) - mt
		stt += dt * dt
		sty += dt * (y - my)
	}
	slope := sty / stt
	return Fit{Lambda: math.Exp(my - slope*mt), Q: math.Exp(slope), Points: n}, nil
}
