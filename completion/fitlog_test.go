package completion_test

import (
	"context"
	"slices"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/synth"
)

// TestFitsNamesEveryFit: Solve names every fit it makes besides the one
// it returns, with its iterations and time. On issue 24's seed 1 the
// default fits from the median rule's start and from restartTruncation's, then
// returns the convex start's fit: two fits named, neither a validation
// fit, each to the iteration limit; with OneStart, none. With the rank
// chosen by validation, the ranks' fits are named as validation fits.
func TestFitsNamesEveryFit(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Completion, N1: 100, Rank: 2, P: 0.3, Seed: 1},
		synth.Setting{Kappa: 100, PS: 0.1, SNR: noNoise})
	p := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 2, Truth: in.Star}
	s := completion.DefaultSettings()
	s.Converger, s.Tol, s.MaxIter = nil, 1e-10, 3000
	res := solve(t, p, s)
	if res.Status != scaledsm.Converged || len(res.Fits) != 2 {
		t.Fatalf("%v, %d other fits: %+v", res.Status, len(res.Fits), res.Fits)
	}
	var earlier float64
	for k, f := range res.Fits {
		if f.Validation || f.Iterations != 3000 || f.Status != scaledsm.IterationLimit || f.Rank != 2 || f.Start != scaledsm.SpectralStart || !(f.Runtime > 0) {
			t.Errorf("fit %d: %+v", k, f)
		}
		earlier += f.Runtime.Seconds()
	}
	if want := []scaledsm.Truncation{{}, scaledsm.TruncateFraction(completion.RestartTruncation)}; res.Fits[0].Truncation != want[0] || res.Fits[1].Truncation != want[1] {
		t.Errorf("the fits' starts: %v and %v, want %v", res.Fits[0].Truncation, res.Fits[1].Truncation, want)
	}
	if d := earlier - res.FirstRuntime.Seconds(); d < 0 {
		t.Errorf("the fits named took %.3g s, less than the %v before the one returned", earlier, res.FirstRuntime)
	}
	s.OneStart = true
	if one := solve(t, p, s); one.Restarted || len(one.Fits) != 0 || one.Iterations != 3000 {
		t.Errorf("OneStart: restarted %v, %d other fits, %d iterations", one.Restarted, len(one.Fits), one.Iterations)
	}

	mc := instance(t, synth.Config{Kind: synth.Completion, N1: 200, Rank: 3, P: 0.3, Seed: 2},
		synth.Setting{Kappa: 10, PS: 0.1, SNR: noNoise})
	q := scaledsm.Problem{Op: mc.Op, Y: mc.Y, Rank: scaledsm.AutoRank, Truth: mc.Star}
	auto, err := completion.Solve(context.Background(), q, completion.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	var ranks []int
	for _, f := range auto.Fits {
		if !f.Validation {
			t.Errorf("rank auto: a fit not kept besides the validation fits: %+v", f)
		}
		ranks = append(ranks, f.Rank)
	}
	// The ranks in order, then those below the exact one again, from
	// restartTruncation's start (see ChooseRank).
	c := auto.RankChoice
	if c == nil || len(ranks) < len(c.Ranks) || !slices.Equal(ranks[:len(c.Ranks)], c.Ranks) {
		t.Fatalf("rank auto: the fits named are of ranks %v, the ranks tried %v", ranks, c)
	}
	for _, r := range ranks[len(c.Ranks):] {
		if !c.Exact || r >= c.Rank {
			t.Errorf("rank auto: the fits named are of ranks %v, the ranks tried %v, exact at %d: %v", ranks, c.Ranks, c.Rank, c.Exact)
		}
	}
}
