package scaledsm

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// Sensing is the dense matrix-sensing operator A_i(X) = <A_i, X>/m for n1×n2 matrices A_i,
// measuring X = L Rᵀ. The matrices are the rows of an m×(n1·n2) matrix (row i holds A_i in
// row-major order, entry (j, k) at j·n2 + k), held as float64 or float32 (NewSensing of a
// []float64 or a []float32), float32 halving the memory and shortening a pass; arithmetic is
// float64 either way.
//
// Evaluate reads each row from memory once: a block of kernel.BlockRows rows at a time, the dot
// products, the residuals and weights, then the weighted rows added to the adjoint
// S = Σ_i w_i A_i while they are in the cache (with float32 data, software-pipelined: one sweep
// adds a block while the next streams in, kernel.DotAxpyRows). The rows are split into a fixed
// number of chunks that the goroutines take in turn (see chunks); every pass, a batch's
// (SolveBatch) included, adds the rows in the same order, so the bits do not depend on
// GOMAXPROCS and a batch gives each run the bits Evaluate gives it alone.
type Sensing struct {
	m, n1, n2 int
	total     int       // the measurements of the whole problem, when this is a shard (see Shard)
	a         []float64 // the rows, or nil when stored as float32
	a32       []float32
}

// NewSensing returns the sensing operator of the m matrices of shape n1×n2
// stored row after row in a (see Sensing), as float64 or float32 values. It
// keeps a, without copying it, and computes in float64 from the stored
// values: on float32 values it is the operator of the same values converted
// to float64, and gives the same results, at half the memory.
func NewSensing[T float32 | float64](m, n1, n2 int, a []T) (*Sensing, error) {
	if err := checkSensing(m, n1, n2, len(a)); err != nil {
		return nil, err
	}
	if i := obs.FirstNonFinite(a); i >= 0 {
		n := n1 * n2
		return nil, fmt.Errorf("scaledsm: sensing operator: entry %d of measurement matrix %d is %v", i%n, i/n, a[i])
	}
	s := &Sensing{m: m, n1: n1, n2: n2}
	switch a := any(a).(type) {
	case []float64:
		s.a = a
	case []float32:
		s.a32 = a
	}
	return s, nil
}

func checkSensing(m, n1, n2, values int) error {
	if m <= 0 || n1 <= 0 || n2 <= 0 {
		return fmt.Errorf("scaledsm: sensing operator: dimensions m=%d, n1=%d, n2=%d must be positive", m, n1, n2)
	}
	if values != m*n1*n2 {
		return fmt.Errorf("scaledsm: sensing operator: data has %d values, want m·n1·n2 = %d·%d·%d = %d", values, m, n1, n2, m*n1*n2)
	}
	return nil
}

// Sensing evaluates batches and forms its spectral estimate.
var (
	_ batchEvaluator   = (*Sensing)(nil)
	_ SpectralOperator = (*Sensing)(nil)
)

// Dims returns m, n1 and n2.
func (s *Sensing) Dims() (m, n1, n2 int) { return s.m, s.n1, s.n2 }

// Symmetric returns false: sensing measures X = L Rᵀ.
func (s *Sensing) Symmetric() bool { return false }

// Data returns the stored matrices, row after row (see Sensing), or nil
// when they are stored as float32 (see Data32).
func (s *Sensing) Data() []float64 { return s.a }

// Data32 returns the matrices stored as float32, row after row, or nil when
// they are stored as float64 (see Data).
func (s *Sensing) Data32() []float32 { return s.a32 }

// Bytes returns the size of the stored matrices in bytes.
func (s *Sensing) Bytes() int64 {
	if s.a32 != nil {
		return 4 * int64(len(s.a32))
	}
	return 8 * int64(len(s.a))
}

// dotRows sets out[k] to the dot product of row i0+k with x.
func (s *Sensing) dotRows(out []float64, i0 int, x []float64) {
	n := s.n1 * s.n2
	if s.a32 != nil {
		kernel.DotRows32(out, s.a32[i0*n:], n, n, x)
	} else {
		kernel.DotRows(out, s.a[i0*n:], n, n, x)
	}
}

