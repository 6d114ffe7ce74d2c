package scaledsm

import (
	"slices"
	"strconv"
	"sync"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/reduce"
)

// A Reducer joins the processes (ranks) of a data-parallel solve: each rank
// holds a shard of the measurements, a Problem whose Op and Y are its rows
// only, and the ranks combine their partial sums through the Reducer after
// every pass, so that every rank takes the same step and ends with the same
// factors. Package mpi (built with the mpi tag) gives one over MPI;
// NewLocalReducers gives a group of in-process ranks, for tests.
//
// Every rank must call the methods in the same order with slices of the
// same length (the collectives of MPI). A nil Reducer means the problem is
// whole on this process, the single-rank solve. An error on one rank (a
// shard with no measurement or a non-finite observation, say) leaves the
// others waiting in their next collective: a program must then end the job,
// as the command line does with mpi.Abort.
type Reducer interface {
	// Rank returns this process's rank, from 0, and Size the number of
	// ranks.
	Rank() int
	Size() int
	// Sum replaces x on every rank by the elementwise sum of the ranks' x,
	// with the same bits on every rank.
	Sum(x []float64)
	// Gather sets all, of length Size()·len(x), to the ranks' x one after
	// the other in rank order, on every rank.
	Gather(all, x []float64)
	// Broadcast sets x on every rank to rank 0's x.
	Broadcast(x []float64)
}

// An Exchanger is a Reducer that can also send each rank a message of its
// own (MPI_Alltoallv): the recommender exchanges its ratings through it,
// so that each rank ends holding only its share of them. The Reducers of
// package mpi and of NewLocalReducers are Exchangers.
type Exchanger interface {
	Reducer
	// Exchange sends send[r] to rank r, for every r (len(send) is Size()),
	// and returns what each rank sent this one, in rank order.
	Exchange(send [][]byte) [][]byte
}

// dist is the reductions of a run over a Reducer; its zero value (no
// Reducer) leaves every partial result as it is, the single-rank solve.
type dist struct{ red Reducer }

// on reports whether the results are partial and must be combined.
func (d dist) on() bool { return d.red != nil }

// sum replaces x by its sum over the ranks.
func (d dist) sum(x []float64) {
	if d.red != nil {
		d.red.Sum(x)
	}
}

// gather returns the ranks' x one after the other.
func (d dist) gather(x []float64) []float64 {
	if d.red == nil {
		return x
	}
	return reduce.Gather(d.red, x)
}

// sums replaces each compensated sum by its sum over the ranks (see
// reduce.Sums).
func (d dist) sums(s ...*fsum.Sum) {
	if d.red != nil {
		reduce.Sums(d.red, s...)
	}
}

// count returns n summed over the ranks.
func (d dist) count(n int) int {
	if d.red == nil {
		return n
	}
	return reduce.Count(d.red, n)
}

// counts returns the ranks' n in rank order.
func (d dist) counts(n int) []int {
	if d.red == nil {
		return []int{n}
	}
	return reduce.Counts(d.red, n)
}

// max returns the largest of the ranks' x.
func (d dist) max(x float64) float64 {
	if d.red == nil {
		return x
	}
	return reduce.Max(d.red, x)
}

// kth returns the k-th smallest (from 0) of the non-negative values of v
// over all ranks: alone selectKth, which reorders v; over ranks
// reduce.Kth, which leaves it as it is.
func (d dist) kth(v []float64, k int) float64 {
	if d.red == nil {
		return selectKth(v, k)
	}
	return reduce.Kth(d.red, v, k)
}

// NewLocalReducers returns a group of p in-process ranks, Reducers to be
// used from p goroutines, one each: a stand-in for MPI with which a
// data-parallel solve runs in one process, for tests. Sums are added in
// rank order.
func NewLocalReducers(p int) []Reducer {
	g := &localGroup{size: p, slots: make([][]float64, p), msgs: make([][][]byte, p)}
	g.cond = sync.NewCond(&g.mu)
	rs := make([]Reducer, p)
	for k := range rs {
		rs[k] = &localReducer{g: g, rank: k}
	}
	return rs
}

type localGroup struct {
	size    int
	mu      sync.Mutex
	cond    *sync.Cond
	arrived int
	gen     int
	slots   [][]float64
	msgs    [][][]byte // Exchange's: msgs[from][to]
}

// barrier returns once every rank has called it.
func (g *localGroup) barrier() {
	g.mu.Lock()
	defer g.mu.Unlock()
	gen := g.gen
	g.arrived++
	if g.arrived == g.size {
		g.arrived = 0
		g.gen++
		g.cond.Broadcast()
		return
	}
	for gen == g.gen {
		g.cond.Wait()
	}
}

type localReducer struct {
	g    *localGroup
	rank int
}

func (r *localReducer) Rank() int { return r.rank }
func (r *localReducer) Size() int { return r.g.size }

// exchange posts a copy of x, waits for every rank's, calls f on them, and
// waits until every rank has read them.
func (r *localReducer) exchange(x []float64, f func(slots [][]float64)) {
	r.g.slots[r.rank] = append([]float64(nil), x...)
	r.g.barrier()
	f(r.g.slots)
	r.g.barrier()
}

func (r *localReducer) Sum(x []float64) {
	r.exchange(x, func(slots [][]float64) {
		copy(x, slots[0])
		for _, s := range slots[1:] {
			for i, v := range s {
				x[i] += v
			}
		}
	})
}

func (r *localReducer) Gather(all, x []float64) {
	r.exchange(x, func(slots [][]float64) {
		for k, s := range slots {
			copy(all[k*len(x):], s)
		}
	})
}

func (r *localReducer) Broadcast(x []float64) {
	r.exchange(x, func(slots [][]float64) { copy(x, slots[0]) })
}

// Exchange posts copies of the messages and takes this rank's from each.
func (r *localReducer) Exchange(send [][]byte) [][]byte {
	g := r.g
	if len(send) != g.size {
		panic("scaledsm: Exchange of " + strconv.Itoa(len(send)) + " messages among " + strconv.Itoa(g.size) + " ranks")
	}
	mine := make([][]byte, g.size)
	for to, m := range send {
		mine[to] = slices.Clone(m)
	}
	g.msgs[r.rank] = mine
	g.barrier()
	got := make([][]byte, g.size)
	for from := range g.size {
		got[from] = g.msgs[from][r.rank]
	}
	g.barrier()
	return got
}
