package recommend

import (
	"math"
	"sync"

	"github.com/scaledsm/scaledsm"
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
	t    *table
	k, d int       // rank, and rank + 1 (the bias)
	u, v []float64 // rows of users and items, [factor, bias], n1×d and n2×d
	w    []float32 // the weight of each rating, user by user (0 for one held out)
	wi   []float32 // the same, item by item
	// held marks the ratings held out for validation (a bit each, by
	// position in user order), nil when none; m counts the others.
	held  []uint64
	m     int
	alpha float64 // the noise precision
	nu    float64 // degrees of freedom of the likelihood; +Inf: Gaussian
	pu    prior   // the prior of the users' rows
	pv    prior   // of the items'
	seed  uint64

	noise  bool    // draw (Bayesian) or not (penalized)
	lambda float64 // penalized: the ridge λ n of a row of n ratings

	workers int
	wsq     []float64 // per item: Σ w e² of its ratings
	// red, when not nil, shares the sweeps among the ranks of an MPI job:
	// each makes the rows of its part of the users and of the items, and
	// the rows, the items' weighted residuals and their ratings' weights
	// are gathered after each pass (share). Every rank holds all the
	// ratings and all the rows, and does the rest (the priors, the noise,
	// the validation, the posterior mean) as one process would.
	red  scaledsm.Reducer
	gbuf []float64 // gather buffers
	pool sync.Pool // *rowScratch
}

// rowScratch is what one goroutine needs to update a row.
type rowScratch struct {
	h, g, hg []float64
	acc      []float64 // [H | g] summed over the chunks
	zt       []float64 // a chunk's columns
	off      []int
	s        *stream
}

func newSampler(t *table, k int, nu float64, seed uint64, workers int) *sampler {
	return newSamplerFrom(t, k, nu, seed, workers, nil)
}

