package scaledsm

import (
	"math"
)

// stepGuard is the largest ratio of the second-order term of an update to
// its first-order term that a step may make (see guard).
const stepGuard = 1

// guard shortens the step η of a rule sized by a gap estimate (Polyak,
// Auto; a geometric or constant step is the caller's to choose) so that the update of the product,
//
//	X_{t+1} = X_t - η (DL Rᵀ + L DRᵀ) + η² DL DRᵀ,
//
// moves no more by its second-order term than by its first-order one:
// η ||DL DRᵀ||_F <= stepGuard · ||DL Rᵀ + L DRᵀ||_F. Polyak's and the
// automatic steps are sized for the first-order term, which is all that
// matters near X*; from a small start, where the factors are tiny and
// their preconditioned directions huge, the second-order term would throw
// the iterate far away. Under the guard, the iterate instead grows
// geometrically until it reaches the scale of the data. Both norms are
// measured from the factors (see lowRank), in O((n1 + n2) r²), and are
// invariant to L Q, R Q^{-T}, as ScaledSM is.
func (u *run) guard(eta float64) float64 {
	dl, dr, l, r := u.dl, u.dr, u.l, u.r
	if u.sym {
		dr, r = dl, l
	}
	quad := u.lr.size(Factors{L: dl, R: dr})
	if !(quad > 0) || math.IsInf(quad, 0) {
		return eta
	}
	n1, k := l.Dims()
	n2, _ := r.Dims()
	// [DL, L] [R, DR]ᵀ = DL Rᵀ + L DRᵀ.
	lin := u.lr.norm(n1, n2, 2*k, side{dl, l, 1}, side{r, dr, 1})
	if limit := stepGuard * lin / quad; eta > limit {
		return limit
	}
	return eta
}