// axpyRows adds alpha[k] times row i0+k to y, k in increasing order.
func (s *Sensing) axpyRows(y, alpha []float64, i0 int) {
	if len(alpha) == 0 {
		return
	}
	n := s.n1 * s.n2
	if s.a32 != nil {
		kernel.AxpyRows32(y, alpha, s.a32[i0*n:], n, n)
	} else {
		kernel.AxpyRows(y, alpha, s.a[i0*n:], n, n)
	}
}

// Spectral returns the factors of the best rank-r approximation of the
// spectral estimate Σ_{i∈I} y_i A_i / |I| over the observations kept, in
// the unscaled convention y_i = <A_i, X> of the paper's Section 4 (whose
// expectation is X for Gaussian A_i): L = U Σ^{1/2}, R = V Σ^{1/2} from
// its top r singular triplets.
// Over the ranks of red (nil: one process), kept counts them all.
func (s *Sensing) Spectral(v []float64, kept, r int, red ranks.Reducer) (Factors, error) {
	d := reduce.Over(red)
	est := mat.NewDense(s.n1, s.n2, nil)
	s.Adjoint(est, v)
	d.Sum(est.RawMatrix().Data)
	// A*(v) carries a 1/m and so does each y_i: the unscaled sum
	// Σ y_i A_i is m²·A*(v) in the operator's convention.
	fm, k := s.scale(), float64(kept)
	est.Scale(fm*fm/k, est)
	return topSingular(est, r)
}

// applyRows is the number of rows handed out at a time by Apply.
const applyRows = 64

// Apply sets dst to A(x).
func (s *Sensing) Apply(dst []float64, x mat.Matrix) {
	n := s.n1 * s.n2
	xv := rowMajor(x, s.n1, s.n2)
	inv := 1 / s.scale()
	blocks := (s.m + applyRows - 1) / applyRows
	par.Do(par.TeamSize(s.m*n), blocks, func(c int) {
		lo, hi := c*applyRows, min((c+1)*applyRows, s.m)
		for i := lo; i < hi; i += kernel.BlockRows {
			k := min(kernel.BlockRows, hi-i)
			s.dotRows(dst[i:i+k], i, xv)
		}
		for i := lo; i < hi; i++ {
			dst[i] *= inv
		}
	})
}

// Adjoint sets dst to A*(v) = Σ v_i A_i / m, the rows added in the order of
// every pass.
func (s *Sensing) Adjoint(dst *mat.Dense, v []float64) {
	n, m := s.n1*s.n2, s.m
	inv := 1 / s.scale()
	alpha := make([]float64, m)
	for i, vi := range v[:m] {
		alpha[i] = vi * inv
	}
	nc := par.Chunks(m)
	parts := make([]float64, nc*n)
	par.Do(par.TeamSize(m*n), nc, func(c int) {
		lo, hi := par.ChunkRange(c, nc, m)
		s.axpyRows(parts[c*n:(c+1)*n], alpha[lo:hi], lo)
	})
	par.AddPartials(parts[:n], parts, nc, n)
	dst.Copy(mat.NewDense(s.n1, s.n2, parts[:n]))
}

// Evaluate makes one fused pass over the data: the residuals, their weights
// and the accumulation of the adjoint, reading each row from memory once
// (see Sensing).
func (s *Sensing) Evaluate(e *Evaluation) {
	n, m := s.n1*s.n2, s.m
	nc := par.Chunks(m)
	ws := e.workspace(n + nc*n)
	xv, parts := ws[:n], ws[n:]
	mat.NewDense(s.n1, s.n2, xv).Mul(e.L, e.R.T())
	par.Do(par.TeamSize(m*n), nc, func(c int) {
		lo, hi := par.ChunkRange(c, nc, m)
		s.blockedChunk(e, parts[c*n:(c+1)*n], xv, lo, hi)
	})
	par.AddPartials(parts[:n], parts, nc, n)
	S := mat.NewDense(s.n1, s.n2, parts[:n])
	e.GL.Mul(S, e.R)
	e.GR.Mul(S.T(), e.L)
}

