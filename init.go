package scaledsm

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Spectral returns the truncated spectral initialization of Section 4 for
// rank r: it drops the ceil(trim·m) observations of largest magnitude, forms
// the spectral estimate of X* from the rest (the index set I), and factors
// its best rank-r approximation. With trim = 0 it is the plain spectral
// method.
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
	if !(trim >= 0 && trim < 0.5) {
		return nil, nil, fmt.Errorf("scaledsm: spectral initialization: trim %v must lie in [0, 0.5)", trim)
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
// magnitude are broken by index, so the set is always the same.
func Trimmed(y []float64, trim float64) []int {
	m := len(y)
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
