package reduce_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/ranks"
)

// onRanks runs f on p in-process ranks and waits for them.
func onRanks(p int, f func(g reduce.Group)) {
	reds := ranks.NewLocal(p)
	var wg sync.WaitGroup
	for _, r := range reds {
		wg.Go(func() { f(r) })
	}
	wg.Wait()
}

// TestKth selects every order statistic of values with ties, zeros,
// subnormals and a wide range of exponents, split over 1 to 4 ranks in
// shards of unequal lengths (one empty): each is the sorted values' k-th,
// on every rank.
func TestKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]float64, 203)
	for i := range v {
		switch i % 5 {
		case 0:
			v[i] = 0
		case 1:
			v[i] = float64(rng.IntN(4)) // ties
		case 2:
			v[i] = math.Ldexp(rng.Float64(), rng.IntN(200)-100)
		case 3:
			v[i] = 5e-324 * float64(rng.IntN(3))
		default:
			v[i] = rng.ExpFloat64()
		}
	}
	sorted := slices.Clone(v)
	slices.Sort(sorted)
	for p := 1; p <= 4; p++ {
		cuts := []int{0, 0, 50, 51, 203}[:p+1] // rank 0's shard is empty for p > 1
		cuts[p] = len(v)
		for _, k := range []int{0, 1, 40, 101, 150, 202} {
			got := make([]float64, p)
			onRanks(p, func(g reduce.Group) {
				r := g.Rank()
				shard := slices.Clone(v[cuts[r]:cuts[r+1]])
				got[r] = reduce.Kth(g, shard, k)
				if !slices.Equal(shard, v[cuts[r]:cuts[r+1]]) {
					t.Errorf("P=%d: Kth changed rank %d's values", p, r)
				}
			})
			for r, x := range got {
				if x != sorted[k] {
					t.Errorf("P=%d, k=%d: rank %d selects %v, want %v", p, k, r, x, sorted[k])
				}
			}
		}
	}
}

// TestSums adds 1e16, 298 halves and -1e16, whose plain sum in that order
// loses every half: the compensated parts of the ranks added in rank order
// give the exact sum, 149, on every rank.
func TestSums(t *testing.T) {
	for p := 1; p <= 3; p++ {
		got := make([]float64, p)
		onRanks(p, func(g reduce.Group) {
			var s fsum.Sum
			for i := g.Rank(); i < 300; i += g.Size() {
				switch i {
				case 0:
					s.Add(1e16)
				case 299:
					s.Add(-1e16)
				default:
					s.Add(0.5)
				}
			}
			reduce.Sums(g, &s)
			got[g.Rank()] = s.Value()
		})
		for r, x := range got {
			if x != 149 {
				t.Errorf("P=%d: rank %d sums to %v, want 149", p, r, x)
			}
		}
	}
}

// TestRange splits n items into contiguous ranges that cover them in rank
// order, of lengths differing by at most one.
func TestRange(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100} {
		for p := 1; p <= 5; p++ {
			next := 0
			for r := range p {
				lo, hi := reduce.Range(n, r, p)
				if lo != next || hi-lo < n/p || hi-lo > n/p+1 {
					t.Errorf("n=%d, P=%d: rank %d holds [%d, %d)", n, p, r, lo, hi)
				}
				next = hi
			}
			if next != n {
				t.Errorf("n=%d, P=%d: the ranges end at %d", n, p, next)
			}
		}
	}
}

// TestRelay carries a compensated sum of terms whose rounding depends on
// their order over the ranks' contiguous parts: every rank ends with the
// bits of one process's pass over all the terms, which the ranks' sums
// added afterwards (Sums) need not give.
func TestRelay(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	v := make([]float64, 1000)
	for i := range v {
		v[i] = math.Ldexp(rng.NormFloat64(), rng.IntN(80)-40)
	}
	want := fsum.Of(v)
	for p := 1; p <= 4; p++ {
		got := make([]float64, p)
		onRanks(p, func(g reduce.Group) {
			lo, hi := reduce.Range(len(v), g.Rank(), g.Size())
			state := make([]float64, 2)
			reduce.Relay(g, state, func() {
				s := fsum.Resume(state[0], state[1])
				for _, x := range v[lo:hi] {
					s.Add(x)
				}
				state[0], state[1] = s.Parts()
			})
			got[g.Rank()] = fsum.Resume(state[0], state[1]).Value()
		})
		for r, x := range got {
			if x != want {
				t.Errorf("P=%d: rank %d relays %v, want one pass's %v", p, r, x, want)
			}
		}
	}
}
