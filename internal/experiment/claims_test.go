package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm"
)

// converging is a hand-made trace that halves the error each iteration and
// first reaches Tol at iteration k.
func converging(k int) []scaledsm.Iteration {
	tr := make([]scaledsm.Iteration, k+1)
	for t := range tr {
		e := math.Max(math.Pow(0.5, float64(t)), 2*Tol)
		if t == k {
			e = Tol / 2
		}
		tr[t] = scaledsm.Iteration{Iter: t, RelError: e, StepLength: 1}
	}
	tr[k].StepLength = math.NaN()
	return tr
}

// flooring is a hand-made trace that falls by a factor 1/rate each
// iteration to level and stays there for n iterations in all.
func flooring(rate, level float64, n int) []scaledsm.Iteration {
	tr := make([]scaledsm.Iteration, n+1)
	for t := range tr {
		tr[t] = scaledsm.Iteration{Iter: t, RelError: math.Max(math.Pow(rate, float64(t)), level), StepLength: 1}
	}
	return tr
}

// byHand is a result of figure n whose traces trace(panel, curve) makes.
func byHand(t *testing.T, n int, trace func(p *Panel, c Curve) []scaledsm.Iteration) *Result {
	t.Helper()
	fig, err := Lookup(n)
	if err != nil {
		t.Fatal(err)
	}
	r := &Result{Figure: fig, Config: fig.Problem, Panels: make([][]Run, len(fig.Panels))}
	for i := range fig.Panels {
		p := &fig.Panels[i]
		for _, c := range p.Curves {
			r.Panels[i] = append(r.Panels[i], Run{Curve: c, Trace: trace(p, c)})
		}
	}
	return r
}

// verdict returns the verdict of the figure's claim whose text contains
// claim, on panel.
func verdict(t *testing.T, r *Result, panel, claim string) Verdict {
	t.Helper()
	for _, v := range Check(r) {
		if v.Panel == panel && strings.Contains(v.Claim, claim) {
			return v
		}
	}
	t.Fatalf("figure %d has no claim %q on panel %s", r.Figure.Number, claim, panel)
	return Verdict{}
}

func TestKappaClaims(t *testing.T) {
	paper := func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Method == scaledsm.ScaledSM {
			// Flat in κ: 200 to 220 iterations, 10%.
			return converging(map[float64]int{1: 200, 5: 205, 10: 212, 20: 220}[c.Setting.Kappa])
		}
		switch c.Setting.Kappa {
		case 1:
			return converging(200)
		case 5:
			return converging(600)
		}
		return flooring(0.98, 1e-6, 1000)
	}
	r := byHand(t, 1, paper)
	for _, v := range Check(r) {
		if !v.Holds {
			t.Errorf("(%s) %s fails on traces that bear it out: %s", v.Panel, v.Claim, v.Measured)
		}
	}
	if v := verdict(t, r, "a", "vary by at most 15%"); !strings.Contains(v.Measured, "200 to 220 iterations: 10.0%") {
		t.Errorf("flatness measured as %q", v.Measured)
	}

	// ScaledSM 25% slower at κ = 20: not flat; and short of 1e-12 at κ = 20.
	r = byHand(t, 1, func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Method == scaledsm.ScaledSM && c.Setting.Kappa == 20 {
			if p.Name == "a" {
				return converging(250)
			}
			return flooring(0.9, 1e-9, 1000)
		}
		return paper(p, c)
	})
	if v := verdict(t, r, "a", "vary by at most"); v.Holds || !strings.Contains(v.Measured, "25.0%") {
		t.Errorf("25%% spread: %+v", v)
	}
	if v := verdict(t, r, "a", "reaches 1e-12"); !v.Holds {
		t.Errorf("panel a converges everywhere: %+v", v)
	}
	if v := verdict(t, r, "b", "reaches 1e-12"); v.Holds || !strings.Contains(v.Measured, "κ=20: 1e-09 after 1000") {
		t.Errorf("panel b misses 1e-12 at κ=20: %+v", v)
	}
	if v := verdict(t, r, "b", "vary by at most"); v.Holds {
		t.Errorf("a run short of 1e-12 cannot be flat: %+v", v)
	}

	// VanillaSM only 1.5x slower at κ = 5, and converging at κ = 20: fails.
	r = byHand(t, 2, func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Method == scaledsm.VanillaSM {
			return converging(map[float64]int{1: 200, 5: 300, 10: 400, 20: 900}[c.Setting.Kappa])
		}
		return paper(p, c)
	})
	v := verdict(t, r, "a", "slows with κ")
	if v.Holds || !strings.Contains(v.Measured, "κ=5: 300 (1.50×)") {
		t.Errorf("VanillaSM barely slowing: %+v", v)
	}
	// ... but not converging at κ = 20 is enough.
	r = byHand(t, 2, func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Method == scaledsm.VanillaSM {
			if c.Setting.Kappa == 20 {
				return flooring(0.99, 1e-5, 1000)
			}
			return converging(map[float64]int{1: 200, 5: 300, 10: 400}[c.Setting.Kappa])
		}
		return paper(p, c)
	})
	if v := verdict(t, r, "a", "slows with κ"); !v.Holds {
		t.Errorf("VanillaSM not converging at κ=20: %+v", v)
	}
	// Not converging anywhere is not slowing with κ.
	r = byHand(t, 2, func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Method == scaledsm.VanillaSM {
			return flooring(0.99, 1e-5, 1000)
		}
		return paper(p, c)
	})
	if v := verdict(t, r, "b", "slows with κ"); v.Holds || !strings.Contains(v.Measured, "κ=1: no convergence (4.3e-05 after 1000)") {
		t.Errorf("VanillaSM converging nowhere: %+v", v)
	}
}

