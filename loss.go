package scaledsm

import (
	"fmt"
	"math"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/track"
)

// Loss is the penalty on the residuals z = A(X) - y that a method
// minimizes: one of the Standard losses, or a loss of a model's own that
// takes a standard one's value, weights and steps over the residuals it
// keeps (as package completion's trimmed least squares does).
// A nil Loss in Settings is the method's own (Method.DefaultLoss).
type Loss interface {
	// String names the loss as the command line spells it.
	String() string
	// Base returns the standard loss that this one is: itself for a
	// Standard loss; for a model's own, the loss over what it keeps.
	Base() Standard
}

// Standard is one of the losses of the paper and of ScaledGD's.
//
// Every standard loss is a mean over the measurements of the unscaled
// residuals u = m·z (u_i = <A_i, X> - m·y_i for sensing): L1 is mean
// |u_i| = ||z||_1, the paper's f; L2Squared is mean u_i²/2 = (m/2)||z||²,
// which is ||A(X) - y||²/2 for the isometric scaling of ScaledGD's paper
// (Gaussian A_i with variance 1/m, so that m A*A is close to the identity
// for sensing); and L2 is the root mean square sqrt(mean u_i²) =
// sqrt(2·L2Squared). Polyak, geometric and automatic steps do not depend
// on the scaling of a loss; a constant step does, and with this one
// Constant{Eta: 0.5} is the step of ScaledGD's paper.
type Standard int

const (
	// L1 is the least absolute deviations ||z||_1, the paper's loss: robust
	// to outliers, nonsmooth.
	L1 Standard = iota + 1
	// L2 is the nonsmooth l2 loss ||A(X) - y||_2 of the paper's remark on
	// ScaledGD, sqrt(m)·||z||_2 here; its subgradient is that of L2Squared
	// divided by the loss, so that ScaledSM on L2 with steps η_t is
	// ScaledGD with steps η_t/f(X_t).
	L2
	// L2Squared is the smooth least-squares loss (m/2)||z||_2², minimized by
	// GD and ScaledGD.
	L2Squared
)

var lossNames = [...]string{L1: "l1", L2: "l2", L2Squared: "l2sq"}

