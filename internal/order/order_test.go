package order

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKth compares Kth with a sort on random slices with ties.
func TestKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 60; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(rng.IntN(n/2 + 1))
		}
		sorted := slices.Sorted(slices.Values(v))
		for k := range n {
			if got := Kth(slices.Clone(v), k); got != sorted[k] {
				t.Fatalf("n %d, k %d: %v, want %v", n, k, got, sorted[k])
			}
		}
	}
}
