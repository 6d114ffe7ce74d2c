package scaledsm

import (
	"context"
	"fmt"
	"math"

	"github.com/scaledsm/scaledsm/internal/reduce"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// AutoRank, as Problem.Rank, asks Solve to find the rank: it fits the
// largest rank the measurements support (SupportedRank, or the columns of
// Settings.Init), reads the effective rank r̂ of the result from its
// singular values (see effectiveRank), truncates the factors to r̂ and polishes
// them at the exact rank r̂ for the iterations left. The scaled methods
// should keep their damping (the zero Settings.Damping) for the first fit.
// Package completion's Solve chooses the rank of entries by validation
// instead, as data only approximately low rank (images, ratings) need.
const AutoRank = -1

// measurementsPerUnknown is how many uncorrupted measurements per unknown
// of the factors, (n1 + n2)·r, the fit needs (see SupportedRank).
//
// The paper's m = 4(n1 + n2)r gives 4 per unknown; measured on matrix
// sensing (n = 50, r = 3, p_s = 0.1, README "Unknown rank"), a rank-9 fit
// with m = 1200 (1.1 uncorrupted measurements per unknown) lowers the l1
// loss below f(X*) by fitting the outliers and stops at relative error
// 0.34, while m = 3600 (3.6 per unknown) recovers X*.
const measurementsPerUnknown = 2.5

// SupportedRank returns the largest rank whose factors' unknowns,
// (n1 + n2)·r, m measurements of an n1×n2 matrix support when a fraction
// ps of them is corrupted: floor(m (1 - ps) / (2.5 (n1 + n2))),
// at least 1 and at most min(n1, n2). (For a symmetric operator the
// unknowns are n·r, but quadratic sampling's measurements carry less each;
// the paper asks the same m = 8nr of both.) For a problem on ranks
// (Problem.Reducer), m is the whole problem's, not a shard's.
func SupportedRank(m, n1, n2 int, ps float64) int {
	if !(ps >= 0 && ps < 1) {
		ps = 0
	}
	k := int(math.Floor(float64(m) * (1 - ps) / (measurementsPerUnknown * float64(n1+n2))))
	return max(1, min(k, n1, n2))
}

// RankExcess returns, when rank k has more unknowns than m measurements
// of an n1×n2 matrix with a fraction ps of outliers support (k above
// SupportedRank), the sentence that says so; "" otherwise.
func RankExcess(k, m, n1, n2 int, ps float64) string {
	if k <= SupportedRank(m, n1, n2, ps) {
		return ""
	}
	if !(ps >= 0 && ps < 1) {
		ps = 0
	}
	return fmt.Sprintf("rank %d has (n1+n2)·r = %d unknowns, more than the m(1-p_s)/%g = %.0f that %d measurements"+
		" with a fraction %g of outliers support: the fit can absorb outliers and stop short of X*",
		k, (n1+n2)*k, measurementsPerUnknown, float64(m)*(1-ps)/measurementsPerUnknown, m, ps)
}

// rankGap is the ratio σ_k/σ_{k+1} of consecutive singular values above
// which effectiveRank takes the spectrum to end at k.
const rankGap = 1e3

// effectiveRank returns the effective rank of a matrix with the singular
// values sv, largest first: the k at the largest ratio σ_k/σ_{k+1} when it
// exceeds 1e3 (σ_{k+1} = 0 counts as an infinite ratio), len(sv) when
// no ratio does, 0 when sv is empty or σ_1 is not positive. A fit of
// rank K above the truth's r converges with K - r singular values that
// shrink with the error, so that the gap at r opens without bound, while
// the gaps within X*'s spectrum are at most its condition number.
func effectiveRank(sv []float64) int {
	if len(sv) == 0 || !(sv[0] > 0) {
		return 0
	}
	best, at := rankGap, len(sv)
	for k := 1; k < len(sv); k++ {
		var ratio float64
		switch {
		case sv[k] > 0:
			ratio = sv[k-1] / sv[k]
		case sv[k-1] > 0:
			ratio = math.Inf(1)
		default:
			continue
		}
		if ratio > best {
			best, at = ratio, k
		}
	}
	return at
}

// SingularValues returns the singular values of L Rᵀ (L Lᵀ when R is nil),
// largest first, from thin QR factorizations L = Q1 T1, R = Q2 T2 and the
// SVD of the small product T1 T2ᵀ: O((n1 + n2) r²), without forming
// L Rᵀ. It returns nil when the factors are not finite.
func (f Factors) SingularValues() []float64 {
	var lr lowRank
	return f.singularValues(&lr)
}

// singularValues is SingularValues with the QR factorizations' buffers in
// lr, a run's: the factors' copies are made there.
func (f Factors) singularValues(lr *lowRank) []float64 {
	_, s, _, _, ok := f.svd(lr, false)
	if !ok {
		return nil
	}
	return s
}

// svd returns the SVD of L Rᵀ as Q1 U diag(s) Vᵀ Q2ᵀ, with Q1 and Q2
// formed when withQ is true, with the buffers of lr.
func (f Factors) svd(lr *lowRank, withQ bool) (q1 *mat.Dense, s []float64, u, v *mat.Dense, ok bool) {
	n1, n2 := f.Dims()
	k := f.Rank()
	if n1 < k || n2 < k {
		return nil, nil, nil, nil, false
	}
	t1, q1 := f.triangular(lr, f.L, n1, k, withQ)
	t2, _ := f.triangular(lr, f.right(), n2, k, false)
	for _, x := range t1 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, nil, nil, false
		}
	}
	a, b := mat.NewDense(k, k, t1), mat.NewDense(k, k, t2)
	var prod mat.Dense
	prod.Mul(a, b.T())
	var d mat.SVD
	if !d.Factorize(&prod, mat.SVDThin) {
		return nil, nil, nil, nil, false
	}
	u, v = new(mat.Dense), new(mat.Dense)
	d.UTo(u)
	d.VTo(v)
	return q1, d.Values(nil), u, v, true
}

