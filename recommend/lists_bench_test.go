package recommend

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// randomListsModel returns a model of n1 users and n2 items with random
// lists of rank k and seen interactions per user.
func randomListsModel(n1, n2, k, seen int) *Model {
	rng := rand.New(rand.NewPCG(1, 2))
	p, q := make([]float64, n1*k), make([]float64, n2*k)
	for i := range p {
		p[i] = rng.NormFloat64()
	}
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	s := Seen{Start: make([]int64, n1+1)}
	for u := range n1 {
		row := make([]int32, seen)
		for j := range row {
			row[j] = int32(rng.IntN(n2))
		}
		slices.Sort(row)
		s.Items = append(s.Items, slices.Compact(row)...)
		s.Start[u+1] = int64(len(s.Items))
	}
	m := &Model{Users: make(IDs, n1), Items: make(IDs, n2), Lists: &Lists{P: mat.NewDense(n1, k, p), Q: mat.NewDense(n2, k, q)}, Seen: &s}
	for u := range n1 {
		m.Users[u] = int64(u)
	}
	for i := range n2 {
		m.Items[i] = int64(i)
	}
	return m
}

// BenchmarkRecommendNetflix lists the top 10 of every user of a model of
// the Netflix prize's shape (480,189 users, 17,770 items, 209 interactions
// a user) at ranks 64, 128 and 256, and reports the multiply-adds a second
// of the scores (users × items × rank).
func BenchmarkRecommendNetflix(b *testing.B) {
	for _, k := range []int{64, 128, 256} {
		m := randomListsModel(480189, 17770, k, 209)
		runtime.GC()
		b.Run("rank"+itoa(k), func(b *testing.B) {
			for b.Loop() {
				begin := time.Now()
				err := m.Recommend(context.Background(), nil, ListOptions{N: 10}, func(List) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(480189*17770*float64(k)/time.Since(begin).Seconds()/1e9, "GFMA/s")
			}
		})
	}
}

func itoa(k int) string {
	const digits = "0123456789"
	if k < 10 {
		return digits[k : k+1]
	}
	return itoa(k/10) + digits[k%10:k%10+1]
}
