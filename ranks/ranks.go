// Package ranks is the plumbing of data-parallel work: a Reducer joins the
// processes (ranks) of a solve or a fit, so that each holds a shard of the
// data and all take the same steps; an Exchanger also sends each rank its
// own messages. The solver (package scaledsm), the recommender and package
// mpi use it; NewLocal gives in-process ranks for tests.
package ranks

import (
	"slices"
	"strconv"
	"sync"
)

// A Reducer joins the processes (ranks) of a data-parallel solve: each rank
// holds a shard of the measurements, a Problem whose Op and Y are its rows
// only, and the ranks combine their partial sums through the Reducer after
// every pass, so that every rank takes the same step and ends with the same
// factors. Package mpi (built with the mpi tag) gives one over MPI;
// NewLocal gives a group of in-process ranks, for tests.
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
// package mpi and of NewLocal are Exchangers.
type Exchanger interface {
	Reducer
	// Exchange sends send[r] to rank r, for every r (len(send) is Size()),
	// and returns what each rank sent this one, in rank order.
	Exchange(send [][]byte) [][]byte
}

// NewLocal returns a group of p in-process ranks, Reducers to be
// used from p goroutines, one each: a stand-in for MPI with which a
// data-parallel solve runs in one process, for tests. Sums are added in
// rank order.
func NewLocal(p int) []Reducer {
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
		panic("ranks: Exchange of " + strconv.Itoa(len(send)) + " messages among " + strconv.Itoa(g.size) + " ranks")
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
