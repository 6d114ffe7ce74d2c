package experiment

import (
	"context"
	"math"

	"github.com/scaledsm/scaledsm/internal/order"
	"gonum.org/v1/gonum/mat"
)

// The phase study's references for robust PCA (every entry observed),
// written here independently of the library's methods: principal
// component pursuit by the inexact augmented Lagrangian method, and
// ScaledGD with the per-row and per-column sparse estimate T_α.

// PCP settings: the stopping tolerance on ||Y - L - S||_F / ||Y||_F, the
// iteration limit, and the growth of the penalty μ (Lin, Chen and Ma,
// "The augmented Lagrange multiplier method for exact recovery of
// corrupted low-rank matrices", 2010, Algorithm 5).
const talphaPatience = 200

const (
	pcpTol      = 1e-12
	pcpMaxIter  = 500
	pcpRho      = 1.5
	pcpPatience = 100
)

// PCP solves min ||L||_* + λ||S||_1 subject to L + S = Y, λ = 1/√max(n1,
// n2), by the inexact ALM, to ||Y - L - S||_F <= pcpTol ||Y||_F (or until
// that residual has not fallen tenfold in pcpPatience iterations, or
// pcpMaxIter), and returns L and the iterations made.
func PCP(ctx context.Context, y *mat.Dense) (*mat.Dense, int, error) {
	n1, n2 := y.Dims()
	lambda := 1 / math.Sqrt(float64(max(n1, n2)))
	norm2 := mat.Norm(y, 2) // Frobenius; the spectral norm below
	var svd mat.SVD
	if !svd.Factorize(y, mat.SVDNone) {
		return nil, 0, errSVD
	}
	spec := svd.Values(nil)[0]
	inf := 0.0
	for _, v := range y.RawMatrix().Data {
		inf = max(inf, math.Abs(v))
	}
	dual := mat.DenseCopyOf(y)
	dual.Scale(1/max(spec, inf/lambda), dual)
	mu := 1.25 / spec
	muMax := mu * 1e7
	l, s := mat.NewDense(n1, n2, nil), mat.NewDense(n1, n2, nil)
	work := mat.NewDense(n1, n2, nil)
	var u, v mat.Dense
	var residuals []float64
	for it := 1; it <= pcpMaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, it, err
		}
		// L = D_{1/μ}(Y - S + Λ/μ): singular value thresholding.
		work.Sub(y, s)
		work.Apply(func(i, j int, x float64) float64 { return x + dual.At(i, j)/mu }, work)
		if !svd.Factorize(work, mat.SVDThin) {
			return nil, it, errSVD
		}
		sv := svd.Values(nil)
		k := 0
		for k < len(sv) && sv[k] > 1/mu {
			k++
		}
		l.Zero()
		if k > 0 {
			svd.UTo(&u)
			svd.VTo(&v)
			uk := mat.DenseCopyOf(u.Slice(0, n1, 0, k))
			for j := range k {
				col := mat.Col(nil, j, uk)
				for i := range col {
					uk.Set(i, j, col[i]*(sv[j]-1/mu))
				}
			}
			l.Mul(uk, v.Slice(0, n2, 0, k).T())
		}
		// S = shrink_{λ/μ}(Y - L + Λ/μ).
		s.Apply(func(i, j int, _ float64) float64 {
			x := y.At(i, j) - l.At(i, j) + dual.At(i, j)/mu
			return math.Copysign(max(math.Abs(x)-lambda/mu, 0), x)
		}, s)
		// Λ += μ (Y - L - S), and the primal residual.
		work.Sub(y, l)
		work.Sub(work, s)
		res := mat.Norm(work, 2) / norm2
		work.Scale(mu, work)
		dual.Add(dual, work)
		mu = min(mu*pcpRho, muMax)
		residuals = append(residuals, res)
		if res <= pcpTol || (len(residuals) > pcpPatience && res > 0.1*residuals[len(residuals)-1-pcpPatience]) {
			return l, it, nil // converged, or no tenfold progress in pcpPatience iterations
		}
	}
	return l, pcpMaxIter, nil
}

