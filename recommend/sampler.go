package recommend

import (
	"math"
	"sync"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
)

// sampler fits r_ui ≈ mean + b_u + c_i + L_u·R_i by sweeps over the users
// and the items. A sweep moves each user's row x_u = [L_u, b_u] by one
// scaled step of the negative log posterior F: the step preconditioned by
// the row's own block of the Hessian,
//
//	H_u = α Σ_{i rated by u} w_ui z_i z_iᵀ + Λ,    z_i = [R_i, 1],
//
// that is x_u ← x_u − H_u⁻¹ ∇_u F. This is the scaled method of the
// package scaledsm with a preconditioner per row, (R_Ωᵀ W R_Ω + Λ)⁻¹ in
// place of (RᵀR)⁻¹, which for a row with few ratings is the one that
// counts; on the quadratic model of a row the step is exact. Then each
// item's row, from the users' new rows.
//
// With noise (the Bayesian fit, the default), each step adds a draw of
// N(0, H_u⁻¹), so that the sweeps sample the posterior (a Gibbs sampler
// of Bayesian PMF, Salakhutdinov and Mnih 2008), and the fit averages the
// predictions of the sweeps after a burn-in; the prior precision Λ, the
// noise precision α and the weights w are drawn too, so that the
// regularization and the robustness are learned from the data. Without
// noise it is a penalized fit (alternating least squares, ALS-WR's
// penalty λ n_u on a row of n_u ratings).
//
// The weights make the loss robust: each rating's residual e has the
// Student-t likelihood of ν degrees of freedom, a Gaussian of precision
// α w with w ~ Gamma(ν/2, ν/2), so a rating far from the fit gets a small
// weight (w = (ν+1)/(ν + α e²) on average) instead of pulling the fit
// toward it as least squares does.
type sampler struct {
	t     *table
	k, d  int       // rank, and rank + 1 (the bias)
	u, v  []float64 // rows of users and items, [factor, bias], n1×d and n2×d
	w     []float64 // the weight of each rating, user by user
	alpha float64   // the noise precision
	nu    float64   // degrees of freedom of the likelihood; +Inf: Gaussian
	pu    prior     // the prior of the users' rows
	pv    prior     // of the items'
	seed  uint64

	noise  bool    // draw (Bayesian) or not (penalized)
	lambda float64 // penalized: the ridge λ n of a row of n ratings

	workers int
	wsq     []float64 // per user: Σ w e² of its ratings
	pool    sync.Pool // *rowScratch
}

// rowScratch is what one goroutine needs to update a row.
type rowScratch struct {
	h, g, hg []float64
	zt       []float64
	off      []int
	s        *stream
}

func newSampler(t *table, k int, nu float64, seed uint64, workers int) *sampler {
	d := k + 1
	s := &sampler{t: t, k: k, d: d, nu: nu, seed: seed, workers: workers, alpha: 1, noise: true,
		u: make([]float64, t.n1*d), v: make([]float64, t.n2*d),
		w: make([]float64, len(t.y)), wsq: make([]float64, t.n1),
		pu: newPrior(d), pv: newPrior(d)}
	for i := range s.w {
		s.w[i] = 1
	}
	s.pool.New = func() any {
		return &rowScratch{h: make([]float64, d*d), g: make([]float64, d), hg: make([]float64, d*(d+1)), s: newStream()}
	}
	// A small random start: factors of scale 0.1, biases 0.
	st := newStream()
	for side, x := range [][]float64{s.u, s.v} {
		st.seed(seed, 0, streamStart, side)
		for i := range x {
			if i%d != k {
				x[i] = 0.1 * st.rng.NormFloat64()
			}
		}
	}
	return s
}

// blockRows is the number of rows a goroutine takes at a time.
const blockRows = 8

// sweep makes sweep number n: the priors, the users, the priors, the
// items, then the weights and the noise precision.
func (s *sampler) sweep(n int) {
	t := s.t
	st := newStream()
	if s.noise {
		st.seed(s.seed, n, streamHyperUser, 0)
		drawPrior(&s.pu, s.u, t.n1, s.d, st.rng)
	}
	s.rows(n, streamUser, s.u, t.n1, t.uStart, t.uItem, nil, s.v, &s.pu)
	if s.noise {
		st.seed(s.seed, n, streamHyperItem, 0)
		drawPrior(&s.pv, s.v, t.n2, s.d, st.rng)
	}
	s.rows(n, streamItem, s.v, t.n2, t.iStart, t.iUser, t.iPerm, s.u, &s.pv)
	s.weigh(n)
}

