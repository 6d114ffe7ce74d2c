package scaledsm

import (
	"fmt"
	"math"
	"strconv"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/obs"
)

// Damping says how the scaled methods damp their preconditioner: the
// directions become L -= η GL (RᵀR + λ_t I)^{-1}, R -= η GR (LᵀL + λ_t I)^{-1}.
// The zero value is the automatic rule λ_t = c · ρ_t · tr(RᵀR) (tr(LᵀL)
// for R), ρ_t = ĝ_t/ĝ_0 the relative misfit (Auto's gap estimate, whatever
// the step rule, over the loss at X = 0 of the observations Truncation's
// median rule keeps; square roots for the squared l2 loss), c = 0.1 (0.3
// for TrimmedL2). As in PrecGD, the damping shrinks with the misfit, so an
// over-specified fit's spare directions stay conditioned to about 1/c and
// an exact fit's step becomes the paper's; relative to tr(RᵀR) it needs
// neither f(X*), nor X*'s singular values, nor the data's scale. Fixed is
// OPSA's and ScaledGD(λ)'s constant λ. The vanilla methods ignore it.
// docs/rank.md ("The damped step") has why and what it measured.
type Damping struct {
	// Fixed, when positive, is a constant λ_t = Fixed, in the units of the
	// Gram matrices (those of the singular values of X).
	Fixed float64
	// Factor, when positive, replaces the default c: 0.1, or 0.3 for a
	// loss with a state along the run (completion.TrimmedL2).
	Factor float64
	// None turns damping off: the paper's preconditioner (RᵀR)^{-1}, through
	// the pseudo-inverse when RᵀR is singular.
	None bool
}

// defaultDampingFactor is the factor c of the automatic damping rule.
//
// Measured with Polyak's step to 1e-10 (docs/rank.md): with the exact
// rank, c = 0.1 keeps the undamped method's iteration counts within 9% on
// the paper's Figure 1(b) and 2(b) settings at κ = 1 and 20 (qs at κ = 1:
// 166 against 153; the rest within 2%), and within 4% on sensing at
// κ = 100; with the rank over-specified, quadratic
// sampling (n = 60, r = 3, fitted rank 10 and 20, κ = 1 and 100) takes
// 47 to 67 iterations with c = 0.1, against 100 to 200 with c = 0.01, 50
// to 100 with c = 0.3 to 1, and 260 to 340 undamped, which at rank 20
// stalls at 1e-2 to 1e-4 after 3000. Sensing gains little from damping
// (a fitted rank of 12 for r = 3: 90 to 100 iterations with or without
// it, 100 to 110 with c = 0.1).
const defaultDampingFactor = 0.1

// trackedDampingFactor is the factor c of the automatic damping rule for
// a tracked loss, whose misfit is the square root of its loss over what it
// keeps over the data's. Chosen for TrimmedL2. Measured on matrix completion (n1 = n2 = 1000, r = 5, p = 0.1,
// p_s = 0.1, seeds 1 to 4, ScaledGD with the constant step 0.5, to
// 1e-10): with c = 0.3 the iterations at κ = 1, 10 and 100 are within 7%
// of each other for every seed (129-161, 131-165, 136-168), where c = 0.1
// lets one κ = 10 run take 200 against 159 at κ = 1, and c = 1 slows
// every run by about 5%.
const trackedDampingFactor = 0.3

// String returns the damping as the command line spells it, with the factor c
// when it is not the default ("auto(c=0.1)").
func (d Damping) String() string {
	switch {
	case d.None:
		return "none"
	case d.Fixed > 0:
		return strconv.FormatFloat(d.Fixed, 'g', -1, 64)
	case d.Factor > 0:
		return fmt.Sprintf("auto(c=%g)", d.Factor)
	}
	return "auto"
}

func (d Damping) validate() error {
	switch {
	case math.IsNaN(d.Fixed) || math.IsInf(d.Fixed, 0) || d.Fixed < 0:
		return inputError("damping", d.Fixed, "a fixed λ must be positive and finite")
	case math.IsNaN(d.Factor) || math.IsInf(d.Factor, 0) || d.Factor < 0:
		return inputError("damping", d.Factor, "the factor of the automatic rule must be positive and finite")
	case d.None && (d.Fixed != 0 || d.Factor != 0):
		return inputError("damping", d.String(), "None takes no λ and no factor")
	case d.Fixed > 0 && d.Factor > 0:
		return inputError("damping", d.Factor, "give a fixed λ or a factor, not both")
	}
	return nil
}

