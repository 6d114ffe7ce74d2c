// Package experiment reproduces the experiments of Tong, Ma and Chi's paper.
// Table1 measures Table 1 (iteration counts of GD, ScaledGD, VanillaSM and
// ScaledSM against the condition number). For the figures of Section 4 it
// holds their specifications as data, a runner that solves every curve of a
// figure in one batch on one synthetic draw, a tidy CSV form of the results,
// plots in the paper's style, a checker of the paper's claims, and a self-
// contained HTML report.
//
// A Figure is a list of panels, each a list of curves (a method, a step
// rule and a setting of the data), and the claims the paper makes about
// them. RunFigure solves a figure; WriteCSV and WriteMeta store its traces
// and record, ReadResult and LoadDir restore them; Check tests its claims;
// RenderPanel draws a panel; WriteReport puts figures, settings and claims
// into one HTML page.
package experiment

import (
	"fmt"
	"math"
	"strconv"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// Tol is the relative error at which every run of the figures stops, and
// the level "converged" means in the claims.
const Tol = 1e-12

// Rule is a stepsize rule of a curve.
type Rule int

const (
	// Polyak is Polyak's stepsize, with f(X*) known from the synthetic data.
	Polyak Rule = iota
	// Geometric is the geometrically decaying stepsize λ q^t.
	Geometric
)

// String returns "polyak" or "geometric", as the CSV spells the rules.
func (r Rule) String() string {
	switch r {
	case Polyak:
		return "polyak"
	case Geometric:
		return "geometric"
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// Step is a curve's stepsize rule with its parameters (Lambda and Q for
// geometric steps only).
type Step struct {
	Rule      Rule
	Lambda, Q float64
}

// Curve is one run: a method with a step rule on one setting of the data,
// for at most MaxIter iterations.
type Curve struct {
	Method  scaledsm.Method
	Step    Step
	Setting synth.Setting
	MaxIter int
}

// Param is a parameter that varies across the curves of a panel.
type Param int

const (
	Kappa  Param = iota // condition number κ
	PS                  // outlier fraction p_s
	SNR                 // signal-to-noise ratio in dB
	Lambda              // geometric step's λ
	Q                   // geometric step's q
)

// String returns the parameter's name as legends print it.
func (p Param) String() string {
	switch p {
	case Kappa:
		return "κ"
	case PS:
		return "p_s"
	case SNR:
		return "SNR"
	case Lambda:
		return "λ"
	case Q:
		return "q"
	}
	return fmt.Sprintf("Param(%d)", int(p))
}

// Of returns the value of the parameter for a curve.
func (p Param) Of(c Curve) float64 {
	switch p {
	case Kappa:
		return c.Setting.Kappa
	case PS:
		return c.Setting.PS
	case SNR:
		return c.Setting.SNR
	case Lambda:
		return c.Step.Lambda
	case Q:
		return c.Step.Q
	}
	return math.NaN()
}

// Format returns "κ=5", "SNR=40dB" and the like for a curve.
func (p Param) Format(c Curve) string {
	v := strconv.FormatFloat(p.Of(c), 'g', -1, 64)
	if p == SNR {
		return p.String() + "=" + v + "dB"
	}
	return p.String() + "=" + v
}

// PanelKind is what a panel plots.
type PanelKind int

const (
	// ErrorPanel plots the relative error against the iteration count,
	// one line per curve.
	ErrorPanel PanelKind = iota
	// FinalPanel plots the final relative error of geometric steps against
	// q, one line per λ (Figures 5(a) and 6(a)).
	FinalPanel
	// StepPanel plots Polyak's step lengths λ_t against the iteration
	// count with the geometric schedule λ q^t fitted to them (Figures 5(d)
	// and 6(d)).
	StepPanel
)

// Panel is one panel of a figure.
type Panel struct {
	Name    string // "a", "b", ...
	Caption string // the paper's sub-caption
	Kind    PanelKind
	Vary    Param // the parameter legends name
	Curves  []Curve
}

// Figure is the specification of one figure of the paper.
type Figure struct {
	Number  int
	Caption string       // the paper's caption, less the sizes
	Problem synth.Config // the paper's sizes; the seed is set when run
	Panels  []Panel
	Claims  []Claim // what the paper claims the figure shows
	Note    string  // how this specification departs from the paper, if at all
}

// Panel returns the panel named name, or nil.
func (f *Figure) Panel(name string) *Panel {
	for i := range f.Panels {
		if f.Panels[i].Name == name {
			return &f.Panels[i]
		}
	}
	return nil
}

// Sizes of the paper's experiments.
var (
	sensing   = synth.Config{Kind: synth.Sensing, N1: 100, N2: 100, Rank: 10}
	quadratic = synth.Config{Kind: synth.Quadratic, N1: 100, N2: 100, Rank: 5}
)

var noNoise = math.Inf(1)

// Figures returns the specifications of the paper's figures, in order
// (Figures 1 to 6 of its Section 4).
func Figures() []*Figure {
	return []*Figure{
		kappaFigure(1, sensing, "matrix sensing"),
		kappaFigure(2, quadratic, "quadratic sampling"),
		outlierFigure(3, sensing, "matrix sensing"),
		outlierFigure(4, quadratic, "quadratic sampling"),
		stepFigure(5, sensing, "matrix sensing", 0.91, Fit{Lambda: 1.85, Q: 0.91}),
		stepFigure(6, quadratic, "quadratic sampling", 0.92, Fit{Lambda: 1.36, Q: 0.88}),
	}
}

// Lookup returns the specification of figure n, from 1.
func Lookup(n int) (*Figure, error) {
	figs := Figures()
	if n < 1 || n > len(figs) {
		return nil, fmt.Errorf("no figure %d: the paper's figures are 1 to %d", n, len(figs))
	}
	return figs[n-1], nil
}

var methods = []scaledsm.Method{scaledsm.ScaledSM, scaledsm.VanillaSM}

// kappaFigure is Figure 1 or 2: both methods under κ = 1, 5, 10, 20,
// without outliers and with 20%.
func kappaFigure(n int, p synth.Config, problem string) *Figure {
	f := &Figure{
		Number:  n,
		Caption: fmt.Sprintf("Performance comparisons of ScaledSM and VanillaSM for %s without or with outliers under different condition numbers κ = 1, 5, 10, 20, with Polyak's stepsizes.", problem),
		Problem: p,
	}
	for _, pn := range []struct {
		name, caption string
		ps            float64
	}{{"a", "without outliers", 0}, {"b", "with 20% outliers", 0.2}} {
		panel := Panel{Name: pn.name, Caption: pn.caption, Vary: Kappa}
		for _, m := range methods {
			for _, kappa := range []float64{1, 5, 10, 20} {
				panel.Curves = append(panel.Curves, Curve{
					Method: m, Step: Step{Rule: Polyak},
					Setting: synth.Setting{Kappa: kappa, PS: pn.ps, SNR: noNoise}, MaxIter: 1000,
				})
			}
		}
		f.Panels = append(f.Panels, panel)
		f.Claims = append(f.Claims,
			ReachesTol{Panel: pn.name, Method: scaledsm.ScaledSM, Vary: Kappa},
			Flat{Panel: pn.name, Method: scaledsm.ScaledSM, Vary: Kappa, Spread: 0.15},
			Slows{Panel: pn.name, Method: scaledsm.VanillaSM, Vary: Kappa, From: 1, To: 5, Ratio: 2.5, Worst: 20},
		)
	}
	return f
}

// outlierFigure is Figure 3 or 4: both methods at κ = 10 under p_s = 0.1,
// 0.2, 0.3, and under p_s = 0.1 with noise of 40, 60 and 80 dB.
func outlierFigure(n int, p synth.Config, problem string) *Figure {
	f := &Figure{
		Number:  n,
		Caption: fmt.Sprintf("Performance comparisons of ScaledSM and VanillaSM for %s under different noise and outlier models, with κ = 10 and Polyak's stepsizes.", problem),
		Problem: p,
	}
	a := Panel{Name: "a", Caption: "with varying outliers", Vary: PS}
	b := Panel{Name: "b", Caption: "with 10% outliers and noise", Vary: SNR}
	for _, m := range methods {
		for _, ps := range []float64{0.1, 0.2, 0.3} {
			a.Curves = append(a.Curves, Curve{Method: m, Step: Step{Rule: Polyak},
				Setting: synth.Setting{Kappa: 10, PS: ps, SNR: noNoise}, MaxIter: 1000})
		}
		for _, snr := range []float64{40, 60, 80} {
			b.Curves = append(b.Curves, Curve{Method: m, Step: Step{Rule: Polyak},
				Setting: synth.Setting{Kappa: 10, PS: 0.1, SNR: snr}, MaxIter: 300})
		}
	}
	f.Panels = []Panel{a, b}
	f.Claims = []Claim{
		SlowerWith{Panel: "a", Method: scaledsm.ScaledSM, Vary: PS},
		FloorsApart{Panel: "b", Method: scaledsm.ScaledSM, Low: 5, High: 20},
		FloorsApart{Panel: "b", Method: scaledsm.VanillaSM, Low: 5, High: 20},
		SameFloor{Panel: "b", Factor: 2},
		Sooner{Panel: "b", Fast: scaledsm.ScaledSM, Slow: scaledsm.VanillaSM, Factor: 2},
	}
	return f
}

// Grid of the geometric steps of Figures 5 and 6.
var (
	gridLambdas = []float64{1, 2, 5, 10, 20, 50}
	gridQs      = []float64{0.80, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86, 0.87, 0.88, 0.89, 0.90, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97}
)

// stepFigure is Figure 5 or 6: ScaledSM at κ = 10, p_s = 0.2 with
// geometric steps over a (λ, q) grid and with Polyak's steps.
func stepFigure(n int, p synth.Config, problem string, qB float64, paper Fit) *Figure {
	setting := synth.Setting{Kappa: 10, PS: 0.2, SNR: noNoise}
	polyak := Curve{Method: scaledsm.ScaledSM, Step: Step{Rule: Polyak}, Setting: setting, MaxIter: 1000}
	geometric := func(lambda, q float64) Curve {
		return Curve{Method: scaledsm.ScaledSM, Step: Step{Rule: Geometric, Lambda: lambda, Q: q}, Setting: setting, MaxIter: 1000}
	}
	a := Panel{Name: "a", Caption: "final relative error for various (λ, q)", Kind: FinalPanel, Vary: Lambda}
	for _, lambda := range gridLambdas {
		for _, q := range gridQs {
			a.Curves = append(a.Curves, geometric(lambda, q))
		}
	}
	b := Panel{Name: "b", Caption: fmt.Sprintf("q = %g, varying λ, and Polyak's stepsizes", qB), Vary: Lambda, Curves: []Curve{polyak}}
	for _, lambda := range []float64{1, 2, 5, 10, 20} {
		b.Curves = append(b.Curves, geometric(lambda, qB))
	}
	c := Panel{Name: "c", Caption: "λ = 5, varying q, and Polyak's stepsizes", Vary: Q, Curves: []Curve{polyak}}
	for _, q := range []float64{0.88, 0.90, 0.91, 0.92, 0.95} {
		c.Curves = append(c.Curves, geometric(5, q))
	}
	d := Panel{Name: "d", Caption: "Polyak's step lengths and the closest geometric schedule", Kind: StepPanel, Curves: []Curve{polyak}}
	f := &Figure{
		Number:  n,
		Caption: fmt.Sprintf("Performance comparisons of ScaledSM for %s using geometrically decaying stepsizes with parameters (λ, q) and Polyak's stepsizes, with κ = 10 and p_s = 0.2.", problem),
		Problem: p,
		Panels:  []Panel{a, b, c, d},
		Claims: []Claim{
			Region{Panel: "a", MinRun: 3},
			PolyakFastest{Panels: []string{"b", "c"}},
			FitQ{Panel: "d", Paper: paper, Within: 0.03},
		},
	}
	if n == 6 {
		f.Note = "The paper's caption of Figure 6 says λ = 2 in panel (c); the authors' code (QS_l1_stepsizes.m) uses λ = 5, as panel (c) does here."
	}
	return f
}
