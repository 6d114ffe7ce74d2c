package recommend

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
)

// posterior accumulates the sweeps' rows into the posterior mean of the
// predictions: the biases' means, and the mean of the low-rank parts
// L_s R_sᵀ over the sweeps s, which has a higher rank than any one of them
// (the factors move from sweep to sweep). That mean is held as factors
// A Bᵀ of at most maxRank columns: the sweeps' factors wait in a buffer,
// and when it is full, [A, L_1, ..., L_b] [B, R_1, ..., R_b]ᵀ is
// truncated to its maxRank leading singular triplets, through the Gram
// matrices of the two tall matrices (see truncate): each row adds its
// outer product, so that the tall matrices are never formed, and on the
// ranks of an MPI job each rank holds and adds only the rows of its users
// and of its items, the Grams relayed from rank to rank. The spectrum of
// the mean decays fast; on MovieLens 100k (u1, rank 10, 300 sweeps), the
// test RMSE of the exact mean is 0.90401, and 0.90449, 0.90420 and
// 0.90410 truncated at 1, 2 and 4 times the rank.
type posterior struct {
	t       *table    // whose ranks share the rows (t.part)
	count   int       // sweeps added
	ub, ib  []float64 // sums of the biases, every rank's
	a, b    []float32 // this rank's rows of A and B, row-major, c columns (see factors)
	c       int
	pend    []factors // buffered factors, this rank's rows
	maxRank int
	maxPend int
	// Alone, a flush runs beside the sweeps that follow (the sweeps leave
	// a core idle part of the time); busy is done when it has. On ranks it
	// runs in turn with the sweeps, whose collectives it must not cross.
	busy sync.WaitGroup
	// While postponing, the sweeps added wait in held, unmerged, until
	// resume adds them as add would have (see postpone).
	postponing bool
	held       []heldSweep
}

// heldSweep is a sweep that a postponing posterior mean holds: its
// biases and its factors.
type heldSweep struct {
	ub, ib []float64
	f      factors
}

// factors are a sweep's factors, row-major, k columns: this rank's rows,
// rounded to float32, as the mean's A and B are. A sweep is one draw of
// the chain, its factors uncertain in their second digit, and the mean
// of a hundred is uncertain in its third or fourth: rounded at the eighth,
// they changed the test RMSEs of docs/recommend.md by 10^-10 at most, and
// the sweeps a merge waits for, a trial holds, and the means take half
// the memory they took as float64's (on the taste clusters, four rank-20
// sweeps of 160,000 rows and the two means at rank 40 held about 100 MB
// each). The merges' sums are float64's.
type factors struct {
	l, r []float32
	k    int
}

func newPosterior(t *table, maxRank int) *posterior {
	return &posterior{t: t, ub: make([]float64, t.n1), ib: make([]float64, t.n2), maxRank: maxRank, maxPend: 4}
}

// clone returns a copy of the posterior mean, having waited for its
// flush.
func (p *posterior) clone() *posterior {
	p.busy.Wait()
	return &posterior{t: p.t, count: p.count, ub: slices.Clone(p.ub), ib: slices.Clone(p.ib),
		a: slices.Clone(p.a), b: slices.Clone(p.b), c: p.c, pend: slices.Clone(p.pend), maxRank: p.maxRank, maxPend: p.maxPend}
}

// hold holds the mean at rank columns from the next flush on.
func (p *posterior) hold(rank int) {
	p.busy.Wait()
	p.maxRank = rank
}

// sweepFactors are a sweep's factors (this rank's rows) for the
// posterior means that take the sweep: copied from the sampler once, by
// the first that asks, and shared, a merge reading them and never
// writing them.
type sweepFactors struct {
	s *sampler
	f *factors
}

// get returns the sweep's factors.
func (sf *sweepFactors) get() factors {
	if sf.f != nil {
		return *sf.f
	}
	s := sf.s
	t, d, k := s.t, s.d, s.k
	u0, u1 := t.part(t.rank(), t.n1)
	i0, i1 := t.part(t.rank(), t.n2)
	l, r := make([]float32, (u1-u0)*k), make([]float32, (i1-i0)*k)
	for u := u0; u < u1; u++ {
		for c, v := range s.u[u*d : u*d+k] {
			l[(u-u0)*k+c] = float32(v)
		}
	}
	for i := i0; i < i1; i++ {
		for c, v := range s.v[i*d : i*d+k] {
			r[(i-i0)*k+c] = float32(v)
		}
	}
	sf.f = &factors{l, r, k}
	return *sf.f
}

