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

// Weight says how residuals weigh in the adjoint of an Evaluation.
type Weight int

const (
	// SignWeight weighs residual z_i by sign(z_i), with sign(0) = 0: the
	// subgradient of the l1 loss.
	SignWeight Weight = iota
	// LinearWeight weighs residual z_i by z_i itself: the gradient of the
	// squared l2 loss ||z||²/2.
	LinearWeight
	// TrimmedWeight weighs residual z_ij by z_ij when |z_ij| is within the
	// Evaluation's Bounds, by 0 beyond: the gradient of TrimmedL2. Only
	// operators that measure entries (Entries) implement it.
	TrimmedWeight
)

// Bounds are the residual bounds of TrimmedWeight: the residual of entry
// (i, j) is kept when |z_ij| <= max(Rows[i], Cols[j]).
type Bounds struct {
	Rows, Cols []float64
}

// keeps reports whether the bounds keep residual z at entry (i, j).
func (b *Bounds) keeps(z float64, i, j int) bool {
	return math.Abs(z) <= max(b.Rows[i], b.Cols[j])
}

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
	L, R   *mat.Dense // factors: n1×r and n2×r
	Y      []float64  // observations, length m
	Weight Weight
	Bounds *Bounds // for TrimmedWeight

	// Z receives the residuals A(L Rᵀ) - Y, length m. Entries also
	// evaluates with a nil Z, keeping none (the solver's runs that need
	// none spare m·8 bytes so).
	Z      []float64
	GL, GR *mat.Dense // factor subgradients, n1×r and n2×r (GR nil when symmetric)

	// Fit, when not nil, is set to A(L Rᵀ), length m. The solver asks for
	// it when the truth is known, to compute f(X_t) - f(X*) without the
	// rounding of large observations in the residuals (see Loss.Gap).
	Fit []float64

	scratch  []float64 // operator-owned workspace
	kept     keptSums  // what TrimmedWeight's bounds kept (Entries)
	rowsKept []rowKept // Entries: each row's kept sums within a pass
	rowZ     []float64 // Entries without Z: each chunk's residuals of a row
	y32      []float32 // Entries: the observations when Problem.Y32 holds them (Y is nil)
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

// weigh returns ψ(z) for the weight w (for TrimmedWeight, ψ(z) within
// the bounds, which the operator checks: see Bounds.keeps). It is the one
// place where a weight is applied to a residual; the passes call it for
// every one.
//
// The sign is formed without a branch on it (residual signs are a coin
// toss, which a branch predictor loses half the time): sign(0) = 0 and a
// NaN weighs 0, each a branch taken almost never.
func weigh(w Weight, z float64) float64 {
	if w != SignWeight {
		return z
	}
	if z == 0 || z != z {
		return 0
	}
	return math.Copysign(1, z)
}
