package experiment

import (
	"bytes"
	"context"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// smallCompletion is the study at a size for tests: n = 100, r = 2,
// p = 0.5. (At this size the default method's iterations do depend on κ:
// 106 and 99 at κ = 1 against 632 and 160 at κ = 100 on seeds 1 and 2.)
func smallCompletion() CompletionConfig {
	return CompletionConfig{
		N: 100, Rank: 2, P: 0.5, PS: 0.1,
		Kappas: []float64{1, 100}, Seeds: []uint64{1, 2},
		SweepPS: []float64{0, 0.1, 0.4}, Kappa: 10, RPCAPS: []float64{0.2},
		Tol: 1e-10, MaxIter: 400, ContrastIter: 150, Spread: 0.2, Slow: 3,
	}
}

// byHandRun is a run whose error falls geometrically to 1e-11 in iters
// iterations (converged), or stays at 1e-2 for iters iterations.
func byHandRun(kind synth.Kind, s Solver, kappa, ps float64, seed uint64, iters int, converged bool) CompletionRun {
	run := CompletionRun{Kind: kind.String(), Solver: s, Kappa: kappa, PS: ps, Seed: seed, Iterations: iters, Status: scaledsm.IterationLimit.String()}
	for t := 0; t <= iters; t++ {
		e := 1e-2
		if converged {
			e = math.Pow(1e-11, float64(t)/float64(iters))
		}
		run.Errors = append(run.Errors, e)
	}
	run.RelError = run.Errors[iters]
	if converged {
		run.Status = scaledsm.Converged.String()
	}
	return run
}

// byHandCompletion is a study whose every claim holds: the default method
// takes 100 to 110 iterations everywhere, the contrasts fail, ScaledGD on
// least squares recovers only without outliers.
func byHandCompletion() *CompletionResult {
	c := smallCompletion()
	r := &CompletionResult{Config: c}
	for _, key := range c.plan() {
		var run CompletionRun
		switch key.solver {
		case Default:
			recovers := key.kind == synth.RobustPCA || key.ps <= c.PS
			run = byHandRun(key.kind, key.solver, key.kappa, key.ps, key.seed, 100+int(key.seed), recovers)
		case ScaledGDL2:
			run = byHandRun(key.kind, key.solver, key.kappa, key.ps, key.seed, 150, key.ps == 0)
			if key.ps > 0 {
				run.RelError = 10
			}
		default:
			run = byHandRun(key.kind, key.solver, key.kappa, key.ps, key.seed, c.ContrastIter, false)
		}
		r.Runs = append(r.Runs, run)
	}
	return r
}

func TestCompletionClaimsByHand(t *testing.T) {
	r := byHandCompletion()
	for _, v := range r.Claims() {
		if !v.Holds {
			t.Errorf("(%s) %s: %s; want it to hold", v.Panel, v.Claim, v.Measured)
		}
	}
	if n := len(r.Claims()); n != 9 {
		t.Errorf("%d claims; want 9", n)
	}
	c := r.Config
	// Each change below breaks one claim, and only it.
	set := func(s Solver, kind synth.Kind, kappa, ps float64, seed uint64, run CompletionRun) *CompletionResult {
		b := byHandCompletion()
		for i, old := range b.Runs {
			if old.Solver == s && old.Kind == kind.String() && old.Kappa == kappa && old.PS == ps && old.Seed == seed {
				b.Runs[i] = run
			}
		}
		return b
	}
	mc, hi := synth.Completion, c.Kappas[len(c.Kappas)-1]
	cases := []struct {
		name  string
		r     *CompletionResult
		fails []string // words of the claims that must fail, one of which each failure names
	}{
		{"the default's iterations grow with κ",
			set(Default, mc, hi, c.PS, 1, byHandRun(mc, Default, hi, c.PS, 1, 300, true)), []string{"vary by at most"}},
		{"the default fails at one κ",
			set(Default, mc, hi, c.PS, 2, byHandRun(mc, Default, hi, c.PS, 2, 400, false)), []string{"at every κ and seed", "vary by at most"}},
		{"GD converges as fast at κ=100",
			set(GDTrimmed, mc, hi, c.PS, 1, byHandRun(mc, GDTrimmed, hi, c.PS, 1, 50, true)), []string{string(GDTrimmed)}},
		{"the default fails at p_s = 0.1 (sweep)",
			set(Default, mc, c.Kappa, c.PS, 1, byHandRun(mc, Default, c.Kappa, c.PS, 1, 400, false)), []string{"up to p_s", "l2sq"}},
		{"least squares recovers with outliers",
			set(ScaledGDL2, mc, c.Kappa, c.PS, 1, byHandRun(mc, ScaledGDL2, c.Kappa, c.PS, 1, 150, true)), []string{"l2sq"}},
		{"robust PCA fails",
			set(Default, synth.RobustPCA, c.Kappa, c.RPCAPS[0], 1, byHandRun(synth.RobustPCA, Default, c.Kappa, c.RPCAPS[0], 1, 400, false)), []string{"robust PCA"}},
		{"ScaledSM l1 converges",
			set(ScaledL1Auto, mc, c.Kappa, c.PS, 1, byHandRun(mc, ScaledL1Auto, c.Kappa, c.PS, 1, 80, true)), []string{string(ScaledL1Auto)}},
	}
	for _, tc := range cases {
		var failed []string
		for _, v := range tc.r.Claims() {
			if !v.Holds {
				failed = append(failed, v.Claim)
			}
		}
		if len(failed) == 0 {
			t.Errorf("%s: every claim holds", tc.name)
			continue
		}
		for _, f := range failed {
			named := false
			for _, w := range tc.fails {
				named = named || strings.Contains(f, w)
			}
			if !named {
				t.Errorf("%s: %q fails; only claims naming %q should", tc.name, f, tc.fails)
			}
		}
	}
	// A study missing its runs fails its claims rather than holding them.
	empty := &CompletionResult{Config: c}
	for _, v := range empty.Claims() {
		if v.Holds {
			t.Errorf("no runs: (%s) %s holds", v.Panel, v.Claim)
		}
	}
}

// TestRunCompletionSmall runs the study at n = 100 and checks its runs,
// the mathematics they must show even at this size, and that its JSON,
// panels and table carry them.
func TestRunCompletionSmall(t *testing.T) {
	c := smallCompletion()
	calls := 0
	r, err := RunCompletion(context.Background(), c, func(done, total int) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != len(c.plan()) || calls != len(r.Runs) {
		t.Fatalf("%d runs, %d progress calls; want %d", len(r.Runs), calls, len(c.plan()))
	}
	for _, run := range r.Runs {
		if len(run.Errors) != run.Iterations+1 || run.Errors[run.Iterations] != run.RelError {
			t.Errorf("%s κ=%g p_s=%g: %d errors for %d iterations", run.Solver, run.Kappa, run.PS, len(run.Errors), run.Iterations)
		}
		if run.Converged() != (run.RelError <= c.Tol) {
			t.Errorf("%s κ=%g p_s=%g: status %s at error %g", run.Solver, run.Kappa, run.PS, run.Status, run.RelError)
		}
	}
	// The default method and ScaledSM with auto start from the same
	// spectral estimate (median trimming) of the same instance.
	def, _ := r.find(synth.Completion, Default, c.Kappa, c.PS, 1)
	l1, _ := r.find(synth.Completion, ScaledL1Auto, c.Kappa, c.PS, 1)
	if def.Errors[0] != l1.Errors[0] {
		t.Errorf("initial errors %g and %g differ on one instance", def.Errors[0], l1.Errors[0])
	}
	// Exact recovery without outliers; least squares ruined by them.
	clean, _ := r.find(synth.Completion, Default, c.Kappa, 0, 1)
	l2, _ := r.find(synth.Completion, ScaledGDL2, c.Kappa, c.PS, 1)
	if !clean.Converged() || l2.RelError < 1e-3 {
		t.Errorf("default at p_s=0: %s; ScaledGD l2sq at p_s=%g: %s", clean.outcome(), c.PS, l2.outcome())
	}

	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCompletion(&js)
	if err != nil {
		t.Fatal(err)
	}
	want, got := r.Claims(), back.Claims()
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("claim %d after the JSON: %+v; want %+v", i, got[i], want[i])
		}
	}
	for i := range CompletionPanels {
		var b bytes.Buffer
		if err := RenderCompletion(&b, back, i, "png"); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil || img.Bounds().Dx() != 768 {
			t.Errorf("panel %d: %v", i, err)
		}
	}
	var md strings.Builder
	if err := back.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| "+string(Default)+" | 1 |") || strings.Count(md.String(), "(completion study, beyond the paper)") != 9 {
		t.Errorf("table:\n%s", md.String())
	}
	if _, err := ReadCompletion(strings.NewReader(`{"config": {"N": 0}}`)); err == nil {
		t.Error("a study of size 0 was read")
	}
}