// blockedChunk is Evaluate's work on rows [lo, hi), accumulated into p:
// for each block of kernel.BlockRows rows, the dot products (the rows
// stream from memory), the residuals and weights, then the weighted rows
// added while they are in L2. (For float32 data a software-pipelined
// pass, kernel.DotAxpyRows32 adding one block while it forms the dot
// products of the next, the same bits, measured faster on Zen 4, 1.3
// against 1.45 times the floor; on the Zen 5-class machine of the project
// it measures slower, 2.07 against 1.48 times the floor in
// BenchmarkFusedVsStream/f32, and is not used.)
func (s *Sensing) blockedChunk(e *Evaluation, p, xv []float64, lo, hi int) {
	inv := 1 / s.scale()
	var alpha [kernel.BlockRows]float64
	for i := lo; i < hi; i += kernel.BlockRows {
		rows := min(kernel.BlockRows, hi-i)
		s.dotRows(e.Z[i:i+rows], i, xv)
		s.weighRows(e, alpha[:rows], i, inv)
		s.axpyRows(p, alpha[:rows], i)
	}
}

// weighRows turns the dot products e.Z[i0+k] of rows i0+k, k < len(alpha),
// into residuals, in place, and sets alpha[k] to their weights ψ(z)/m.
func (s *Sensing) weighRows(e *Evaluation, alpha []float64, i0 int, inv float64) {
	for k := range alpha {
		fit := e.Z[i0+k] * inv
		if e.Fit != nil {
			e.Fit[i0+k] = fit
		}
		z := fit - e.Y[i0+k]
		e.Z[i0+k] = z
		alpha[k] = e.Weight.Of(z) * inv
	}
}

// dotBatch sets out[k*runs+b] to the dot product of row i0+k with run b's
// vector x[b*n:], for k < rows and b < runs.
func (s *Sensing) dotBatch(out []float64, i0, rows int, x []float64, runs int) {
	ldo := runs
	n := s.n1 * s.n2
	if s.a32 != nil {
		kernel.DotBatch32(out, ldo, s.a32[i0*n:], n, rows, n, x, n, runs)
	} else {
		kernel.DotBatch(out, ldo, s.a[i0*n:], n, rows, n, x, n, runs)
	}
}

// axpyBatch adds to each run b's vector sv[b*n:] the rows i0+k weighted by
// w[k*runs+b], k < rows in increasing order.
func (s *Sensing) axpyBatch(sv, w []float64, i0, rows, runs int) {
	ldw := runs
	n := s.n1 * s.n2
	if s.a32 != nil {
		kernel.AxpyBatch32(sv, n, w, ldw, s.a32[i0*n:], n, rows, n, runs)
	} else {
		kernel.AxpyBatch(sv, n, w, ldw, s.a[i0*n:], n, rows, n, runs)
	}
}

// smallBatch is the largest batch evaluateBatch splits among goroutines by
// chunks of rows (each reads its rows once for every run, keeping a partial
// sum per run); larger batches are split by runs (each goroutine reads all
// the rows for its runs), which needs no partial sums of all the runs.
// Small batches are bound by memory, large ones by arithmetic.
const smallBatch = 16

// evaluateBatch evaluates several runs in one pass over the data: for each
// block of rows, the dot products of the rows with every run's X (one
// matrix product, kernel.DotBatch), the residuals and weights, and the
// accumulation of every run's adjoint (another, kernel.AxpyBatch). Each
// Evaluation is left with the bits Evaluate would give it: every run's rows
// are added in the chunks and order of Evaluate.
func (s *Sensing) evaluateBatch(es []*Evaluation) {
	n, m := s.n1*s.n2, s.m
	w := par.TeamSize(m * n)
	switch {
	case len(es) == 0:
	case len(es) == 1:
		s.Evaluate(es[0])
	case len(es) <= smallBatch:
		s.batchByChunks(es, w)
	default:
		s.batchByRuns(es, w)
	}
}

