package scaledsm

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The convex start: robust matrix completion by its convex relaxation,
//
//	min ||L||_* + λ ||S||_1  subject to  L_ij + S_ij = y_ij on the entries,
//
// λ = 1/√(p·max(n1, n2)) with p = m/(n1 n2) (principal component pursuit
// when every entry is observed), solved roughly by the inexact augmented
// Lagrangian method (Lin, Chen and Ma, 2010), and truncated to the rank
// asked for. It needs no start and no condition number, so it reaches the
// basin of X* on draws where every spectral start misses it: issue 24's
// n = 100, r = 2, p = 0.3, κ = 100, p_s = 0.1, seed 1 ends at 0.068 from
// the spectral starts truncated at 0.05 to 0.45 and converges from this
// one, which lies at 0.033 from X*. Each iteration is an SVD
// of the dense n1×n2 matrix, so it is for small matrices: Solve tries it
// on its own only below convexWork (see restart).
const (
	convexIters = 50   // iterations: a start, not a solution
	convexTol   = 1e-9 // or stop when ||y - L - S|| <= convexTol ||y|| on the entries
	// convexGrowth is μ's growth per iteration: at 1.5, issue 24's seeds
	// 1 to 3 start at 0.16, 0.14 and 0.11 from X*, not 0.033, 0.0073 and
	// 0.0010.
	convexGrowth = 1.2

	// convexWork bounds n1·n2·min(n1, n2), the work of one SVD, for
	// the convex start as a restart: a 200×200 matrix (the start takes
	// 1.4 s there, 9.5 s at 400×400, where no run of the phase study
	// needed it).
	convexWork = 200 * 200 * 200
	// The bounds of the convex start asked for: the work of an SVD, at
	// most a 1000×1000 matrix's (2.5 s, the longest a stop asked for
	// waits), and n1·n2, for the dense matrices it keeps (about 6 of them
	// take 400 MB at 2^23 entries).
	convexWorkMax = 1000 * 1000 * 1000
	convexEntries = 1 << 23
)

var errConvexSVD = errors.New("scaledsm: convex start: SVD did not converge")

// convexSmall reports whether the convex start is cheap enough for Solve
// to try on its own.
func convexSmall(n1, n2 int) bool {
	return float64(n1)*float64(n2)*float64(min(n1, n2)) <= convexWork
}

