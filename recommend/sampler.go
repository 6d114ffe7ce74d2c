package recommend

import (
	"math"
	"slices"
	"sync"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/gamma"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
)

// sampler fits r_ui ≈ mean + b_u + c_i + L_u·R_i by sweeps that move each
// user's row x_u = [L_u, b_u], then each item's, a coordinate at a time
// (Saha, Misra and Ravindran 2015): with z_ic the other side's value (1
// for the bias), coordinate c has the conditional precision and mean
//
//	h_c = Λ_cc + α Σ_i w_ui z_ic²,
//	m_c = (Λ_cc μ_c − Σ_{l≠c} Λ_cl (x_l − μ_l) + α Σ_i w_ui z_ic (e_i + x_c z_ic)) / h_c,
//
// and moving it by δ moves each kept residual e_i by −δ z_ic: O(k) a rating.
// With noise x_c is drawn from N(m_c, 1/h_c), a Gibbs sampler, as are the
// Normal-Wishart priors, α and the Student-t weights w (each row's, not kept);
// without, x_c moves to m_c under ALS-WR's λ n_u, ridgePasses passes (CCD++).
type sampler struct {
	t    *table
	k, d int       // rank, and rank + 1 (the bias)
	u, v []float64 // rows of users and items, [factor, bias], n1×d and n2×d
	// m counts the ratings fitted (not held out).
	m     int
	alpha float64 // the noise precision
	nu    float64 // degrees of freedom of the likelihood; +Inf: Gaussian
	pu    prior   // the prior of the users' rows
	pv    prior   // of the items'
	seed  uint64

	noise  bool    // draw (Bayesian) or not (penalized)
	lambda float64 // penalized: the ridge λ n of a row of n ratings

	workers int
	wsq     []float64    // per item: Σ w e² of its ratings
	gt      *gamma.Table // the weights' table under the Student-t likelihood, set by sweep
	// On the ranks of an MPI job (the table's red), each makes the rows of
	// its part of the users and of the items, and the rows and the items'
	// weighted residuals are gathered after each pass (share). Every rank
	// does the rest (the priors, the noise, the validation, the posterior
	// mean) as one process would.
	pool sync.Pool // *rowScratch
}

// ridgePasses is the number of passes over a row's coordinates that a
// penalized sweep makes: coordinate descent on the row's quadratic, whose
// first pass does most of the way to its minimizer and the next ones,
// cheap with the row in cache, most of the rest.
const ridgePasses = 3

// rowScratch is what one goroutine needs to update a row: the other
// side's rows, dimension by dimension, the residuals and the weights of
// its ratings.
type rowScratch struct {
	zc, res, w []float64
	norm       []float64 // the normals of a row's dimensions
	vals       []float32 // a coded row's values
	idx        []int32   // a row's 2-byte indices widened (see index.slice)
	s          *stream
}

// grow makes room for a row of n ratings at rank k.
func (sc *rowScratch) grow(n, k int) {
	if cap(sc.res) < n {
		sc.res, sc.w = make([]float64, n), make([]float64, n)
	}
	if cap(sc.zc) < n*k {
		sc.zc = make([]float64, n*k)
	}
	if cap(sc.norm) < k {
		sc.norm = make([]float64, k)
	}
}