// newSamplerFrom is newSampler whose weights are those of last, in the
// same buffers (nil: new ones, all 1): chains one after another share 8
// bytes a rating, and each starts from the weights the last drew.
func newSamplerFrom(t *table, k int, nu float64, seed uint64, workers int, last *sampler) *sampler {
	d := k + 1
	s := &sampler{t: t, k: k, d: d, nu: nu, seed: seed, workers: workers, alpha: 1, noise: true,
		u: make([]float64, t.n1*d), v: make([]float64, t.n2*d),
		wsq: make([]float64, t.n2), m: len(t.y),
		pu: newPrior(d), pv: newPrior(d)}
	if last != nil {
		s.w, s.wi = last.w, last.wi
	} else {
		s.w, s.wi = make([]float32, len(t.y)), make([]float32, len(t.y))
		for i := range s.w {
			s.w[i], s.wi[i] = 1, 1
		}
	}
	s.pool.New = func() any {
		return &rowScratch{h: make([]float64, d*d), g: make([]float64, d), hg: make([]float64, d*(d+1)), acc: make([]float64, d*(d+1)),
			zt: make([]float64, (d+1)*gatherChunk), s: newStream()}
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
	s.rows(n, streamUser, s.u, t.n1, t.uStart, t.uItem, nil, t.y, s.w, s.v, &s.pu)
	s.share(s.u, t.n1, s.d)
	if s.noise {
		st.seed(s.seed, n, streamHyperItem, 0)
		drawPrior(&s.pv, s.v, t.n2, s.d, st.rng)
	}
	s.rows(n, streamItem, s.v, t.n2, t.iStart, t.iUser, t.iPerm, t.iy, s.wi, s.u, &s.pv)
	s.share(s.v, t.n2, s.d)
	s.share(s.wsq, t.n2, 1)
	s.shareWeights()
	s.drawNoise(n)
}

// gatherChunk is the most ratings of a row gathered at a time: their
// columns (rank+2 of them, 8 bytes each) stay in the first-level cache.
const gatherChunk = 256

// rows updates the n rows of x (users or items) from the rows of other,
// the start offsets, the other side's index, the value and the weight of
// each rating in this pass's order, and perm, the user-order position of
// each rating (nil for the users).
func (s *sampler) rows(sweep, kind int, x []float64, n int, start []int, idx []int32, perm []int32, vals, w []float32, other []float64, p *prior) {
	d, k := s.d, s.k
	first, last := s.part(s.rank(), n)
	par.Do(s.workers, (last-first+blockRows-1)/blockRows, func(b int) {
		sc := s.pool.Get().(*rowScratch)
		defer s.pool.Put(sc)
		h, g := sc.h, sc.g
		for r := first + b*blockRows; r < min(last, first+(b+1)*blockRows); r++ {
			lo, hi := start[r], start[r+1]
			nr := hi - lo
			if cap(sc.off) < nr {
				sc.off = make([]int, nr)
			}
			off := sc.off[:nr]
			// [H | g] = Σ_e α w_e z_e [z_e, t_e]ᵀ with z_e = [factor, 1]
			// and t_e the rating less the other side's bias, summed over
			// chunks of the row's ratings: in each, zt holds the columns
			// √(α w_e) z_e (d rows) and √(α w_e) t_e (the last row), and
			// the chunk adds zt[:d] ztᵀ, one small product.
			clear(sc.acc)
			fitted := 0 // the row's ratings not held out
			for c0 := 0; c0 < nr; c0 += gatherChunk {
				c1 := min(nr, c0+gatherChunk)
				m := c1 - c0
				// The next chunk's rows, this row's or the next one's,
				// are fetched while this chunk is gathered.
				if c1 < nr {
					kernel.PrefetchRows(other, idx[lo+c1:lo+min(nr, c1+gatherChunk)], d, d)
				} else if r+1 < n {
					kernel.PrefetchRows(other, idx[hi:min(start[r+2], hi+gatherChunk)], d, d)
				}
				zt := sc.zt[:(d+1)*m]
				sws, ts := zt[k*m:d*m], zt[d*m:(d+1)*m]
				for e := range m {
					q := lo + c0 + e
					o := int(idx[q]) * d
					off[c0+e] = o
					we := float64(w[q]) // 0 for a rating held out
					if we > 0 {
						fitted++
					}
					sw := math.Sqrt(s.alpha * we)
					sws[e] = sw
					ts[e] = sw * (float64(vals[q]) - s.t.mean - other[o+k])
					for a, v := range other[o : o+k] {
						zt[a*m+e] = sw * v
					}
				}
				kernel.DotBatch(sc.hg, d+1, zt, m, d, m, zt, m, d+1)
				for i, v := range sc.hg {
					sc.acc[i] += v
				}
			}
			for a := range d {
				copy(h[a*d:a*d+d], sc.acc[a*(d+1):a*(d+1)+d])
				g[a] = sc.acc[a*(d+1)+d]
			}
			if s.noise {
				for i, v := range p.lam {
					h[i] += v
				}
				for a, v := range p.lmu {
					g[a] += v
				}
			} else {
				reg := s.lambda * float64(max(fitted, 1))
				for a := range d {
					h[a*d+a] += reg
				}
			}
			row := x[r*d : r*d+d]
			// Not positive definite cannot happen with Λ positive
			// definite: the row is kept.
			if cholesky(h, d) {
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
			if perm != nil {
				s.wsq[r] = s.reweigh(sweep, r, row, off, perm[lo:hi], vals[lo:hi], w[lo:hi], other, sc)
			}
		}
	})
}

// reweigh computes, after item r's row has moved in the last half of a
// sweep, the residuals e of its ratings (at the user-order positions pos,
// their values vals, the users' rows at the offsets off of other), draws (or, for the
// penalized fit, sets) the weights of the robust likelihood, and returns
// Σ w e². Done as the item's row is made, while the users' rows it rated
// are in cache, it saves a pass over the ratings.
func (s *sampler) reweigh(sweep, r int, row []float64, off []int, pos []int32, vals, w []float32, other []float64, sc *rowScratch) float64 {
	k := s.k
	robust := !math.IsInf(s.nu, 1)
	if robust && s.noise {
		sc.s.seed(s.seed, sweep, streamWeights, r)
	}
	var sum float64
	for e, o := range off {
		if w[e] == 0 { // held out
			continue
		}
		z := other[o : o+k+1]
		res := float64(vals[e]) - s.t.mean - dot(row[:k], z) - row[k] - z[k]
		if robust {
			q := s.nu + s.alpha*res*res
			if s.noise {
				w[e] = float32(gamma(sc.s.rng, (s.nu+1)/2) * 2 / q)
			} else {
				w[e] = float32((s.nu + 1) / q)
			}
			s.w[pos[e]] = w[e]
		}
		sum += float64(w[e]) * res * res
	}
	return sum
}

// drawNoise draws the noise precision from the weighted residuals of the
// sweep's items, α ~ Gamma(1 + m/2, rate 1 + Σ w e²/2), m the ratings
// fitted.
func (s *sampler) drawNoise(sweep int) {
	if !s.noise {
		return
	}
	ss := fsum.Of(s.wsq[:s.t.n2])
	st := newStream()
	st.seed(s.seed, sweep, streamNoise, 0)
	s.alpha = gamma(st.rng, 1+float64(s.m)/2) / (1 + ss/2)
}

// predict returns the prediction of the current rows for user u and item
// i, without the mean.
func (s *sampler) predict(u, i int) float64 {
	d, k := s.d, s.k
	xu, xi := s.u[u*d:u*d+d], s.v[i*d:i*d+d]
	return dot(xu[:k], xi[:k]) + xu[k] + xi[k]
}

// hold holds out the ratings at the positions held (a bit each, in user
// order) of n: their weights are 0, and the sweeps neither fit them nor
// draw their weights.
func (s *sampler) hold(held []uint64, n int) {
	s.held, s.m = held, len(s.t.y)-n
	s.setHeld(0)
}

// setHeld sets the weights of the ratings held out to v.
func (s *sampler) setHeld(v float32) {
	for q, p := range s.t.iPerm {
		if s.isHeld(int(p)) {
			s.w[p], s.wi[q] = v, v
		}
	}
}

// release fits every rating from the next sweep on: the chain continued
// on all the ratings, the held-out ones at weight 1 until their weights
// are drawn.
func (s *sampler) release() {
	s.setHeld(1)
	s.held, s.m = nil, len(s.t.y)
}

// isHeld reports whether the rating at position p is held out.
func (s *sampler) isHeld(p int) bool {
	return s.held != nil && s.held[p>>6]>>(p&63)&1 != 0
}

// rank returns this process's rank, 0 alone.
func (s *sampler) rank() int {
	if s.red == nil {
		return 0
	}
	return s.red.Rank()
}

// part returns the rows [first, last) of n that rank r makes: blocks of
// ⌈n/P⌉ rows in rank order, all of them alone.
func (s *sampler) part(r, n int) (first, last int) {
	if s.red == nil {
		return 0, n
	}
	per := (n + s.red.Size() - 1) / s.red.Size()
	return min(r*per, n), min((r+1)*per, n)
}

// share makes every rank's rows of x (n rows of width values, each rank
// having made its part) known to every rank.
func (s *sampler) share(x []float64, n, width int) {
	if s.red == nil {
		return
	}
	size := s.red.Size()
	per := (n + size - 1) / size * width
	first, last := s.part(s.rank(), n)
	s.gather(size*per, per, func(mine []float64) { copy(mine, x[first*width:last*width]) }, func(r int, theirs []float64) {
		first, last := s.part(r, n)
		copy(x[first*width:last*width], theirs)
	})
}

// shareWeights makes the weights of every rank's items' ratings known to
// every rank, in both orders: the users' pass needs those of every item.
func (s *sampler) shareWeights() {
	if s.red == nil || math.IsInf(s.nu, 1) {
		return // no weights drawn
	}
	t, size := s.t, s.red.Size()
	span := func(r int) (int, int) {
		first, last := s.part(r, t.n2)
		return t.iStart[first], t.iStart[last]
	}
	per := 0
	for r := range size {
		lo, hi := span(r)
		per = max(per, hi-lo)
	}
	lo, hi := span(s.rank())
	s.gather(size*per, per, func(mine []float64) {
		for q := lo; q < hi; q++ {
			mine[q-lo] = float64(s.wi[q])
		}
	}, func(r int, theirs []float64) {
		lo, hi := span(r)
		for q := lo; q < hi; q++ {
			s.wi[q] = float32(theirs[q-lo])
			s.w[t.iPerm[q]] = s.wi[q]
		}
	})
}

// gather gathers blocks of per values, each rank's filled by fill, and
// gives each rank's block to take.
func (s *sampler) gather(total, per int, fill func(mine []float64), take func(r int, theirs []float64)) {
	if cap(s.gbuf) < total+per {
		s.gbuf = make([]float64, total+per)
	}
	all, mine := s.gbuf[:total], s.gbuf[total:total+per]
	clear(mine)
	fill(mine)
	s.red.Gather(all, mine)
	for r := range s.red.Size() {
		take(r, all[r*per:(r+1)*per])
	}
}
