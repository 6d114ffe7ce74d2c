package scaledsm

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// MedianTrim, passed as a trim fraction to Spectral, Trimmed or
// Settings.InitTrim, selects the truncation that needs no outlier fraction:
// drop the observations with |y_i| > 3·median|y|.
//
// Clean observations seldom exceed three times their median magnitude (4%
// of Gaussian ones do, 5 to 11% of the heavier-tailed ones of quadratic
// sampling), while gross outliers mostly do; with a fraction p_s of
// outliers the median moves up a little and the rule drops about p_s·m
// observations. Measured on the paper's recipe (κ = 5 and 10, p_s = 0 to
// 0.3), the spectral initialization from it lands within 0.1 in relative
// error of the one that knows p_s for sensing, and within 0.25 for
// quadratic sampling, whose spectral initializations sit near relative
// error 1 either way; the iterations that follow differ by about 10%.
const MedianTrim = -1.0

// medianMultiple is the multiple of median|y| above which MedianTrim drops
// an observation.
const medianMultiple = 3

// validTrim reports whether trim is a trim fraction in [0, 0.5) or
// MedianTrim.
func validTrim(trim float64) bool {
	return trim == MedianTrim || trim >= 0 && trim < 0.5
}

// Spectral returns the truncated spectral initialization of Section 4 for
// rank r: it drops the ceil(trim·m) observations of largest magnitude (or,
// for trim = MedianTrim, those above 3·median|y|), forms the spectral
// estimate of X* from the rest (the index set I), and factors its best
// rank-r approximation. With trim = 0 it is the plain spectral method.
//
// For matrix sensing the estimate is Σ_{i∈I} y_i A_i / |I| in the unscaled
// convention y_i = <A_i, X>, and L = U Σ^{1/2}, R = V Σ^{1/2} from its top-r
// singular triplets. For quadratic sampling (a symmetric operator) it is
// (Σ_{i∈I} y_i a_i a_iᵀ - (Σ_{i∈I} y_i) I) / (2|I|), whose expectation is X
// for Gaussian a_i, and L = U Λ^{1/2} from its top-r eigenpairs (negative
// eigenvalues clipped to 0); R is then nil. Both estimates assume Gaussian
// measurements, as in the paper.
func Spectral(op Operator, y []float64, r int, trim float64) (L, R *mat.Dense, err error) {
	m, n1, n2 := op.Dims()
	if len(y) != m {
		return nil, nil, fmt.Errorf("scaledsm: spectral initialization: y has length %d, want m = %d", len(y), m)
	}
	if r < 1 || r > min(n1, n2) {
		return nil, nil, fmt.Errorf("scaledsm: spectral initialization: rank %d must lie in [1, %d]", r, min(n1, n2))
	}
	if !validTrim(trim) {
		return nil, nil, fmt.Errorf("scaledsm: spectral initialization: trim %v must lie in [0, 0.5) or be MedianTrim", trim)
	}
	kept := Trimmed(y, trim)
	if len(kept) == 0 {
		return nil, nil, errors.New("scaledsm: spectral initialization: no observation left after trimming")
	}
	v := make([]float64, m)
	var sum float64
	for _, i := range kept {
		v[i] = y[i]
		sum += y[i]
	}
	est := mat.NewDense(n1, n2, nil)
	op.Adjoint(est, v)
	// A*(v) carries a 1/m and so does each y_i: the unscaled sum
	// Σ y_i A_i is m²·A*(v) in the operator's convention.
	fm, k := float64(m), float64(len(kept))
	if !op.Symmetric() {
		est.Scale(fm*fm/k, est)
		return topSingular(est, r)
	}
	est.Scale(fm*fm, est)
	for i := range n1 {
		est.Set(i, i, est.At(i, i)-fm*sum)
	}
	est.Scale(1/(2*k), est)
	L, err = topEigen(est, r)
	return L, nil, err
}

// Trimmed returns the indices of y that remain after dropping the
// ceil(trim·m) entries of largest magnitude, in increasing order. Ties in
// magnitude are broken by index, so the set is always the same. For
// trim = MedianTrim it drops the entries with |y_i| > 3·median|y| instead,
// none when the median is 0.
func Trimmed(y []float64, trim float64) []int {
	m := len(y)
	if trim == MedianTrim {
		return medianTrimmed(y)
	}
	drop := int(math.Ceil(trim*float64(m) - 1e-9))
	drop = max(0, min(drop, m))
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return math.Abs(y[idx[a]]) < math.Abs(y[idx[b]])
	})
	kept := idx[:m-drop]
	sort.Ints(kept)
	return kept
}

// medianTrimmed returns the indices i of y with |y_i| <= 3·median|y|, all of
// them when the median is 0. The median of an even number of magnitudes is
// the mean of the middle two.
func medianTrimmed(y []float64) []int {
	m := len(y)
	if m == 0 {
		return nil
	}
	abs := make([]float64, m)
	for i, v := range y {
		abs[i] = math.Abs(v)
	}
	sort.Float64s(abs)
	med := abs[m/2]
	if m%2 == 0 {
		med = (abs[m/2-1] + abs[m/2]) / 2
	}
	kept := make([]int, 0, m)
	for i, v := range y {
		if med == 0 || math.Abs(v) <= medianMultiple*med {
			kept = append(kept, i)
		}
	}
	return kept
}

func topSingular(a *mat.Dense, r int) (L, R *mat.Dense, err error) {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return nil, nil, errors.New("scaledsm: spectral initialization: SVD did not converge")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	s := svd.Values(nil)
	n1, _ := a.Dims()
	_, n2 := a.Dims()
	L = mat.NewDense(n1, r, nil)
	R = mat.NewDense(n2, r, nil)
	for k := range r {
		c := math.Sqrt(s[k])
		for i := range n1 {
			L.Set(i, k, u.At(i, k)*c)
		}
		for i := range n2 {
			R.Set(i, k, v.At(i, k)*c)
		}
	}
	return L, R, nil
}

func topEigen(a *mat.Dense, r int) (*mat.Dense, error) {
	n, _ := a.Dims()
	sym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, errors.New("scaledsm: spectral initialization: eigendecomposition did not converge")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	L := mat.NewDense(n, r, nil)
	for k := range r {
		src := n - 1 - k
		c := math.Sqrt(max(vals[src], 0))
		for i := range n {
			L.Set(i, k, vecs.At(i, src)*c)
		}
	}
	return L, nil
}
