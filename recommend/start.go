package recommend

import (
	"math"

	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
	"gonum.org/v1/gonum/mat"
)

// The spectral start: the chain does not start from small random factors,
// from which its sweeps take some fifty sweeps on 10^6 ratings to find the
// low-rank structure (the residuals' leading singular vectors grow out of
// noise as under a power iteration), but from that structure, estimated
// from the ratings' residuals by a randomized range finder (Halko,
// Martinsson and Tropp 2011) with startPower power iterations and
// startOversample extra columns: a few products with the ratings, each
// the cost of half a sweep.
const (
	startPower      = 1
	startOversample = 5
	startShrink     = 5 // the pseudo-count of the start's biases
)

// start sets the sampler's biases to shrunk means of the ratings'
// residuals (the users' first, then the items' from them) and its factors
// to the spectral estimate of what the biases leave.
func (s *sampler) start() {
	t, d, k := s.t, s.d, s.k
	bias := func(x []float64, n int, start []int, idx index, vals stored, other []float64) {
		s.ownRows(n, func(r int) {
			var sum float64
			cnt := 0
			for e := start[r]; e < start[r+1]; e++ {
				if y := vals.at(e); y == y {
					sum += float64(y) - t.mean - other[int(idx.at(e))*d+k]
					cnt++
				}
			}
			x[r*d+k] = sum / float64(cnt+startShrink)
		})
		t.share(x, n, d)
	}
	clear(s.u)
	clear(s.v)
	bias(s.u, t.n1, t.uStart, t.uItem, t.y, s.v)
	bias(s.v, t.n2, t.iStart, t.iUser, t.iy, s.u)
	s.spectral(0, streamStart)
}

// warmSweeps penalized sweeps (ALS-WR's, penalty warmLambda) lead the
// Bayesian chain from its start and from each growth of its rank (trialWarm
// where the grown rank's sweeps cost much): from the
// spectral start alone, the chain's learned prior can hold rows it has
// drawn small near zero for hundreds of sweeps (a held-out generator's
// clusters: validation RMSE 1.98 at rank 5 after 44 sweeps, where ALS-WR
// reaches 1.74 in 11; 1.52 at the end with these sweeps, 1.65 without, in
// a quarter of the time). A light penalty: 0.1 held the new dimensions of
// Jester's shape at zero after a growth, as the prior had held the start.
const (
	warmSweeps = 3
	warmLambda = 0.03
)

// warm makes the given number of penalized sweeps of the sampler's rows
// (warmSweeps but for a costly trial of a rank, see trialWarm): no draws,
// each row moved to its minimizer of the penalized least squares, so that
// the rows the Bayesian sweeps start from carry the ratings' structure.
func (s *sampler) warm(sweeps int) {
	noise, lambda := s.noise, s.lambda
	s.noise, s.lambda = false, warmLambda
	for range sweeps {
		s.sweep(0) // no draws: the sweep's number seeds nothing
	}
	s.noise, s.lambda = noise, lambda
}