func TestOutlierAndNoiseClaims(t *testing.T) {
	floors := map[float64]float64{40: 8e-3, 60: 9e-4, 80: 1e-4}
	paper := func(p *Panel, c Curve) []scaledsm.Iteration {
		if p.Name == "a" {
			return converging(map[float64]int{0.1: 150, 0.2: 200, 0.3: 320}[c.Setting.PS])
		}
		if c.Method == scaledsm.ScaledSM {
			return flooring(0.7, floors[c.Setting.SNR], 60)
		}
		return flooring(0.95, 1.1*floors[c.Setting.SNR], 280)
	}
	r := byHand(t, 3, paper)
	for _, v := range Check(r) {
		if !v.Holds {
			t.Errorf("(%s) %s fails on traces that bear it out: %s", v.Panel, v.Claim, v.Measured)
		}
	}

	// A run stalled just short of 1e-12 counts as slower than any that
	// reaches it, and says so.
	r = byHand(t, 3, func(p *Panel, c Curve) []scaledsm.Iteration {
		if p.Name == "a" && c.Setting.PS == 0.3 {
			tr := flooring(0.9, 1.3e-12, 270)
			tr[270].StepLength = 0
			return tr
		}
		return paper(p, c)
	})
	if v := verdict(t, r, "a", "more slowly as p_s grows"); !v.Holds || !strings.Contains(v.Measured, "p_s=0.3: 1.3e-12, stalled after 270") {
		t.Errorf("a stall short of 1e-12 at p_s=0.3: %+v", v)
	}

	r = byHand(t, 4, func(p *Panel, c Curve) []scaledsm.Iteration {
		switch {
		case p.Name == "a" && c.Method == scaledsm.ScaledSM:
			// Faster at p_s = 0.3 than at 0.2.
			return converging(map[float64]int{0.1: 150, 0.2: 200, 0.3: 180}[c.Setting.PS])
		case p.Name == "b" && c.Method == scaledsm.VanillaSM:
			// Floors only 3x apart per 20 dB and 3x above ScaledSM's at
			// 80 dB; faster than ScaledSM.
			f := map[float64]float64{40: 9e-3, 60: 3e-3, 80: 3e-4}[c.Setting.SNR]
			return flooring(0.3, f, 300)
		}
		return paper(p, c)
	})
	for _, c := range []struct{ claim, want string }{
		{"more slowly as p_s grows", "p_s=0.3: 180"},
		{"VanillaSM's noise floors", "factors 3, 10"},
		{"same floor", "SNR=80dB: 0.0001 vs 0.0003 (3.00×)"},
		{"reaches the floor sooner", "SNR=40dB:"},
	} {
		panel := "b"
		if strings.Contains(c.claim, "p_s") {
			panel = "a"
		}
		v := verdict(t, r, panel, c.claim)
		if v.Holds {
			t.Errorf("%q holds on traces that contradict it: %s", c.claim, v.Measured)
		}
		if !strings.Contains(v.Measured, c.want) {
			t.Errorf("%q: measured %q lacks %q", c.claim, v.Measured, c.want)
		}
	}
	if v := verdict(t, r, "b", "ScaledSM's noise floors"); !v.Holds {
		t.Errorf("ScaledSM's floors are unchanged and tenfold apart: %+v", v)
	}
}

