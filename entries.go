package scaledsm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/kernel"
)

// Entries is the entrywise operator of matrix completion and robust PCA,
// A(X) = {X_ij : (i, j) ∈ Ω}, measuring X = L Rᵀ at a set Ω of m observed
// entries (robust PCA observes them all).
//
// It holds the positions only, sorted by row and within a row by column
// (compressed sparse rows: the start of each row's entries and one 32-bit
// column index per entry, 4 bytes an entry); the observed values are the
// Problem's Y, in the operator's order. NewEntries sorts a list of
// triplets and returns the values in that order.
//
// Unlike the Gaussian operators it does not scale by 1/m: a residual is
// X_ij - y_ij itself, so the l1 loss is Σ|X_ij - y_ij|. Its isometry
// factor is n1·n2/m (see Isometric): A*A = P_Ω, about (m/(n1·n2))·I, so
// that the smooth loss L2Squared is (n1·n2/2m)·||P_Ω(X - Y)||², the loss of
// ScaledGD's paper for matrix completion, whose step 0.5 applies as is.
//
// # The pass
//
// Evaluate makes one pass over the entries on every core: for each entry,
// the residual <L_i, R_j> - y_ij and its weight w, then w·R_j added to row
// i of GL and w·L_i to row j of GR. The rows are split into a fixed number
// of chunks (at row boundaries, a number that depends on m and n2 only); each
// chunk writes its own rows of GL and a partial GR, and the partials are
// added in chunk order, so the bits do not depend on the number of cores.
type Entries struct {
	n1, n2 int
	start  []int                   // entries of row i: start[i] to start[i+1]
	cols   []int32                 // column of each entry
	chunks []int                   // first row of each chunk, and n1
	tiled  *atomic.Pointer[tiling] // the pass's last tiling (see tiles), shared by shards
	total  int                     // the entries of the whole problem, when this is a shard (see Shard)
}

// Entries evaluates batches one run at a time and forms its spectral
// estimate.
var (
	_ SpectralOperator = (*Entries)(nil)
	_ Isometric        = (*Entries)(nil)
)

// NewEntries returns the operator of the entries (rows[k], cols[k]) of an
// n1×n2 matrix, and the values in the operator's order: y[k'] is the value
// of the k'-th entry in row-major order. The entries must lie in the
// matrix and be distinct (a duplicate is an error that names both). It
// sorts in O(m + n1) time by counting, keeping no copy of the input.
func NewEntries(n1, n2 int, rows, cols []int32, values []float64) (*Entries, []float64, error) {
	if err := checkEntryShape(n1, n2); err != nil {
		return nil, nil, err
	}
	m := len(rows)
	switch {
	case len(cols) != m:
		return nil, nil, inputError("cols", nil, "%d column indices for %d row indices", len(cols), m)
	case values != nil && len(values) != m:
		return nil, nil, inputError("values", nil, "%d values for %d entries", len(values), m)
	}
	e := &Entries{n1: n1, n2: n2, start: make([]int, n1+1), cols: make([]int32, m)}
	for k, i := range rows {
		j := cols[k]
		if i < 0 || int(i) >= n1 || j < 0 || int(j) >= n2 {
			return nil, nil, inputError("entries", nil, "entry %d at (%d, %d) lies outside the %d×%d matrix", k, i, j, n1, n2)
		}
		e.start[i+1]++
	}
	for i := range n1 {
		e.start[i+1] += e.start[i]
	}
	// Counting sort by row, stable, then each row by column; the order as
	// int32 where m allows, 4 bytes an entry less at the peak of a load.
	var y []float64
	var err error
	if m <= math.MaxInt32 {
		y, err = sortEntries(e, rows, cols, values, int32(0))
	} else {
		y, err = sortEntries(e, rows, cols, values, 0)
	}
	if err != nil {
		return nil, nil, err
	}
	return e, y, nil
}

