package scaledsm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// passCounted is the smooth loss with a state along each run that only
// counts the passes: the least a tracked loss can be.
type passCounted struct{ runs *[]*passCount }

func (passCounted) String() string { return "counted" }
func (passCounted) Base() Standard { return L2Squared }

func (l passCounted) Track(Problem, Settings) (runTracker, error) {
	c := &passCount{}
	*l.runs = append(*l.runs, c)
	return c, nil
}

type passCount struct{ passes, steps int }

func (c *passCount) Start(*Evaluation, Factors, float64) error { return nil }
func (c *passCount) Pass(e *Evaluation) float64 {
	c.passes++
	return L2Squared.Value(e.Z)
}
func (c *passCount) Intervene(Iteration, []Iteration, Factors) bool { return false }
func (c *passCount) Step(Factors)                                   { c.steps++ }

// TestTrackedLossOnSensing fits matrix sensing under a tracked loss that
// keeps no residuals of its own: the run gives the operator the residuals'
// buffer it needs (only an operator that says it evaluates without one
// may be given none), calls the tracker once a pass and once a step, and
// takes the tracked default step, a constant 0.5. Its losses are the
// smooth loss's, and the fit descends.
func TestTrackedLossOnSensing(t *testing.T) {
	const m, n, r = 200, 8, 2
	rng := rand.New(rand.NewPCG(7, 8))
	op, star, y := gaussianSensing(t, rng, m, n, r)
	var runs []*passCount
	res, err := Solve(context.Background(), Problem{Op: op, Y: y, Rank: r, Truth: star},
		Settings{Method: ScaledGD, Loss: passCounted{&runs}, MaxIter: 40, Tol: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs tracked, want 1", len(runs))
	}
	c := runs[0]
	if c.passes != res.Iterations+1 || c.steps != res.Iterations {
		t.Errorf("%d passes and %d steps for %d iterations, want %d and %d", c.passes, c.steps, res.Iterations, res.Iterations+1, res.Iterations)
	}
	first, last := res.Trace[0], res.Trace[len(res.Trace)-1]
	if first.Step != 0.5 {
		t.Errorf("step %v, want the tracked default 0.5", first.Step)
	}
	if !(last.Loss < first.Loss/100) || math.IsNaN(last.RelError) || !(last.RelError < first.RelError) {
		t.Errorf("loss %g -> %g, relative error %g -> %g: the fit did not descend", first.Loss, last.Loss, first.RelError, last.RelError)
	}
}
