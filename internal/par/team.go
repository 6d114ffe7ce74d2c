package par

import (
	"runtime"

	"github.com/scaledsm/scaledsm/internal/kernel"
)

// How a pass splits its work among cores without changing its bits.
//
// A pass over the rows splits them into Chunks(m) chunks, a number that
// depends on m alone. Each chunk accumulates its rows' contributions to the
// adjoint in increasing row order into a partial sum of its own, and the
// partial sums are then added in chunk order (AddPartials): the result is
// the same whatever the number of goroutines and whichever goroutine takes
// which chunk. The chunks are handed out one at a time, so a goroutine the
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

// Chunks returns the number of row chunks of a pass over m rows. It
// depends on m only, never on the number of cores.
func Chunks(m int) int {
	return max(1, min(maxChunks, m/minChunkRows))
}

// ChunkRange returns the rows [lo, hi) of chunk c of nc over m rows.
func ChunkRange(c, nc, m int) (lo, hi int) {
	return c * m / nc, (c + 1) * m / nc
}

// AddPartials adds the partial sums parts[c*n:(c+1)*n], c = 1, ..., nc-1,
// to dst in chunk order (dst holds chunk 0's).
func AddPartials(dst, parts []float64, nc, n int) {
	for c := 1; c < nc; c++ {
		kernel.Axpy(1, parts[c*n:(c+1)*n], dst)
	}
}

// TeamSize returns the number of goroutines for a pass over work elements:
// GOMAXPROCS, but fewer for passes too small to repay starting them.
func TeamSize(work int) int {
	const minWork = 1 << 15
	return max(1, min(runtime.GOMAXPROCS(0), work/minWork))
}

// Pool lends buffers to the goroutines of Do, so that each call of its
// function need not allocate its own: one buffer for each goroutine that
// can run at once (GOMAXPROCS when it was made; were there more, one would
// wait for a buffer, never forever).
type Pool[T any] chan T

// NewPool returns a pool of GOMAXPROCS zero values.
func NewPool[T any]() Pool[T] {
	p := make(Pool[T], runtime.GOMAXPROCS(0))
	var zero T
	for range cap(p) {
		p <- zero
	}
	return p
}

// Get takes a buffer, to be given back with Put.
func (p Pool[T]) Get() T { return <-p }

// Put gives a buffer back.
func (p Pool[T]) Put(b T) { p <- b }