// add adds the sampler's current rows, its factors those of sf.
func (p *posterior) add(sf *sweepFactors) {
	t, s := p.t, sf.s
	d, k := s.d, s.k
	if p.postponing {
		h := heldSweep{ub: make([]float64, t.n1), ib: make([]float64, t.n2), f: sf.get()}
		for u := range t.n1 {
			h.ub[u] = s.u[u*d+k]
		}
		for i := range t.n2 {
			h.ib[i] = s.v[i*d+k]
		}
		p.held = append(p.held, h)
		return
	}
	for u := range t.n1 {
		p.ub[u] += s.u[u*d+k]
	}
	for i := range t.n2 {
		p.ib[i] += s.v[i*d+k]
	}
	p.push(sf.get())
}

// postpone makes the mean hold the sweeps added from now on, neither
// adding nor merging them, until resume adds them or drop lets them go:
// a costly trial of a larger rank, undone more often than kept, then
// leaves the mean as it was (chain.snapshot need not copy it), and on
// 10^8 ratings no merge of rank-20 factors runs while the trial's own
// rows are made.
func (p *posterior) postpone() {
	p.postponing = true
}

// resume adds the sweeps held, in their order, as add would have when
// each was made (the same sums, the same merges), and stops postponing.
func (p *posterior) resume() {
	p.postponing = false
	for _, h := range p.held {
		for u, v := range h.ub {
			p.ub[u] += v
		}
		for i, v := range h.ib {
			p.ib[i] += v
		}
		p.push(h.f)
	}
	p.held = nil
}

// drop lets the sweeps held go and stops postponing.
func (p *posterior) drop() {
	p.postponing, p.held = false, nil
}

// push adds a sweep's factors to the buffer, and merges it into the held
// factors when it is full.
func (p *posterior) push(f factors) {
	t := p.t
	p.pend = append(p.pend, f)
	p.count++
	if len(p.pend) >= p.maxPend {
		p.busy.Wait()
		pend := p.pend
		p.pend = nil
		if t.red != nil {
			p.merge(pend)
			return
		}
		p.busy.Go(func() { p.merge(pend) })
	}
}

// flush truncates the sum of the held factors and the buffered ones to
// maxRank, having waited for the flush under way.
func (p *posterior) flush() {
	p.busy.Wait()
	p.merge(p.pend)
	p.pend = nil
}

// merge truncates the sum of the held factors and pend to maxRank: the
// Grams of [A, L_1, ...] and [B, R_1, ...], their truncation (truncate),
// and the new A and B, row by row.
func (p *posterior) merge(pend []factors) {
	if len(pend) == 0 {
		return
	}
	ls, rs := blocks{xs: [][]float32{p.a}, widths: []int{p.c}}, blocks{xs: [][]float32{p.b}, widths: []int{p.c}}
	for _, f := range pend {
		ls.xs, ls.widths = append(ls.xs, f.l), append(ls.widths, f.k)
		rs.xs, rs.widths = append(rs.xs, f.r), append(rs.widths, f.k)
	}
	t := p.t
	u0, u1 := t.part(t.rank(), t.n1)
	i0, i1 := t.part(t.rank(), t.n2)
	m1, m2 := truncate(t.gram(ls, u1-u0), t.gram(rs, i1-i0), ls.cols(), p.maxRank)
	// The new A and B take the old ones' storage when they keep their
	// width, as they do once the mean has reached maxRank: a merge then
	// holds one copy of them, not two (on the taste clusters of
	// docs/recommend.md, 51 MB of the 350 live at the peak when they were
	// float64's).
	var a, b []float32
	if _, k := m1.Dims(); k == p.c {
		a, b = p.a, p.b
	}
	p.a, p.b = rowsTimes(a, ls, u1-u0, m1), rowsTimes(b, rs, i1-i0, m2)
	_, p.c = m1.Dims()
}

// blocks are the n rows of a merge's tall matrix, [A, L_1, ...] or
// [B, R_1, ...]: row-major blocks side by side, block j widths[j] columns
// in xs[j].
type blocks struct {
	xs     [][]float32
	widths []int
}

// cols returns the columns of the blocks.
func (b blocks) cols() int {
	cols := 0
	for _, w := range b.widths {
		cols += w
	}
	return cols
}

// row sets dst to row r of the blocks.
func (b blocks) row(dst []float64, r int) {
	at := 0
	for j, x := range b.xs {
		w := b.widths[j]
		for e, v := range x[r*w : r*w+w] {
			dst[at+e] = float64(v)
		}
		at += w
	}
}

// gram returns the Gram matrix (cols×cols, row-major, its upper triangle)
// of the n rows of the blocks xs: each entry a sum over the rows in their
// order, continued from rank to rank (table.relay), so that its bits
// depend neither on the ranks nor on the cores (see addGram).
func (t *table) gram(xs blocks, n int) []float64 {
	cols := xs.cols()
	g := make([]float64, cols*cols)
	t.relay(g, func() {
		addGram(g, cols, n, runtime.GOMAXPROCS(0), func(buf []float64, r0, r1 int) {
			for r := r0; r < r1; r++ {
				xs.row(buf[(r-r0)*cols:], r)
			}
		})
	})
	return g
}