// batchByChunks is evaluateBatch with the goroutines taking chunks of rows,
// each with every run.
func (s *Sensing) batchByChunks(es []*Evaluation, w int) {
	n, m := s.n1*s.n2, s.m
	B, nc := len(es), par.Chunks(m)
	const rowsPer = kernel.BatchRows / 2
	buf := getBuffer(B*n + nc*B*n + nc*rowsPer*B)
	defer putBuffer(buf)
	xs, parts, ws := (*buf)[:B*n], (*buf)[B*n:B*n+nc*B*n], (*buf)[B*n+nc*B*n:]
	for b, e := range es {
		mat.NewDense(s.n1, s.n2, xs[b*n:(b+1)*n]).Mul(e.L, e.R.T())
	}
	par.Do(w, nc, func(c int) {
		lo, hi := par.ChunkRange(c, nc, m)
		p := parts[c*B*n : (c+1)*B*n]
		clear(p)
		zw := ws[c*rowsPer*B : (c+1)*rowsPer*B]
		for i := lo; i < hi; i += rowsPer {
			rows := min(rowsPer, hi-i)
			s.dotBatch(zw, i, rows, xs, B)
			s.weighBatch(zw, i, rows, es)
			s.axpyBatch(p, zw, i, rows, B)
		}
	})
	// Each run's partial sums, added in chunk order.
	for b, e := range es {
		sv := parts[b*n : (b+1)*n]
		for c := 1; c < nc; c++ {
			kernel.Axpy(1, parts[c*B*n+b*n:c*B*n+(b+1)*n], sv)
		}
		S := mat.NewDense(s.n1, s.n2, sv)
		e.GL.Mul(S, e.R)
		e.GR.Mul(S.T(), e.L)
	}
}

// weighBatch turns the dot products zw[k*len(es)+b] of rows i0+k with the
// runs' X into the runs' residuals and weights ψ(z)/m, in place.
func (s *Sensing) weighBatch(zw []float64, i0, rows int, es []*Evaluation) {
	ld, inv := len(es), 1/s.scale()
	for k := range rows {
		for b, e := range es {
			fit := zw[k*ld+b] * inv
			if e.Fit != nil {
				e.Fit[i0+k] = fit
			}
			z := fit - e.Y[i0+k]
			e.Z[i0+k] = z
			zw[k*ld+b] = e.Weight.Of(z) * inv
		}
	}
}

// batchByRuns is evaluateBatch with the goroutines taking whole runs.
func (s *Sensing) batchByRuns(es []*Evaluation, w int) {
	n, m := s.n1*s.n2, s.m
	B := len(es)
	const rowsPer = kernel.BatchRows
	// X and S of every run, a partial sum of S for every run, and each
	// goroutine's block of dot products and weights.
	buf := getBuffer(3*B*n + w*rowsPer*B)
	defer putBuffer(buf)
	xs, ss, ps, ws := (*buf)[:B*n], (*buf)[B*n:2*B*n], (*buf)[2*B*n:3*B*n], (*buf)[3*B*n:]
	par.Do(w, B, func(b int) {
		mat.NewDense(s.n1, s.n2, xs[b*n:(b+1)*n]).Mul(es[b].L, es[b].R.T())
	})
	nc := par.Chunks(m)
	par.Do(w, w, func(k int) {
		b0, b1 := k*B/w, (k+1)*B/w
		runs := b1 - b0
		zw := ws[k*rowsPer*B:][:rowsPer*runs]
		S, P := ss[b0*n:b1*n], ps[b0*n:b1*n]
		clear(S)
		for c := range nc {
			// Chunk 0 accumulates into S, the others into P, added to S
			// in chunk order: the order of Evaluate.
			acc := S
			if c > 0 {
				acc = P
				clear(P)
			}
			lo, hi := par.ChunkRange(c, nc, m)
			for i := lo; i < hi; i += rowsPer {
				rows := min(rowsPer, hi-i)
				s.dotBatch(zw, i, rows, xs[b0*n:], runs)
				s.weighBatch(zw, i, rows, es[b0:b1])
				s.axpyBatch(acc, zw, i, rows, runs)
			}
			if c > 0 {
				for b := range runs {
					kernel.Axpy(1, P[b*n:(b+1)*n], S[b*n:(b+1)*n])
				}
			}
		}
	})
	par.Do(w, B, func(b int) {
		e := es[b]
		S := mat.NewDense(s.n1, s.n2, ss[b*n:(b+1)*n])
		e.GL.Mul(S, e.R)
		e.GR.Mul(S.T(), e.L)
	})
}
