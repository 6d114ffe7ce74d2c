package completion_test

import (
	"context"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/synth"
)

// TestAutoRidgeRestart: issue 24's small matrix (n = 100, r = 2, p = 0.3,
// κ = 100, 10% outliers, seed 2) stops at 0.13 from the median rule's
// spectral start; the default settings fit it again from the start
// truncated at restartTruncation, which recovers it, and say so. Without
// AutoRidge (Ridge 0) nothing is retried. The outliers' support, read
// from the sparse part, is the one drawn.
func TestAutoRidgeRestart(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Completion, N1: 100, Rank: 2, P: 0.3, Seed: 2},
		synth.Setting{Kappa: 100, PS: 0.1, SNR: noNoise})
	p := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 2, Truth: in.Star}
	for _, auto := range []bool{false, true} {
		s := completion.DefaultSettings()
		s.Converger, s.Tol, s.MaxIter = nil, 1e-10, 3000
		if !auto {
			s.Ridge = 0
		}
		res := solve(t, p, s)
		t.Logf("AutoRidge %v: %v after %d, error %.3g, fit %.3f, restarted %v", auto, res.Status, res.Iterations, res.RelError, res.FitFraction, res.Restarted)
		if res.Restarted != auto || (res.Status == scaledsm.Converged) != auto || (auto && res.RestartStart != scaledsm.SpectralStart) {
			t.Errorf("AutoRidge %v: %v at %.3g, restarted %v", auto, res.Status, res.RelError, res.Restarted)
		}
		if !auto {
			continue
		}
		sp, err := in.Op.(*completion.Entries).SparsePart(in.Y, res.Factors)
		if err != nil {
			t.Fatal(err)
		}
		corrupted := in.Corrupted()
		for k, v := range sp {
			if (v != 0) != corrupted[k] {
				t.Fatalf("entry %d: sparse part %g, corrupted %v", k, v, corrupted[k])
			}
		}
	}
}

// TestConvexRestart: the same matrix's seed 1 stops short from both
// spectral starts, the median rule's and the one truncated at
// restartTruncation; the default settings fit it again from the convex start,
// which recovers it, and say so.
func TestConvexRestart(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Completion, N1: 100, Rank: 2, P: 0.3, Seed: 1},
		synth.Setting{Kappa: 100, PS: 0.1, SNR: noNoise})
	p := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 2, Truth: in.Star}
	s := completion.DefaultSettings()
	s.Converger, s.Tol, s.MaxIter = nil, 1e-10, 3000
	for _, trim := range []scaledsm.Truncation{{}, scaledsm.TruncateFraction(completion.RestartTruncation)} {
		u := s
		u.Ridge, u.Truncation = 0, trim
		if res := solve(t, p, u); res.Status == scaledsm.Converged || res.FitFraction >= 0.5 {
			t.Errorf("trim %v: %v at %.3g, fit %.3f; the case needs no convex start", trim, res.Status, res.RelError, res.FitFraction)
		}
	}
	res := solve(t, p, s)
	t.Logf("%v after %d, error %.3g, restarted %v from %v, after %v", res.Status, res.Iterations, res.RelError, res.Restarted, res.RestartStart, res.FirstRuntime)
	if res.Status != scaledsm.Converged || !res.Restarted || res.RestartStart != scaledsm.ConvexStart || !(res.FirstRuntime > 0) {
		t.Errorf("%v at %.3g, restarted %v from %v", res.Status, res.RelError, res.Restarted, res.RestartStart)
	}
}

// TestRestartInterrupted: a stop asked for during the second fit returns
// the first, marked interrupted.
func TestRestartInterrupted(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Completion, N1: 100, Rank: 2, P: 0.3, Seed: 2},
		synth.Setting{Kappa: 100, PS: 0.1, SNR: noNoise})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := completion.DefaultSettings()
	s.Converger, s.Tol, s.MaxIter = nil, 1e-10, 3000
	starts := 0
	s.Recorder = func(it scaledsm.Iteration) {
		if it.Iter == 0 {
			starts++
		}
		if starts == 2 && it.Iter == 10 {
			cancel()
		}
	}
	res, err := completion.Solve(ctx, scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 2, Truth: in.Star}, s)
	if err != nil {
		t.Fatal(err)
	}
	if starts != 2 || res.Status != scaledsm.Interrupted || res.Restarted || res.Iterations != 3000 {
		t.Errorf("%d starts: %v after %d, restarted %v", starts, res.Status, res.Iterations, res.Restarted)
	}
}
