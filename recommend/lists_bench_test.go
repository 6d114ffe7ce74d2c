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
	var items []int32
	for u := range n1 {
		row := make([]int32, seen)
		for j := range row {
			row[j] = int32(rng.IntN(n2))
		}
		slices.Sort(row)
		items = append(items, slices.Compact(row)...)
		s.Start[u+1] = int64(len(items))
	}
	s.items = index{w: items}
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

// randomModel returns a model of ratings of n1 users and n2 items whose
// ratings part has K columns and whose lists have rank k, with seen
// ratings a user.
func randomModel(n1, n2, kr, k, seen int) *Model {
	m := randomListsModel(n1, n2, k, seen)
	rng := rand.New(rand.NewPCG(3, 4))
	l, r := make([]float64, n1*kr), make([]float64, n2*kr)
	for i := range l {
		l[i] = 0.1 * rng.NormFloat64()
	}
	for i := range r {
		r[i] = 0.1 * rng.NormFloat64()
	}
	m.L, m.R = mat.NewDense(n1, kr, l), mat.NewDense(n2, kr, r)
	m.UserBias, m.ItemBias = make([]float64, n1), make([]float64, n2)
	m.Mean, m.Min, m.Max = 3.5, 1, 5
	m.Info = Info{Method: "bayes", Rank: kr / 2, Nu: 6, NoiseSD: 0.8}
	m.Seen.vals = stored{f: make([]float32, m.Seen.Len())}
	for e := range m.Seen.vals.f {
		m.Seen.vals.f[e] = float32(1 + rng.IntN(5))
	}
	l2 := m.Lists
	l2.Scale, l2.Sig2, l2.Lambda, l2.Lambda0, l2.Weights, l2.Lo, l2.Span = make([]float64, n2), make([]float64, k), 30, 1, "rating", 1, 4
	for i := range l2.Scale {
		l2.Scale[i] = 0.5
	}
	for j := range l2.Sig2 {
		l2.Sig2[j] = 100 / float64(j+1)
	}
	return m
}

// newRatings returns n users' ratings of per items each, the users' ids
// from first on (new to a model of fewer users), the items drawn among n2.
func newRatings(first, n, per, n2 int) Ratings {
	rng := rand.New(rand.NewPCG(5, 6))
	var r Ratings
	for u := range n {
		for _, i := range rng.Perm(n2)[:per] {
			r.Users, r.Items, r.Values = append(r.Users, int64(first+u)), append(r.Items, int64(i)), append(r.Values, float64(1+rng.IntN(5)))
		}
	}
	return r
}

// BenchmarkFoldInUser folds one new user's 100 ratings into a model of
// MovieLens 100k's size at rank 40 (80 columns of the posterior mean,
// lists of rank 256): the model's arrays copied, the user's rows made.
func BenchmarkFoldInUser(b *testing.B) {
	m := randomModel(943, 1682, 80, 256, 85)
	r := newRatings(943, 1, 100, 1682)
	for b.Loop() {
		if _, _, err := m.FoldIn(context.Background(), r, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFoldIn100k folds 10^5 new users of 20 ratings each into a
// model of 10^5 users and 17,770 items (the Netflix prize's items) at
// rank 40 (80 columns, lists of rank 128).
func BenchmarkFoldIn100k(b *testing.B) {
	m := randomModel(100000, 17770, 80, 128, 100)
	r := newRatings(100000, 100000, 20, 17770)
	for b.Loop() {
		if _, _, err := m.FoldIn(context.Background(), r, 0); err != nil {
			b.Fatal(err)
		}
	}
}