// rows updates the n rows of x (users or items) from the rows of other,
// the start offsets and the other side's index of each rating, and perm,
// the user-order position of each rating (nil for the users).
func (s *sampler) rows(sweep, kind int, x []float64, n int, start []int, idx []int32, perm []int32, other []float64, p *prior) {
	d, k := s.d, s.k
	par.Do(s.workers, (n+blockRows-1)/blockRows, func(b int) {
		sc := s.pool.Get().(*rowScratch)
		defer s.pool.Put(sc)
		h, g := sc.h, sc.g
		for r := b * blockRows; r < min(n, (b+1)*blockRows); r++ {
			lo, hi := start[r], start[r+1]
			nr := hi - lo
			// The row's ratings as columns, each scaled by √(α w_e):
			// zt's first d rows hold √(α w_e) z_e with z_e = [factor, 1],
			// its last √(α w_e) t_e with t_e the rating less the other
			// side's bias; then [H | g] = zt[:d] ztᵀ in one small product.
			if cap(sc.zt) < (d+1)*nr {
				sc.zt = make([]float64, (d+1)*nr)
				sc.off = make([]int, nr)
			}
			zt, off := sc.zt[:(d+1)*nr], sc.off[:nr]
			sws, ts := zt[k*nr:d*nr], zt[d*nr:(d+1)*nr]
			for e := range off {
				q := lo + e
				pos := q
				if perm != nil {
					pos = int(perm[q])
				}
				o := int(idx[q]) * d
				off[e] = o
				sw := math.Sqrt(s.alpha * s.w[pos])
				sws[e] = sw
				ts[e] = sw * (s.t.y[pos] - other[o+k])
			}
			for e, o := range off {
				sw, z := sws[e], other[o:o+k]
				for a, v := range z {
					zt[a*nr+e] = sw * v
				}
			}
			hg := sc.hg
			kernel.DotBatch(hg, d+1, zt, nr, d, nr, zt, nr, d+1)
			for a := range d {
				copy(h[a*d:a*d+d], hg[a*(d+1):a*(d+1)+d])
				g[a] = hg[a*(d+1)+d]
			}
			if s.noise {
				for i, v := range p.lam {
					h[i] += v
				}
				for a, v := range p.lmu {
					g[a] += v
				}
			} else {
				reg := s.lambda * float64(max(nr, 1))
				for a := range d {
					h[a*d+a] += reg
				}
			}
			row := x[r*d : r*d+d]
			if !cholesky(h, d) {
				continue // cannot happen with Λ positive definite; keep the row
			}
			forward(h, d, g)
			if s.noise {
				// Cᵀ x = z + ξ gives the mean H⁻¹ g plus a draw of
				// N(0, H⁻¹).
				sc.s.seed(s.seed, sweep, kind, r)
				for a := range d {
					g[a] += sc.s.rng.NormFloat64()
				}
			}
			backward(h, d, g)
			copy(row, g)
		}
	})
}

// weigh computes the residuals of the current rows, draws (or, for the
// penalized fit, sets) the weights of the robust likelihood, and the noise
// precision.
func (s *sampler) weigh(sweep int) {
	t, d, k := s.t, s.d, s.k
	robust := !math.IsInf(s.nu, 1)
	par.Do(s.workers, (t.n1+blockRows-1)/blockRows, func(b int) {
		sc := s.pool.Get().(*rowScratch)
		defer s.pool.Put(sc)
		for u := b * blockRows; u < min(t.n1, (b+1)*blockRows); u++ {
			xu := s.u[u*d : u*d+d]
			if robust && s.noise {
				sc.s.seed(s.seed, sweep, streamWeights, u)
			}
			var sum float64
			for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
				z := s.v[int(t.uItem[p])*d:]
				e := t.y[p] - dot(xu[:k], z) - xu[k] - z[k]
				if robust {
					q := s.nu + s.alpha*e*e
					if s.noise {
						s.w[p] = gamma(sc.s.rng, (s.nu+1)/2) * 2 / q
					} else {
						s.w[p] = (s.nu + 1) / q
					}
				}
				sum += s.w[p] * e * e
			}
			s.wsq[u] = sum
		}
	})
	ss := fsum.Of(s.wsq)
	m := float64(len(t.y))
	if s.noise {
		st := newStream()
		st.seed(s.seed, sweep, streamNoise, 0)
		// α ~ Gamma(1 + m/2, rate 1 + Σ w e²/2).
		s.alpha = gamma(st.rng, 1+m/2) / (1 + ss/2)
	}
}

// predict returns the prediction of the current rows for user u and item
// i, without the mean.
func (s *sampler) predict(u, i int) float64 {
	d, k := s.d, s.k
	xu, xi := s.u[u*d:u*d+d], s.v[i*d:i*d+d]
	return dot(xu[:k], xi[:k]) + xu[k] + xi[k]
}

// warm starts s from the rows of o, a chain of the same or a lower rank
// (on the ratings held out of the selection, then on all the ratings):
// each row takes o's factors (its first columns) and bias, from o's row
// at[r] (r itself when at is nil; none when at[r] < 0), and the noise
// precision and, on the same table, the weights carry over. The columns
// o lacks keep their small random start.
func (s *sampler) warm(o *sampler, users, items []int32) {
	copyRows := func(dst, src []float64, n int, at []int32) {
		kk := min(s.k, o.k)
		for r := range n {
			q := r
			if at != nil {
				q = int(at[r])
			}
			if q < 0 {
				continue
			}
			row, from := dst[r*s.d:r*s.d+s.d], src[q*o.d:q*o.d+o.d]
			copy(row[:kk], from[:kk])
			row[s.k] = from[o.k]
		}
	}
	copyRows(s.u, o.u, s.t.n1, users)
	copyRows(s.v, o.v, s.t.n2, items)
	s.alpha = o.alpha
	if s.t == o.t {
		copy(s.w, o.w)
	}
}
