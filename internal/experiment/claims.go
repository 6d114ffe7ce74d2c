package experiment

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/scaledsm/scaledsm"
)

// Claim is a statement the paper makes about a figure, checked on the
// traces of a Result. The claims are data in the figure specifications;
// a Result made by hand (in a test, say) can be checked as well as one
// from RunFigure.
type Claim interface {
	Check(r *Result) Verdict
}

// Verdict is a claim checked: what it says, what was expected of the
// traces, what they show and whether the claim holds.
type Verdict struct {
	Panel    string // the panel the claim is about ("b, c" for several)
	Claim    string
	Expected string
	Measured string
	Holds    bool
}

// Check checks every claim of the result's figure, in order.
func Check(r *Result) []Verdict {
	var vs []Verdict
	for _, c := range r.Figure.Claims {
		vs = append(vs, c.Check(r))
	}
	return vs
}

// runsOf returns the runs of a panel by a method, in the order of the
// parameter vary (ties keep the panel's order).
func runsOf(r *Result, panel string, m scaledsm.Method, vary Param) []Run {
	var out []Run
	for _, run := range r.Panel(panel) {
		if run.Curve.Method == m {
			out = append(out, run)
		}
	}
	slices.SortStableFunc(out, func(a, b Run) int {
		va, vb := vary.Of(a.Curve), vary.Of(b.Curve)
		switch {
		case va < vb:
			return -1
		case va > vb:
			return 1
		}
		return 0
	})
	return out
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// sci formats an error level: 8.4e-03.
func sci(v float64) string {
	if math.IsNaN(v) {
		return "none"
	}
	return fmt.Sprintf("%.2g", v)
}

// outcome describes how a run ended: "267" iterations to Tol, or
// "7.3e-09 after 1000", or "1.3e-12, stalled after 270" when a zero
// Polyak step (f(X_t) <= f(X*)) stopped it.
func outcome(run Run) string {
	if t := run.ItersTo(Tol); t >= 0 {
		return fmt.Sprintf("%d", t)
	}
	if n := len(run.Trace); n > 0 && run.Trace[n-1].StepLength == 0 {
		return fmt.Sprintf("%s, stalled after %d", sci(run.Final()), run.Iterations())
	}
	return fmt.Sprintf("%s after %d", sci(run.Final()), run.Iterations())
}

// values lists the parameter's values over runs: "1, 5, 10, 20".
func values(runs []Run, p Param) string {
	s := make([]string, len(runs))
	for i, r := range runs {
		s[i] = num(p.Of(r.Curve))
	}
	return strings.Join(s, ", ")
}

// perRun lists "κ=1: 267; κ=5: 271" over runs.
func perRun(runs []Run, p Param, f func(Run) string) string {
	s := make([]string, len(runs))
	for i, r := range runs {
		s[i] = p.Format(r.Curve) + ": " + f(r)
	}
	return strings.Join(s, "; ")
}

func noRuns(panel string, claim string) Verdict {
	return Verdict{Panel: panel, Claim: claim, Expected: "runs in the panel", Measured: "no runs"}
}

// ReachesTol claims that a method reaches Tol on every curve of a panel.
type ReachesTol struct {
	Panel  string
	Method scaledsm.Method
	Vary   Param
}

// Check checks the claim.
func (c ReachesTol) Check(r *Result) Verdict {
	claim := fmt.Sprintf("%s reaches %s at every %s", c.Method.Name(), sci(Tol), c.Vary)
	runs := runsOf(r, c.Panel, c.Method, c.Vary)
	if len(runs) == 0 {
		return noRuns(c.Panel, claim)
	}
	v := Verdict{Panel: c.Panel, Claim: claim, Holds: true,
		Expected: fmt.Sprintf("relative error ≤ %s within the iteration limit at %s = %s", sci(Tol), c.Vary, values(runs, c.Vary)),
		Measured: "iterations to " + sci(Tol) + ": " + perRun(runs, c.Vary, outcome),
	}
	for _, run := range runs {
		v.Holds = v.Holds && run.Converged()
	}
	return v
}

// Flat claims that a method's iterations to Tol vary by at most Spread
// (relative to the fewest) across the curves of a panel.
type Flat struct {
	Panel  string
	Method scaledsm.Method
	Vary   Param
	Spread float64 // 0.15 for 15%
}

// Check checks the claim.
func (c Flat) Check(r *Result) Verdict {
	claim := fmt.Sprintf("%s's iterations to %s vary by at most %g%% across %s", c.Method.Name(), sci(Tol), 100*c.Spread, c.Vary)
	runs := runsOf(r, c.Panel, c.Method, c.Vary)
	if len(runs) == 0 {
		return noRuns(c.Panel, claim)
	}
	v := Verdict{Panel: c.Panel, Claim: claim,
		Expected: fmt.Sprintf("(most − fewest)/fewest ≤ %g%%, every run reaching %s", 100*c.Spread, sci(Tol)),
	}
	lo, hi := math.MaxInt, 0
	for _, run := range runs {
		t := run.ItersTo(Tol)
		if t < 0 {
			v.Measured = fmt.Sprintf("%s does not reach %s (%s)", c.Vary.Format(run.Curve), sci(Tol), outcome(run))
			return v
		}
		lo, hi = min(lo, t), max(hi, t)
	}
	spread := float64(hi-lo) / float64(max(lo, 1))
	v.Measured = fmt.Sprintf("%d to %d iterations: %.1f%%", lo, hi, 100*spread)
	v.Holds = spread <= c.Spread
	return v
}

// Slows claims that a method slows as a parameter grows: at To it needs at
// least Ratio times the iterations to Tol that it needs at From, or it
// does not converge at Worst.
type Slows struct {
	Panel    string
	Method   scaledsm.Method
	Vary     Param
	From, To float64
	Ratio    float64
	Worst    float64
}

// Check checks the claim.
func (c Slows) Check(r *Result) Verdict {
	claim := fmt.Sprintf("%s slows with %s", c.Method.Name(), c.Vary)
	at := func(x float64) (Run, bool) {
		for _, run := range runsOf(r, c.Panel, c.Method, c.Vary) {
			if c.Vary.Of(run.Curve) == x {
				return run, true
			}
		}
		return Run{}, false
	}
	from, ok1 := at(c.From)
	to, ok2 := at(c.To)
	worst, ok3 := at(c.Worst)
	if !ok1 || !ok2 || !ok3 {
		return noRuns(c.Panel, claim)
	}
	v := Verdict{Panel: c.Panel, Claim: claim,
		Expected: fmt.Sprintf("at least %g× the iterations to %s at %s as at %s, or no convergence at %s",
			c.Ratio, sci(Tol), c.Vary.Format(to.Curve), c.Vary.Format(from.Curve), c.Vary.Format(worst.Curve)),
	}
	tf, tt := from.ItersTo(Tol), to.ItersTo(Tol)
	ratioOK := tf >= 0 && (tt < 0 || float64(tt) >= c.Ratio*float64(max(tf, 1)))
	worstOK := !worst.Converged()
	v.Measured = "iterations: " + perRun(runsOf(r, c.Panel, c.Method, c.Vary), c.Vary, func(run Run) string {
		t := run.ItersTo(Tol)
		switch {
		case t < 0:
			return "no convergence (" + outcome(run) + ")"
		case tf < 0 || run.Curve == from.Curve:
			return fmt.Sprint(t)
		}
		return fmt.Sprintf("%d (%.2f×)", t, float64(t)/float64(max(tf, 1)))
	})
	v.Holds = tf >= 0 && (ratioOK || worstOK)
	return v
}

// SlowerWith claims that a method takes more iterations to Tol at each
// larger value of a parameter. A run that does not reach Tol counts as
// slower than any that does, and among those that do not, the one that
// ends at the higher error as the slower.
type SlowerWith struct {
	Panel  string
	Method scaledsm.Method
	Vary   Param
}

// Check checks the claim.
func (c SlowerWith) Check(r *Result) Verdict {
	claim := fmt.Sprintf("%s converges more slowly as %s grows", c.Method.Name(), c.Vary)
	runs := runsOf(r, c.Panel, c.Method, c.Vary)
	if len(runs) < 2 {
		return noRuns(c.Panel, claim)
	}
	v := Verdict{Panel: c.Panel, Claim: claim, Holds: true,
		Expected: fmt.Sprintf("more iterations to %s at each larger %s (%s)", sci(Tol), c.Vary, values(runs, c.Vary)),
		Measured: "iterations: " + perRun(runs, c.Vary, outcome),
	}
	slower := func(a, b Run) bool { // a strictly slower than b
		ta, tb := a.ItersTo(Tol), b.ItersTo(Tol)
		switch {
		case ta >= 0 && tb >= 0:
			return ta > tb
		case ta < 0 && tb >= 0:
			return true
		case ta < 0 && tb < 0:
			return a.Final() > b.Final()
		}
		return false
	}
	for i := 1; i < len(runs); i++ {
		v.Holds = v.Holds && slower(runs[i], runs[i-1])
	}
	return v
}

// FloorsApart claims that a method's noise floors (final errors) fall by
// a factor between Low and High per 20 dB of SNR.
type FloorsApart struct {
	Panel     string
	Method    scaledsm.Method
	Low, High float64
}

// Check checks the claim.
func (c FloorsApart) Check(r *Result) Verdict {
	claim := fmt.Sprintf("%s's noise floors are about tenfold apart per 20 dB", c.Method.Name())
	runs := runsOf(r, c.Panel, c.Method, SNR)
	if len(runs) < 2 {
		return noRuns(c.Panel, claim)
	}
	v := Verdict{Panel: c.Panel, Claim: claim, Holds: true,
		Expected: fmt.Sprintf("final errors fall by a factor between %g and %g per 20 dB", c.Low, c.High),
	}
	floors := make([]string, len(runs))
	var ratios []string
	for i, run := range runs {
		floors[i] = sci(run.Final())
		if i == 0 {
			continue
		}
		prev := runs[i-1]
		db := SNR.Of(run.Curve) - SNR.Of(prev.Curve)
		ratio := math.Pow(prev.Final()/run.Final(), 20/db)
		ratios = append(ratios, fmt.Sprintf("%.3g", ratio))
		v.Holds = v.Holds && ratio >= c.Low && ratio <= c.High
	}
	v.Measured = fmt.Sprintf("%s at %s dB: factors %s per 20 dB", strings.Join(floors, ", "), values(runs, SNR), strings.Join(ratios, ", "))
	return v
}

// pairs returns the runs of a panel by two methods, matched on the setting
// (and step), for every setting both have.
func pairs(r *Result, panel string, a, b scaledsm.Method) [][2]Run {
	var out [][2]Run
	runs := r.Panel(panel)
	for _, x := range runsOf(r, panel, a, SNR) {
		for _, y := range runs {
			if y.Curve.Method == b && y.Curve.Setting == x.Curve.Setting && y.Curve.Step == x.Curve.Step {
				out = append(out, [2]Run{x, y})
				break
			}
		}
	}
	return out
}

// SameFloor claims that ScaledSM and VanillaSM end at the same error
// (within Factor) at every noise level of a panel.
type SameFloor struct {
	Panel  string
	Factor float64
}

// Check checks the claim.
func (c SameFloor) Check(r *Result) Verdict {
	claim := fmt.Sprintf("Both methods reach the same floor (within a factor %g)", c.Factor)
	ps := pairs(r, c.Panel, scaledsm.ScaledSM, scaledsm.VanillaSM)
	if len(ps) == 0 {
		return noRuns(c.Panel, claim)
	}
	v := Verdict{Panel: c.Panel, Claim: claim, Holds: true,
		Expected: fmt.Sprintf("final errors of ScaledSM and VanillaSM within a factor %g of each other at every SNR", c.Factor),
	}
	var parts []string
	for _, p := range ps {
		fs, fv := p[0].Final(), p[1].Final()
		ratio := max(fs, fv) / min(fs, fv)
		parts = append(parts, fmt.Sprintf("%s: %s vs %s (%.2f×)", SNR.Format(p[0].Curve), sci(fs), sci(fv), ratio))
		v.Holds = v.Holds && ratio <= c.Factor
	}
	v.Measured = "ScaledSM vs VanillaSM: " + strings.Join(parts, "; ")
	return v
}

// Sooner claims that one method reaches the noise floor in fewer
// iterations than the other at every noise level of a panel. The floor
// is the higher of the two final errors, and a run reaches it when its
// error is within Factor of it.
type Sooner struct {
	Panel      string
	Fast, Slow scaledsm.Method
	Factor     float64
}

// Check checks the claim.
func (c Sooner) Check(r *Result) Verdict {
	claim := fmt.Sprintf("%s reaches the floor sooner", c.Fast.Name())
	ps := pairs(r, c.Panel, c.Fast, c.Slow)
	if len(ps) == 0 {
		return noRuns(c.Panel, claim)
	}
	v := Verdict{Panel: c.Panel, Claim: claim, Holds: true,
		Expected: fmt.Sprintf("fewer iterations than %s to within %g× of the higher of the two final errors, at every SNR", c.Slow.Name(), c.Factor),
	}
	var parts []string
	for _, p := range ps {
		level := c.Factor * max(p[0].Final(), p[1].Final())
		tf, ts := p[0].ItersTo(level), p[1].ItersTo(level)
		parts = append(parts, fmt.Sprintf("%s: %d vs %d", SNR.Format(p[0].Curve), tf, ts))
		v.Holds = v.Holds && tf >= 0 && ts >= 0 && tf < ts
	}
	v.Measured = fmt.Sprintf("iterations, %s vs %s: %s", c.Fast.Name(), c.Slow.Name(), strings.Join(parts, "; "))
	return v
}

// Region claims that geometric steps converge on a region of the (λ, q)
// grid of a panel: some λ reaches Tol for at least MinRun consecutive q.
type Region struct {
	Panel  string
	MinRun int
}

// Check checks the claim.
func (c Region) Check(r *Result) Verdict {
	claim := "A region of (λ, q) converges to " + sci(Tol)
	runs := r.Panel(c.Panel)
	if len(runs) == 0 {
		return noRuns(c.Panel, claim)
	}
	v := Verdict{Panel: c.Panel, Claim: claim,
		Expected: fmt.Sprintf("some λ reaches %s for at least %d consecutive q of the grid", sci(Tol), c.MinRun),
	}
	var lambdas []float64
	byLambda := map[float64][]Run{}
	for _, run := range runs {
		l := run.Curve.Step.Lambda
		if _, ok := byLambda[l]; !ok {
			lambdas = append(lambdas, l)
		}
		byLambda[l] = append(byLambda[l], run)
	}
	slices.Sort(lambdas)
	total := 0
	var parts []string
	for _, l := range lambdas {
		rs := byLambda[l]
		slices.SortStableFunc(rs, func(a, b Run) int {
			switch {
			case a.Curve.Step.Q < b.Curve.Step.Q:
				return -1
			case a.Curve.Step.Q > b.Curve.Step.Q:
				return 1
			}
			return 0
		})
		var qs []string
		streak := 0
		for i, run := range rs {
			if !run.Converged() {
				streak = 0
				continue
			}
			total++
			streak++
			if streak >= c.MinRun {
				v.Holds = true
			}
			// List maximal stretches of consecutive converging q.
			if streak == 1 {
				qs = append(qs, num(run.Curve.Step.Q))
			}
			if i == len(rs)-1 || !rs[i+1].Converged() {
				if streak > 1 {
					qs[len(qs)-1] += "–" + num(run.Curve.Step.Q)
				}
			}
		}
		desc := "none"
		if len(qs) > 0 {
			desc = "q " + strings.Join(qs, ", ")
		}
		parts = append(parts, fmt.Sprintf("λ=%s: %s", num(l), desc))
	}
	v.Measured = fmt.Sprintf("%d of %d runs reach %s; %s", total, len(runs), sci(Tol), strings.Join(parts, "; "))
	return v
}

// PolyakFastest claims that Polyak's steps reach Tol in no more iterations
// than any geometric schedule of the panels.
type PolyakFastest struct {
	Panels []string
}

// Check checks the claim.
func (c PolyakFastest) Check(r *Result) Verdict {
	panel := strings.Join(c.Panels, ", ")
	claim := "Polyak's stepsizes converge at least as fast as every geometric schedule shown"
	var polyak *Run
	var best *Run
	bestT := math.MaxInt
	for _, name := range c.Panels {
		for _, run := range r.Panel(name) {
			if run.Curve.Step.Rule == Polyak {
				polyak = &run
				continue
			}
			if t := run.ItersTo(Tol); t >= 0 && t < bestT {
				bestT, best = t, &run
			}
		}
	}
	if polyak == nil {
		return noRuns(panel, claim)
	}
	v := Verdict{Panel: panel, Claim: claim,
		Expected: fmt.Sprintf("Polyak's iterations to %s ≤ the fewest of the geometric curves", sci(Tol)),
	}
	tp := polyak.ItersTo(Tol)
	pol := "Polyak: " + outcome(*polyak)
	if tp >= 0 {
		pol = fmt.Sprintf("Polyak: %d", tp)
	}
	if best == nil {
		v.Measured = pol + "; no geometric curve reaches " + sci(Tol)
		v.Holds = tp >= 0
		return v
	}
	v.Measured = fmt.Sprintf("%s; fastest geometric (λ=%s, q=%s): %d", pol, num(best.Curve.Step.Lambda), num(best.Curve.Step.Q), bestT)
	v.Holds = tp >= 0 && tp <= bestT
	return v
}

// FitQ claims that the geometric schedule fitted to the Polyak run's step
// lengths has a q within Within of the paper's fit.
type FitQ struct {
	Panel  string
	Paper  Fit
	Within float64
}

// Check checks the claim.
func (c FitQ) Check(r *Result) Verdict {
	claim := "The geometric schedule fitted to Polyak's step lengths has the paper's q"
	var polyak *Run
	for _, run := range r.Panel(c.Panel) {
		if run.Curve.Step.Rule == Polyak {
			polyak = &run
			break
		}
	}
	if polyak == nil {
		return noRuns(c.Panel, claim)
	}
	v := Verdict{Panel: c.Panel, Claim: claim,
		Expected: fmt.Sprintf("q within %g of %s (the paper's fit: λ = %s, q = %s; λ depends on the draw)", c.Within, num(c.Paper.Q), num(c.Paper.Lambda), num(c.Paper.Q)),
	}
	fit, err := FitGeometric(polyak.Trace)
	if err != nil {
		v.Measured = err.Error()
		return v
	}
	v.Measured = fmt.Sprintf("λ = %.3g, q = %.3g (over %d step lengths)", fit.Lambda, fit.Q, fit.Points)
	v.Holds = math.Abs(fit.Q-c.Paper.Q) <= c.Within
	return v
}
