package scaledsm

import (
	"math"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/order"
)

// Auto is a stepsize rule that needs neither f(X*) nor the outlier fraction
// p_s: Polyak's step with the gap f(X_t) - f(X*) estimated from what the
// iterate shows. It has no parameter, and is the rule when Settings.Step is
// nil. The estimate keeps the residuals no larger than ten times the lower
// quartile of |z| (the inliers, whenever p < 1/2), takes their loss C and
// the fraction left out p̂, and steps by ĝ = (1-2p̂)/(1-p̂)·C over Norm²: a
// lower bound of the gap, since a Polyak step shortened costs little and
// one lengthened much. At a noise floor the estimates stop falling; each
// iteration whose last 25 estimates bring no new minimum shortens the step
// by 0.9, so that the iterate settles there. docs/auto.md has the bounds,
// the measurements behind each constant, and the rule's known limit
// (VanillaSM at large κ, slowed where it only stalls).
type Auto struct{}

// Constants of Auto, fixed by the measurements its documentation cites.
const (
	autoQuantile = 0.25 // residuals are kept up to autoMultiple times this quantile of |z|
	autoMultiple = 10
	autoMaxP     = 0.45 // the estimated outlier fraction is capped here
	autoWindow   = 25   // iterations without a new best loss that make a stall
	autoProgress = 0.01 // a new best loss must gain this fraction of the gap estimate
	autoDamping  = 0.9  // factor per stagnant iteration
)

// Size returns the automatic stepsize.
func (a Auto) Size(c *StepContext) float64 {
	if c.Norm == 0 || len(c.Residuals) == 0 {
		return 0
	}
	gap := c.gapOf(a)
	if !(gap > 0) || math.IsInf(gap, 0) {
		return 0
	}
	n := stagnant(c.Trace, gap, autoProgress*gap)
	return math.Pow(autoDamping, float64(n)) * gap / (c.Norm * c.Norm)
}

// estimateGap returns ĝ_t, AutoGap of the residuals.
func (Auto) estimateGap(c *StepContext) float64 {
	iso := c.isometry
	if iso == 0 {
		iso = float64(len(c.Residuals))
	}
	if c.dist.On() {
		return autoGapOver(baseOf(c.Objective), c.Residuals, iso, c.dist, c.measurements)
	}
	return autoGap(c.Objective, c.Residuals, iso)
}

// String returns "auto", the step's name on the command line.
func (Auto) String() string { return "auto" }

// AutoGap returns Auto's estimate of f(X) - f(X*) from the residuals
// z = A(X) - y alone, for the loss l (nil counts as L1): the loss of
// the residuals no larger than ten times the lower quartile of |z|, times
// (1-2p̂)/(1-p̂) for the fraction p̂ of residuals above it (see Auto). It
// takes O(m) time: the quartile is found by selection, not by sorting.
//
// autoGap is that for an operator of isometry factor iso.
func autoGap(l Loss, z []float64, iso float64) float64 {
	return autoGapOver(baseOf(l), z, iso, dist{}, len(z))
}

// autoGapOver is autoGap over the ranks of d, z being this rank's
// residuals and m the number of all of them.
func autoGapOver(l Standard, z []float64, iso float64, d dist, m int) float64 {
	if m == 0 {
		return 0
	}
	buf := getBuffer(len(z)) // a copy of |z| for the selection, reused between calls
	defer putBuffer(buf)
	abs := *buf
	for i, v := range z {
		abs[i] = math.Abs(v)
	}
	tau := autoMultiple * d.Kth(abs, int(autoQuantile*float64(m-1)))
	var kept, left, outs fsum.Sum // Σ|z_i| (l1) or Σz_i² (l2) of the kept and the left out, and how many left out
	for _, v := range z {
		a := math.Abs(v)
		t := a
		if l.squares() {
			t = a * a
		}
		if a > tau {
			left.Add(t)
			outs.Add(1)
		} else {
			kept.Add(t)
		}
	}
	d.Sums(&kept, &left, &outs)
	out := outs.Value()
	c := l.keptGap(kept.Value(), left.Value(), iso)
	fm := float64(m)
	p := min(out/fm, autoMaxP)
	return max(c, 0) * (1 - 2*p) / (1 - p)
}

// baseOf returns the standard loss of l, L1 for nil.
func baseOf(l Loss) Standard {
	if l == nil {
		return L1
	}
	return l.Base()
}

// selectKth returns the k-th smallest of v (from 0), reordering v (see
// order.Kth).
func selectKth(v []float64, k int) float64 { return order.Kth(v, k) }

// stagnant counts the iterations s <= t, t = len(trace), whose smallest gap
// estimate over the autoWindow iterations ending at s is not below the
// smallest before them by at least margin; gap is the estimate at t, the
// trace holds those of s < t (Iteration.Gap).
func stagnant(trace []Iteration, gap, margin float64) int {
	t := len(trace)
	at := func(s int) float64 {
		if s == t {
			return gap
		}
		return trace[s].Gap
	}
	n := 0
	before := math.Inf(1)
	// window is a deque of indices whose losses increase, the minimum of the
	// window (s - autoWindow, s] at its front.
	var window []int
	for s := 0; s <= t; s++ {
		for len(window) > 0 && at(window[len(window)-1]) >= at(s) {
			window = window[:len(window)-1]
		}
		window = append(window, s)
		if s < autoWindow {
			continue
		}
		before = min(before, at(s-autoWindow))
		for window[0] <= s-autoWindow {
			window = window[1:]
		}
		if at(window[0]) >= before-margin {
			n++
		}
	}
	return n
}