// rowsTimes returns the n rows of the blocks xs times m, row-major, each
// rounded to float32: each entry's terms added in float64 in the order of
// the columns, each product rounded and then added, so that its bits are
// the loop's on every kernel. It writes them in out when out holds n rows
// of the product: out may be the first block, xs.xs[0], when that block
// is as wide as the product (each row of the product is written after the
// row it is made of has been read).
//
// It runs as Gram tiles (kernel.GramTile): a block of 64 rows is laid
// out transposed beside m, row i of y holding the block's column i and
// then m's row i (its k columns padded to a multiple of 8 with zeros),
// so that the tile of y's columns a..a+3 (four of the block's rows) by
// 64+c..64+c+7 (eight of m's columns) sums over y's rows, the columns of
// the product, in order. The products a merge of the posterior mean makes
// were a tenth of a MovieLens 100k fit's time in scalar Go.
func rowsTimes(out []float32, xs blocks, n int, m *mat.Dense) []float32 {
	cols, k := m.Dims()
	if len(out) != n*k {
		out = make([]float32, n*k)
	}
	mr := m.RawMatrix()
	const block = 64
	kp := (k + 7) &^ 7
	stride := block + kp
	// Each core takes every workers-th block of rows into a y of its own.
	workers, blocks := runtime.GOMAXPROCS(0), (n+block-1)/block
	par.Do(workers, workers, func(w int) {
		y := make([]float64, cols*stride)
		for i := range cols {
			copy(y[i*stride+block:], mr.Data[i*mr.Stride:i*mr.Stride+k])
		}
		var acc [32]float64
		for b := w; b < blocks; b += workers {
			r0, r1 := b*block, min(n, (b+1)*block)
			for r := r0; r < r1; r++ {
				at := 0
				for j, x := range xs.xs {
					wd := xs.widths[j]
					for e, v := range x[r*wd : r*wd+wd] {
						y[(at+e)*stride+r-r0] = float64(v)
					}
					at += wd
				}
			}
			// A last block's rows past r1 hold an earlier block's values:
			// their tiles' rows of acc are not kept.
			for a := 0; a < r1-r0; a += 4 {
				for c := 0; c < k; c += 8 {
					acc = [32]float64{}
					kernel.GramTile(&acc, y, stride, cols, a, block+c)
					for aa := range min(4, r1-r0-a) {
						o := out[(r0+a+aa)*k:]
						for cc := range min(8, k-c) {
							o[c+cc] = float32(acc[aa*8+cc])
						}
					}
				}
			}
		}
	})
	return out
}

// gramTol is the pivot of a Gram's Cholesky factorization, relative to
// its largest diagonal entry, at or below which truncate keeps no more
// directions: each column left has a residual, beyond the directions
// kept, of norm at most 10^-7 of the largest column's, and the part
// dropped at most √(cols-r) times that (10^-6 at 120 columns).
const gramTol = 1e-14

