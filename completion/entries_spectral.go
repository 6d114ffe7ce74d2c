package completion

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// Spectral's randomized subspace iteration: oversampling, the most
// power iterations, the change of the top singular values at which it
// stops, relative to the largest (spectralTol) or to the smallest it
// estimates, the level of the estimate's noise (spectralNoise; see
// converged), and the seed of its Gaussian start. The second stops
// sampled data early at no cost to the start: at 10^7 entries of issue
// 36's completion (`generate --problem mc --n 100000 --r 10 --p 0.001
// --kappa 2 --seed 1`) the start took 4.0 s instead of 6.6, its error
// 0.60183 instead of 0.60182; 1e-3 took 3.6 s but left the start of
// TestEntriesSpectral 2.5e-3 from the exact SVD's.
const (
	spectralOver  = 10
	spectralPower = 30
	spectralTol   = 1e-7
	spectralNoise = 1e-4
	spectralSeed  = 0x5eed
)

// Spectral returns the factors of the best rank-r approximation of the
// spectral estimate (n1·n2/m)·P_Ω(Y) of X*, the observations left out set
// to zero, computed without forming it: a randomized subspace iteration
// (Halko, Martinsson and Tropp, Algorithm 4.4) with r+10 columns over the
// sparse matrix, from a Gaussian start of a fixed seed, stopped when its
// top r singular values change by less than 1e-7 of the largest or 1e-4
// of the smallest of the r+10 it estimates (at most 30 iterations), then
// the SVD of the small projected matrix. Each iteration costs two products
// with the sparse matrix, O(m·r) each.
// Over the ranks of red (nil: one process), kept counts them all.
func (e *Entries) Spectral(v []float64, kept, r int, red ranks.Reducer) (scaledsm.Factors, error) {
	d := reduce.Over(red)
	return e.spectralOf(keptValues{v: obs.Obs{F64: v}, below: math.Inf(1)}, kept, r, d)
}

// SpectralBelow is Spectral of the observations (y, or y32 when not nil)
// whose magnitude is below the bound, kept of them, without a copy.
func (e *Entries) SpectralBelow(y []float64, y32 []float32, below float64, kept, r int) (scaledsm.Factors, error) {
	return e.spectralOf(keptValues{v: obs.Obs{F64: y, F32: y32}, below: below}, kept, r, reduce.Ranks{})
}

// keptValues are the values of the sparse matrix of the spectral
// estimate: v[k] where |v[k]| < below, 0 elsewhere. The median rule of
// Truncation is such a bound, and y with it spares the m-sized copy of the
// values it keeps (800 MB at 10^8 entries).
type keptValues struct {
	v     obs.Obs
	below float64
}

// keptOf is keptValues of one kind.
type keptOf[T obs.Float] struct {
	v     []T
	below float64
}

// at returns value k, or 0 when it is not below the bound.
func (kv keptOf[T]) at(k int) float64 {
	if x := float64(kv.v[k]); math.Abs(x) < kv.below {
		return x
	}
	return 0
}

