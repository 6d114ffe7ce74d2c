package scaledsm

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// Quadratic is the quadratic-sampling operator A_i(X) = a_iᵀ X a_i / m for
// vectors a_i of length n, measuring positive semidefinite X = L Lᵀ.
//
// The vectors are stored as the rows of an m×n matrix. The operator never
// forms a_i a_iᵀ: at the factors it computes b_i = Lᵀ a_i, the residual
// ||b_i||²/m - y_i and the subgradient 2 Σ ψ(z_i) a_i b_iᵀ / m, which costs
// O(n r) per measurement instead of O(n²). A pass is two small matrix
// products over each chunk of measurements (see quadChunks): Bᵀ = Lᵀ Aᵀ, then
// G = Aᵀ W for the weights W = 2ψ(z)/m · B. Both read the vectors through a
// transposed copy of the data, made once (it doubles the memory of the
// data, 3.2 MB at the paper's size), so that the products run along the
// long dimension m.
type Quadratic struct {
	m, n  int
	total int // the measurements of the whole problem, when this is a shard (see Shard)
	a     []float64
	at    []float64 // aᵀ: n rows of m, row j holding coordinate j of every a_i
}

// quadChunks returns the number of chunks of a quadratic-sampling pass over
// m measurements, a number that depends on m only (see chunks): fewer than
// a sensing pass, since the data is small and the products run faster on
// longer chunks (4 chunks of 1000 measurements made a pass at the paper's
// size 15-20% faster than 16 of 250).
func quadChunks(m int) int {
	return max(1, min(4, m/512))
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
	if i := obs.FirstNonFinite(a); i >= 0 {
		return nil, fmt.Errorf("scaledsm: quadratic operator: entry %d of sampling vector %d is %v", i%n, i/n, a[i])
	}
	at := make([]float64, m*n)
	for i := range m {
		for j, v := range a[i*n : (i+1)*n] {
			at[j*m+i] = v
		}
	}
	return &Quadratic{m: m, n: n, a: a, at: at}, nil
}

// Quadratic evaluates batches and forms its spectral estimate.
var (
	_ batchEvaluator   = (*Quadratic)(nil)
	_ SpectralOperator = (*Quadratic)(nil)
)