// polyakLengths is a trace whose Polyak step lengths are lambda q^t and
// which reaches Tol at iteration k.
func polyakLengths(lambda, q float64, k int) []scaledsm.Iteration {
	tr := converging(k)
	for t := range k {
		tr[t].StepLength = lambda * math.Pow(q, float64(t))
	}
	return tr
}

func TestStepClaims(t *testing.T) {
	// The paper's picture: geometric steps converge for q >= 0.9 when
	// λ <= 20, Polyak fastest with step lengths 1.9·0.91^t.
	paper := func(p *Panel, c Curve) []scaledsm.Iteration {
		if c.Step.Rule == Polyak {
			return polyakLengths(1.9, 0.91, 250)
		}
		if c.Step.Q >= 0.9 && c.Step.Lambda <= 20 {
			return converging(300 + int(1000*(c.Step.Q-0.9)))
		}
		return flooring(0.9, 1e-4, 1000)
	}
	r := byHand(t, 5, paper)
	for _, v := range Check(r) {
		if !v.Holds {
			t.Errorf("(%s) %s fails on traces that bear it out: %s", v.Panel, v.Claim, v.Measured)
		}
	}
	v := verdict(t, r, "a", "region")
	if !strings.Contains(v.Measured, "40 of 108 runs") || !strings.Contains(v.Measured, "λ=1: q 0.9–0.97") || !strings.Contains(v.Measured, "λ=50: none") {
		t.Errorf("region measured as %q", v.Measured)
	}
	if v := verdict(t, r, "d", "fitted"); !strings.Contains(v.Measured, "λ = 1.9, q = 0.91 (over 250 step lengths)") {
		t.Errorf("fit measured as %q", v.Measured)
	}

	// Scattered convergence (no three neighbours in q), a geometric curve
	// of panel (c) faster than Polyak, and Polyak's steps decaying at 0.85.
	r = byHand(t, 6, func(p *Panel, c Curve) []scaledsm.Iteration {
		switch {
		case c.Step.Rule == Polyak:
			return polyakLengths(1.4, 0.85, 250)
		case c.Step.Lambda == 5 && c.Step.Q == 0.9:
			return converging(240)
		case c.Step.Q == 0.83 || c.Step.Q == 0.84 || c.Step.Q == 0.97:
			return converging(400)
		}
		return flooring(0.9, 1e-4, 1000)
	})
	for _, c := range []struct{ panel, claim, want string }{
		{"a", "region", "λ=5: q 0.83–0.84, 0.9, 0.97"},
		{"b, c", "Polyak's stepsizes converge", "Polyak: 250; fastest geometric (λ=5, q=0.9): 240"},
		{"d", "fitted", "q = 0.85"},
	} {
		v := verdict(t, r, c.panel, c.claim)
		if v.Holds {
			t.Errorf("%q holds on traces that contradict it: %s", c.claim, v.Measured)
		}
		if !strings.Contains(v.Measured, c.want) {
			t.Errorf("%q: measured %q lacks %q", c.claim, v.Measured, c.want)
		}
	}
}

func TestClaimsWithoutRuns(t *testing.T) {
	fig, _ := Lookup(1)
	r := &Result{Figure: fig, Panels: make([][]Run, len(fig.Panels))}
	for _, v := range Check(r) {
		if v.Holds || v.Measured != "no runs" {
			t.Errorf("(%s) %s on an empty result: %+v", v.Panel, v.Claim, v)
		}
	}
}
