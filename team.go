package scaledsm

import (
	"runtime"

	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
)

// How a pass splits its work among cores without changing its bits.
//
// A pass over the rows splits them into chunks(m) chunks, a number that
// depends on m alone. Each chunk accumulates its rows' contributions to the
// adjoint in increasing row order into a partial sum of its own, and the
// partial sums are then added in chunk order: the result is the same
// whatever the number of goroutines and whichever goroutine takes which
// chunk. The chunks are handed out one at a time, so a goroutine the
// operating system deschedules on a busy machine delays the pass by at most
// one chunk. The batched passes reproduce the same order for every run.
//
// (A design without partial sums, with a barrier between the dot products
// and the additions, was slower: docs/performance.md, BenchmarkPassDesigns.)

// Chunking of the rows of a pass.
const (
	maxChunks    = 16 // enough to keep 16 cores busy and two balanced
	minChunkRows = 64 // so that small problems have few partial sums
)

// chunks returns the number of row chunks of a pass over m rows. It
// depends on m only, never on the number of cores.
func chunks(m int) int {
	return max(1, min(maxChunks, m/minChunkRows))
}

// chunkRange returns the rows [lo, hi) of chunk c of nc over m rows.
func chunkRange(c, nc, m int) (lo, hi int) {
	return c * m / nc, (c + 1) * m / nc
}

// addPartials adds the partial sums parts[c*n:(c+1)*n], c = 1, ..., nc-1,
// to dst in chunk order (dst holds chunk 0's).
func addPartials(dst, parts []float64, nc, n int) {
	for c := 1; c < nc; c++ {
		kernel.Axpy(1, parts[c*n:(c+1)*n], dst)
	}
}

// teamSize returns the number of goroutines for a pass over work elements:
// GOMAXPROCS, but fewer for passes too small to repay starting them.
func teamSize(work int) int {
	const minWork = 1 << 15
	return max(1, min(runtime.GOMAXPROCS(0), work/minWork))
}

// parallel runs f(c) for c in [0, n) on up to workers goroutines (see
// par.Do).
func parallel(workers, n int, f func(c int)) { par.Do(workers, n, f) }

// pool lends buffers to the goroutines of parallel, so that each call of
// its function need not allocate its own: one buffer for each goroutine
// that can run at once (GOMAXPROCS when it was made; were there more, one
// would wait for a buffer, never forever).
type pool[T any] chan T

// newPool returns a pool of GOMAXPROCS zero values.
func newPool[T any]() pool[T] {
	p := make(pool[T], runtime.GOMAXPROCS(0))
	var zero T
	for range cap(p) {
		p <- zero
	}
	return p
}

// get takes a buffer, to be given back with put.
func (p pool[T]) get() T { return <-p }

// put gives a buffer back.
func (p pool[T]) put(b T) { p <- b }