// String returns the loss's name as the command line spells it.
func (l Standard) String() string {
	if l.valid() {
		return lossNames[l]
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// Base returns l itself.
func (l Standard) Base() Standard { return l }

func (l Standard) valid() bool { return l >= L1 && l <= L2Squared }

// Smooth reports whether the loss is differentiable: L2Squared is.
func (l Standard) Smooth() bool { return l == L2Squared }

// squares reports whether the loss sums the squares of the residuals (L2,
// L2Squared), not their magnitudes (L1).
func (l Standard) squares() bool { return l != L1 }

// ofNorm returns a loss that squares from the norm n of the residuals, for
// an operator of isometry factor iso: sqrt(iso)·n or (iso/2)·n².
func (l Standard) ofNorm(n, iso float64) float64 {
	switch l {
	case L2:
		return math.Sqrt(iso) * n
	case L2Squared:
		return iso / 2 * n * n
	}
	return math.NaN()
}

// keptGap returns the loss of the residuals kept less the loss's share of
// those left out, from their sums (of |z| or of z², see squares): the
// loss of the kept for L1 and L2Squared, sqrt(iso Σ_all) - sqrt(iso
// Σ_left) for L2, without differencing the two.
func (l Standard) keptGap(kept, left, iso float64) float64 {
	switch l {
	case L1:
		return kept
	case L2Squared:
		return iso / 2 * kept
	}
	all := math.Sqrt(iso*(kept+left)) + math.Sqrt(iso*left)
	if all > 0 {
		return iso * kept / all
	}
	return 0
}

// misfit returns the relative misfit of a gap that is the fraction rho of
// the data's loss: rho, or its square root for L2Squared, whose values are
// squares.
func (l Standard) misfit(rho float64) float64 {
	if l == L2Squared {
		return math.Sqrt(rho)
	}
	return rho
}

// weight returns how the operator weighs residuals for this loss.
func (l Standard) weight() Weight {
	if l == L1 {
		return SignWeight
	}
	return LinearWeight
}

// A trackedLoss keeps state along each run (see package track): package
// completion's trimmed least squares.
type trackedLoss interface {
	Loss
	track.Tracked[Problem, Settings, runTracker]
}

// runTracker is a tracked loss's state along one run.
type runTracker = track.Tracker[*Evaluation, Factors, Iteration]

// Value returns the loss of the residuals z = A(X) - y, of length m, in
// the convention of operators that scale by 1/m (isometry factor m, see
// Isometric). The residuals are summed with compensation (package fsum),
// so that a loss differenced against another, as Polyak's step does, keeps
// its digits.
func (l Standard) Value(z []float64) float64 { return l.value(z, float64(len(z))) }

// value returns the loss of the residuals z for an operator of isometry
// factor c: Σ|z_i|, sqrt(c)·||z|| or (c/2)·||z||².
func (l Standard) value(z []float64, c float64) float64 {
	switch l {
	case L1:
		return fsum.Abs(z)
	case L2:
		return math.Sqrt(c) * fsum.Norm(z)
	case L2Squared:
		n := fsum.Norm(z)
		return c / 2 * n * n
	}
	return math.NaN()
}

// gapTerms are what the gap is summed over: the fits at X and at X*, and
// the observations.
type gapTerms[T float] struct {
	fit, star []float64
	y         []T
}

// gapOver returns f(X) - f(X*) from the fits t.fit = A(X) and t.star =
// A(X*) and the observations t.y, for an operator of isometry factor iso
// (see Value), over the ranks of d, each holding its shard of the
// measurements, term by term:
// with d_i = fit_i - fitStar_i and c_i = fitStar_i - y_i, the residual at
// the truth, |d_i + c_i| - |c_i| for the l1 loss is sign(c_i)·d_i whenever
// d_i does not change the sign of the residual. Near X* the gap is far
// smaller than the losses, and differencing two loss values loses it to
// their rounding, and to the rounding of each residual of a large
// observation y_i; d keeps it, to the rounding of the fits themselves. c
// only gives the signs and the magnitudes of the terms that change sign,
// so its own rounding does not matter.
func gapOver[T float](l Standard, t gapTerms[T], iso float64, d dist) float64 {
	fit, fitStar, y := t.fit, t.star, t.y
	var g fsum.Sum
	switch l {
	case L1:
		for i, f := range fit {
			g.Add(l1Term(f-fitStar[i], fitStar[i]-float64(y[i])))
		}
		d.Sums(&g)
		return g.Value()
	case L2, L2Squared:
		// z² - c² = d (d + 2c).
		var zz, cc fsum.Sum
		for i, f := range fit {
			d, c := f-fitStar[i], fitStar[i]-float64(y[i])
			g.Add(d * (d + 2*c))
			if l == L2 {
				zz.Add((c + d) * (c + d))
				cc.Add(c * c)
			}
		}
		d.Sums(&g, &zz, &cc)
		if l == L2Squared {
			return iso / 2 * g.Value()
		}
		// sqrt(c Σz²) - sqrt(c Σz*²) = c (Σz² - Σz*²) / (f(X) + f(X*)).
		f, fStar := math.Sqrt(iso*zz.Value()), math.Sqrt(iso*cc.Value())
		if f+fStar == 0 {
			return 0
		}
		return iso * g.Value() / (f + fStar)
	}
	return math.NaN()
}

// l1Term returns |d + c| - |c| without cancellation where d + c keeps the
// sign of c.
func l1Term(d, c float64) float64 {
	s := d + c
	switch {
	case c > 0 && s >= 0:
		return d
	case c < 0 && s <= 0:
		return -d
	}
	// The residual changed sign (or c = 0): |c| <= |d|, so both terms are
	// of the size of d.
	return math.Abs(s) - math.Abs(c)
}

// gradientScale returns the factor by which the operator's weighted adjoint
// (the subgradient of Σ|z_i| for SignWeight, of Σ z_i²/2 for LinearWeight)
// must be multiplied to give this loss's subgradient at residuals whose
// loss is value, for an operator of isometry factor c.
func (l Standard) gradientScale(value, c float64) float64 {
	switch l {
	case L2:
		// ∇ sqrt(c Σ z²) = c z / sqrt(c Σ z²).
		if value == 0 {
			return 0
		}
		return c / value
	case L2Squared:
		return c
	}
	return 1
}
