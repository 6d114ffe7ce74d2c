package recommend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/gamma"

	"github.com/scaledsm/scaledsm/synth"
)

// benchTable lays out n synthetic ratings in MovieLens 1M's shape.
func benchTable(b *testing.B, n int) *table {
	return benchShape(b, 6040, 3700, n)
}

// benchShape lays out n synthetic ratings of users × items.
func benchShape(b *testing.B, users, items, n int) *table {
	d, err := synth.GenerateRatings(synth.RatingsConfig{Users: users, Items: items, Ratings: n, Step: 0.5, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	x := Ratings{Users: d.Users, Items: d.Items, Values: d.Values}.Index()
	return newTable(len(x.Users), len(x.Items), x.Rows, x.Cols, x.Values)
}

// BenchmarkSweep times a sweep of the Bayesian sampler over 10^6 ratings
// at ranks 5 to 40 (ns/rating: per rating, both halves).
func BenchmarkSweep(b *testing.B) {
	t := benchTable(b, 1000000)
	for _, k := range []int{5, 10, 20, 40} {
		b.Run(fmt.Sprintf("rank%d", k), func(b *testing.B) { benchSweeps(b, t, k) })
	}
}

// benchSweeps times the sweeps of a sampler of rank k over t on two
// cores, reported a rating.
func benchSweeps(b *testing.B, t *table, k int) {
	s := newSampler(t, k, DefaultNu, 1, 0)
	s.workers = 2
	s.start()
	n := 0
	for b.Loop() {
		s.sweep(n)
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/float64(t.y.len()), "ns/rating")
}

// BenchmarkSweepShort times a sweep at rank 20 over 10^6 ratings in short
// rows, 30 a user and 100 an item (the shape of docs/recommend.md's taste
// clusters), where a row's fixed costs, each coordinate's calls and its
// draw, weigh more than its ratings (ns/rating: per rating, both halves).
func BenchmarkSweepShort(b *testing.B) {
	benchSweeps(b, benchShape(b, 33000, 10000, 1000000), 20)
}

// BenchmarkRow times one row's update (a user of 279 ratings, rank 10) on
// one core.
func BenchmarkRow(b *testing.B) {
	t := benchTable(b, 1000000)
	s := newSampler(t, 10, DefaultNu, 1, 1)
	s.gt = gamma.TableOf(weightShape(s.nu)) // as a sweep sets it
	sc := s.pool.Get().(*rowScratch)
	const u = 17
	lo, hi := t.uStart[u], t.uStart[u+1]
	n := 0
	for b.Loop() {
		sc.s.seed(1, n, streamUser, u)
		users := s.users()
		s.row(&users, u, sc)
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/float64(hi-lo), "ns/rating")
}

// BenchmarkTruncate times a merge's truncation of the posterior mean at
// MovieLens 100k's width (the mean's 40 columns beside four rank-20
// sweeps, 120 in all), beside the two eigendecompositions of the Grams
// that its halves took before the pivoted Cholesky factorizations
// (eigen: the yardstick, not a part of the fit).
func BenchmarkTruncate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const cols, rank = 120, 40
	grams := make([][]float64, 2)
	for h, n := range []int{943, 1682} {
		x := make([]float32, n*cols)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * math.Exp(-float64(i%cols)/30))
		}
		var t table
		grams[h] = t.gram(blocks{xs: [][]float32{x}, widths: []int{cols}}, n)
	}
	b.Run("truncate", func(b *testing.B) {
		for b.Loop() {
			truncate(grams[0], grams[1], cols, rank)
		}
	})
	b.Run("eigen", func(b *testing.B) {
		for b.Loop() {
			for _, g := range grams {
				sym := mat.NewSymDense(cols, nil)
				for i := range cols {
					for j := i; j < cols; j++ {
						sym.SetSym(i, j, g[i*cols+j])
					}
				}
				var eig mat.EigenSym
				if !eig.Factorize(sym, true) {
					b.Fatal("no eigendecomposition")
				}
			}
		}
	})
}
