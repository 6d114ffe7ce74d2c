package scaledsm

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/dense"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/par"
)

// Factors are the factors of X = L Rᵀ; R is nil for X = L Lᵀ.
//
// Factors is a mat.Matrix whose element (i, j) is the dot product of row i
// of L with row j of R, so a truth known by its factors can be given as
// Problem.Truth without forming the n1×n2 matrix: the solver then measures
// its errors from the factors alone.
type Factors struct {
	L, R *mat.Dense
}

// right returns R, or L for X = L Lᵀ.
func (f Factors) right() *mat.Dense {
	if f.R == nil {
		return f.L
	}
	return f.R
}

// Dims returns the shape n1×n2 of L Rᵀ (0×0 for factors without L).
func (f Factors) Dims() (r, c int) {
	if f.L == nil {
		return 0, 0
	}
	r, _ = f.L.Dims()
	c, _ = f.right().Dims()
	return r, c
}

// At returns element (i, j) of L Rᵀ.
func (f Factors) At(i, j int) float64 {
	return fsum.Dot(f.L.RawRowView(i), f.right().RawRowView(j))
}

// T returns the transpose of L Rᵀ, without forming it.
func (f Factors) T() mat.Matrix { return mat.Transpose{Matrix: f} }

// Rank returns the number of columns of the factors.
func (f Factors) Rank() int {
	_, r := f.L.Dims()
	return r
}

// Product returns L Rᵀ, or L Lᵀ when R is nil.
func (f Factors) Product() *mat.Dense {
	var x mat.Dense
	x.Mul(f.L, f.right().T())
	return &x
}

// lowRank measures Frobenius norms of low-rank matrices from their factors,
// in O((n1 + n2) k²) for a difference of two rank-k matrices: with
// [La, Lb] = Q1 T1 and [Ra, -Rb] = Q2 T2 (thin QR factorizations),
// La Raᵀ - Lb Rbᵀ = Q1 T1 T2ᵀ Q2ᵀ and its norm is ||T1 T2ᵀ||_F, a 2k×2k
// product. The large terms cancel inside the entries of T1 T2ᵀ, each
// within rounding of ||X||, so a difference of relative size 1e-12 keeps
// four digits; the difference of Gram traces ||Xa||² - 2<Xa, Xb> + ||Xb||²
// would keep none. It keeps its buffers between calls.
type lowRank struct {
	buf, tau, work, t1, t2, prod []float64
	blocks                       []float64 // the blocks' triangles, stacked (see triangleOf)
	// each block's workspace, kept from one call to the next so that a
	// run's measures allocate nothing after the first
	blockQ []lowRank
	free   par.Pool[[]float64] // the goroutines' buffers of a block's rows (see tsqr)
}

// distance returns ||a - b||_F.
func (q *lowRank) distance(a, b Factors) float64 {
	n1, n2 := a.Dims()
	ka, kb := a.Rank(), b.Rank()
	k := ka + kb
	return q.norm(n1, n2, k, side{a.L, b.L, 1}, side{a.right(), b.right(), -1})
}

// size returns ||f||_F.
func (q *lowRank) size(f Factors) float64 {
	n1, n2 := f.Dims()
	k := f.Rank()
	return q.norm(n1, n2, k, side{f.L, nil, 1}, side{f.right(), nil, 1})
}

// side is one factor of a product of factors, stacked: [a, s·b] (b may be
// nil; see stack).
type side struct {
	a, b *mat.Dense
	s    float64
}

// stack sets buf to the n×(ka+kb) matrix [a, s·b] (b may be nil).
func stack(buf []float64, n int, a, b *mat.Dense, s float64) []float64 {
	return side{a, b, s}.rows(buf, 0, n)
}

// rows sets buf to rows lo to hi of the stacked matrix [a, s·b].
func (sd side) rows(buf []float64, lo, hi int) []float64 {
	_, ka := sd.a.Dims()
	kb := 0
	if sd.b != nil {
		_, kb = sd.b.Dims()
	}
	k := ka + kb
	buf = dense.Grow(buf, (hi-lo)*k)
	for i := lo; i < hi; i++ {
		row := buf[(i-lo)*k : (i-lo+1)*k]
		copy(row, sd.a.RawRowView(i))
		if sd.b != nil {
			for j, v := range sd.b.RawRowView(i) {
				row[ka+j] = sd.s * v
			}
		}
	}
	return buf
}

// norm returns ||T1 T2ᵀ||_F for the triangular factors T1 of the n1×k
// matrix left and T2 of the n2×k matrix right.
func (q *lowRank) norm(n1, n2, k int, left, right side) float64 {
	k1, k2 := min(n1, k), min(n2, k)
	q.t1 = q.triangleOf(q.t1, n1, k, left)
	q.t2 = q.triangleOf(q.t2, n2, k, right)
	return q.product(k1, k2, k, k)
}