// spectral sets the factor dimensions [k0, k) of the rows to the leading
// singular triplets of the residuals of the ratings fitted (the ratings
// less the mean, the biases and the dimensions below k0), scaled by the
// fraction of the pairs rated, split evenly between the two sides; its
// random matrix is drawn from the stream of kind.
func (s *sampler) spectral(k0, kind int) {
	t, d, k := s.t, s.d, s.k
	want := k - k0
	if want <= 0 {
		return
	}
	l := min(want+startOversample, t.n1, t.n2)
	// residual returns the residual of a rating, 0 for one held out.
	residual := func(y float32, xu, xi []float64) float64 {
		if y != y {
			return 0
		}
		return float64(y) - t.mean - xu[k] - xi[k] - dot(xu[:k0], xi[:k0])
	}
	// times sets out (n×l) to the residuals (rows of this side, in the
	// order of start, idx and vals) times in (the other side's n'×l).
	// A row's residuals are made first, then added four columns a vector
	// (kernel.AxpyGather, the loop's bits).
	times := func(out []float64, n int, start []int, idx index, vals stored, x, other, in []float64) {
		s.ownRows(n, func(r int) {
			sc := s.pool.Get().(*rowScratch)
			defer s.pool.Put(sc)
			lo, hi := start[r], start[r+1]
			sc.grow(hi-lo, 0)
			res, xr, ix := sc.res[:hi-lo], x[r*d:r*d+d], idx.slice(lo, hi, &sc.idx)
			for e := lo; e < hi; e++ {
				res[e-lo] = residual(vals.at(e), xr, other[int(ix[e-lo])*d:][:d])
			}
			o := out[r*l : r*l+l]
			clear(o)
			kernel.AxpyGather(o, res, ix, in, l)
		})
		t.share(out, n, l)
	}
	// users' side: E B, items': Eᵀ Q (E the residuals, n1×n2).
	ub := func(out, in []float64) { times(out, t.n1, t.uStart, t.uItem, t.y, s.u, s.v, in) }
	ib := func(out, in []float64) { times(out, t.n2, t.iStart, t.iUser, t.iy, s.v, s.u, in) }
	if t.red == nil {
		// Alone, the items' product runs in the users' order, in which
		// each item's ratings are listed: the same sums in the same order,
		// reading the users' rows in turn rather than at random.
		ib = func(out, in []float64) {
			clear(out)
			rowRanges(t.iStart, scanParts(s.workers, t.m, 1<<16), func(lo, hi int32) {
				var res []float64 // a user's residuals of this core's items
				var own []int32   // and the items
				for u := range t.n1 {
					res, own = res[:0], own[:0]
					xu := s.u[u*d : u*d+d]
					for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
						if i := t.uItem.at(p); i >= lo && i < hi {
							res = append(res, residual(t.y.at(p), s.v[int(i)*d:][:d], xu))
							own = append(own, i)
						}
					}
					kernel.AxpyScatter(out, res, own, in[u*l:u*l+l], l)
				}
			})
		}
	}
	omega := make([]float64, t.n2*l)
	st := newStream()
	st.seed(s.seed, k0, kind, 2)
	for i := range omega {
		omega[i] = st.rng.NormFloat64()
	}
	q := t.rows(t.n1, l)
	b := omega
	for it := 0; it <= startPower; it++ {
		ub(q, b)
		orthonormalize(q, t.n1, l)
		if it == 0 {
			b = t.rows(t.n2, l)
		}
		ib(b, q)
	}
	// E ≈ Q Bᵀ, B = W S Zᵀ: E ≈ (Q Z) S Wᵀ.
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(t.n2, l, b), mat.SVDThin) {
		return
	}
	var w, z mat.Dense
	svd.UTo(&w)
	svd.VTo(&z)
	sv := svd.Values(nil)
	f := make([]float64, want)
	for j := range want {
		f[j] = math.Sqrt(sv[j])
		for i := range t.n2 {
			s.v[i*d+k0+j] = w.At(i, j) * f[j]
		}
	}
	// Q Z is made a user's row at a time into its row, not as a matrix
	// beside Q (at 10^8 ratings and rank 20, 73 MB at the peak).
	timesCols(q, t.n1, l, &z, want, s.workers, func(u, j int, v float64) { s.u[u*d+k0+j] = v * f[j] })
	s.fitScale(k0)
}

// timesCols calls set(r, j, (X Z)_rj) for each row r of X (n×l,
// row-major, in x) and each of Z's first cols columns, on workers cores:
// each entry's terms added in the order in which gonum's Dgemm (what
// mat.Dense's Mul runs) adds them, an exact zero's skipped as it skips
// it, so that the bits are Mul's (where Go rounds the product before the
// sum as gonum's assembly does: amd64 below GOAMD64=v3, as built here).
func timesCols(x []float64, n, l int, z *mat.Dense, cols, workers int, set func(r, j int, v float64)) {
	zr := z.RawMatrix()
	par.Do(workers, n, func(r int) {
		xr := x[r*l : r*l+l]
		for j := range cols {
			var c float64
			for e, v := range xr {
				if v != 0 {
					c += v * zr.Data[e*zr.Stride+j]
				}
			}
			set(r, j, c)
		}
	})
}

// fitScale scales the factor dimensions [k0, k) of the rows by the one
// factor γ that fits the residuals (what the biases and the dimensions
// below k0 leave) best in least squares, √γ on each side: the singular
// values of the sparse residuals are those of the ratings times the
// fraction rated, plus noise, so that neither they nor their quotient by
// the fraction is the right scale on few ratings.
func (s *sampler) fitScale(k0 int) {
	t, d, k := s.t, s.d, s.k
	sums := t.rows(t.n1, 2)
	s.ownRows(t.n1, func(u int) {
		xu := s.u[u*d : u*d+d]
		var num, den float64
		for e := t.uStart[u]; e < t.uStart[u+1]; e++ {
			y := t.y.at(e)
			if y != y {
				continue
			}
			xi := s.v[int(t.uItem.at(e))*d:][:d]
			f := dot(xu[k0:k], xi[k0:k])
			r := float64(y) - t.mean - xu[k] - xi[k] - dot(xu[:k0], xi[:k0])
			num += f * r
			den += f * f
		}
		sums[2*u], sums[2*u+1] = num, den
	})
	t.share(sums, t.n1, 2)
	var num, den float64
	for u := range t.n1 {
		num += sums[2*u]
		den += sums[2*u+1]
	}
	g := 0.0
	if den > 0 && num > 0 {
		g = math.Sqrt(num / den)
	}
	for _, x := range [][]float64{s.u, s.v} {
		for r := 0; r < len(x); r += d {
			for j := k0; j < k; j++ {
				x[r+j] *= g
			}
		}
	}
}

// ownRows calls f on the cores for each of this rank's rows of n (users or
// items; all of them alone).
func (s *sampler) ownRows(n int, f func(r int)) {
	first, last := s.t.part(s.t.rank(), n)
	par.Do(s.workers, last-first, func(j int) { f(first + j) })
}

// orthonormalize replaces the n×l row-major matrix a (n >= l) by the Q of
// its thin QR factorization, in place.
func orthonormalize(a []float64, n, l int) { thinQR(mat.NewDense(n, l, a)) }