// spectralOf is spectral of the values v.
func (e *Entries) spectralOf(v keptValues, kept int, r int, d reduce.Ranks) (scaledsm.Factors, error) {
	k := min(r+spectralOver, e.n1, e.n2)
	scale := e.Isometry()
	rng := rand.New(rand.NewPCG(spectralSeed, uint64(r)))
	g := mat.NewDense(e.n2, k, nil)
	for i := range e.n2 {
		for j := range k {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	y := mat.NewDense(e.n1, k, nil)
	e.mulSparse(y, v, g, scale)
	d.Sum(y.RawMatrix().Data)
	z := mat.NewDense(e.n2, k, nil)
	var prev []float64
	for it := 0; ; it++ {
		// y = M z with z orthonormal: the singular values of y's triangular
		// factor estimate M's top ones. The loop ends with y orthonormal,
		// converged or not.
		sv := orthonormalize(y)
		if (prev != nil && converged(prev[:r], sv[:r], sv[len(sv)-1])) || it == spectralPower {
			break
		}
		prev = sv
		e.mulSparseT(z, v, y, scale)
		d.Sum(z.RawMatrix().Data)
		orthonormalize(z)
		e.mulSparse(y, v, z, scale)
		d.Sum(y.RawMatrix().Data)
	}
	// B = Qᵀ M is k×n2; its SVD gives M ≈ (Q U_B) Σ Vᵀ.
	e.mulSparseT(z, v, y, scale) // z = Mᵀ Q = Bᵀ
	d.Sum(z.RawMatrix().Data)
	var svd mat.SVD
	if !svd.Factorize(z, mat.SVDThin) {
		return scaledsm.Factors{}, fmt.Errorf("scaledsm: spectral initialization: SVD did not converge")
	}
	var ub, vb mat.Dense
	svd.UTo(&ub) // n2×k: the right singular vectors of B
	svd.VTo(&vb) // k×k: the left ones
	s := svd.Values(nil)
	var u mat.Dense
	u.Mul(y, &vb)
	f := scaledsm.Factors{L: mat.NewDense(e.n1, r, nil), R: mat.NewDense(e.n2, r, nil)}
	for c := range r {
		sq := math.Sqrt(s[c])
		for i := range e.n1 {
			f.L.Set(i, c, u.At(i, c)*sq)
		}
		for i := range e.n2 {
			f.R.Set(i, c, ub.At(i, c)*sq)
		}
	}
	return f, nil
}

// converged reports whether the singular values b are within spectralTol
// of a, relative to the largest, or within spectralNoise of noise, the
// smallest singular value the iteration estimates: the level of the
// estimate's noise (its sampling and outliers), which moves its top
// singular values away from X*'s by about as much, so that digits far
// below it make no better start.
func converged(a, b []float64, noise float64) bool {
	tol := max(spectralTol*b[0], spectralNoise*noise)
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// mulSparse sets dst (n1×k) to scale·M x for the sparse matrix M of the
// values v at the entries, x being n2×k. Each row gathers the rows of x at
// its entries' columns into a buffer and adds them in one AxpyRows call,
// the bits of one Axpy call an entry.
func (e *Entries) mulSparse(dst *mat.Dense, v keptValues, x *mat.Dense, scale float64) {
	if v.v.F32 != nil {
		mulSparseOf(e, dst, keptOf[float32]{v.v.F32, v.below}, x, scale)
	} else {
		mulSparseOf(e, dst, keptOf[float64]{v.v.F64, v.below}, x, scale)
	}
}

// mulSparseOf is mulSparse of the kept values v, compiled for each kind of
// values (a test of the kind for every entry cost a sixth of a spectral
// start at 10^7).
func mulSparseOf[T obs.Float](e *Entries, dst *mat.Dense, v keptOf[T], x *mat.Dense, scale float64) {
	_, k := x.Dims()
	xr, dr := x.RawMatrix(), dst.RawMatrix()
	// Blocks of rows, each visited tile after tile of columns when x's
	// rows would overflow the caches (see tiles): 256 rows a block, or
	// productBlocks blocks of the tiles' many entries.
	tl := e.tiles(passTiles(e.n2, k))
	rows := 256
	if tl.n > 1 {
		rows = (e.n1 + productBlocks - 1) / productBlocks
	}
	// the goroutines' gathered rows and their weights, kept from block to
	// block (a spectral start at 10^7 entries allocated 860 MB without)
	bufs := par.NewPool[[2][]float64]()
	par.Do(par.TeamSize(len(e.cols)*k), (e.n1+rows-1)/rows, func(b int) {
		lo, hi := b*rows, min((b+1)*rows, e.n1)
		ba := bufs.Get()
		buf, alpha := ba[0], ba[1]
		defer func() { bufs.Put([2][]float64{buf, alpha}) }()
		for i := lo; i < hi; i++ {
			clear(dr.Data[i*dr.Stride : i*dr.Stride+k])
		}
		for t := range tl.n {
			for i := lo; i < hi; i++ {
				if i+1 < e.n1 {
					nlo, nhi := tl.segment(e, i+1, t)
					kernel.PrefetchRows(xr.Data, e.cols[nlo:nhi], xr.Stride, k)
				}
				if i+lineAhead < e.n1 {
					prefetchStart(tl, e, i+lineAhead, t, v.v)
				}
				plo, phi := tl.segment(e, i, t)
				buf, alpha = buf[:0], alpha[:0]
				for p := plo; p < phi; p++ {
					vp := v.at(p)
					if vp == 0 {
						continue
					}
					j := int(e.cols[p])
					buf = append(buf, xr.Data[j*xr.Stride:j*xr.Stride+k]...)
					alpha = append(alpha, scale*vp)
				}
				kernel.AxpyRows(dr.Data[i*dr.Stride:i*dr.Stride+k], alpha, buf, k, k)
			}
		}
	})
}

// mulSparseT sets dst (n2×k) to scale·Mᵀ x, x being n1×k, the rows added
// in row order. The columns are split among the goroutines, each reading
// all the entries and adding those in its columns, so that every sum has
// the order of a serial pass whatever the number of cores.
func (e *Entries) mulSparseT(dst *mat.Dense, v keptValues, x *mat.Dense, scale float64) {
	if v.v.F32 != nil {
		mulSparseTOf(e, dst, keptOf[float32]{v.v.F32, v.below}, x, scale)
	} else {
		mulSparseTOf(e, dst, keptOf[float64]{v.v.F64, v.below}, x, scale)
	}
}

// mulSparseTOf is mulSparseT of the kept values v (see mulSparseOf).
func mulSparseTOf[T obs.Float](e *Entries, dst *mat.Dense, v keptOf[T], x *mat.Dense, scale float64) {
	_, k := x.Dims()
	xr, dr := x.RawMatrix(), dst.RawMatrix()
	dst.Zero()
	w := par.TeamSize(len(e.cols) * k)
	// Each goroutine adds into its own columns: its tiles, when dst's rows
	// would overflow the caches (see tiles), else its share of them.
	tl := e.tiles(passTiles(e.n2, k))
	n := tl.n
	if n == 1 {
		n = w
	}
	par.Do(w, n, func(c int) {
		t, lo, hi := c, int32(c*e.n2/n), int32((c+1)*e.n2/n)
		if tl.n == 1 {
			t = 0
		}
		for i := range e.n1 {
			plo, phi := tl.segment(e, i, t)
			if tl.n > 1 && i+1 < e.n1 {
				nlo, nhi := tl.segment(e, i+1, t)
				kernel.PrefetchRows(dr.Data, e.cols[nlo:nhi], dr.Stride, k)
				if i+lineAhead < e.n1 {
					prefetchStart(tl, e, i+lineAhead, t, v.v)
				}
			}
			xi := xr.Data[i*xr.Stride : i*xr.Stride+k]
			for p := plo; p < phi; p++ {
				j := e.cols[p]
				if j < lo || j >= hi {
					continue
				}
				if vp := v.at(p); vp != 0 {
					kernel.Axpy(scale*vp, xi, dr.Data[int(j)*dr.Stride:int(j)*dr.Stride+k])
				}
			}
		}
	})
}

// orthonormalize replaces the columns of a (n×k, n >= k) by an orthonormal
// basis of their span, by a thin QR factorization (Householder, never the
// n×n Q, 80 GB at n = 10^5), and returns the singular values of a, those
// of its triangular factor. It factors aᵀ as L Qᵀ (LAPACK's Gelqf and
// Orglq, the same reflectors as Geqrf's on a): aᵀ's rows are a's columns,
// each reflector reading and updating long contiguous rows, where Geqrf on
// the row-major a made a call of k numbers a row and a reflector (at 10^7
// entries of issue 36's completion, k = 20, the start's QR factorizations
// took 3.0 s of its 16.5 on an AVX2 EPYC).
func orthonormalize(a *mat.Dense) []float64 {
	n, k := a.Dims()
	at := mat.NewDense(k, n, nil)
	transpose(at.RawMatrix(), a.RawMatrix())
	g := at.RawMatrix()
	tau := make([]float64, k)
	work := make([]float64, 1)
	lapack64.Gelqf(g, tau, work, -1)
	work = make([]float64, max(int(work[0]), k))
	lapack64.Gelqf(g, tau, work, len(work))
	l := mat.NewDense(k, k, nil)
	for i := range k {
		for j := 0; j <= i; j++ {
			l.Set(i, j, at.At(i, j))
		}
	}
	lapack64.Orglq(g, tau, work[:1], -1)
	if int(work[0]) > len(work) {
		work = make([]float64, int(work[0]))
	}
	lapack64.Orglq(g, tau, work, len(work))
	transpose(a.RawMatrix(), g)
	var svd mat.SVD
	if !svd.Factorize(l, mat.SVDNone) {
		return make([]float64, k)
	}
	return svd.Values(nil)
}

// transpose sets dst (c×r) to src (r×c) transposed (see transposeTo).
func transpose(dst, src blas64.General) {
	transposeTo(dst.Data, dst.Stride, src.Data, src.Rows, src.Cols, src.Stride)
}

// transposeTo sets dst (cols × rows, rows dstStride apart) to src (rows
// × cols, rows srcStride apart) transposed, by blocks of 64 rows so that
// each block's reads and writes stay in cache.
func transposeTo[T any](dst []T, dstStride int, src []T, rows, cols, srcStride int) {
	const b = 64
	for i0 := 0; i0 < rows; i0 += b {
		i1 := min(i0+b, rows)
		for j := range cols {
			d := dst[j*dstStride:]
			for i := i0; i < i1; i++ {
				d[i] = src[i*srcStride+j]
			}
		}
	}
}
