package completion

import (
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
)

// The pass and the spectral start's products in tiles of columns. Where
// R's rows and a chunk's partial GR's (or the rows of a product's factor)
// overflow the caches, Evaluate visits a chunk's rows once for each tile
// of columns, the entries of each row that fall in the tile, so that the
// random reads and additions of factor rows hit the last level of cache
// instead of memory. Every sum keeps its order: a row's entries are still
// added to its row of GL in column order, a column's to its row of GR in
// row order, so the bits are those of a pass row after row (TestTiled*).
// Tiles the size of a shared L3, each row's entries in a tile found once
// and not by a scan each pass, win where memory is slow; tiles the size
// of L2 lose to none on fast memory (measurements: docs/performance.md,
// "28 Nov 2026: tiles of columns, for CPUs with AVX2 and slower memory").

// passTileBytes is the most bytes of R's and a partial GR's rows that a
// tile of columns spans: a few megabytes, which the last level of cache
// holds for both cores (issue 36's 10^7 problem on a 2-core EPYC: an iteration
// in 454 ms with 4 MB tiles, 427 with 8 and 444 with 2, against 639 without
// tiles, medians of 25 interleaved in one process, before the rows' first
// lines were asked for ahead).
var passTileBytes = 4 << 20

// tileRowEntries is the fewest entries a row has, on average, in a tile:
// fewer, and the calls of the kernel cost more than the cache saves.
const tileRowEntries = 16

// passTiles returns the number of tiles of columns a pass visits in turn,
// for n2 columns of rows of s values in R and a partial GR together.
func passTiles(n2, s int) int {
	return max(1, (n2*s*8+passTileBytes-1)/passTileBytes)
}

// tiling is the split of each row's entries among the tiles of columns of
// a pass: n tiles of equal widths, and ends[i*(n-1)+t], the number of row
// i's entries before tile t+1.
type tiling struct {
	n    int
	ends []uint32
}

// tiles returns the tiling of the entries into at most n tiles: one, when
// a row's entries in a tile would be too few (see tileRowEntries). It
// keeps the last one made.
func (e *Entries) tiles(n int) *tiling {
	if m := len(e.cols); n > 1 && m < n*tileRowEntries*e.n1 {
		n = max(1, m/(tileRowEntries*e.n1))
	}
	if n == 1 {
		return &tiling{n: 1}
	}
	if tl := e.tiled.Load(); tl != nil && tl.n == n {
		return tl
	}
	tl := &tiling{n: n, ends: make([]uint32, e.n1*(n-1))}
	par.Do(par.TeamSize(len(e.cols)), e.n1, func(i int) {
		p, hi := e.start[i], e.start[i+1]
		for t := range n - 1 {
			top := int32((t + 1) * e.n2 / n)
			for p < hi && e.cols[p] < top {
				p++
			}
			tl.ends[i*(n-1)+t] = uint32(p - e.start[i])
		}
	})
	e.tiled.Store(tl)
	return tl
}

// segment returns the entries lo to hi of row i in tile t.
func (tl *tiling) segment(e *Entries, i, t int) (lo, hi int) {
	lo, hi = e.start[i], e.start[i+1]
	if tl.n == 1 {
		return lo, hi
	}
	base := lo
	if t > 0 {
		lo = base + int(tl.ends[i*(tl.n-1)+t-1])
	}
	if t < tl.n-1 {
		hi = base + int(tl.ends[i*(tl.n-1)+t])
	}
	return lo, hi
}

// productBlocks is the number of blocks of rows of a sparse product in
// tiles (see mulSparseOf).
const productBlocks = 16

// lineAhead is how many rows ahead a pass asks for the first cache line of
// a row's columns and values.
const lineAhead = 4

// prefetchStart asks for the first cache line of row i's columns and of
// its values v in tile t, ahead of their use.
func prefetchStart[T any](tl *tiling, e *Entries, i, t int, v []T) {
	lo, _ := tl.segment(e, i, t)
	kernel.PrefetchAt(e.cols, lo)
	kernel.PrefetchAt(v, lo)
}