// sortEntries fills e's columns from the entries by a counting sort on the
// rows, then a sort of each row by column, and returns the values in that
// order; I is the type of the order's indices.
func sortEntries[I int32 | int](e *Entries, rows, cols []int32, values []float64, _ I) ([]float64, error) {
	m, n1 := len(rows), e.n1
	next := slices.Clone(e.start[:n1])
	order := make([]I, m)
	for k, i := range rows {
		order[next[i]] = I(k)
		next[i]++
	}
	for i := range n1 {
		seg := order[e.start[i]:e.start[i+1]]
		slices.SortFunc(seg, func(a, b I) int { return int(cols[a]) - int(cols[b]) })
		for p, k := range seg {
			e.cols[e.start[i]+p] = cols[k]
			if p > 0 && cols[k] == cols[seg[p-1]] {
				return nil, inputError("entries", nil, "entries %d and %d are both (%d, %d): each entry may be observed once", seg[p-1], k, i, cols[k])
			}
		}
	}
	var y []float64
	if values != nil {
		y = make([]float64, m)
		for p, k := range order {
			y[p] = values[k]
		}
	}
	e.split()
	return y, nil
}

// NewEntriesCSR returns the operator of entries already sorted by row and
// within a row by column: row i holds cols[start[i]:start[i+1]]. It keeps
// start and cols without copying them.
func NewEntriesCSR(n1, n2 int, start []int, cols []int32) (*Entries, error) {
	if err := checkEntryShape(n1, n2); err != nil {
		return nil, err
	}
	if len(start) != n1+1 || start[0] != 0 || start[n1] != len(cols) {
		return nil, inputError("entries", nil, "row starts of length %d from %d to %d, want %d from 0 to %d", len(start), start[0], start[len(start)-1], n1+1, len(cols))
	}
	for i := range n1 {
		if start[i+1] < start[i] {
			return nil, inputError("entries", nil, "row %d starts after row %d", i, i+1)
		}
		for k := start[i]; k < start[i+1]; k++ {
			j := cols[k]
			if j < 0 || int(j) >= n2 {
				return nil, inputError("entries", nil, "entry (%d, %d) lies outside the %d×%d matrix", i, j, n1, n2)
			}
			if k > start[i] && cols[k-1] >= j {
				return nil, inputError("entries", nil, "the columns of row %d are not increasing at (%d, %d)", i, i, j)
			}
		}
	}
	e := &Entries{n1: n1, n2: n2, start: start, cols: cols}
	e.split()
	return e, nil
}

func checkEntryShape(n1, n2 int) error {
	if n1 < 1 || n2 < 1 {
		return inputError("shape", fmt.Sprintf("%dx%d", n1, n2), "the matrix must have at least one row and one column")
	}
	if n2 > math.MaxInt32 {
		return inputError("shape", fmt.Sprintf("%dx%d", n1, n2), "more than 2^31 columns")
	}
	return nil
}

// split sets the chunks of a pass, each starting at the first row whose
// entries begin at or after its share of m: chunks(m) of them, but no more
// than m/(32·n2) (and at least 4), so that the chunks' partial sums of GR,
// n2·r values each, take at most r/4 bytes an entry: a sparse matrix with
// many columns would otherwise spend more memory on them than on its
// entries.
func (e *Entries) split() {
	m := len(e.cols)
	nc := min(chunks(m), max(4, m/(32*e.n2)))
	e.chunks = make([]int, nc+1)
	e.tiled = new(atomic.Pointer[tiling])
	row := 0
	for c := 1; c < nc; c++ {
		lo, _ := chunkRange(c, nc, m)
		for row < e.n1 && e.start[row] < lo {
			row++
		}
		e.chunks[c] = row
	}
	e.chunks[nc] = e.n1
}

// Dims returns m, n1 and n2.
func (e *Entries) Dims() (m, n1, n2 int) { return len(e.cols), e.n1, e.n2 }

// Symmetric returns false: the entries measure X = L Rᵀ.
func (e *Entries) Symmetric() bool { return false }

// Isometry returns n1·n2/m, the inverse of the fraction of entries
// observed.
func (e *Entries) Isometry() float64 {
	return float64(e.n1) * float64(e.n2) / float64(whole(len(e.cols), e.total))
}

// Start returns the start of each row's entries, n1+1 of them.
func (e *Entries) Start() []int { return e.start }

// Cols returns the column of each entry, in the operator's order.
func (e *Entries) Cols() []int32 { return e.cols }

// Row returns the rows of the entries, in the operator's order.
func (e *Entries) Row(k int) int {
	i, _ := slices.BinarySearch(e.start, k+1)
	return i - 1
}

// Bytes returns the memory of the positions, in bytes.
func (e *Entries) Bytes() int64 { return 4*int64(len(e.cols)) + 8*int64(len(e.start)) }

