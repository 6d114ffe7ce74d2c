package scaledsm

import (
	"fmt"
	"math"

	"github.com/scaledsm/scaledsm/internal/fsum"
)

// Loss is the penalty on the residuals z = A(X) - y that a method minimizes.
//
// Every loss is a mean over the measurements of the unscaled residuals
// u = m·z (u_i = <A_i, X> - m·y_i for sensing): L1 is mean |u_i| = ||z||_1,
// the paper's f; L2Squared is mean u_i²/2 = (m/2)||z||², which is
// ||A(X) - y||²/2 for the isometric scaling of ScaledGD's paper (Gaussian
// A_i with variance 1/m, so that m A*A is close to the identity for
// sensing); and L2 is the root mean square sqrt(mean u_i²) = sqrt(2·L2Squared).
// Polyak, geometric and automatic steps do not depend on the scaling of a
// loss; a constant step does, and with this one Constant{Eta: 0.5} is the
// step of ScaledGD's paper.
type Loss int

const (
	// DefaultLoss, the zero value, is the method's own loss (see
	// Method.DefaultLoss): L1 for ScaledSM and VanillaSM, L2Squared for
	// ScaledGD and GD.
	DefaultLoss Loss = iota
	// L1 is the least absolute deviations ||z||_1, the paper's loss: robust
	// to outliers, nonsmooth.
	L1
	// L2 is the nonsmooth l2 loss ||A(X) - y||_2 of the paper's remark on
	// ScaledGD, sqrt(m)·||z||_2 here; its subgradient is that of L2Squared
	// divided by the loss, so that ScaledSM on L2 with steps η_t is
	// ScaledGD with steps η_t/f(X_t).
	L2
	// L2Squared is the smooth least-squares loss (m/2)||z||_2², minimized by
	// GD and ScaledGD.
	L2Squared
	// TrimmedL2 is L2Squared over the residuals that are not outliers, for
	// operators that measure entries (Entries): the residual of entry (i, j)
	// counts when |z_ij| is at most c times the larger of the mean |z| of
	// row i and of column j over the residuals kept at the previous iterate
	// (at the first, the medians). The factor c starts at 6 and follows the
	// fit's progress, down to 4.5 while the fit stalls. The bounds follow the
	// fit row by row and column by column, so that gross errors are left out
	// at every accuracy while an error that gathers in a few rows or columns
	// is still fitted. A row or column whose kept residuals average 10 times
	// the data's scale is gross and keeps nothing by its own bound from then
	// on, unless a fit of it alone shows it honest (see liftEvery). It is the
	// entry models' default loss (see DefaultSettings): ScaledGD on it
	// converges linearly with outliers, where the l1 loss converges
	// sublinearly on sampled entries.
	TrimmedL2
)

// trimFactor is the multiple of the row and column scales of |z| beyond
// which TrimmedL2 drops a residual. Measured on matrix completion
// (n1 = n2 = 1000, r = 5, p = 0.1, κ = 10): 6 recovers exactly with up to
// 30% outliers (174 and 218 iterations at p_s = 0.2 and 0.3), where 8
// stalls at 2.5e-2 from p_s = 0.2, and at 10% outliers keeps the
// iterations within 14% across κ = 1, 10, 100 on every seed; 5 slows
// κ = 100 to 320 iterations.
const trimFactor = 6

// trimFactorMin is the least factor TrimmedL2's bounds shrink to from
// trimFactor while the fit stalls: by 5% after each pass whose kept loss
// fell by less than 10%, growing back by 5% after each pass whose loss
// fell by more. A fit converging to an exactly low-rank X* falls fast and
// keeps trimFactor but on its plateaus, where 4.5 costs it little; the fit
// of a photograph, only approximately low rank, stalls at its own
// residuals, whose mean at rank 30 lets most salt-and-pepper errors under
// 6 times it, and is trimmed harder (measurements: docs/completion.md,
// "Why the trimming factor follows the fit").
const trimFactorMin = 4.5

var lossNames = [...]string{DefaultLoss: "default", L1: "l1", L2: "l2", L2Squared: "l2sq", TrimmedL2: "l2trim"}

// String returns the loss's name as the command line spells it.
func (l Loss) String() string {
	if l >= 0 && int(l) < len(lossNames) {
		return lossNames[l]
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// ParseLoss returns the loss named s: "l1", "l2", "l2sq" or "l2trim".
func ParseLoss(s string) (Loss, error) {
	for l, name := range lossNames {
		if s == name && Loss(l) != DefaultLoss {
			return Loss(l), nil
		}
	}
	return 0, fmt.Errorf("unknown loss %q (want l1, l2, l2sq or l2trim)", s)
}

func (l Loss) valid() bool { return l >= DefaultLoss && l <= TrimmedL2 }

// Smooth reports whether the loss is differentiable: L2Squared is, and
// TrimmedL2 is wherever no residual sits on its bound.
func (l Loss) Smooth() bool { return l == L2Squared || l == TrimmedL2 }

// weight returns how the operator weighs residuals for this loss.
func (l Loss) weight() Weight {
	switch l {
	case L1:
		return SignWeight
	case TrimmedL2:
		return TrimmedWeight
	}
	return LinearWeight
}

// Value returns the loss of the residuals z = A(X) - y, of length m, in
// the convention of operators that scale by 1/m (isometry factor m, see
// Isometric); NaN for DefaultLoss, which names no loss until a method
// resolves it, and for TrimmedL2, whose value depends on the bounds of a
// solve. The residuals are summed with compensation (package fsum),
// so that a loss differenced against another, as Polyak's step does, keeps
// its digits.
func (l Loss) Value(z []float64) float64 { return l.value(z, float64(len(z))) }

// value returns the loss of the residuals z for an operator of isometry
// factor c: Σ|z_i|, sqrt(c)·||z|| or (c/2)·||z||².
func (l Loss) value(z []float64, c float64) float64 {
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

// Gap returns f(X) - f(X*) from the fits fit = A(X) and fitStar = A(X*)
// and the observations y, in the 1/m convention (see Value), term by term:
// with d_i = fit_i - fitStar_i and c_i = fitStar_i - y_i, the residual at
// the truth, |d_i + c_i| - |c_i| for the l1 loss is sign(c_i)·d_i whenever
// d_i does not change the sign of the residual. Near X* the gap is far
// smaller than the losses, and differencing two loss values loses it to
// their rounding, and to the rounding of each residual of a large
// observation y_i; d keeps it, to the rounding of the fits themselves. c
// only gives the signs and the magnitudes of the terms that change sign,
// so its own rounding does not matter. NaN for DefaultLoss.
func (l Loss) Gap(fit, fitStar, y []float64) float64 {
	return l.gap(fit, fitStar, y, float64(len(y)))
}

// gap is Gap for an operator of isometry factor iso.
func (l Loss) gap(fit, fitStar, y []float64, iso float64) float64 {
	return gapOver(l, gapTerms[float64]{fit, fitStar, y}, iso, dist{})
}

// gapTerms are what the gap is summed over: the fits at X and at X*, and
// the observations.
type gapTerms[T float] struct {
	fit, star []float64
	y         []T
}

// gapOver is gap over the ranks of d, each holding its shard of the
// measurements.
func gapOver[T float](l Loss, t gapTerms[T], iso float64, d dist) float64 {
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
func (l Loss) gradientScale(value, c float64) float64 {
	switch l {
	case L2:
		// ∇ sqrt(c Σ z²) = c z / sqrt(c Σ z²).
		if value == 0 {
			return 0
		}
		return c / value
	case L2Squared, TrimmedL2:
		return c
	}
	return 1
}
