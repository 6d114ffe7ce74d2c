package scaledsm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Method is how the factor subgradients become a search direction, and
// which loss is minimized when Settings.Loss is left nil.
//
// The scaled methods precondition by the other factor's Gram matrix,
//
//	L -= η GL (RᵀR)^{-1},  R -= η GR (LᵀL)^{-1}   (both from the old pair),
//	L -= η GL (LᵀL)^{-1}                           (X = L Lᵀ),
//
// and the vanilla ones do not: L -= η GL, R -= η GR. The subgradient
// methods default to the l1 loss, the gradient methods to the smooth
// squared l2 loss; the directions of ScaledGD and ScaledSM on the same loss
// are the same.
type Method int

const (
	// ScaledSM is the scaled subgradient method (eq. scaledSM), on the l1
	// loss by default.
	ScaledSM Method = iota
	// VanillaSM is the plain subgradient method (eq. vanillaSM), on the l1
	// loss by default.
	VanillaSM
	// ScaledGD is scaled gradient descent (Tong, Ma and Chi, 2021), the
	// smooth baseline of Table 1: it preconditions as ScaledSM does and
	// minimizes L2Squared. With the constant step Constant{Eta: 0.5} it
	// converges at a rate independent of κ on matrix sensing.
	ScaledGD
	// GD is plain gradient descent on L2Squared, the other smooth baseline;
	// its constant step must shrink like 1/σ₁(X*), for example
	// Constant{Eta: 0.5/σ₁}, and its rate degrades with κ.
	GD
)

var (
	methodNames = [...]string{ScaledSM: "scaledsm", VanillaSM: "vanillasm", ScaledGD: "scaledgd", GD: "gd"}
	paperNames  = [...]string{ScaledSM: "ScaledSM", VanillaSM: "VanillaSM", ScaledGD: "ScaledGD", GD: "GD"}
)

// Name returns the method's name as the paper spells it: "ScaledSM",
// "VanillaSM", "ScaledGD" or "GD".
func (m Method) Name() string {
	if m >= 0 && int(m) < len(paperNames) {
		return paperNames[m]
	}
	return m.String()
}

// String returns the method's name as the command line spells it.
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

func (m Method) valid() bool { return m >= ScaledSM && m <= GD }

// scaled reports whether the method preconditions by the factors' Gram
// matrices.
func (m Method) scaled() bool { return m == ScaledSM || m == ScaledGD }

// Smooth reports whether m is a gradient method, which minimizes a smooth
// loss (GD, ScaledGD), rather than a subgradient method.
func (m Method) Smooth() bool { return m == ScaledGD || m == GD }

// DefaultLoss returns the loss the method minimizes when Settings.Loss is
// nil: L1 for the subgradient methods, L2Squared for the gradient
// methods.
func (m Method) DefaultLoss() Loss {
	if m.Smooth() {
		return L2Squared
	}
	return L1
}

// preconditioner solves d = g (fᵀf + λI)^{-1} for the r×r Gram matrix of a
// factor f and a damping λ >= 0 (see Damping), through a Cholesky factor
// (for a factor of tsqrRows rows or more, through the inverse it gives),
// or through the pseudo-inverse when the matrix is singular or too
// ill-conditioned for Cholesky to be trusted.
type preconditioner struct {
	gram mat.SymDense
	chol mat.Cholesky
	eig  mat.EigenSym
	pinv mat.Dense
	tmp  mat.Dense
	inv  mat.SymDense
	sums []float64 // gramTall's blocks
}

// maxCond is the largest condition number of a Gram matrix solved through
// its Cholesky factor; beyond it, the pseudo-inverse is used.
const maxCond = 1e12

// apply sets d = g (fᵀf + λI)^{-1} with λ = fixed + rel·tr(fᵀf). It
// reports whether it fell back on the pseudo-inverse, and ok = false when
// the Gram matrix is zero or not finite, so that no direction exists.
func (p *preconditioner) apply(d, g, f *mat.Dense, fixed, rel float64) (fallback, ok bool) {
	_, r := f.Dims()
	if p.gram.SymmetricDim() != r {
		p.gram = *mat.NewSymDense(r, nil)
	}
	if n, _ := f.Dims(); n >= tsqrRows {
		gramTall(&p.gram, f, &p.sums)
	} else {
		p.gram.SymOuterK(1, f.T())
	}
	if lambda := fixed + rel*mat.Trace(&p.gram); lambda > 0 && !math.IsInf(lambda, 0) {
		for i := range r {
			p.gram.SetSym(i, i, p.gram.At(i, i)+lambda)
		}
	}
	if p.chol.Factorize(&p.gram) && p.chol.Cond() <= maxCond {
		if n, _ := g.Dims(); n >= tsqrRows {
			// A tall factor: one multiply by the r×r inverse, in
			// parallel row blocks, where the triangular solves of
			// gᵀ run on one core and transpose it twice.
			if err := p.chol.InverseTo(&p.inv); err == nil {
				mulSmall(d, g, &p.inv)
				return false, true
			}
		}
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
