package scaledsm

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkLowRankDistance measures ||A - B||_F from factors of rank 10
// of two 100,000 × 100,000 matrices (two QR factorizations of
// 100,000 × 20), as a completion solve measures its error and change:
//
//	go test -run '^$' -bench LowRankDistance .
func BenchmarkLowRankDistance(b *testing.B) {
	const n, r = 100_000, 10
	rng := rand.New(rand.NewPCG(5, 6))
	a := Factors{L: randomFactor(rng, n, r), R: randomFactor(rng, n, r)}
	c := Factors{L: randomFactor(rng, n, r), R: randomFactor(rng, n, r)}
	var q lowRank
	q.distance(a, c)
	b.ResetTimer()
	for range b.N {
		q.distance(a, c)
	}
}
