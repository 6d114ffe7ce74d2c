package scaledsm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Step is a stepsize rule: it gives the stepsize η_t of iteration t.
//
// A Step must not keep state between calls: everything it may use about the
// run so far is in the StepContext, so one rule can serve many runs at once.
type Step interface {
	Size(c *StepContext) float64
}

// StepContext is what a Step rule sees at iteration t.
type StepContext struct {
	Iter int     // t, counted from 0
	Loss float64 // f(X_t)
	// Gap is f(X_t) - f(X*) when the problem has a truth, computed
	// measurement by measurement from A(X_t) - A(X*), so
	// that it keeps its digits when it is far smaller than f; NaN without
	// a truth.
	Gap float64
	// Norm is the norm of the factor subgradient in the method's metric:
	// sqrt(||GL (RᵀR + λ_t I)^{-1/2}||² + ||GR (LᵀL + λ_t I)^{-1/2}||²) for
	// the scaled methods (λ_t the Damping, 0 undamped), sqrt(||GL||² +
	// ||GR||²) for the vanilla ones.
	Norm      float64
	Residuals []float64   // z = A(X_t) - y
	Trace     []Iteration // iterations 0, ..., t-1
	Objective Loss        // the loss minimized, whose value at X_t is Loss

	estimate  float64 // a gapEstimator's estimate, once computed
	estimated bool
	isometry  float64 // the operator's isometry factor; 0 means len(Residuals)
	// The ranks of a data-parallel solve, whose Residuals are this rank's,
	// and the measurements of all of them.
	dist         dist
	measurements int
}

// A gapEstimator is a Step rule whose steps rest on an estimate of the gap
// f(X_t) - f(X*). The solver records the estimate in the trace
// (Iteration.Gap).
type gapEstimator interface {
	Step
	estimateGap(c *StepContext) float64
}

// gapOf returns the estimate of g at c, computed once per context.
func (c *StepContext) gapOf(g gapEstimator) float64 {
	if !c.estimated {
		c.estimate, c.estimated = g.estimateGap(c), true
	}
	return c.estimate
}

// Polyak is Polyak's stepsize η_t = (f(X_t) - f(X*)) / Norm², which needs
// the optimal value f(X*) (eq. Polyak_stepsize). When the problem has a
// truth, the numerator is the StepContext's Gap, computed from it without
// cancellation, and FStar is not used; otherwise it is f(X_t) - FStar.
// Near a noise floor the numerator can turn negative, f(X_t) < f(X*); the
// step is then zero, never negative, so the iterate is kept rather than
// pushed uphill.
type Polyak struct {
	FStar float64 // f(X*), the loss at the truth
}

// estimateGap returns the numerator of the step: c.Gap when it is known,
// otherwise f(X_t) - FStar.
func (p Polyak) estimateGap(c *StepContext) float64 {
	if !math.IsNaN(c.Gap) {
		return c.Gap
	}
	return c.Loss - p.FStar
}

// Size returns Polyak's stepsize.
func (p Polyak) Size(c *StepContext) float64 {
	num := c.gapOf(p)
	if !(num > 0) || c.Norm == 0 {
		return 0
	}
	return num / (c.Norm * c.Norm)
}

// Validate reports whether f(X*) is a finite non-negative number.
func (p Polyak) Validate() error {
	if math.IsNaN(p.FStar) || math.IsInf(p.FStar, 0) || p.FStar < 0 {
		return inputError("f(X*)", p.FStar, "Polyak's step needs an optimal value that is finite and non-negative")
	}
	return nil
}

// String returns "polyak", the step's name on the command line.
func (p Polyak) String() string { return "polyak" }

// Geometric is the geometrically decaying stepsize η_t = λ q^t / Norm
// (eq. geometric_stepsize): the iterate moves a distance λ q^t in the
// method's metric.
type Geometric struct {
	Lambda float64 // λ > 0
	Q      float64 // q in (0, 1)
}

// Size returns the geometric stepsize.
func (g Geometric) Size(c *StepContext) float64 {
	if c.Norm == 0 {
		return 0
	}
	return g.Lambda * math.Pow(g.Q, float64(c.Iter)) / c.Norm
}

// Validate reports whether λ > 0 and 0 < q < 1.
func (g Geometric) Validate() error {
	if !(g.Lambda > 0) || math.IsInf(g.Lambda, 0) {
		return inputError("lambda", g.Lambda, "the geometric step's initial length must be positive and finite")
	}
	if !(g.Q > 0 && g.Q < 1) {
		return inputError("q", g.Q, "the geometric step's decay rate must lie in (0, 1)")
	}
	return nil
}

// String returns "geometric", the step's name on the command line.
func (g Geometric) String() string { return "geometric" }

// Constant is the constant stepsize η_t = Eta of the gradient methods. The
// step multiplies the (preconditioned) gradient as it is, so its scale is
// that of the loss: for L2Squared, whose normal map is close to the
// identity on Gaussian sensing, Eta = 0.5 is the step of ScaledGD's paper
// and GD needs about 0.5/σ₁(X*). With a nonsmooth loss a constant step does
// not converge to X*; it is there for comparisons.
type Constant struct {
	Eta float64 // η > 0
}

// Size returns Eta.
func (k Constant) Size(*StepContext) float64 { return k.Eta }

// Validate reports whether Eta is positive and finite.
func (k Constant) Validate() error {
	if !(k.Eta > 0) || math.IsInf(k.Eta, 0) {
		return inputError("eta", k.Eta, "the constant step must be positive and finite")
	}
	return nil
}

// String returns "constant", the step's name on the command line.
func (k Constant) String() string { return "constant" }

// DefaultEta returns the constant step of a method that is given none:
// 0.5 for ScaledGD on sensing and entries, 0.05 on quadratic sampling,
// whose heavy-tailed least squares tolerate less (measured at the
// paper's sizes: 0.1 diverges at n = 100, r = 5); for GD the same divided
// by σ₁ of the initialization init (when given), as the authors divide by
// σ₁(X*).
func DefaultEta(method Method, op Operator, init *Factors) float64 {
	eta := 0.5
	if op.Symmetric() {
		eta = 0.05
	}
	if method == GD && init != nil {
		var svd mat.SVD
		if svd.Factorize(init.Product(), mat.SVDNone) {
			if s1 := svd.Values(nil)[0]; s1 > 0 {
				eta /= s1
			}
		}
	}
	return eta
}

// DefaultLambda returns the first step length λ of geometric steps that
// are given none: the length of the first automatic step from the
// settings' start, its estimate of the distance to X* in the method's
// metric (under a loss with a state along the run, completion.TrimmedL2,
// whose moving state gives Auto no gap, the length of the default
// constant step). It is not positive when the start
// gives no length.
func DefaultLambda(ctx context.Context, p Problem, s Settings) (float64, error) {
	s.Step, s.MaxIter, s.Tol = Auto{}, 1, -1
	s.Ridge = max(s.Ridge, 0) // one step: no penalty to choose
	if _, ok := s.Loss.(trackedLoss); ok {
		s.Step = Constant{Eta: 0.5}
	}
	res, err := Solve(ctx, p, s)
	if err != nil {
		return 0, err
	}
	return res.Trace[0].StepLength, nil
}
