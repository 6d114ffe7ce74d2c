package scaledsm

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/kernel"
)

// Quadratic is the quadratic-sampling operator A_i(X) = a_iᵀ X a_i / m for
// vectors a_i of length n, measuring positive semidefinite X = L Lᵀ.
//
// The vectors are stored as the rows of an m×n matrix. The operator never
// forms a_i a_iᵀ: at the factors it computes b_i = Lᵀ a_i, the residual
// ||b_i||²/m - y_i and the subgradient 2 Σ ψ(z_i) a_i b_iᵀ / m, which costs
// O(n r) per measurement instead of O(n²).
type Quadratic struct {
	m, n int
	a    []float64
}

// NewQuadratic returns the quadratic-sampling operator of the m vectors of
// length n stored row after row in a. It keeps a, without copying it.
func NewQuadratic(m, n int, a []float64) (*Quadratic, error) {
	if m <= 0 || n <= 0 {
		return nil, fmt.Errorf("scaledsm: quadratic operator: dimensions m=%d, n=%d must be positive", m, n)
	}
	if len(a) != m*n {
		return nil, fmt.Errorf("scaledsm: quadratic operator: data has %d values, want m·n = %d·%d = %d", len(a), m, n, m*n)
	}
	if i := firstNonFinite(a); i >= 0 {
		return nil, fmt.Errorf("scaledsm: quadratic operator: entry %d of sampling vector %d is %v", i%n, i/n, a[i])
	}
	return &Quadratic{m: m, n: n, a: a}, nil
}

// Dims returns m, n and n.
func (q *Quadratic) Dims() (m, n1, n2 int) { return q.m, q.n, q.n }

// Symmetric returns true: quadratic sampling measures X = L Lᵀ.
func (q *Quadratic) Symmetric() bool { return true }

// Data returns the stored sampling vectors, row after row.
func (q *Quadratic) Data() []float64 { return q.a }

func (q *Quadratic) row(i int) []float64 { return q.a[i*q.n : (i+1)*q.n] }

// Apply sets dst to A(x), for any n×n matrix x.
func (q *Quadratic) Apply(dst []float64, x mat.Matrix) {
	A := mat.NewDense(q.m, q.n, q.a)
	var ax mat.Dense
	ax.Mul(A, x)
	inv := 1 / float64(q.m)
	for i := range q.m {
		dst[i] = kernel.Dot(ax.RawRowView(i), q.row(i)) * inv
	}
}

// Adjoint sets dst to A*(v) = Σ v_i a_i a_iᵀ / m.
func (q *Quadratic) Adjoint(dst *mat.Dense, v []float64) {
	scaled := make([]float64, len(q.a))
	inv := 1 / float64(q.m)
	for i := range q.m {
		kernel.Axpy(v[i]*inv, q.row(i), scaled[i*q.n:(i+1)*q.n])
	}
	dst.Mul(mat.NewDense(q.m, q.n, q.a).T(), mat.NewDense(q.m, q.n, scaled))
}

// Evaluate makes one fused pass over the data at X = L Lᵀ.
func (q *Quadratic) Evaluate(e *Evaluation) {
	n := q.n
	_, r := e.L.Dims()
	nc := chunks(q.m)
	ws := e.workspace(r*n + nc*r*n + nc*r)
	lt, parts, bs := ws[:r*n], ws[r*n:r*n+nc*r*n], ws[r*n+nc*r*n:]
	mat.NewDense(r, n, lt).Copy(e.L.T())

	inv := 1 / float64(q.m)
	parallel(nc, func(c int) {
		lo, hi := chunkRange(c, nc, q.m)
		p := parts[c*r*n : (c+1)*r*n]
		b := bs[c*r : (c+1)*r]
		for i := lo; i < hi; i++ {
			a := q.row(i)
			var sq float64
			for k := range r {
				b[k] = kernel.Dot(a, lt[k*n:(k+1)*n])
				sq += b[k] * b[k]
			}
			z := sq*inv - e.Y[i]
			e.Z[i] = z
			if w := weigh(e.Weight, z); w != 0 {
				w *= 2 * inv
				for k := range r {
					kernel.Axpy(w*b[k], a, p[k*n:(k+1)*n])
				}
			}
		}
	})
	gt := lt // Lᵀ is no longer needed: reuse its space for Gᵀ.
	reduceInto(gt, parts, nc, r*n)
	e.GL.Copy(mat.NewDense(r, n, gt).T())
}
