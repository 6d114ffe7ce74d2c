package recommend

import (
	"fmt"
	"testing"

	"github.com/scaledsm/scaledsm/internal/gamma"

	"github.com/scaledsm/scaledsm/synth"
)

// benchTable lays out n synthetic ratings in MovieLens 1M's shape.
func benchTable(b *testing.B, n int) *table {
	d, err := synth.GenerateRatings(synth.RatingsConfig{Users: 6040, Items: 3700, Ratings: n, Step: 0.5, Seed: 1})
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
		b.Run(fmt.Sprintf("rank%d", k), func(b *testing.B) {
			s := newSampler(t, k, DefaultNu, 1, 0)
			s.workers = 2
			s.start()
			n := 0
			for b.Loop() {
				s.sweep(n)
				n++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/float64(t.y.len()), "ns/rating")
		})
	}
}

// BenchmarkRow times one row's update (a user of 279 ratings, rank 10) on
// one core.
func BenchmarkRow(b *testing.B) {
	t := benchTable(b, 1000000)
	s := newSampler(t, 10, DefaultNu, 1, 1)
	s.gt = gamma.TableOf((s.nu + 1) / 2) // as a sweep sets it
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
