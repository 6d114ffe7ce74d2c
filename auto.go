package scaledsm

import (
	"math"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/order"
)

// Auto is a stepsize rule that needs neither f(X*) nor the outlier fraction
// p_s: Polyak's step with the gap f(X_t) - f(X*) estimated from what the
// iterate shows, its residuals and the loss history. It has no parameter.
// It is the step rule used when Settings.Step is nil.
//
// # The estimate
//
// With d = A(X_t - X*) and observations y = A(X*) + w + s, the residuals
// are z = d - w - s. Without dense noise, the l1 gap splits into
//
//	f(X_t) - f(X*) = Σ_{i∉S} |d_i| + Σ_{i∈S} (|d_i - s_i| - |s_i|),
//
// the inliers' residuals C = Σ_{i∉S} |d_i| plus outlier terms each in
// [-|d_i|, |d_i|]. The outlier support is independent of the measurements,
// so Σ_{i∈S} |d_i| ≈ p/(1-p)·C and the gap lies between (1-2p)/(1-p)·C and
// C/(1-p). Near the truth the inliers are plain to see: their residuals
// shrink with X_t - X* while the outliers' stay near |s_i|. Auto keeps the
// residuals no larger than ten times the lower quartile of |z| (a quartile
// set by inliers whenever p < 1/2), takes their loss as C and the fraction
// left out as p, and uses the lower bound
//
//	ĝ_t = (1-2p̂)/(1-p̂) · C,   η_t = ĝ_t / Norm²,
//
// the factor (1-2p) being the one that the paper's sharpness constant, and
// so its iteration count 1/(1-2p_s)², carries. A Polyak step shortened by a
// factor in [1/2, 1] costs little, a lengthened one much: measured by
// TestPolyakShortenedAndLengthened (quadratic sampling, n=40, r=3, κ=10,
// p_s = 0.1 to 0.3), Polyak's step times 0.6 to 0.9 takes 0.85 to 1.0 times
// Polyak's iterations to 1e-10, times 1.3 takes 1.2 to 1.5 times, and times
// 1.6 twice to five times as many or diverges. The bound keeps ĝ_t/(f - f*)
// between about 0.6 and 1; heavy-tailed inlier residuals (quadratic
// sampling) above the threshold make it err lower still, on the safe side.
// For losses other than l1, C is the loss of all residuals minus that of
// the residuals left out.
//
// # The noise floor
//
// With dense noise w, the inliers' residuals bottom out at |w_i| and ĝ_t
// stops shrinking: it measures the noise, no longer the distance to X*.
// The iterates reach the noise floor as fast as with Polyak's step, whose
// numerator f(X_t) - f(X*) turns negative there, and then wander around it.
// Auto sees this in the history of its estimates (Iteration.Gap): an
// iteration is stagnant when the smallest estimate of its last 25
// iterations is not below the smallest before them by 1% of ĝ_t. A
// converging run never stalls that long (ScaledSM shrinks the gap more than
// tenfold in 25 iterations); at a noise floor nearly every iteration
// stalls. (The loss would tell the same where it is not dominated by a few
// huge observations; with one y_i of 1e12 it keeps no digit below 1e-4,
// and the estimates, which leave such observations out, keep them all.) Each stagnant iteration in the history
// shortens the step by 0.9, so that at the floor the steps decay
// geometrically, as a geometric schedule's do, and the iterate settles,
// measured at about half the error at which Polyak's step stops: the
// minimizer of f is closer to X* than the points where f(X_t) = f(X*).
//
// The README gives the measurements and the commands that made them. Its
// limit: VanillaSM at large κ can go 25 iterations and more without a new
// best loss while it still converges; Auto then takes it for a floor and
// slows it down further.
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

// EstimateGap returns ĝ_t, AutoGap of the residuals.
func (Auto) EstimateGap(c *StepContext) float64 {
	iso := c.isometry
	if iso == 0 {
		iso = float64(len(c.Residuals))
	}
	if c.dist.on() {
		return autoGapOver(c.Objective, c.Residuals, iso, c.dist, c.measurements)
	}
	return autoGap(c.Objective, c.Residuals, iso)
}

// String returns "auto", the step's name on the command line.
func (Auto) String() string { return "auto" }

// AutoGap returns Auto's estimate of f(X) - f(X*) from the residuals
// z = A(X) - y alone, for the loss l (DefaultLoss counts as L1): the loss of
// the residuals no larger than ten times the lower quartile of |z|, times
// (1-2p̂)/(1-p̂) for the fraction p̂ of residuals above it (see Auto). It
// takes O(m) time: the quartile is found by selection, not by sorting.
func AutoGap(l Loss, z []float64) float64 { return autoGap(l, z, float64(len(z))) }

// autoGap is AutoGap for an operator of isometry factor iso.
func autoGap(l Loss, z []float64, iso float64) float64 {
	return autoGapOver(l, z, iso, dist{}, len(z))
}

// autoGapOver is autoGap over the ranks of d, z being this rank's
// residuals and m the number of all of them.
func autoGapOver(l Loss, z []float64, iso float64, d dist, m int) float64 {
	if m == 0 {
		return 0
	}
	if l == DefaultLoss {
		l = L1
	}
	buf := getBuffer(len(z)) // a copy of |z| for the selection, reused between calls
	defer putBuffer(buf)
	abs := *buf
	for i, v := range z {
		abs[i] = math.Abs(v)
	}
	tau := autoMultiple * d.kth(abs, int(autoQuantile*float64(m-1)))
	var kept, left, outs fsum.Sum // Σ|z_i| (l1) or Σz_i² (l2) of the kept and the left out, and how many left out
	for _, v := range z {
		a := math.Abs(v)
		t := a
		if l != L1 {
			t = a * a
		}
		if a > tau {
			left.Add(t)
			outs.Add(1)
		} else {
			kept.Add(t)
		}
	}
	d.sums(&kept, &left, &outs)
	out := outs.Value()
	var c float64
	fm := float64(m)
	switch l {
	case L1:
		c = kept.Value()
	case L2Squared:
		c = iso / 2 * kept.Value()
	default:
		// sqrt(c Σ_all) - sqrt(c Σ_left), without differencing the two.
		all := math.Sqrt(iso*(kept.Value()+left.Value())) + math.Sqrt(iso*left.Value())
		if all > 0 {
			c = iso * kept.Value() / all
		}
	}
	p := min(out/fm, autoMaxP)
	return max(c, 0) * (1 - 2*p) / (1 - p)
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