// change returns ||a - b||_F / ||a||_F from the one pair of
// factorizations that gives the numerator: the leading ka×ka block of the
// triangle of [La, Lb] is La's own (the reflectors of the first columns
// do not depend on the later ones), and the same holds for [Ra, -Rb], so
// ||a||_F is the norm of the product of the leading blocks.
func (q *lowRank) change(a, b Factors) float64 {
	n1, n2 := a.Dims()
	ka := a.Rank()
	d := q.distance(a, b)
	k := ka + b.Rank()
	return d / q.product(min(n1, ka), min(n2, ka), k, ka)
}

// product returns ||T1 T2ᵀ||_F over the first cols columns of the
// triangles q.t1 (k1 rows) and q.t2 (k2 rows), stored with k columns.
func (q *lowRank) product(k1, k2, k, cols int) float64 {
	// Entry (i, j) of T1 T2ᵀ: row i of T1 with row j of T2; T1 is upper
	// trapezoidal, k1×k, T2 is k2×k.
	var s fsum.Sum
	var scale float64
	prod := q.prod[:0]
	for i := range k1 {
		for j := range k2 {
			v := fsum.Dot(q.t1[i*k+max(i, j):i*k+cols], q.t2[j*k+max(i, j):j*k+cols])
			prod = append(prod, v)
			scale = max(scale, math.Abs(v))
		}
	}
	q.prod = prod
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	for _, v := range prod {
		s.Add((v / scale) * (v / scale))
	}
	return scale * math.Sqrt(s.Value())
}

// tsqrRows is the height of the row blocks of a tall QR factorization:
// each block is factored on its own (in parallel, and in cache), then the
// stacked triangles; the blocks depend on the size alone, so the bits do
// not depend on the number of cores.
const tsqrRows = 4096

// triangleOf factors the stacked matrix sd, n×k, and returns its
// triangular factor, min(n, k)×k, row-major in dst: by Householder QR,
// and for a tall matrix by blocks of tsqrRows rows (TSQR: Demmel,
// Grigori, Hoemmen and Langou), as stable and about twice as fast on two
// cores. sd is never formed whole when it is tall: each block's rows are
// stacked in a buffer of their own as the block is factored (at 10^5 rows
// of rank 10 this saves 15 MB that a run's change would otherwise hold).
func (q *lowRank) triangleOf(dst []float64, n, k int, sd side) []float64 {
	if !tall(n, k) {
		q.buf = sd.rows(q.buf, 0, n)
		return q.householder(dst, q.buf, n, k)
	}
	return q.tsqr(dst, n, k, func(lo, hi int, buf *[]float64) []float64 {
		*buf = sd.rows(*buf, lo, hi)
		return *buf
	})
}

// tall says whether an n×k matrix is factored by blocks.
func tall(n, k int) bool { return n/tsqrRows >= 2 && tsqrRows >= 4*k }

// tsqr is triangleOf by blocks of tsqrRows rows (the last takes the
// remainder), block(lo, hi, buf) giving rows lo to hi, which the
// factorization overwrites, in a buffer of the goroutine's (buf) or
// elsewhere.
func (q *lowRank) tsqr(dst []float64, n, k int, block func(lo, hi int, buf *[]float64) []float64) []float64 {
	nb := n / tsqrRows
	stacked := dense.Grow(q.blocks, nb*k*k)
	if len(q.blockQ) < nb {
		q.blockQ = make([]lowRank, nb)
	}
	if q.free == nil {
		q.free = par.NewPool[[]float64]()
	}
	par.Do(par.TeamSize(n*k*k), nb, func(b int) {
		lo, hi := b*tsqrRows, (b+1)*tsqrRows
		if b == nb-1 {
			hi = n
		}
		buf := q.free.Get()
		w := &q.blockQ[b]
		w.t1 = w.householder(w.t1, block(lo, hi, &buf), hi-lo, k)
		q.free.Put(buf)
		copy(stacked[b*k*k:(b+1)*k*k], w.t1)
	})
	q.blocks = stacked
	return q.householder(dst, stacked, nb*k, k)
}

// householder is triangleOf by one Householder QR factorization (LAPACK's
// Geqrf).
func (q *lowRank) householder(dst, a []float64, n, k int) []float64 {
	kk := min(n, k)
	q.tau = dense.Grow(q.tau, kk)
	g := blas64.General{Rows: n, Cols: k, Stride: k, Data: a[:n*k]}
	if len(q.work) < max(n, k) {
		// Geqrf's unblocked algorithm needs n; a query gives what its
		// blocked one would like, once per size.
		query := []float64{0}
		lapack64.Geqrf(g, q.tau, query, -1)
		q.work = make([]float64, max(int(query[0]), n, k))
	}
	lapack64.Geqrf(g, q.tau, q.work, len(q.work))
	dst = dense.Grow(dst, kk*k)
	for i := range kk {
		row := dst[i*k : (i+1)*k]
		clear(row[:i])
		copy(row[i:], a[i*k+i:(i+1)*k])
	}
	return dst
}

// RelativeError returns ‖X − X*‖_F / ‖X*‖_F for X and X* given by their
// factors, of the same shape: from thin QR factorizations of the stacked
// factors, never forming the n1×n2 products, so that an error of 1e-12 is
// measured to four digits (see lowRank).
func RelativeError(x, star Factors) float64 {
	var q lowRank
	return q.distance(x, star) / q.size(star)
}