// Apply sets dst[k] to x's entry at the k-th position. For Factors it
// forms each entry from the factors' rows, without forming x.
func (e *Entries) Apply(dst []float64, x mat.Matrix) {
	f, ok := x.(Factors)
	if !ok {
		parallel(teamSize(len(e.cols)), e.n1, func(i int) {
			for k := e.start[i]; k < e.start[i+1]; k++ {
				dst[k] = x.At(i, int(e.cols[k]))
			}
		})
		return
	}
	// Factors.At's compensated products, the next row's rows of R
	// prefetched.
	rr := f.right().RawMatrix()
	_, r := f.L.Dims()
	parallel(teamSize(len(e.cols)), e.n1, func(i int) {
		if i+1 < e.n1 {
			kernel.PrefetchRows(rr.Data, e.cols[e.start[i+1]:e.start[i+2]], rr.Stride, r)
		}
		li := f.L.RawRowView(i)
		for k := e.start[i]; k < e.start[i+1]; k++ {
			j := int(e.cols[k])
			dst[k] = fsum.Dot(li, rr.Data[j*rr.Stride:j*rr.Stride+r])
		}
	})
}

// Adjoint sets the n1×n2 matrix dst to A*(v): v[k] at the k-th position,
// zero elsewhere.
func (e *Entries) Adjoint(dst *mat.Dense, v []float64) {
	dst.Zero()
	for i := range e.n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			dst.Set(i, int(e.cols[k]), v[k])
		}
	}
}

// Evaluate makes one pass over the entries at the factors of ev (see
// Entries).
func (e *Entries) Evaluate(ev *Evaluation) {
	_, r := ev.L.Dims()
	nc := len(e.chunks) - 1
	// Each chunk's partial GR has a row of stride s per column: its r
	// values, and under TrimmedWeight the column's kept Σ|z| and count,
	// in the cache lines the pass touches anyway.
	s := r
	var ks *keptSums
	if ev.Weight == TrimmedWeight {
		s = r + 2
		ks = &ev.kept
		ks.ready(e.n1, e.n2)
	}
	n2s := e.n2 * s
	if cap(ev.scratch) < nc*n2s {
		ev.scratch = make([]float64, nc*n2s)
	}
	parts := ev.scratch[:nc*n2s]
	if ks != nil && len(ev.rowsKept) != e.n1 {
		ev.rowsKept = make([]rowKept, e.n1)
	}
	// Without Z the residuals of a row segment go to its chunk's own
	// buffer of the longest row, read by nothing after the segment.
	if ev.Z == nil && ev.rowZ == nil {
		longest := 0
		for i := range e.n1 {
			longest = max(longest, e.start[i+1]-e.start[i])
		}
		ev.rowZ = make([]float64, nc*longest)
	}
	w := teamSize(len(e.cols) * r)
	parallel(w, nc, func(c int) {
		p := chunkPass{e: e, ev: ev, ks: ks, c: c, nc: nc}
		p.row.GR, p.row.S = parts[c*n2s:(c+1)*n2s], s
		p.run()
	})
	// The partial sums added in chunk order, the columns split among the
	// goroutines, straight into GR (and the kept sums of the columns).
	grr := ev.GR.RawMatrix()
	const colsPer = 1024
	parallel(w, (e.n2+colsPer-1)/colsPer, func(b int) {
		lo, hi := b*colsPer, min((b+1)*colsPer, e.n2)
		for c := 1; c < nc; c++ {
			kernel.Axpy(1, parts[c*n2s+lo*s:c*n2s+hi*s], parts[lo*s:hi*s])
		}
		for j := lo; j < hi; j++ {
			copy(grr.Data[j*grr.Stride:j*grr.Stride+r], parts[j*s:j*s+r])
			if ks != nil {
				ks.cols[j], ks.cols[e.n2+j] = parts[j*s+r], parts[j*s+r+1]
			}
		}
	})
	if ks != nil {
		ks.fresh = true
	}
}

// chunkPass is Evaluate's work on chunk c of the rows: row holds what its
// rows share (R's rows and stride, the chunk's partial GR and its stride
// S), and each row's segment is set in it in turn.
type chunkPass struct {
	e     *Entries
	ev    *Evaluation
	ks    *keptSums // the kept sums, under TrimmedWeight; else nil
	c, nc int
	kept  []rowKept // the chunk's rows' kept sums, with ks
	row   kernel.EntriesRow
	sums  [3]float64 // the row's kept sums, for the kernel (row.Sums)
}