// Spectral returns the factor of the best rank-r PSD approximation of the
// spectral estimate (Σ_{i∈I} y_i a_i a_iᵀ - (Σ_{i∈I} y_i) I) / (2|I|) over
// the observations kept, in the unscaled convention y_i = a_iᵀ X a_i (whose
// expectation is X for Gaussian a_i): L = U Λ^{1/2} from its top r
// eigenpairs, negative eigenvalues clipped to 0, and R = nil.
// Over the ranks of red (nil: one process), kept counts them all.
func (q *Quadratic) Spectral(v []float64, kept, r int, red ranks.Reducer) (Factors, error) {
	d := reduce.Over(red)
	var total fsum.Sum
	for _, x := range v {
		total.Add(x)
	}
	d.Sums(&total)
	sum := total.Value()
	est := mat.NewDense(q.n, q.n, nil)
	q.Adjoint(est, v)
	d.Sum(est.RawMatrix().Data)
	// The unscaled sum Σ y_i a_i a_iᵀ is m²·A*(v), and Σ y_i is m·sum.
	fm, k := q.scale(), float64(kept)
	est.Scale(fm*fm, est)
	for i := range q.n {
		est.Set(i, i, est.At(i, i)-fm*sum)
	}
	est.Scale(1/(2*k), est)
	return topEigen(est, r)
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
	inv := 1 / q.scale()
	blocks := (q.m + kernel.BatchRows - 1) / kernel.BatchRows
	par.Do(par.TeamSize(q.m*n*n), blocks, func(c int) {
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
	inv := 1 / q.scale()
	nc := quadChunks(m)
	parts := make([]float64, nc*n*n)
	par.Do(par.TeamSize(m*n*n), nc, func(c int) {
		lo, hi := par.ChunkRange(c, nc, m)
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
	par.AddPartials(parts[:n*n], parts, nc, n*n)
	dst.Copy(mat.NewDense(n, n, parts[:n*n]))
}

// Evaluate makes one pass over the data at X = L Lᵀ (see Quadratic).
func (q *Quadratic) Evaluate(e *Evaluation) {
	n, m := q.n, q.m
	_, r := e.L.Dims()
	nr := n * r
	nc := quadChunks(m)
	ws := e.workspace(nr + nc*nr + r*m)
	l, parts, bt := ws[:nr], ws[nr:nr+nc*nr], ws[nr+nc*nr:]
	mat.NewDense(n, r, l).Copy(e.L)
	es := []*Evaluation{e}
	par.Do(par.TeamSize(m*nr), nc, func(c int) {
		lo, hi := par.ChunkRange(c, nc, m)
		q.chunk(quadChunk{lo, hi, bt[r*lo : r*hi], parts[c*nr : (c+1)*nr]}, l, es)
	})
	par.AddPartials(parts[:nr], parts, nc, nr)
	e.GL.Copy(mat.NewDense(n, r, parts[:nr]))
}

// quadChunk is a chunk of a pass over quadratic measurements: the
// measurements [lo, hi), scratch bt for len(es)·r rows of hi-lo values,
// and g (n rows, len(es)·r columns) for the runs' subgradients' sums.
type quadChunk struct {
	lo, hi int
	bt, g  []float64
}

// chunk makes the pass over the measurements of ch for the runs of es,
// whose factors are the columns of l (n rows, len(es)·r columns, run b's
// in columns b·r to (b+1)·r): it sets the runs' residuals and ch.g to
// their subgradients' sums over the chunk.
func (q *Quadratic) chunk(ch quadChunk, l []float64, es []*Evaluation) {
	n, m := q.n, q.m
	lo, hi, bt, g := ch.lo, ch.hi, ch.bt, ch.g
	_, r := es[0].L.Dims()
	k := hi - lo
	ld := len(es) * r
	inv := 1 / q.scale()
	// Row c of Bᵀ (run b, column c-b·r of its L) = Σ_j l[j][c] aᵀ_j,
	// the coordinates j in increasing order.
	clear(bt[:ld*k])
	kernel.AxpyBatch(bt, k, l, ld, q.at[lo:], m, n, k, ld)
	for b, e := range es {
		// z_i = ||b_i||²/m - y_i, the squares summed over the run's
		// columns in order, then the weights, a row of Bᵀ at a time.
		z := e.Z[lo:hi]
		clear(z)
		for c := b * r; c < (b+1)*r; c++ {
			for i, v := range bt[c*k : (c+1)*k] {
				z[i] += v * v
			}
		}
		if e.Fit != nil {
			for i := range z {
				e.Fit[lo+i] = z[i] * inv
			}
		}
		for i, y := range e.Y[lo:hi] {
			z[i] = z[i]*inv - y
		}
		for c := b * r; c < (b+1)*r; c++ {
			row := bt[c*k : (c+1)*k]
			for i, zi := range z {
				row[i] *= e.Weight.Of(zi) * (2 * inv)
			}
		}
	}
	// g[j][c] = Σ_i aᵀ_j[i] · W[i][c]: the dot products of the rows of
	// Aᵀ with the rows of Wᵀ.
	kernel.DotBatch(g, ld, q.at[lo:], m, n, k, bt, k, ld)
}

// evaluateBatch evaluates several runs in one pass over the data, each
// goroutine taking whole runs. Each Evaluation is left with the bits
// Evaluate would give it.
func (q *Quadratic) evaluateBatch(es []*Evaluation) {
	if len(es) == 0 {
		return
	}
	n, m := q.n, q.m
	_, r := es[0].L.Dims()
	nr := n * r
	w := par.TeamSize(m * nr * len(es))
	if len(es) < max(w, 2) {
		for _, e := range es {
			q.Evaluate(e)
		}
		return
	}
	B := len(es)
	nc := quadChunks(m)
	maxK := (m + nc - 1) / nc
	// Each goroutine takes runs b0 to b1 and keeps their factors L, their
	// subgradients G and a chunk's partial sums as the columns of n×(runs·r)
	// matrices (run b0+b's in columns b·r to (b+1)·r), and a chunk's Bᵀ:
	// four areas of buf, each goroutine's part of each starting at b0.
	buf := getBuffer(3*B*nr + B*r*maxK)
	defer putBuffer(buf)
	ls, gs, ps, bts := (*buf)[:B*nr], (*buf)[B*nr:2*B*nr], (*buf)[2*B*nr:3*B*nr], (*buf)[3*B*nr:]
	par.Do(w, w, func(k int) {
		b0, b1 := k*B/w, (k+1)*B/w
		ld := (b1 - b0) * r
		l, g, p := ls[b0*nr:b1*nr], gs[b0*nr:b1*nr], ps[b0*nr:b1*nr]
		bt := bts[b0*r*maxK : b1*r*maxK]
		for b, e := range es[b0:b1] {
			for j := range n {
				copy(l[j*ld+b*r:j*ld+(b+1)*r], e.L.RawRowView(j))
			}
		}
		for c := range nc {
			lo, hi := par.ChunkRange(c, nc, m)
			// Chunk 0's sums go to g, the others' to p, added to g in
			// chunk order: the order of Evaluate.
			acc := g
			if c > 0 {
				acc = p
			}
			q.chunk(quadChunk{lo, hi, bt, acc}, l, es[b0:b1])
			if c > 0 {
				kernel.Axpy(1, p, g)
			}
		}
		for b, e := range es[b0:b1] {
			for j := range n {
				copy(e.GL.RawRowView(j), g[j*ld+b*r:j*ld+(b+1)*r])
			}
		}
	})
}