func newSampler(t *table, k int, nu float64, seed uint64, workers int) *sampler {
	d := k + 1
	s := &sampler{t: t, k: k, d: d, nu: nu, seed: seed, workers: workers, alpha: 1, noise: true,
		u: t.rows(t.n1, d), v: t.rows(t.n2, d),
		wsq: t.rows(t.n2, 1), m: t.m,
		pu: newPrior(d), pv: newPrior(d)}
	s.pool.New = func() any { return &rowScratch{s: newStream()} }
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
// items, then the noise precision.
func (s *sampler) sweep(n int) {
	t := s.t
	st := newStream()
	if s.noise && !math.IsInf(s.nu, 1) {
		s.gt = gamma.TableOf(weightShape(s.nu)) // once a sweep, not a row: its lookup is a map's
	}
	if s.noise {
		st.seed(s.seed, n, streamHyperUser, 0)
		drawPrior(&s.pu, s.u, t.n1, s.d, st.rng)
	}
	s.rows(n, s.users())
	s.t.share(s.u, t.n1, s.d)
	if s.noise {
		st.seed(s.seed, n, streamHyperItem, 0)
		drawPrior(&s.pv, s.v, t.n2, s.d, st.rng)
	}
	s.rows(n, s.items())
	s.t.share(s.v, t.n2, s.d)
	s.t.share(s.wsq, t.n2, 1)
	s.drawNoise(n)
}

// side is what a pass over one side's rows (users or items) reads and
// writes: the n rows of x, each row's ratings from start[r] to
// start[r+1] in this side's order, each rating's index on the other side
// and its value (NaN for one held out), the other side's rows, and the
// prior of x's rows.
type side struct {
	kind  int // streamUser or streamItem
	x     []float64
	n     int
	start []int
	idx   index
	vals  stored
	other []float64
	p     *prior
}

// users is the users' side, items the items'.
func (s *sampler) users() side {
	t := s.t
	return side{streamUser, s.u, t.n1, t.uStart, t.uItem, t.y, s.v, &s.pu}
}

func (s *sampler) items() side {
	t := s.t
	return side{streamItem, s.v, t.n2, t.iStart, t.iUser, t.iy, s.u, &s.pv}
}

// rows updates the rows of one side from the other side's rows. The
// items' pass also records each item's Σ w e² for the noise precision.
func (s *sampler) rows(sweep int, sd side) {
	d := s.d
	first, last := s.t.part(s.t.rank(), sd.n)
	fetch := len(sd.other) > prefetchAbove
	par.Do(s.workers, (last-first+blockRows-1)/blockRows, func(b int) {
		sc := s.pool.Get().(*rowScratch)
		defer s.pool.Put(sc)
		for r := first + b*blockRows; r < min(last, first+(b+1)*blockRows); r++ {
			hi := sd.start[r+1]
			// The next row's first ratings' rows are fetched while this
			// row is made, unless the other side's rows are few enough to
			// stay in the caches.
			if fetch && r+1 < sd.n {
				sd.idx.prefetch(sd.other, hi, min(sd.start[r+2], hi+gatherChunk), d)
			}
			sc.s.seed(s.seed, sweep, sd.kind, r)
			wsq := s.row(&sd, r, sc)
			if sd.kind == streamItem {
				s.wsq[r] = wsq
			}
		}
	})
}

// prefetchAbove is the number of values of the other side's rows above
// which a row's pass prefetches them (half a megabyte: a second-level
// cache's size).
const prefetchAbove = 1 << 16

// gatherChunk is the number of ratings ahead whose other rows are
// prefetched.
const gatherChunk = 64

// row updates row r of the side sd from its ratings and returns Σ w e² of
// its fitted ratings after the update, the weights without α.
func (s *sampler) row(sd *side, r int, sc *rowScratch) float64 {
	lo, hi := sd.start[r], sd.start[r+1]
	k, d, n := s.k, s.d, hi-lo
	x, vals, other, p := sd.x[r*d:r*d+d], sd.vals.slice(lo, hi, &sc.vals), sd.other, sd.p
	sc.grow(n, k)
	zc, res, w := sc.zc[:n*k], sc.res[:n], sc.w[:n]
	base := s.t.mean + x[k]
	alpha := s.alpha
	// Gather: the other side's rows by dimension, and the residuals.
	g := sd.idx.gather(kernel.GatherRow{Cols: zc, Res: res, X: x[:k], Vals: vals, Other: other, D: d, Base: base}, lo, hi)
	kernel.Gather(&g)
	fitted := s.weigh(res, w, sc)
	passes := 1
	if !s.noise {
		passes = ridgePasses
	}
	reg := s.lambda * float64(max(fitted, 1))
	// move draws or sets coordinate c from the sums a = Σ w z² and
	// b = Σ w z e of the current residuals, and returns its change.
	move := func(c int, a, b float64) float64 {
		old := x[c]
		var v float64
		if s.noise {
			// The prior's part: Λ_cc μ_c less the pull of the other
			// coordinates, Σ_{l≠c} Λ_cl (x_l − μ_l).
			d := len(x)
			lc := p.lam[c*d : c*d+d]
			num := p.lmu[c] + b + old*a - (kernel.Dot(lc, x) - lc[c]*old)
			h := lc[c] + a
			v = num/h + sc.s.rng.NormFloat64()/math.Sqrt(h)
		} else {
			v = (b + old*a) / (reg + a)
		}
		x[c] = v
		return v - old
	}
	for range passes {
		// The bias first (z = 1), then each dimension, each pass over the
		// residuals also taking the last coordinate's move into them.
		var a, b float64
		for e, r := range res {
			a += w[e]
			b += w[e] * r
		}
		delta := move(k, a, b)
		var prev []float64 // the last dimension moved; nil for the bias
		if s.noise && k > 0 {
			// The dimensions in one call: their normals drawn first,
			// in the order the moves would draw them.
			norm := sc.norm[:k]
			for j := range norm {
				norm[j] = sc.s.rng.NormFloat64()
			}
			kernel.CoordSums(res, w, nil, nil, delta) // the bias's move
			delta = kernel.CoordMoves(&kernel.Moves{Res: res, W: w, Cols: zc, Prev: zc[:n], X: x, Lam: p.lam, LamMu: p.lmu, Norm: norm})
			prev = zc[(k-1)*n : k*n]
		} else {
			for j := range k {
				zj := zc[j*n : j*n+n]
				a, b = kernel.CoordSums(res, w, prev, zj, delta)
				delta = move(j, a, b)
				prev = zj
			}
		}
		kernel.CoordSums(res, w, prev, nil, delta)
	}
	var sum float64
	for e, r := range res {
		sum += w[e] * r * r
	}
	return sum / alpha
}

// weightShape is the shape of the Gamma law of a rating's weight under
// the Student-t likelihood of nu degrees of freedom, (ν+1)/2 (its rate is
// (ν + α r²)/2; see weigh).
func weightShape(nu float64) float64 { return (nu + 1) / 2 }

// weigh sets each rating's weight w from its residual res, with α: 0 for
// a rating held out (NaN, whose residual becomes 0); under the Student-t
// likelihood drawn from its conditional, or its mean for a penalized fit;
// α under the Gaussian one. A drawn weight takes its random bits from a
// counter of the row's stream (SplitMix64's sequence from a seed the
// stream draws). It returns the number of ratings fitted.
func (s *sampler) weigh(res, w []float64, sc *rowScratch) int {
	robust := !math.IsInf(s.nu, 1)
	draw := robust && s.noise
	gt := s.gt
	alpha := s.alpha
	fitted := 0
	nu, two := s.nu, 2*alpha
	h := sc.s.pcg.Uint64()
	for e, r := range res {
		switch {
		case r != r:
			res[e], w[e] = 0, 0
			continue
		case draw:
			h += splitMixStep
			bits := mix(h)
			g, ok := gt.Body(bits)
			if !ok {
				g = gt.Tail(bits)
			}
			w[e] = two * g / (nu + alpha*r*r)
		case robust:
			w[e] = alpha * (nu + 1) / (nu + alpha*r*r)
		default:
			w[e] = alpha
		}
		fitted++
	}
	return fitted
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
	s.alpha = gamma.Draw(st.rng, 1+float64(s.m)/2) / (1 + ss/2)
}

// hold holds out the ratings p of the table (their positions marked in
// both orders): the sweeps neither fit them nor draw their weights.
func (s *sampler) hold(p *pairs) {
	s.t.mark(p, true)
	s.m = s.t.m - p.n
}

// release fits every rating from the next sweep on: the chain continued
// on all the ratings, the held-out ones p given back their values.
func (s *sampler) release(p *pairs) {
	s.t.mark(p, false)
	s.m = s.t.m
}

// snapshot is a sampler's state: its rank, rows, priors and noise
// precision.
type snapshot struct {
	k      int
	u, v   []float64
	pu, pv prior
	alpha  float64
}

// snapshot returns a copy of the sampler's state.
func (s *sampler) snapshot() *snapshot {
	cp := func(p prior) prior {
		return prior{mu: slices.Clone(p.mu), lam: slices.Clone(p.lam), lmu: slices.Clone(p.lmu)}
	}
	return &snapshot{k: s.k, u: slices.Clone(s.u), v: slices.Clone(s.v), pu: cp(s.pu), pv: cp(s.pv), alpha: s.alpha}
}

// restore puts the sampler back in the state of a snapshot.
func (s *sampler) restore(sn *snapshot) {
	s.k, s.d = sn.k, sn.k+1
	s.u, s.v, s.pu, s.pv, s.alpha = sn.u, sn.v, sn.pu, sn.pv, sn.alpha
}

// grow raises the sampler's rank to k in place: each row keeps its
// dimensions and its bias, and the new dimensions start at the leading
// singular triplets of the residuals (see spectral); the priors start
// again from the identity.
func (s *sampler) grow(k int) {
	old, d := s.d, k+1
	for _, x := range []*[]float64{&s.u, &s.v} {
		n := len(*x) / old
		y := s.t.rows(n, d)
		for r := range n {
			src, dst := (*x)[r*old:r*old+old], y[r*d:r*d+d]
			copy(dst, src[:s.k])
			dst[k] = src[s.k]
		}
		*x = y
	}
	k0 := s.k
	s.k, s.d = k, d
	s.pu, s.pv = newPrior(d), newPrior(d)
	s.spectral(k0, streamGrow)
}
