package scaledsm

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Operator is a linear measurement map A from n1×n2 matrices to R^m.
//
// An Operator holds its data read-only: its methods may be called from
// several goroutines at once, each with its own Evaluation.
type Operator interface {
	// Dims returns the number of measurements m and the shape n1×n2 of the
	// matrices measured.
	Dims() (m, n1, n2 int)

	// Symmetric reports whether the operator measures positive semidefinite
	// matrices through the factorization X = L Lᵀ.
	Symmetric() bool

	// Apply sets dst, of length m, to A(x) for an n1×n2 matrix x.
	Apply(dst []float64, x mat.Matrix)

	// Adjoint sets dst, an n1×n2 matrix, to A*(v) for v of length m.
	Adjoint(dst *mat.Dense, v []float64)

	// Evaluate makes one pass over the data at the factors of e: it fills
	// e.Z with the residuals A(L Rᵀ) - y and e.GL, e.GR with the factor
	// subgradients (see Evaluation).
	Evaluate(e *Evaluation)
}

// Isometric is an Operator whose adjoint does not nearly invert it: c·A*A
// is close to the identity for the factor c that Isometry returns. The
// smooth loss L2Squared is (c/2)||z||² and L2 is sqrt(c)·||z||, so that a
// constant step means the same for every model. Operators that are not
// Isometric scale by 1/m, as the paper's Gaussian ones do, and have c = m.
type Isometric interface {
	Isometry() float64
}

// isometry returns the factor c of an operator (see Isometric).
func isometry(op Operator) float64 {
	if i, ok := op.(Isometric); ok {
		return i.Isometry()
	}
	m, _, _ := op.Dims()
	if s, ok := op.(interface{ scale() float64 }); ok {
		return s.scale()
	}
	return float64(m)
}

// Weight says how residuals weigh in the adjoint of an Evaluation.
type Weight int

const (
	// SignWeight weighs residual z_i by sign(z_i), with sign(0) = 0: the
	// subgradient of the l1 loss.
	SignWeight Weight = iota
	// LinearWeight weighs residual z_i by z_i itself: the gradient of the
	// squared l2 loss ||z||²/2.
	LinearWeight
)

// An Evaluation is one pass of an Operator over its data at the factors L
// and R (R is ignored by symmetric operators, which use L in its place).
// With S = A*(ψ(z)), where ψ applies the Weight to each residual of
// z = A(L Rᵀ) - Y, it yields
//
//	GL = S R and GR = Sᵀ L          (asymmetric, X = L Rᵀ),
//	GL = 2 S L and GR unused        (symmetric, X = L Lᵀ),
//
// the subgradients of Σ ρ(z_i) with respect to the factors, where ρ is |·|
// for SignWeight and (·)²/2 for LinearWeight.
//
// Allocate one with NewEvaluation and reuse it across iterations: it keeps
// the operator's scratch space.
type Evaluation struct {
	L, R *mat.Dense // factors: n1×r and n2×r
	Y    []float64  // observations, length m
	// Y32 holds the observations instead of Y when the problem gives them
	// in single precision (Problem.Y32), for an operator that reads them.
	Y32    []float32
	Weight Weight

	// Z receives the residuals A(L Rᵀ) - Y, length m. An operator with
	// a method EvaluatesWithoutZ() bool that returns true may be given a
	// nil Z, keeping none, by a run whose loss keeps its own (m·8 bytes
	// spared); every other operator always gets one.
	Z      []float64
	GL, GR *mat.Dense // factor subgradients, n1×r and n2×r (GR nil when symmetric)

	// Fit, when not nil, is set to A(L Rᵀ), length m. The solver asks for
	// it when the truth is known, to compute f(X_t) - f(X*) without the
	// rounding of large observations in the residuals.
	Fit []float64

	// State is what the operator and a loss with a state along the run
	// (completion.TrimmedL2) keep across the passes of one run: the entry
	// models' residual bounds and their sums.
	State any

	scratch []float64 // operator-owned workspace
}

// NewEvaluation allocates an Evaluation of op for factors of rank r.
func NewEvaluation(op Operator, r int) *Evaluation {
	return newEvaluation(op, r, true)
}

// newEvaluation is NewEvaluation, with Z only when residuals is set.
func newEvaluation(op Operator, r int, residuals bool) *Evaluation {
	m, n1, n2 := op.Dims()
	e := &Evaluation{GL: mat.NewDense(n1, r, nil)}
	if residuals {
		e.Z = make([]float64, m)
	}
	if !op.Symmetric() {
		e.GR = mat.NewDense(n2, r, nil)
	}
	return e
}

// workspace returns the Evaluation's scratch buffer grown to n and zeroed
// from the start.
func (e *Evaluation) workspace(n int) []float64 {
	if cap(e.scratch) < n {
		e.scratch = make([]float64, n)
	}
	e.scratch = e.scratch[:n]
	clear(e.scratch)
	return e.scratch
}

// Of returns ψ(z), the weight w of residual z. It is the one place where
// a weight is applied to a residual; the passes call it for every one.
//
// The sign is formed without a branch on it (residual signs are a coin
// toss, which a branch predictor loses half the time): sign(0) = 0 and a
// NaN weighs 0, each a branch taken almost never.
func (w Weight) Of(z float64) float64 {
	if w != SignWeight {
		return z
	}
	if z == 0 || z != z {
		return 0
	}
	return math.Copysign(1, z)
}