// damper computes λ_t for a run.
type damper struct {
	d      Damping
	loss   Standard
	iso    float64
	scale  float64 // ĝ_0, the data's scale in the loss's units (see measure)
	factor float64 // c when Damping.Factor is 0: the loss's default
}

// newDamper readies the damping d of a run of the loss with the isometry
// iso; measure then gives it the data's scale.
func newDamper(d Damping, loss Loss, iso float64) damper {
	factor := defaultDampingFactor
	if _, ok := loss.(trackedLoss); ok {
		factor = trackedDampingFactor
	}
	return damper{d: d, loss: loss.Base(), iso: iso, factor: factor}
}

// measure sets the data's scale from the observations y, over the ranks
// of ranks; scratch, len(y) values it may overwrite, spares it a copy of
// them.
func (dm *damper) measure(y obs.Obs, scratch []float64, ranks dist) {
	if dm.d.None || dm.d.Fixed > 0 {
		return
	}
	// The loss at X = 0 of the observations the median rule keeps (see
	// Truncation): about f(0) - f(X*), with the outliers mostly left out. Auto's
	// estimate at X = 0 would vanish when a quarter of the observations are
	// zero, as they can be in matrix completion, and make ρ_t enormous.
	dm.scale = zeroLossOf(y, dm.loss, dm.iso, ranks, scratch)
}

// zeroLoss returns the loss at X = 0 of the observations y that the median
// rule keeps (see Truncation), over the ranks of d: from y itself on one
// process, else through scratch (len(y) values, or nil for a new slice).
func zeroLoss[T float](loss Standard, y []T, iso float64, d dist, scratch []float64) float64 {
	if !d.On() {
		return keptValue(loss, y, Truncation{}, iso)
	}
	v, _ := trimmed(scratch, y, Truncation{}, d)
	f, _ := loss.valueOver(v, iso, d, false)
	return f
}

// keptValue returns the loss of the observations that trim keeps, the
// others counted as 0: loss.value of trimmed's copy, with its bits (a
// zero term leaves a compensated sum as it was), from y itself.
func keptValue[T float](loss Standard, y []T, trim Truncation, iso float64) float64 {
	below, allow, every := keepRule(y, trim, dist{}, nil)
	each := func(keep func(i int)) { keepBy(y, below, allow, every, keep) }
	var a fsum.Sum
	if !loss.squares() {
		each(func(i int) { a.Add(math.Abs(float64(y[i]))) })
		return a.Value()
	}
	var scale float64
	each(func(i int) { scale = max(scale, math.Abs(float64(y[i]))) })
	n := scale
	if scale > 0 && !math.IsInf(scale, 0) && !math.IsNaN(scale) {
		each(func(i int) {
			v := float64(y[i]) / scale
			a.Add(v * v)
		})
		n = scale * math.Sqrt(a.Value())
	}
	return loss.ofNorm(n, iso)
}

// misfit returns ρ_t from the gap estimate at X_t (see Damping).
func (dm *damper) misfit(gap float64) float64 {
	if !(dm.scale > 0) || !(gap > 0) || math.IsInf(gap, 0) {
		return 0
	}
	return dm.loss.misfit(gap / dm.scale)
}

// terms returns λ_t = fixed + rel·tr(FᵀF) for the relative misfit rho,
// as the preconditioner takes it.
func (dm *damper) terms(rho float64) (fixed, rel float64) {
	switch {
	case dm.d.None:
		return 0, 0
	case dm.d.Fixed > 0:
		return dm.d.Fixed, 0
	}
	c := dm.d.Factor
	if c == 0 {
		c = dm.factor
	}
	return 0, c * rho
}

// active reports whether the damping needs the relative misfit.
func (dm *damper) active() bool { return !dm.d.None && !(dm.d.Fixed > 0) }

// dampingMisfit returns ρ_t for the step under way (0 when the damping
// does not need it): from the step's own estimate when the step is Auto,
// which then computes it once, otherwise from AutoGap of the residuals.
func (u *run) dampingMisfit(sc *StepContext) float64 {
	if !u.s.Method.scaled() || !u.damp.active() {
		return 0
	}
	var gap float64
	_, tracked := u.s.Loss.(trackedLoss)
	switch a, ok := u.s.Step.(Auto); {
	case tracked:
		// The loss of what the tracker keeps, whose minimum is about 0.
		gap = sc.Loss
	case ok:
		gap = sc.gapOf(a)
	default:
		gap = autoGapOver(u.s.Loss.Base(), sc.Residuals, u.iso, u.d, u.m)
	}
	return u.damp.misfit(gap)
}