// truncate returns M1 and M2 (cols×k, k at most rank) such that
// (X M1)(Y M2)ᵀ is the best approximation of rank k of X Yᵀ, the singular
// values split evenly between the two, given the Grams g1 = XᵀX and
// g2 = YᵀY (upper triangles, row-major): with the pivoted Cholesky
// factorization P1ᵀ XᵀX P1 = U1ᵀ U1 (stopped at the first pivot at most
// gramTol of the largest diagonal entry, U1 then r1×cols, its leading
// r1×r1 block U11 upper triangular), X = Q1 T1 where T1 = U1 P1ᵀ and
// Q1 = X P1 [U11^-1; 0] has orthonormal columns, so that
// X Yᵀ = Q1 (T1 T2ᵀ) Q2ᵀ = Q1 U S Vᵀ Q2ᵀ, and M1 = P1 [U11^-1; 0] U S^½.
// The factorization costs cols³/3 where an eigendecomposition of the Gram
// costs fifteen times more (BenchmarkTruncate: the whole truncation at 120
// columns now takes what the two eigendecompositions alone took): the two
// were a tenth of a MovieLens 100k fit's work, the same products to the
// last bits or so (the fits' test RMSEs agreed to 10^-15).
func truncate(g1, g2 []float64, cols, rank int) (*mat.Dense, *mat.Dense) {
	// half returns T's transpose (cols×r) and Q's matrix P [U11^-1; 0]
	// (cols×r).
	half := func(g []float64) (tt, inv *mat.Dense) {
		a := make([]float64, cols*cols)
		top := 0.0
		for i := range cols {
			copy(a[i*cols+i:(i+1)*cols], g[i*cols+i:(i+1)*cols])
			top = max(top, a[i*cols+i])
		}
		switch {
		case math.IsNaN(top) || math.IsInf(top, 1):
			return nil, nil // kept whole, its NaNs and infinities in the predictions
		case top == 0: // a zero product: one zero column
			return mat.NewDense(cols, 1, nil), mat.NewDense(cols, 1, nil)
		}
		piv := make([]int, cols)
		// The first pivot is top: r is at least 1.
		u, r, _ := lapack64.Pstrf(blas64.Symmetric{Uplo: blas.Upper, N: cols, Stride: cols, Data: a}, piv, gramTol*top, make([]float64, 2*cols))
		tt = mat.NewDense(cols, r, nil)
		for i := range r {
			for j := i; j < cols; j++ {
				tt.Set(piv[j], i, u.Data[i*cols+j])
			}
		}
		u11 := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: r, Stride: cols, Data: u.Data}
		if !lapack64.Trtri(u11) {
			return nil, nil
		}
		inv = mat.NewDense(cols, r, nil)
		for i := range r {
			for j := i; j < r; j++ {
				inv.Set(piv[i], j, u.Data[i*cols+j])
			}
		}
		return tt, inv
	}
	// Were a factorization to fail (a Gram with a NaN or an infinity, or
	// the core's SVD), the product is kept whole, untruncated.
	whole := func() (*mat.Dense, *mat.Dense) {
		id := mat.NewDense(cols, cols, nil)
		for i := range cols {
			id.Set(i, i, 1)
		}
		return id, mat.DenseCopyOf(id)
	}
	t1, i1 := half(g1)
	t2, i2 := half(g2)
	if t1 == nil || t2 == nil {
		return whole()
	}
	var small mat.Dense
	small.Mul(t1.T(), t2)
	var svd mat.SVD
	if !svd.Factorize(&small, mat.SVDThin) {
		return whole()
	}
	sv := svd.Values(nil)
	keep := 0
	for keep < min(rank, len(sv)) && sv[keep] > 1e-12*sv[0] {
		keep++
	}
	keep = max(keep, 1)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	scale := func(x *mat.Dense) *mat.Dense {
		r, _ := x.Dims()
		y := mat.DenseCopyOf(x.Slice(0, r, 0, keep))
		for j := range keep {
			f := math.Sqrt(sv[j])
			for i := range r {
				y.Set(i, j, y.At(i, j)*f)
			}
		}
		return y
	}
	var m1, m2 mat.Dense
	m1.Mul(i1, scale(&u))
	m2.Mul(i2, scale(&v))
	return &m1, &m2
}

// thinQR returns Q (n×c', orthonormal columns) and T (c'×c) with
// x = Q T, c' = min(n, c), by LAPACK's Householder QR, in x's storage: x
// is overwritten and Q is a view of it (a flush's largest matrices are
// these, at 10^8 ratings a few hundred MB each).
func thinQR(x *mat.Dense) (*mat.Dense, *mat.Dense) {
	n, c := x.Dims()
	cc := min(n, c)
	a := x.RawMatrix()
	tau := make([]float64, cc)
	work := []float64{0}
	lapack64.Geqrf(a, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(a, tau, work, len(work))
	t := mat.NewDense(cc, c, nil)
	for i := range cc {
		for j := i; j < c; j++ {
			t.Set(i, j, a.Data[i*a.Stride+j])
		}
	}
	q := blas64.General{Rows: n, Cols: cc, Stride: a.Stride, Data: a.Data}
	work = []float64{0}
	lapack64.Orgqr(q, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Orgqr(q, tau, work, len(work))
	return x.Slice(0, n, 0, cc).(*mat.Dense), t
}

// mean returns the posterior means: the biases, and the factors of the
// low-rank part (row-major, rank columns), every rank's rows.
func (p *posterior) mean() (ub, ib, l, r []float64, rank int) {
	p.flush()
	t := p.t
	n := float64(p.count)
	ub, ib = make([]float64, t.n1), make([]float64, t.n2)
	for u, v := range p.ub {
		ub[u] = v / n
	}
	for i, v := range p.ib {
		ib[i] = v / n
	}
	if p.c == 0 {
		return ub, ib, nil, nil, 0
	}
	rank = p.c
	s := 1 / math.Sqrt(n)
	full := func(x []float32, n int) []float64 {
		y := t.rows(n, rank)
		first, _ := t.part(t.rank(), n)
		for e, v := range x {
			y[first*rank+e] = float64(v) * s
		}
		t.share(y, n, rank)
		return y
	}
	return ub, ib, full(p.a, t.n1), full(p.b, t.n2), rank
}