// Convex returns the convex start of rank r for the observations y of the
// entries (see ConvexStart): the top r singular pairs of the convex
// relaxation's estimate of X*, L = U Σ^{1/2} and R = V Σ^{1/2}. It forms
// dense n1×n2 matrices and takes an SVD of one at each iteration, so n1·n2
// may be at most 2^23 and n1·n2·min(n1, n2) at most 10^9; ctx is checked
// at each.
func (e *Entries) Convex(ctx context.Context, y []float64, r int) (Factors, error) {
	m, n1, n2 := e.Dims()
	switch {
	case r < 1 || r > min(n1, n2):
		return Factors{}, inputError("rank", r, "must lie in [1, min(n1, n2)] = [1, %d]", min(n1, n2))
	case len(y) != m:
		return Factors{}, inputError("y", nil, "%d observations, want m = %d", len(y), m)
	case e.total != 0 && e.total != m:
		return Factors{}, inputError("init", "convex", "needs the whole problem, not a shard")
	case float64(n1)*float64(n2) > convexEntries || float64(n1)*float64(n2)*float64(min(n1, n2)) > convexWorkMax:
		return Factors{}, inputError("init", "convex", "takes an SVD of the dense %d×%d matrix at each iteration: at most %d entries and n1·n2·min(n1, n2) at most 1e9 (a 1000×1000 matrix)", n1, n2, convexEntries)
	}
	lambda := 1 / math.Sqrt(float64(m)/(float64(n1)*float64(n2))*float64(max(n1, n2)))
	w := mat.NewDense(n1, n2, nil) // Y on the entries, the estimate L elsewhere
	raw := w.RawMatrix()
	at := func(i, k int) int { return i*raw.Stride + int(e.cols[k]) }
	for i := range n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			raw.Data[at(i, k)] = y[k]
		}
	}
	ynorm := floats.Norm(y, 2)
	if !(ynorm > 0) {
		return Factors{}, inputError("y", nil, "every observation is 0, so there is no estimate to start from")
	}
	var svd mat.SVD
	if !svd.Factorize(w, mat.SVDNone) {
		return Factors{}, errConvexSVD
	}
	spec := svd.Values(nil)[0]
	mu := 1.25 / spec
	muMax := 1e7 * mu
	// Λ starts at y / J(y), J(y) = max(||y||_2, ||y||_∞/λ): dual feasible,
	// as Lin, Chen and Ma start it.
	inf := 0.0
	for _, v := range y {
		inf = max(inf, math.Abs(v))
	}
	s, dual := make([]float64, m), make([]float64, m)
	for k, v := range y {
		dual[k] = v / max(spec, inf/lambda)
	}
	l := mat.NewDense(n1, n2, nil)
	var u, v, uk mat.Dense
	var sv []float64
	last := mu // the μ of the last thresholding
	for it := 0; it < convexIters; it++ {
		if err := ctx.Err(); err != nil {
			return Factors{}, err
		}
		// L = D_{1/μ}(W), singular value thresholding, where W is
		// y - S + Λ/μ on the entries and the last L elsewhere.
		w.Copy(l)
		for i := range n1 {
			for k := e.start[i]; k < e.start[i+1]; k++ {
				raw.Data[at(i, k)] = y[k] - s[k] + dual[k]/mu
			}
		}
		if !svd.Factorize(w, mat.SVDThin) {
			return Factors{}, errConvexSVD
		}
		sv = svd.Values(sv)
		kept := 0
		for kept < len(sv) && sv[kept] > 1/mu {
			kept++
		}
		svd.UTo(&u)
		svd.VTo(&v)
		l.Zero()
		if kept > 0 {
			uk.CloneFrom(u.Slice(0, n1, 0, kept))
			for j := range kept {
				col := uk.ColView(j).(*mat.VecDense)
				col.ScaleVec(sv[j]-1/mu, col)
			}
			l.Mul(&uk, v.Slice(0, n2, 0, kept).T())
		}
		// S = shrink_{λ/μ}(y - L + Λ/μ) and Λ += μ (y - L - S), on the
		// entries.
		lr := l.RawMatrix()
		var res2 float64 // ||y - L - S||² on the entries
		for i := range n1 {
			for k := e.start[i]; k < e.start[i+1]; k++ {
				z := y[k] - lr.Data[i*lr.Stride+int(e.cols[k])]
				x := z + dual[k]/mu
				s[k] = math.Copysign(max(math.Abs(x)-lambda/mu, 0), x)
				dual[k] += mu * (z - s[k])
				res2 += (z - s[k]) * (z - s[k])
			}
		}
		last, mu = mu, min(mu*convexGrowth, muMax)
		if math.Sqrt(res2) <= convexTol*ynorm {
			break
		}
	}
	// The top r singular pairs of the last L, balanced; a direction of W
	// that L lacks keeps W's singular value.
	f := Factors{L: mat.DenseCopyOf(u.Slice(0, n1, 0, r)), R: mat.DenseCopyOf(v.Slice(0, n2, 0, r))}
	for j := range r {
		sigma := sv[j] - 1/last
		if !(sigma > 0) {
			sigma = sv[j]
		}
		if !(sigma > 0) {
			return Factors{}, inputError("rank", r, "the convex estimate has rank %d below it", j)
		}
		root := math.Sqrt(sigma)
		for _, g := range []*mat.Dense{f.L, f.R} {
			col := g.ColView(j).(*mat.VecDense)
			col.ScaleVec(root, col)
		}
	}
	return f, nil
}
