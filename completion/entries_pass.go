package completion

import (
	"math"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/par"
)

// passState is what Entries keeps in an Evaluation's State across the
// passes of a run: its workspace, and under TrimmedL2 the bounds the pass
// reads (set by the loss's tracker) and the sums of what they kept.
type passState struct {
	bounds   *trimBounds // nil: every residual counts
	kept     keptSums
	rowsKept []rowKept // each row's kept sums within a pass
	rowZ     []float64 // without Z: each chunk's residuals of a row
	parts    []float64 // the chunks' partial GR
}

// passStateOf returns the Entries state of ev, made on first use.
func passStateOf(ev *scaledsm.Evaluation) *passState {
	st, ok := ev.State.(*passState)
	if !ok {
		st = &passState{}
		ev.State = st
	}
	return st
}

// Evaluate makes one pass over the entries at the factors of ev (see
// Entries).
func (e *Entries) Evaluate(ev *scaledsm.Evaluation) {
	_, r := ev.L.Dims()
	nc := len(e.chunks) - 1
	st := passStateOf(ev)
	// Each chunk's partial GR has a row of stride s per column: its r
	// values, and under bounds the column's kept Σ|z| and count, in the
	// cache lines the pass touches anyway.
	s := r
	var ks *keptSums
	if st.bounds != nil {
		s = r + 2
		ks = &st.kept
		ks.ready(e.n1, e.n2)
	}
	n2s := e.n2 * s
	if cap(st.parts) < nc*n2s {
		st.parts = make([]float64, nc*n2s)
	}
	parts := st.parts[:nc*n2s]
	if ks != nil && len(st.rowsKept) != e.n1 {
		st.rowsKept = make([]rowKept, e.n1)
	}
	// Without Z the residuals of a row segment go to its chunk's own
	// buffer of the longest row, read by nothing after the segment.
	if ev.Z == nil && st.rowZ == nil {
		longest := 0
		for i := range e.n1 {
			longest = max(longest, e.start[i+1]-e.start[i])
		}
		st.rowZ = make([]float64, nc*longest)
	}
	w := par.TeamSize(len(e.cols) * r)
	par.Do(w, nc, func(c int) {
		p := chunkPass{e: e, ev: ev, st: st, ks: ks, c: c, nc: nc}
		p.row.GR, p.row.S = parts[c*n2s:(c+1)*n2s], s
		p.run()
	})
	// The partial sums added in chunk order, the columns split among the
	// goroutines, straight into GR (and the kept sums of the columns).
	grr := ev.GR.RawMatrix()
	const colsPer = 1024
	par.Do(w, (e.n2+colsPer-1)/colsPer, func(b int) {
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
	ev    *scaledsm.Evaluation
	st    *passState
	ks    *keptSums // the kept sums, under bounds; else nil
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
		p.kept = p.st.rowsKept[c0:c1]
		clear(p.kept)
	}
	for i := c0; i < c1; i++ {
		clear(gl.Data[i*gl.Stride : i*gl.Stride+r])
	}
	prefetch := e.n2*rr.Stride*8 > prefetchBytes
	tl := e.tiles(passTiles(e.n2, rr.Stride+p.row.S))
	longest := len(p.st.rowZ) / p.nc
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
				p.row.Z = p.st.rowZ[p.c*longest : p.c*longest+hi-lo]
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
		if ev.Y32 != nil {
			prefetchStart(tl, e, i+lineAhead, t, ev.Y32)
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
		kernel.PrefetchRows(p.st.bounds.Cols, next, 1, 1)
	}
}

// evaluateRow is Evaluate's work on the entries lo to hi of row i, whose
// factor row is p.row.L: for each entry (i, j) = lo+k the residual, into
// Z[k], and its weight, w·R_j added to G (row i of GL) and w·L_i to row j
// of GR (a row of stride S). Under bounds, the residuals they
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
		if ev.Y32 != nil {
			evaluateRowFits(p, ev.Y32[lo:hi], i, ev.Fit[lo:hi], rk)
		} else {
			evaluateRowFits(p, ev.Y[lo:hi], i, ev.Fit[lo:hi], rk)
		}
		return
	}
	// The vector kernel, which writes no fits.
	a := &p.row
	a.Y, a.Y32 = nil, nil
	if ev.Y32 != nil {
		a.Y32 = ev.Y32[lo:hi]
	} else {
		a.Y = ev.Y[lo:hi]
	}
	mode := kernel.EntriesLinear
	switch {
	case p.ks != nil:
		mode = kernel.EntriesTrimmed
		a.RowBound, a.ColBound = p.st.bounds.Rows[i], p.st.bounds.Cols
		p.sums = [3]float64{rk.abs, rk.n, rk.sq}
		a.Sums = &p.sums
	case ev.Weight == scaledsm.SignWeight:
		mode = kernel.EntriesSign
	}
	kernel.EvaluateEntries(mode, a)
	if rk != nil {
		rk.abs, rk.n, rk.sq = p.sums[0], p.sums[1], p.sums[2]
	}
}

// evaluateRowFits is evaluateRow in Go, which writes the fits into fit,
// for the observations y of row i's segment (compiled for each kind), its
// kept sums rk under bounds.
func evaluateRowFits[T obs.Float](p *chunkPass, y []T, i int, fit []float64, rk *rowKept) {
	a := &p.row
	cols, z, li, g, rd, ld, gr, s := a.Cols, a.Z, a.L, a.G, a.RD, a.LD, a.GR, a.S
	ks, ev := p.ks, p.ev
	y = y[:len(z)]
	r := len(li)
	g = g[:r]
	fit = fit[:len(z)]
	sign := ev.Weight == scaledsm.SignWeight
	var rowBound float64
	var colBound []float64
	if ks != nil {
		rowBound, colBound = p.st.bounds.Rows[i], p.st.bounds.Cols
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
			w = scaledsm.SignWeight.Of(res)
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