// run makes the chunk's pass: row after row, each row's rows of R and of
// the partial GR asked for ahead (see prefetchBytes), in tiles of columns
// where R's and a partial GR's rows would overflow the caches (see
// passTileBytes); then the rows' kept sums are stored.
func (p *chunkPass) run() {
	e, ev := p.e, p.ev
	_, r := ev.L.Dims()
	l, rr, gl := ev.L.RawMatrix(), ev.R.RawMatrix(), ev.GL.RawMatrix()
	p.row.RD, p.row.LD = rr.Data, rr.Stride
	clear(p.row.GR)
	c0, c1 := e.chunks[p.c], e.chunks[p.c+1]
	if p.ks != nil {
		p.kept = ev.rowsKept[c0:c1]
		clear(p.kept)
	}
	for i := c0; i < c1; i++ {
		clear(gl.Data[i*gl.Stride : i*gl.Stride+r])
	}
	prefetch := e.n2*rr.Stride*8 > prefetchBytes
	tl := e.tiles(passTiles(e.n2, rr.Stride+p.row.S))
	longest := len(ev.rowZ) / p.nc
	for t := range tl.n {
		for i := c0; i < c1; i++ {
			lo, hi := tl.segment(e, i, t)
			if hi == lo {
				continue
			}
			if prefetch && i+1 < c1 {
				p.prefetch(tl, i, t)
			}
			if ev.Z != nil {
				p.row.Z = ev.Z[lo:hi]
			} else {
				p.row.Z = ev.rowZ[p.c*longest : p.c*longest+hi-lo]
			}
			p.row.Cols = e.cols[lo:hi]
			p.row.L, p.row.G = l.Data[i*l.Stride:i*l.Stride+r], gl.Data[i*gl.Stride:i*gl.Stride+r]
			p.evaluateRow(i, lo, hi)
		}
	}
	if p.ks != nil {
		for i := c0; i < c1; i++ {
			p.ks.set(i, &p.kept[i-c0])
		}
	}
}

// prefetch asks for the first lines of row i+lineAhead's entries in tile
// t, and for the rows of R, of the partial GR and of the column bounds
// that row i+1's entries in it touch.
func (p *chunkPass) prefetch(tl *tiling, i, t int) {
	e, ev := p.e, p.ev
	if i+lineAhead < e.chunks[p.c+1] {
		if ev.y32 != nil {
			prefetchStart(tl, e, i+lineAhead, t, ev.y32)
		} else {
			prefetchStart(tl, e, i+lineAhead, t, ev.Y)
		}
	}
	nlo, nhi := tl.segment(e, i+1, t)
	next := e.cols[nlo:nhi]
	_, r := ev.L.Dims()
	kernel.PrefetchRows(p.row.RD, next, p.row.LD, r)
	kernel.PrefetchRows(p.row.GR, next, p.row.S, p.row.S)
	if p.ks != nil {
		kernel.PrefetchRows(ev.Bounds.Cols, next, 1, 1)
	}
}

// evaluateRow is Evaluate's work on the entries lo to hi of row i, whose
// factor row is p.row.L: for each entry (i, j) = lo+k the residual, into
// Z[k], and its weight, w·R_j added to G (row i of GL) and w·L_i to row j
// of GR (a row of stride S). Under TrimmedWeight, the residuals the bounds
// keep are counted in the row's kept sums and in the two values past GR's
// row j. Each entry's r products are summed in two interleaved halves, the
// same on every machine. (Two sweeps over the row, the residuals first and
// the additions after, measured no faster: the cost is the cache misses of
// the gathers and scattered additions.)
func (p *chunkPass) evaluateRow(i, lo, hi int) {
	ev := p.ev
	var rk *rowKept
	if p.ks != nil {
		rk = &p.kept[i-p.e.chunks[p.c]]
	}
	if ev.Fit != nil {
		if ev.y32 != nil {
			evaluateRowFits(p, ev.y32[lo:hi], i, ev.Fit[lo:hi], rk)
		} else {
			evaluateRowFits(p, ev.Y[lo:hi], i, ev.Fit[lo:hi], rk)
		}
		return
	}
	// The vector kernel, which writes no fits.
	a := &p.row
	a.Y, a.Y32 = nil, nil
	if ev.y32 != nil {
		a.Y32 = ev.y32[lo:hi]
	} else {
		a.Y = ev.Y[lo:hi]
	}
	mode := kernel.EntriesLinear
	switch {
	case p.ks != nil:
		mode = kernel.EntriesTrimmed
		a.RowBound, a.ColBound = ev.Bounds.Rows[i], ev.Bounds.Cols
		p.sums = [3]float64{rk.abs, rk.n, rk.sq}
		a.Sums = &p.sums
	case ev.Weight == SignWeight:
		mode = kernel.EntriesSign
	}
	kernel.EvaluateEntries(mode, a)
	if rk != nil {
		rk.abs, rk.n, rk.sq = p.sums[0], p.sums[1], p.sums[2]
	}
}

