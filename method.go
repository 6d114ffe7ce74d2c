package scaledsm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Method is how the factor subgradients become a search direction.
type Method int

const (
	// ScaledSM is the scaled subgradient method (eq. scaledSM):
	// L -= η GL (RᵀR)^{-1}, R -= η GR (LᵀL)^{-1}, both from the old pair;
	// for X = L Lᵀ, L -= η GL (LᵀL)^{-1}.
	ScaledSM Method = iota
	// VanillaSM is the plain subgradient method (eq. vanillaSM):
	// L -= η GL, R -= η GR.
	VanillaSM
)

var methodNames = [...]string{ScaledSM: "scaledsm", VanillaSM: "vanillasm"}

// String returns the method's name as the command line spells it.
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod returns the method named s.
func ParseMethod(s string) (Method, error) {
	for m, name := range methodNames {
		if s == name {
			return Method(m), nil
		}
	}
	return 0, fmt.Errorf("unknown method %q (want scaledsm or vanillasm)", s)
}

func (m Method) valid() bool { return m >= ScaledSM && m <= VanillaSM }

// scaled reports whether the method preconditions by the factors' Gram
// matrices.
func (m Method) scaled() bool { return m == ScaledSM }

// preconditioner solves d = g (fᵀf)^{-1} for the r×r Gram matrix of a factor
// f, through a Cholesky factor, or through the pseudo-inverse when the Gram
// matrix is singular or too ill-conditioned for Cholesky to be trusted.
type preconditioner struct {
	gram mat.SymDense
	chol mat.Cholesky
	eig  mat.EigenSym
	pinv mat.Dense
	tmp  mat.Dense
}

// maxCond is the largest condition number of a Gram matrix solved through
// its Cholesky factor; beyond it, the pseudo-inverse is used.
const maxCond = 1e12

// apply sets d = g (fᵀf)^{-1}. It reports whether it fell back on the
// pseudo-inverse, and ok = false when the Gram matrix is zero or not finite,
// so that no direction exists.
func (p *preconditioner) apply(d, g, f *mat.Dense) (fallback, ok bool) {
	_, r := f.Dims()
	if p.gram.SymmetricDim() != r {
		p.gram = *mat.NewSymDense(r, nil)
	}
	p.gram.SymOuterK(1, f.T())
	if p.chol.Factorize(&p.gram) && p.chol.Cond() <= maxCond {
		// d (fᵀf) = g  <=>  (fᵀf) dᵀ = gᵀ.
		p.tmp.Reset()
		if err := p.chol.SolveTo(&p.tmp, g.T()); err == nil {
			d.Copy(p.tmp.T())
			return false, true
		}
	}
	if !p.eig.Factorize(&p.gram, true) {
		return true, false
	}
	vals := p.eig.Values(nil)
	var vecs mat.Dense
	p.eig.VectorsTo(&vecs)
	top := vals[len(vals)-1]
	if !(top > 0) || math.IsInf(top, 0) {
		return true, false
	}
	// Eigenvalues below r·ε·λmax are treated as zero, as LAPACK's
	// pseudo-inverse does with singular values.
	cut := float64(r) * 2.220446049250313e-16 * top
	p.pinv.Reset() // ReuseAs panics on a matrix in use: a second fallback found it so
	p.pinv.ReuseAs(r, r)
	p.pinv.Zero()
	for k, v := range vals {
		if v <= cut {
			continue
		}
		col := vecs.ColView(k)
		var outer mat.Dense
		outer.Outer(1/v, col, col)
		p.pinv.Add(&p.pinv, &outer)
	}
	d.Mul(g, &p.pinv)
	return true, true
}
