package scaledsm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/kernel"
)

// Sensing is the dense matrix-sensing operator A_i(X) = <A_i, X>/m for
// n1×n2 matrices A_i, measuring X = L Rᵀ.
//
// The matrices are stored as the rows of an m×(n1·n2) matrix: row i holds
// A_i in row-major order, entry (j, k) at position j·n2 + k.
type Sensing struct {
	m, n1, n2 int
	a         []float64
}

// NewSensing returns the sensing operator of the m matrices of shape n1×n2
// stored row after row in a (see Sensing). It keeps a, without copying it.
func NewSensing(m, n1, n2 int, a []float64) (*Sensing, error) {
	if m <= 0 || n1 <= 0 || n2 <= 0 {
		return nil, fmt.Errorf("scaledsm: sensing operator: dimensions m=%d, n1=%d, n2=%d must be positive", m, n1, n2)
	}
	if len(a) != m*n1*n2 {
		return nil, fmt.Errorf("scaledsm: sensing operator: data has %d values, want m·n1·n2 = %d·%d·%d = %d", len(a), m, n1, n2, m*n1*n2)
	}
	if i := firstNonFinite(a); i >= 0 {
		n := n1 * n2
		return nil, fmt.Errorf("scaledsm: sensing operator: entry %d of measurement matrix %d is %v", i%n, i/n, a[i])
	}
	return &Sensing{m: m, n1: n1, n2: n2, a: a}, nil
}

// Dims returns m, n1 and n2.
func (s *Sensing) Dims() (m, n1, n2 int) { return s.m, s.n1, s.n2 }

// Symmetric returns false: sensing measures X = L Rᵀ.
func (s *Sensing) Symmetric() bool { return false }

// Data returns the stored matrices, row after row (see Sensing).
func (s *Sensing) Data() []float64 { return s.a }

func (s *Sensing) row(i int) []float64 {
	n := s.n1 * s.n2
	return s.a[i*n : (i+1)*n]
}

// Apply sets dst to A(x).
func (s *Sensing) Apply(dst []float64, x mat.Matrix) {
	xv := rowMajor(x, s.n1, s.n2)
	inv := 1 / float64(s.m)
	nc := chunks(s.m)
	parallel(nc, func(c int) {
		lo, hi := chunkRange(c, nc, s.m)
		for i := lo; i < hi; i++ {
			dst[i] = kernel.Dot(s.row(i), xv) * inv
		}
	})
}

// Adjoint sets dst to A*(v) = Σ v_i A_i / m.
func (s *Sensing) Adjoint(dst *mat.Dense, v []float64) {
	n := s.n1 * s.n2
	inv := 1 / float64(s.m)
	nc := chunks(s.m)
	parts := make([]float64, nc*n)
	parallel(nc, func(c int) {
		lo, hi := chunkRange(c, nc, s.m)
		p := parts[c*n : (c+1)*n]
		for i := lo; i < hi; i++ {
			if v[i] != 0 {
				kernel.Axpy(v[i]*inv, s.row(i), p)
			}
		}
	})
	out := make([]float64, n)
	reduceInto(out, parts, nc, n)
	dst.Copy(mat.NewDense(s.n1, s.n2, out))
}

// Evaluate makes one fused pass over the data: for each row, the residual,
// its weight and the accumulation of the adjoint while the row is in cache.
func (s *Sensing) Evaluate(e *Evaluation) {
	n := s.n1 * s.n2
	nc := chunks(s.m)
	ws := e.workspace((2 + nc) * n)
	xv, sv, parts := ws[:n], ws[n:2*n], ws[2*n:]
	mat.NewDense(s.n1, s.n2, xv).Mul(e.L, e.R.T())

	inv := 1 / float64(s.m)
	parallel(nc, func(c int) {
		lo, hi := chunkRange(c, nc, s.m)
		p := parts[c*n : (c+1)*n]
		for i := lo; i < hi; i++ {
			a := s.row(i)
			z := kernel.Dot(a, xv)*inv - e.Y[i]
			e.Z[i] = z
			if w := weigh(e.Weight, z); w != 0 {
				kernel.Axpy(w*inv, a, p)
			}
		}
	})
	reduceInto(sv, parts, nc, n)
	S := mat.NewDense(s.n1, s.n2, sv)
	e.GL.Mul(S, e.R)
	e.GR.Mul(S.T(), e.L)
}

// rowMajor returns the entries of the r×c matrix x in row-major order,
// without copying when x is already a compact *mat.Dense.
func rowMajor(x mat.Matrix, r, c int) []float64 {
	if d, ok := x.(*mat.Dense); ok {
		raw := d.RawMatrix()
		if raw.Stride == c {
			return raw.Data[:r*c]
		}
	}
	out := make([]float64, r*c)
	for i := range r {
		for j := range c {
			out[i*c+j] = x.At(i, j)
		}
	}
	return out
}

// firstNonFinite returns the index of the first NaN or infinite value of v,
// or -1.
func firstNonFinite(v []float64) int {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return i
		}
	}
	return -1
}