// evaluateRowFits is evaluateRow in Go, which writes the fits into fit,
// for the observations y of row i's segment (compiled for each kind), its
// kept sums rk under TrimmedWeight.
func evaluateRowFits[T float](p *chunkPass, y []T, i int, fit []float64, rk *rowKept) {
	a := &p.row
	cols, z, li, g, rd, ld, gr, s := a.Cols, a.Z, a.L, a.G, a.RD, a.LD, a.GR, a.S
	ks, ev := p.ks, p.ev
	y = y[:len(z)]
	r := len(li)
	g = g[:r]
	fit = fit[:len(z)]
	sign := ev.Weight == SignWeight
	var rowBound float64
	var colBound []float64
	if ks != nil {
		rowBound, colBound = ev.Bounds.Rows[i], ev.Bounds.Cols
	}
	for k, c := range cols {
		j := int(c)
		rj := rd[j*ld : j*ld+r]
		rj = rj[:len(li)]
		var s0, s1 float64
		a := 0
		for ; a+1 < len(li); a += 2 {
			s0 += li[a] * rj[a]
			s1 += li[a+1] * rj[a+1]
		}
		if a < len(li) {
			s0 += li[a] * rj[a]
		}
		f := s0 + s1
		fit[k] = f
		res := f - float64(y[k])
		z[k] = res
		if ks != nil {
			abs := math.Abs(res)
			if !(abs <= max(rowBound, colBound[j])) {
				continue
			}
			rk.add(res, gr[j*s+r:j*s+r+2])
		}
		w := res
		if sign {
			w = weigh(SignWeight, res)
		}
		if w == 0 {
			continue
		}
		gj := gr[j*s : j*s+r]
		gj = gj[:len(li)]
		for a, v := range li {
			g[a] += w * rj[a]
			gj[a] += w * v
		}
	}
}

// prefetchBytes is the size of R's rows beyond which the pass prefetches
// the next row's rows of R and GR: below it they stay in L2 and L3, and the
// prefetches cost more than they save (10^6 entries at rank 10:
// BenchmarkPassTrim 11.0 against 12.9 ms at 10,000 columns without them,
// 32.5 against 31.1 ms at 100,000 with them).
const prefetchBytes = 2 << 20

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
func (e *Entries) Spectral(v []float64, kept int, r int) (Factors, error) {
	return e.spectral(v, kept, r, dist{})
}

// spectral is Spectral over the ranks of d: each product with the sparse
// matrix is summed over them.
func (e *Entries) spectral(v []float64, kept int, r int, d dist) (Factors, error) {
	return e.spectralOf(keptValues{v: obs{f64: v}, below: math.Inf(1)}, kept, r, d)
}

// keptValues are the values of the sparse matrix of the spectral
// estimate: v[k] where |v[k]| < below, 0 elsewhere. The median rule of
// Trim is such a bound, and y with it spares the m-sized copy of the
// values it keeps (800 MB at 10^8 entries).
type keptValues struct {
	v     obs
	below float64
}