// ScaledGDTalpha runs ScaledGD for robust PCA with the sparse estimate
// S = T_α(Y - L Rᵀ), which keeps an entry when it is among the ⌈α n2⌉
// largest in magnitude of its row and the ⌈α n1⌉ largest of its column
// (Tong, Ma and Chi, "Accelerating ill-conditioned low-rank matrix
// estimation via scaled gradient descent", 2021, Algorithm 3): the start
// from the top r singular pairs of Y - T_α(Y), then steps of 0.5 until an
// iterate moves by at most tol relative to its size (||X_t - X_{t-1}||_F
// <= tol ||X_{t-1}||_F), or that change has not fallen tenfold in
// talphaPatience iterations (a converging run's falls by orders of
// magnitude), or maxIter. It returns L Rᵀ and the iterations made.
func ScaledGDTalpha(ctx context.Context, y *mat.Dense, r int, alpha, tol float64, maxIter int) (*mat.Dense, int, error) {
	const eta = 0.5
	n1, n2 := y.Dims()
	z := mat.DenseCopyOf(y)
	z.Sub(z, talpha(y, alpha))
	var svd mat.SVD
	if !svd.Factorize(z, mat.SVDThin) {
		return nil, 0, errSVD
	}
	sv := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	lf, rf := mat.NewDense(n1, r, nil), mat.NewDense(n2, r, nil)
	for j := range r {
		c := math.Sqrt(sv[j])
		for i := range n1 {
			lf.Set(i, j, u.At(i, j)*c)
		}
		for i := range n2 {
			rf.Set(i, j, v.At(i, j)*c)
		}
	}
	x, prev := mat.NewDense(n1, n2, nil), mat.NewDense(n1, n2, nil)
	yNorm := mat.Norm(y, 2)
	var g, gl, gr, inv, gram mat.Dense
	var changes []float64
	it := 0
	for ; it < maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, it, err
		}
		x.Mul(lf, rf.T())
		z.Sub(y, x)
		xNorm := mat.Norm(x, 2)
		if !(xNorm < 1e3*yNorm) {
			break // diverged
		}
		if it > 0 {
			ch := relDiff(x, prev, mat.Norm(prev, 2))
			changes = append(changes, ch)
			if ch <= tol || (len(changes) > talphaPatience && ch > 0.1*changes[len(changes)-1-talphaPatience]) {
				break // converged, or no tenfold progress in talphaPatience iterations
			}
		}
		prev.Copy(x)
		// G = L Rᵀ + S - Y = -(Z - T_α(Z)) with Z = Y - L Rᵀ.
		g.Sub(talpha(z, alpha), z)
		gram.Mul(rf.T(), rf)
		if err := inv.Inverse(&gram); err != nil {
			break
		}
		gl.Mul(&g, rf)
		gl.Mul(&gl, &inv)
		gram.Mul(lf.T(), lf)
		if err := inv.Inverse(&gram); err != nil {
			break
		}
		gr.Mul(g.T(), lf)
		gr.Mul(&gr, &inv)
		gl.Scale(eta, &gl)
		gr.Scale(eta, &gr)
		lf.Sub(lf, &gl)
		rf.Sub(rf, &gr)
	}
	x.Mul(lf, rf.T())
	return x, it, nil
}

// talpha returns T_α(z): the entries among the ⌈α n2⌉ largest |z| of their
// row and the ⌈α n1⌉ largest of their column, zero elsewhere.
func talpha(z *mat.Dense, alpha float64) *mat.Dense {
	n1, n2 := z.Dims()
	kr := max(1, int(math.Ceil(alpha*float64(n2))))
	kc := max(1, int(math.Ceil(alpha*float64(n1))))
	zr := z.RawMatrix()
	at := func(i, j int) float64 { return zr.Data[i*zr.Stride+j] }
	rowT, colT := make([]float64, n1), make([]float64, n2)
	buf := make([]float64, max(n1, n2))
	for i := range n1 {
		b := buf[:n2]
		for j := range n2 {
			b[j] = math.Abs(at(i, j))
		}
		rowT[i] = kthLargest(b, kr)
	}
	for j := range n2 {
		b := buf[:n1]
		for i := range n1 {
			b[i] = math.Abs(at(i, j))
		}
		colT[j] = kthLargest(b, kc)
	}
	out := mat.NewDense(n1, n2, nil)
	raw := out.RawMatrix().Data
	for i := range n1 {
		for j := range n2 {
			if v := at(i, j); math.Abs(v) > 0 && math.Abs(v) >= rowT[i] && math.Abs(v) >= colT[j] {
				raw[i*n2+j] = v
			}
		}
	}
	return out
}

// kthLargest returns the k-th largest of v (k from 1), reordering v.
func kthLargest(v []float64, k int) float64 {
	return order.Kth(v, len(v)-min(k, len(v)))
}

// relDiff returns ||x - star||_F / starNorm.
func relDiff(x, star *mat.Dense, starNorm float64) float64 {
	var d mat.Dense
	d.Sub(x, star)
	return mat.Norm(&d, 2) / starNorm
}
