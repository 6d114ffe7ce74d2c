package completion

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestOrthonormalizeThin orthonormalizes a tall 20000×4 matrix: the
// columns become orthonormal with the same span, the singular values are
// a's, and the memory allocated is a few copies of a, not the 20000×20000
// Q of a full QR (3.2 GB; 80 GB at n = 10^5, which killed the spectral
// initialization of a 100,000-row completion problem).
func TestOrthonormalizeThin(t *testing.T) {
	const n, k = 20000, 4
	rng := rand.New(rand.NewPCG(1, 2))
	a := mat.NewDense(n, k, nil)
	for i := range n {
		for j := range k {
			a.Set(i, j, rng.NormFloat64()*float64(j+1))
		}
	}
	orig := mat.DenseCopyOf(a)
	var want mat.SVD
	want.Factorize(orig, mat.SVDNone)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sv := orthonormalize(a)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*n*k*8 {
		t.Errorf("allocated %d bytes for a %d×%d matrix of %d bytes", alloc, n, k, n*k*8)
	}
	for i, s := range want.Values(nil) {
		if math.Abs(sv[i]-s) > 1e-10*s {
			t.Errorf("singular value %d: %v, want %v", i, sv[i], s)
		}
	}
	var g mat.Dense
	g.Mul(a.T(), a)
	if !mat.EqualApprox(&g, eye(k), 1e-12) {
		t.Errorf("QᵀQ = %v", mat.Formatted(&g))
	}
	// The span: orig = Q (Qᵀ orig).
	var c, back mat.Dense
	c.Mul(a.T(), orig)
	back.Mul(a, &c)
	if !mat.EqualApprox(&back, orig, 1e-9) {
		t.Error("the columns do not span a's columns")
	}
}

func eye(k int) *mat.Dense {
	m := mat.NewDense(k, k, nil)
	for i := range k {
		m.Set(i, i, 1)
	}
	return m
}