// keptOf is keptValues of one kind.
type keptOf[T float] struct {
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
func (e *Entries) spectralOf(v keptValues, kept int, r int, d dist) (Factors, error) {
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
	d.sum(y.RawMatrix().Data)
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
		d.sum(z.RawMatrix().Data)
		orthonormalize(z)
		e.mulSparse(y, v, z, scale)
		d.sum(y.RawMatrix().Data)
	}
	// B = Qᵀ M is k×n2; its SVD gives M ≈ (Q U_B) Σ Vᵀ.
	e.mulSparseT(z, v, y, scale) // z = Mᵀ Q = Bᵀ
	d.sum(z.RawMatrix().Data)
	var svd mat.SVD
	if !svd.Factorize(z, mat.SVDThin) {
		return Factors{}, fmt.Errorf("scaledsm: spectral initialization: SVD did not converge")
	}
	var ub, vb mat.Dense
	svd.UTo(&ub) // n2×k: the right singular vectors of B
	svd.VTo(&vb) // k×k: the left ones
	s := svd.Values(nil)
	var u mat.Dense
	u.Mul(y, &vb)
	f := Factors{L: mat.NewDense(e.n1, r, nil), R: mat.NewDense(e.n2, r, nil)}
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
	if v.v.f32 != nil {
		mulSparseOf(e, dst, keptOf[float32]{v.v.f32, v.below}, x, scale)
	} else {
		mulSparseOf(e, dst, keptOf[float64]{v.v.f64, v.below}, x, scale)
	}
}

// mulSparseOf is mulSparse of the kept values v, compiled for each kind of
// values (a test of the kind for every entry cost a sixth of a spectral
// start at 10^7).
func mulSparseOf[T float](e *Entries, dst *mat.Dense, v keptOf[T], x *mat.Dense, scale float64) {
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
	bufs := newPool[[2][]float64]()
	parallel(teamSize(len(e.cols)*k), (e.n1+rows-1)/rows, func(b int) {
		lo, hi := b*rows, min((b+1)*rows, e.n1)
		ba := bufs.get()
		buf, alpha := ba[0], ba[1]
		defer func() { bufs.put([2][]float64{buf, alpha}) }()
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
	if v.v.f32 != nil {
		mulSparseTOf(e, dst, keptOf[float32]{v.v.f32, v.below}, x, scale)
	} else {
		mulSparseTOf(e, dst, keptOf[float64]{v.v.f64, v.below}, x, scale)
	}
}

// mulSparseTOf is mulSparseT of the kept values v (see mulSparseOf).
func mulSparseTOf[T float](e *Entries, dst *mat.Dense, v keptOf[T], x *mat.Dense, scale float64) {
	_, k := x.Dims()
	xr, dr := x.RawMatrix(), dst.RawMatrix()
	dst.Zero()
	w := teamSize(len(e.cols) * k)
	// Each goroutine adds into its own columns: its tiles, when dst's rows
	// would overflow the caches (see tiles), else its share of them.
	tl := e.tiles(passTiles(e.n2, k))
	n := tl.n
	if n == 1 {
		n = w
	}
	parallel(w, n, func(c int) {
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

// transpose sets dst (c×r) to src (r×c) transposed, by blocks of 64 rows
// so that each block's reads and writes stay in cache.
func transpose(dst, src blas64.General) {
	const b = 64
	for i0 := 0; i0 < src.Rows; i0 += b {
		i1 := min(i0+b, src.Rows)
		for j := range src.Cols {
			d := dst.Data[j*dst.Stride:]
			for i := i0; i < i1; i++ {
				d[i] = src.Data[i*src.Stride+j]
			}
		}
	}
}

// Isometric is an Operator whose adjoint does not nearly invert it: c·A*A
// is close to the identity for the factor c that Isometry returns. The
// smooth loss L2Squared is (c/2)||z||² and L2 is sqrt(c)·||z||, so that a
// constant step means the same for every model. Operators that are not
// Isometric scale by 1/m, as the paper's Gaussian ones do, and have c = m.
type Isometric interface {
	Isometry() float64
}

// isometry returns the factor c of an operator (see Isometric).
func isometry(op Operator) float64 {
	if i, ok := op.(Isometric); ok {
		return i.Isometry()
	}
	m, _, _ := op.Dims()
	if s, ok := op.(interface{ scale() float64 }); ok {
		return s.scale()
	}
	return float64(m)
}

// Determined returns an error when the entries are fewer than the
// (n1 + n2)·r unknowns of rank-r factors, from which nothing can be
// recovered, and nil otherwise.
func (e *Entries) Determined(r int) error {
	m, n1, n2 := e.Dims()
	if need := (n1 + n2) * r; m < need {
		return fmt.Errorf("%d entries are fewer than the (n1+n2)·r = %d unknowns of a rank-%d %d×%d matrix; nothing can be recovered",
			m, need, r, n1, n2)
	}
	return nil
}
