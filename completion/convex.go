package completion

import (
	"context"
	"errors"
	"math"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/inputerr"
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
func (e *Entries) Convex(ctx context.Context, y []float64, r int) (scaledsm.Factors, error) {
	if err := e.convexFits(y, r); err != nil {
		return scaledsm.Factors{}, err
	}
	a, err := e.newALM(y)
	if err != nil {
		return scaledsm.Factors{}, err
	}
	for it := 0; it < convexIters; it++ {
		if err := ctx.Err(); err != nil {
			return scaledsm.Factors{}, err
		}
		if err := a.threshold(); err != nil {
			return scaledsm.Factors{}, err
		}
		res2 := a.shrink()
		a.last, a.mu = a.mu, min(a.mu*convexGrowth, a.muMax)
		if math.Sqrt(res2) <= convexTol*a.ynorm {
			break
		}
	}
	return a.factors(r)
}

// convexFits checks that Convex can start the rank-r fit of the
// observations y.
func (e *Entries) convexFits(y []float64, r int) error {
	m, n1, n2 := e.Dims()
	switch {
	case r < 1 || r > min(n1, n2):
		return inputerr.New("rank", r, "must lie in [1, min(n1, n2)] = [1, %d]", min(n1, n2))
	case len(y) != m:
		return inputerr.New("y", nil, "%d observations, want m = %d", len(y), m)
	case e.total != 0 && e.total != m:
		return inputerr.New("init", "convex", "needs the whole problem, not a shard")
	case float64(n1)*float64(n2) > convexEntries || float64(n1)*float64(n2)*float64(min(n1, n2)) > convexWorkMax:
		return inputerr.New("init", "convex", "takes an SVD of the dense %d×%d matrix at each iteration: at most %d entries and n1·n2·min(n1, n2) at most 1e9 (a 1000×1000 matrix)", n1, n2, convexEntries)
	}
	return nil
}

// alm is the state of Convex's inexact augmented Lagrangian iterations:
// the estimate L, the outliers S and the multipliers Λ on the entries, the
// penalty μ (and the last one thresholded with), and W, y - S + Λ/μ on the
// entries and the last L elsewhere, with its SVD.
type alm struct {
	e               *Entries
	y               []float64
	lambda, ynorm   float64
	mu, muMax, last float64
	w, l            *mat.Dense
	s, dual         []float64
	svd             mat.SVD
	u, v, uk        mat.Dense
	sv              []float64
}

// newALM readies the iterations from y: μ from W's top singular value,
// Λ = y / J(y), J(y) = max(||y||_2, ||y||_∞/λ): dual feasible, as Lin,
// Chen and Ma start it.
func (e *Entries) newALM(y []float64) (*alm, error) {
	m, n1, n2 := e.Dims()
	a := &alm{e: e, y: y, w: mat.NewDense(n1, n2, nil), l: mat.NewDense(n1, n2, nil)}
	a.lambda = 1 / math.Sqrt(float64(m)/(float64(n1)*float64(n2))*float64(max(n1, n2)))
	raw := a.w.RawMatrix() // Y on the entries, the estimate L elsewhere
	for i := range n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			raw.Data[i*raw.Stride+int(e.cols[k])] = y[k]
		}
	}
	a.ynorm = floats.Norm(y, 2)
	if !(a.ynorm > 0) {
		return nil, inputerr.New("y", nil, "every observation is 0, so there is no estimate to start from")
	}
	if !a.svd.Factorize(a.w, mat.SVDNone) {
		return nil, errConvexSVD
	}
	spec := a.svd.Values(nil)[0]
	a.mu = 1.25 / spec
	a.muMax = 1e7 * a.mu
	a.last = a.mu // the μ of the last thresholding
	inf := 0.0
	for _, v := range y {
		inf = max(inf, math.Abs(v))
	}
	a.s, a.dual = make([]float64, m), make([]float64, m)
	for k, v := range y {
		a.dual[k] = v / max(spec, inf/a.lambda)
	}
	return a, nil
}

// threshold sets L = D_{1/μ}(W), singular value thresholding, where W is
// y - S + Λ/μ on the entries and the last L elsewhere.
func (a *alm) threshold() error {
	e, y, mu := a.e, a.y, a.mu
	n1, n2 := a.l.Dims()
	a.w.Copy(a.l)
	raw := a.w.RawMatrix()
	for i := range n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			raw.Data[i*raw.Stride+int(e.cols[k])] = y[k] - a.s[k] + a.dual[k]/mu
		}
	}
	if !a.svd.Factorize(a.w, mat.SVDThin) {
		return errConvexSVD
	}
	a.sv = a.svd.Values(a.sv)
	kept := 0
	for kept < len(a.sv) && a.sv[kept] > 1/mu {
		kept++
	}
	a.svd.UTo(&a.u)
	a.svd.VTo(&a.v)
	a.l.Zero()
	if kept > 0 {
		a.uk.CloneFrom(a.u.Slice(0, n1, 0, kept))
		for j := range kept {
			col := a.uk.ColView(j).(*mat.VecDense)
			col.ScaleVec(a.sv[j]-1/mu, col)
		}
		a.l.Mul(&a.uk, a.v.Slice(0, n2, 0, kept).T())
	}
	return nil
}

// shrink sets S = shrink_{λ/μ}(y - L + Λ/μ) and Λ += μ (y - L - S), on
// the entries, and returns ||y - L - S||² on them.
func (a *alm) shrink() float64 {
	e, y, mu := a.e, a.y, a.mu
	n1, _ := a.l.Dims()
	lr := a.l.RawMatrix()
	var res2 float64
	for i := range n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			z := y[k] - lr.Data[i*lr.Stride+int(e.cols[k])]
			x := z + a.dual[k]/mu
			a.s[k] = math.Copysign(max(math.Abs(x)-a.lambda/mu, 0), x)
			a.dual[k] += mu * (z - a.s[k])
			res2 += (z - a.s[k]) * (z - a.s[k])
		}
	}
	return res2
}

// factors returns the top r singular pairs of the last L, balanced; a
// direction of W that L lacks keeps W's singular value.
func (a *alm) factors(r int) (scaledsm.Factors, error) {
	n1, n2 := a.l.Dims()
	f := scaledsm.Factors{L: mat.DenseCopyOf(a.u.Slice(0, n1, 0, r)), R: mat.DenseCopyOf(a.v.Slice(0, n2, 0, r))}
	for j := range r {
		sigma := a.sv[j] - 1/a.last
		if !(sigma > 0) {
			sigma = a.sv[j]
		}
		if !(sigma > 0) {
			return scaledsm.Factors{}, inputerr.New("rank", r, "the convex estimate has rank %d below it", j)
		}
		root := math.Sqrt(sigma)
		for _, g := range []*mat.Dense{f.L, f.R} {
			col := g.ColView(j).(*mat.VecDense)
			col.ScaleVec(root, col)
		}
	}
	return f, nil
}
