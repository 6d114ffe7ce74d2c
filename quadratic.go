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
// O(n r) per measurement instead of O(n²). A pass is two small matrix
// products: B = A L, by blocks of rows, then Gᵀ = Σ_i w_i b_iᵀ a_i with the
// rows added in increasing order, the goroutines splitting the rows for
// the first and the columns of Gᵀ for the second, so that the bits do not
// depend on the number of cores.
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

// Apply sets dst to A(x), for any n×n matrix x.
func (q *Quadratic) Apply(dst []float64, x mat.Matrix) {
	// Row i of A x is (x^T a_i)^T: DotBatch of the rows with the rows of
	// xᵀ, a block of rows at a time.
	n := q.n
	xt := make([]float64, n*n)
	mat.NewDense(n, n, xt).Copy(x.T())
	inv := 1 / float64(q.m)
	blocks := (q.m + kernel.BatchRows - 1) / kernel.BatchRows
	parallel(teamSize(q.m*n*n), blocks, func(c int) {
		lo, hi := c*kernel.BatchRows, min((c+1)*kernel.BatchRows, q.m)
		ax := make([]float64, (hi-lo)*n)
		kernel.DotBatch(ax, n, q.a[lo*n:], n, hi-lo, n, xt, n, n)
		for i := lo; i < hi; i++ {
			dst[i] = kernel.Dot(ax[(i-lo)*n:(i-lo+1)*n], q.a[i*n:(i+1)*n]) * inv
		}
	})
}

// Adjoint sets dst to A*(v) = Σ v_i a_i a_iᵀ / m. Row j of the result is
// Σ_i (v_i a_ij / m) a_iᵀ: AxpyBatch with the n rows of the result as its
// runs, the rows a_i added in the order of every pass.
func (q *Quadratic) Adjoint(dst *mat.Dense, v []float64) {
	n, m := q.n, q.m
	inv := 1 / float64(m)
	nc := chunks(m)
	parts := make([]float64, nc*n*n)
	parallel(teamSize(m*n*n), nc, func(c int) {
		lo, hi := chunkRange(c, nc, m)
		wt := make([]float64, kernel.BatchRows*n)
		for i0 := lo; i0 < hi; i0 += kernel.BatchRows {
			rows := min(kernel.BatchRows, hi-i0)
			for k := range rows {
				ci := v[i0+k] * inv
				for j, a := range q.a[(i0+k)*n : (i0+k+1)*n] {
					wt[k*n+j] = ci * a
				}
			}
			kernel.AxpyBatch(parts[c*n*n:], n, wt, n, q.a[i0*n:], n, rows, n, n)
		}
	})
	addPartials(parts[:n*n], parts, nc, n*n)
	dst.Copy(mat.NewDense(n, n, parts[:n*n]))
}

// Evaluate makes one pass over the data at X = L Lᵀ (see Quadratic).
func (q *Quadratic) Evaluate(e *Evaluation) {
	n, m := q.n, q.m
	_, r := e.L.Dims()
	rn := r * n
	nc := chunks(m)
	const rowsPer = kernel.BatchRows
	ws := e.workspace(rn + nc*rn + nc*rowsPer*r)
	lt, parts, bws := ws[:rn], ws[rn:rn+nc*rn], ws[rn+nc*rn:]
	mat.NewDense(r, n, lt).Copy(e.L.T())
	es := []*Evaluation{e}
	parallel(teamSize(m*rn), nc, func(c int) {
		lo, hi := chunkRange(c, nc, m)
		bw := bws[c*rowsPer*r : (c+1)*rowsPer*r]
		for i := lo; i < hi; i += rowsPer {
			rows := min(rowsPer, hi-i)
			q.weights(i, rows, lt, r, es, bw)
			kernel.AxpyBatch(parts[c*rn:], n, bw, r, q.a[i*n:], n, rows, n, r)
		}
	})
	addPartials(parts[:rn], parts, nc, rn)
	e.GL.Copy(mat.NewDense(r, n, parts[:rn]).T())
}

// weights computes, for rows [i0, i0+rows) and the runs of es (whose
// factors' transposes are stacked in lt, r rows each), the products
// b_i = Lᵀ a_i, the residuals, and the weights 2ψ(z_i)/m · b_i, which
// overwrite b_i in bw: row i0+k, run b's r values at
// bw[k*len(es)*r+b*r:][:r].
func (q *Quadratic) weights(i0, rows int, lt []float64, r int, es []*Evaluation, bw []float64) {
	n := q.n
	inv := 1 / float64(q.m)
	ld := len(es) * r
	kernel.DotBatch(bw, ld, q.a[i0*n:], n, rows, n, lt, n, ld)
	for k := range rows {
		for b, e := range es {
			v := bw[k*ld+b*r : k*ld+(b+1)*r]
			var sq float64
			for _, x := range v {
				sq += x * x
			}
			z := sq*inv - e.Y[i0+k]
			e.Z[i0+k] = z
			c := weigh(e.Weight, z) * (2 * inv)
			for j := range v {
				v[j] *= c
			}
		}
	}
}

// EvaluateBatch evaluates several runs in one pass over the data, each
// goroutine taking whole runs. Each Evaluation is left with the bits
// Evaluate would give it.
func (q *Quadratic) EvaluateBatch(es []*Evaluation) {
	if len(es) == 0 {
		return
	}
	n, m := q.n, q.m
	_, r := es[0].L.Dims()
	rn := r * n
	w := teamSize(m * rn * len(es))
	if len(es) < max(w, 2) {
		for _, e := range es {
			q.Evaluate(e)
		}
		return
	}
	B := len(es)
	const rowsPer = kernel.BatchRows
	buf := getBuffer(3*B*rn + rowsPer*B*r)
	defer putBuffer(buf)
	lt, gs, ps, bws := (*buf)[:B*rn], (*buf)[B*rn:2*B*rn], (*buf)[2*B*rn:3*B*rn], (*buf)[3*B*rn:]
	for b, e := range es {
		mat.NewDense(r, n, lt[b*rn:(b+1)*rn]).Copy(e.L.T())
	}
	nc := chunks(m)
	parallel(w, w, func(k int) {
		b0, b1 := k*B/w, (k+1)*B/w
		ld := (b1 - b0) * r
		bw := bws[b0*rowsPer*r : b1*rowsPer*r]
		G, P := gs[b0*rn:b1*rn], ps[b0*rn:b1*rn]
		clear(G)
		for c := range nc {
			// Chunk 0 accumulates into G, the others into P, added to G
			// in chunk order: the order of Evaluate.
			acc := G
			if c > 0 {
				acc = P
				clear(P)
			}
			lo, hi := chunkRange(c, nc, m)
			for i := lo; i < hi; i += rowsPer {
				rows := min(rowsPer, hi-i)
				q.weights(i, rows, lt[b0*rn:], r, es[b0:b1], bw)
				kernel.AxpyBatch(acc, n, bw, ld, q.a[i*n:], n, rows, n, ld)
			}
			if c > 0 {
				for b := range b1 - b0 {
					kernel.Axpy(1, P[b*rn:(b+1)*rn], G[b*rn:(b+1)*rn])
				}
			}
		}
	})
	for b, e := range es {
		e.GL.Copy(mat.NewDense(r, n, gs[b*rn:(b+1)*rn]).T())
	}
}
