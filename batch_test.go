package scaledsm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// TestSolveBatchMatchesSolve runs the curves of a small figure as one batch
// and checks each against its own Solve, bit for bit, runs stopping at
// different iterations.
func TestSolveBatchMatchesSolve(t *testing.T) {
	d := newDraw(t, synth.Config{Kind: synth.Sensing, N1: 12, N2: 10, Rank: 2, Seed: 5})
	var jobs []scaledsm.Job
	for _, kappa := range []float64{1, 8} {
		in := instanceOf(t, d, synth.Setting{Kappa: kappa, PS: 0.1, SNR: noNoise})
		for _, m := range []scaledsm.Method{scaledsm.ScaledSM, scaledsm.VanillaSM} {
			jobs = append(jobs, scaledsm.Job{Problem: in.Problem(), Settings: scaledsm.Settings{
				Method: m, Step: scaledsm.Polyak{FStar: in.FStar}, Truncation: scaledsm.TruncateFraction(0.1), MaxIter: 400, Tol: 1e-10,
			}})
		}
		jobs = append(jobs, scaledsm.Job{Problem: in.Problem(), Settings: scaledsm.Settings{
			Step: scaledsm.Geometric{Lambda: 50, Q: 0.95}, Truncation: scaledsm.TruncateFraction(0.1), MaxIter: 400, // diverges
		}})
	}
	got, err := scaledsm.SolveBatch(context.Background(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	stops := map[int]bool{}
	for i, j := range jobs {
		want := solve(t, j.Problem, j.Settings)
		g := got[i]
		stops[g.Iterations] = true
		if g.Status != want.Status || g.Iterations != want.Iterations || len(g.Trace) != len(want.Trace) {
			t.Fatalf("job %d: batch %v after %d, alone %v after %d", i, g.Status, g.Iterations, want.Status, want.Iterations)
		}
		for k := range want.Trace {
			if !sameRecord(g.Trace[k], want.Trace[k]) {
				t.Fatalf("job %d, iteration %d: batch %+v, alone %+v", i, k, g.Trace[k], want.Trace[k])
			}
		}
	}
	if len(stops) < 3 {
		t.Errorf("runs stopped at only %d distinct iterations: the batch's leaving is not exercised", len(stops))
	}
}

func TestSolveBatchRejects(t *testing.T) {
	a := instance(t, synth.Config{Kind: synth.Quadratic, N1: 8, Rank: 1, Seed: 1}, synth.Setting{Kappa: 1, SNR: noNoise})
	b := instance(t, synth.Config{Kind: synth.Quadratic, N1: 8, Rank: 1, Seed: 2}, synth.Setting{Kappa: 1, SNR: noNoise})
	good := scaledsm.Settings{Step: scaledsm.Polyak{}}
	_, err := scaledsm.SolveBatch(context.Background(), []scaledsm.Job{{a.Problem(), good}, {b.Problem(), good}})
	if err == nil || !strings.Contains(err.Error(), "job 1") {
		t.Errorf("two operators: error %v, want one naming job 1", err)
	}
	_, err = scaledsm.SolveBatch(context.Background(), []scaledsm.Job{{a.Problem(), good}, {a.Problem(), scaledsm.Settings{Truncation: scaledsm.TruncateFraction(0.7)}}})
	if err == nil || !strings.Contains(err.Error(), "job 1") {
		t.Errorf("bad trim: error %v, want one naming job 1", err)
	}
}