// triangular returns the k×k triangular factor of the n×k matrix x and,
// when withQ is true, its n×k orthonormal factor Q.
func (f Factors) triangular(lr *lowRank, x *mat.Dense, n, k int, withQ bool) ([]float64, *mat.Dense) {
	if !withQ {
		return lr.triangleOf(nil, n, k, side{x, nil, 1}), nil
	}
	// One Householder factorization, whose reflectors Orgqr forms Q
	// from: TSQR's blocks would leave only the last stage's in buf.
	buf := stack(nil, n, x, nil, 1)
	t := lr.householder(nil, buf, n, k)
	g := blas64.General{Rows: n, Cols: k, Stride: k, Data: buf}
	work := []float64{0}
	lapack64.Orgqr(g, lr.tau, work, -1)
	work = make([]float64, max(int(work[0]), k))
	lapack64.Orgqr(g, lr.tau, work, len(work))
	return t, mat.NewDense(n, k, buf)
}

// Truncate returns the factors of the best rank-k approximation of L Rᵀ,
// balanced (L = Q1 U_k Σ_k^{1/2}, R = Q2 V_k Σ_k^{1/2}; for a symmetric
// pair, L = Q1 U_k Σ_k^{1/2} alone), from the same small factorizations as
// SingularValues. It returns false when the factors are not finite or k
// is not in [1, rank].
func (f Factors) Truncate(k int) (Factors, bool) {
	if k < 1 || k > f.Rank() {
		return Factors{}, false
	}
	q1, s, u, v, ok := f.svd(new(lowRank), true)
	if !ok {
		return Factors{}, false
	}
	side := func(q, w *mat.Dense) *mat.Dense {
		_, K := w.Dims()
		c := mat.DenseCopyOf(w.Slice(0, K, 0, k))
		for j := range k {
			root := math.Sqrt(s[j])
			for i := range K {
				c.Set(i, j, c.At(i, j)*root)
			}
		}
		var out mat.Dense
		out.Mul(q, c)
		return &out
	}
	out := Factors{L: side(q1, u)}
	if f.R != nil {
		n2, _ := f.R.Dims()
		var lr lowRank
		_, q2 := f.triangular(&lr, f.R, n2, f.Rank(), true)
		out.R = side(q2, v)
	}
	return out, true
}

// overspecified is Solve of AutoRank: it fits the largest rank the
// measurements support (or Settings.Init's), reads the rank from that
// fit's singular values (effectiveRank) and polishes the fit truncated to
// it with the iterations left.
func overspecified(ctx context.Context, p Problem, s Settings) (*Result, error) {
	// On ranks, every rank counts the whole problem's m, to fit the same K.
	m, n1, n2 := p.Op.Dims()
	k := SupportedRank(reduce.Over(p.Reducer).Count(m), n1, n2, s.Truncation.Fraction)
	if s.Init != nil && s.Init.L != nil {
		k = s.Init.Rank()
	}
	first := p
	first.Rank = k
	res, err := fit(ctx, first, s)
	if err != nil {
		return nil, err
	}
	r := res.EffectiveRank
	left := s.MaxIter - res.Iterations
	if r < 1 || r >= k || res.Status.Failed() || res.Status == Interrupted || left < 1 {
		return res, nil
	}
	trunc, ok := res.Factors.Truncate(r)
	if !ok {
		return res, nil
	}
	polish := p
	polish.Rank = r
	ps := s
	ps.Init, ps.MaxIter = &trunc, left
	res2, err := fit(ctx, polish, ps)
	if err != nil {
		return nil, err
	}
	// One trace: the fit's iterations, then the polish's from the
	// truncated point on.
	trace := res.Trace[:len(res.Trace)-1]
	for _, it := range res2.Trace {
		it.Iter += res.Iterations
		trace = append(trace, it)
	}
	res2.Trace = trace
	res2.Iterations += res.Iterations
	res2.Fallbacks += res.Fallbacks
	res2.Runtime += res.Runtime
	res2.SingularValues, res2.EffectiveRank = res.SingularValues, r
	return res2, nil
}
