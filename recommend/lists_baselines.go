package recommend

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/par"
)

// The ranking baselines a recommender's lists must beat, each fitted on
// which items each user interacted with (1 = interacted): the most popular
// items; PureSVD (Cremonesi, Koren and Turrin 2010), the truncated SVD of
// the interaction matrix; EASE (Steck 2019), the item-item regression
// with its diagonal held at 0, dense in the items; and iALS (Hu, Koren and
// Volinsky 2008, in the form and with the tuning of Rendle et al. 2021),
// the weighted low-rank fit of every entry, 1 where observed and 0 where
// not, solved by alternating least squares.
const (
	BaselinePopular = "popular"
	BaselinePureSVD = "puresvd"
	BaselineEASE    = "ease"
	BaselineIALS    = "ials"
)

// Baselines are the ranking baselines' names, in the order of a table.
var Baselines = []string{BaselinePopular, BaselinePureSVD, BaselineEASE, BaselineIALS}

// The baselines' grids, searched as the lists' are (a coordinate at a
// time, on the same validation).
var (
	pureSVDRanks = []int{10, 20, 50, 100, 200}
	easeLambdas  = []float64{50, 100, 200, 500, 1000, 2000, 5000}
	ialsRanks    = []int{64, 128}
	ialsAlphas   = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10} // α0, the weight of every entry
	ialsLambdas  = []float64{1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1}
)

// iALS's sweeps and the conjugate-gradient steps of a row's solve.
const (
	ialsSweeps  = 16
	ialsCGSteps = 3
)

// FitBaseline fits the ranking baseline name to the interactions x (their
// values are ratings, read for the validation's relevance only), its
// setting chosen on the lists' validation: the same fifth of the
// interactions held out and the same metric (see Lists), a held-out rating
// relevant from relevant on (-Inf: every interaction, for implicit
// feedback; NaN: the lists' default, three quarters up the scale).
func FitBaseline(ctx context.Context, x *Indexed, name string, relevant float64, s Settings) (*Ranking, error) {
	begin := time.Now()
	if !slices.Contains(Baselines, name) {
		return nil, &InputError{Source: "recommend", Input: "baseline", Value: name, Reason: "want one of " + strings.Join(Baselines, ", ")}
	}
	s.NoLists = true
	tb, err := LayOut(x, s)
	if err != nil {
		return nil, err
	}
	if s, err = s.validate(); err != nil {
		return nil, err
	}
	t := tb.t
	if math.IsNaN(relevant) {
		lo, hi := t.y.valueRange(nil)
		relevant = DefaultRelevant(lo, hi)
	}
	b := &baseline{t: t, x: imat{t: t}, s: s}
	if name == BaselineEASE {
		if err := b.easeFits(); err != nil {
			return nil, err
		}
	}
	p := holdOut(t, listHeldOut, s.Seed, streamLists)
	t.mark(&p, true)
	v := newListValidation(t, &p, math.IsInf(relevant, -1), relevant, s.Seed, s.Workers)
	sel := &ListSelection{Fraction: listHeldOut, HeldOut: p.n, Users: len(v.users), Metric: "NDCG@20"}
	if !math.IsInf(relevant, -1) {
		sel.Relevant = relevant
	}
	grid := b.grid(name)
	choice := make([]int, len(grid))
	if len(v.users) > 0 && p.n > 0 && len(grid) > 0 {
		choice, err = b.search(ctx, name, grid, v, sel)
	}
	t.mark(&p, false)
	if err != nil {
		return nil, err
	}
	sc, setting, err := b.fit(ctx, name, grid, choice)
	if err != nil {
		return nil, err
	}
	sel.Seconds = time.Since(begin).Seconds()
	return &Ranking{Name: name, Setting: setting, Users: tb.users, Items: tb.items, Selection: sel, sc: sc, seen: *seenOf(t)}, nil
}

// baseline fits the baselines to a table's interactions, 1 each.
type baseline struct {
	t *table
	x imat
	s Settings
}

// grid returns the values of each of the baseline's hyperparameters.
func (b *baseline) grid(name string) [][]float64 {
	switch name {
	case BaselinePureSVD:
		return [][]float64{floats(pureSVDRanks)}
	case BaselineEASE:
		return [][]float64{easeLambdas}
	case BaselineIALS:
		return [][]float64{floats(ialsRanks), ialsAlphas, ialsLambdas}
	}
	return nil
}

// floats returns ints as float64s.
func floats(v []int) []float64 {
	f := make([]float64, len(v))
	for k, x := range v {
		f[k] = float64(x)
	}
	return f
}

// search chooses the baseline's setting on v, a coordinate at a time from
// the middle of each grid, until a round changes none.
func (b *baseline) search(ctx context.Context, name string, grid [][]float64, v *listValidation, sel *ListSelection) ([]int, error) {
	cur := make([]int, len(grid))
	for j, g := range grid {
		cur[j] = len(g) / 2
	}
	if name == BaselineIALS {
		cur[0] = len(grid[0]) - 1 // the larger rank: Rendle et al.'s advice
	}
	tried := map[string]float64{}
	score := func(c []int) (float64, error) {
		key := fmt.Sprint(c)
		if r, ok := tried[key]; ok {
			return r, nil
		}
		sc, setting, err := b.fit(ctx, name, grid, c)
		if err != nil {
			return 0, err
		}
		r := v.ndcg(v.scoresFrom(sc))
		tried[key] = r
		sel.Candidates = append(sel.Candidates, ListCandidate{Setting: setting, Score: r})
		if len(sel.Candidates) == 1 || r > sel.Candidates[sel.Chosen].Score {
			sel.Chosen = len(sel.Candidates) - 1
		}
		return r, nil
	}
	best, err := score(cur)
	if err != nil {
		return nil, err
	}
	for round := 0; round < 4; round++ {
		moved := false
		for coord := len(grid) - 1; coord >= 0; coord-- {
			for j := range grid[coord] {
				c := slices.Clone(cur)
				c[coord] = j
				r, err := score(c)
				if err != nil {
					return nil, err
				}
				if r > best {
					best, cur, moved = r, c, true
				}
			}
		}
		if !moved {
			break
		}
	}
	return cur, nil
}

// fit fits the baseline at the setting c (indices into grid) to the
// table's interactions not held out, and returns its scorer and the
// setting in words.
func (b *baseline) fit(ctx context.Context, name string, grid [][]float64, c []int) (scorer, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	t := b.t
	switch name {
	case BaselinePopular:
		counts := b.x.itemWeights()
		ones := make([]float64, t.n1)
		for u := range ones {
			ones[u] = 1
		}
		return newFactorScorer(ones, counts, 1), "", nil
	case BaselinePureSVD:
		k := min(int(grid[0][c[0]]), t.n1, t.n2)
		l := min(pureSVDRanks[len(pureSVDRanks)-1]+listOversample, t.n1, t.n2)
		ones := make([]float64, t.n2)
		for i := range ones {
			ones[i] = 1
		}
		sp := b.x.spectrumOf(ones, l, b.s.Seed, b.s.Workers)
		p, q := sp.factors(t.n1, t.n2, k, 0)
		return newFactorScorer(p, q, k), fmt.Sprintf("rank %d", k), nil
	case BaselineEASE:
		lam := grid[0][c[0]]
		sc, err := b.ease(lam)
		return sc, fmt.Sprintf("lambda %g", lam), err
	case BaselineIALS:
		k := min(int(grid[0][c[0]]), t.n1, t.n2)
		alpha, lam := grid[1][c[1]], grid[2][c[2]]
		p, q := b.ials(k, alpha, lam)
		return newFactorScorer(p, q, k), fmt.Sprintf("rank %d, alpha0 %g, lambda %g", k, alpha, lam), nil
	}
	return nil, "", fmt.Errorf("recommend: no baseline %q", name)
}

// easeFits refuses an EASE whose dense matrices need more memory than the
// machine has: the smaller side's Gram, inverted in place, and on the
// users' side the n1×n2 scores.
func (b *baseline) easeFits() error {
	n1, n2 := int64(b.t.n1), int64(b.t.n2)
	need := 8 * n2 * n2
	if n1 < n2 {
		need = 8*n1*n1 + 8*n1*n2
	}
	if err := mem.Check(need); err != nil {
		return fmt.Errorf("EASE of %d users and %d items: %w", n1, n2, err)
	}
	return nil
}

// ease returns EASE's scores with penalty lam: B = I - P diag(1/diag P),
// P = (XᵀX + λI)⁻¹, the scores X B. With fewer users than items, P comes
// from the users' side (Woodbury): X P = (X Xᵀ + λI)⁻¹ X and
// diag P_i = (1 - x_iᵀ (X Xᵀ + λI)⁻¹ x_i)/λ, so that the scores
// X - (X P) diag(1/diag P) take an n1×n1 inverse.
func (b *baseline) ease(lam float64) (scorer, error) {
	collect() // the last penalty's matrices, before this one's are made
	t := b.t
	if t.n1 < t.n2 {
		return b.easeUsers(lam)
	}
	n2 := t.n2
	g := b.gram(false)
	for i := range n2 {
		g[i*n2+i] += lam
	}
	if err := inverseSym(g, n2); err != nil {
		return nil, err
	}
	pm := g
	// B_ij = -P_ij / P_jj, B_jj = 0, row-major.
	for i := range n2 {
		row := pm[i*n2 : (i+1)*n2]
		for j := range row {
			row[j] = -row[j] / pm[j*n2+j]
		}
	}
	for j := range n2 {
		pm[j*n2+j] = 0
	}
	return &sparseTimesDense{x: b.x, b: pm, n2: n2}, nil
}

// easeUsers is ease from the users' side: the scores, n1×n2, held.
func (b *baseline) easeUsers(lam float64) (scorer, error) {
	t := b.t
	n1, n2 := t.n1, t.n2
	k := b.gram(true)
	for u := range n1 {
		k[u*n1+u] += lam
	}
	if err := inverseSym(k, n1); err != nil {
		return nil, err
	}
	c := k
	// xp = C X, n1×n2: row a is Σ_b C_ab X_b.
	xp := make([]float64, n1*n2)
	par.Do(b.s.Workers, n1, func(a int) {
		row := xp[a*n2 : (a+1)*n2]
		for bb := range n1 {
			cab := c[a*n1+bb]
			for e := t.uStart[bb]; e < t.uStart[bb+1]; e++ {
				if b.x.w(t.y.at(e)) != 0 {
					row[t.uItem.at(e)] += cab
				}
			}
		}
	})
	d := make([]float64, n2)
	for i := range n2 {
		var s float64
		for q := t.iStart[i]; q < t.iStart[i+1]; q++ {
			if b.x.w(t.iy.at(q)) != 0 {
				s += xp[int(t.iUser.at(q))*n2+i]
			}
		}
		d[i] = (1 - s) / lam
	}
	// scores = X - xp diag(1/d).
	par.Do(b.s.Workers, n1, func(u int) {
		row := xp[u*n2 : (u+1)*n2]
		for i := range row {
			row[i] = -row[i] / d[i]
		}
		for e := t.uStart[u]; e < t.uStart[u+1]; e++ {
			if b.x.w(t.y.at(e)) != 0 {
				row[t.uItem.at(e)] += 1
			}
		}
	})
	return &denseScores{s: xp, n2: n2}, nil
}

// gram returns XᵀX (n2×n2), or with users X Xᵀ (n1×n1), of the binary
// interactions not held out, full, row-major: each row of the Gram summed
// on a core, counts that the order cannot change.
func (b *baseline) gram(users bool) []float64 {
	t, x := b.t, b.x
	n, start, idx, vals := t.n2, t.iStart, t.iUser, t.iy // columns: items, their users
	ostart, oidx, ovals := t.uStart, t.uItem, t.y
	if users {
		n, start, idx, vals, ostart, oidx, ovals = t.n1, t.uStart, t.uItem, t.y, t.iStart, t.iUser, t.iy
	}
	g := make([]float64, n*n)
	par.Do(b.s.Workers, n, func(a int) {
		row := g[a*n : (a+1)*n]
		for e := start[a]; e < start[a+1]; e++ {
			if x.w(vals.at(e)) == 0 {
				continue
			}
			o := int(idx.at(e))
			for f := ostart[o]; f < ostart[o+1]; f++ {
				if x.w(ovals.at(f)) != 0 {
					row[oidx.at(f)]++
				}
			}
		}
	})
	return g
}

// inverseSym replaces the n×n symmetric positive definite g (row-major,
// full) by its inverse, in place (LAPACK's Cholesky factor and inverse in
// g's own memory: EASE's matrices take their n² values once).
func inverseSym(g []float64, n int) error {
	a := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: g}
	t, ok := lapack64.Potrf(a)
	if !ok {
		return fmt.Errorf("recommend: EASE: the Gram matrix is not positive definite")
	}
	if _, ok := lapack64.Potri(t); !ok {
		return fmt.Errorf("recommend: EASE: the Gram matrix is singular")
	}
	for i := range n { // the upper triangle to the lower
		for j := i + 1; j < n; j++ {
			g[j*n+i] = g[i*n+j]
		}
	}
	return nil
}

// sparseTimesDense scores by X B: user u's scores are the sum of B's rows
// of the user's items.
type sparseTimesDense struct {
	x  imat
	b  []float64
	n2 int
}

func (s *sparseTimesDense) items() int { return s.n2 }

func (s *sparseTimesDense) scores(out []float64, rows []int) {
	t, n2 := s.x.t, s.n2
	for r, u := range rows {
		o := out[r*n2 : (r+1)*n2]
		clear(o)
		for e := t.uStart[u]; e < t.uStart[u+1]; e++ {
			if s.x.w(t.y.at(e)) == 0 {
				continue
			}
			i := int(t.uItem.at(e))
			for j, v := range s.b[i*n2 : (i+1)*n2] {
				o[j] += v
			}
		}
	}
}

// denseScores are scores held whole, n1×n2.
type denseScores struct {
	s  []float64
	n2 int
}

func (d *denseScores) items() int { return d.n2 }

func (d *denseScores) scores(out []float64, rows []int) {
	for r, u := range rows {
		copy(out[r*d.n2:(r+1)*d.n2], d.s[u*d.n2:(u+1)*d.n2])
	}
}

// scoresFrom returns the validation users' scores by sc.
func (v *listValidation) scoresFrom(sc scorer) []float64 {
	out := make([]float64, len(v.users)*v.n2)
	const block = 64
	par.Do(v.workers, (len(v.users)+block-1)/block, func(b int) {
		r0, r1 := b*block, min(len(v.users), (b+1)*block)
		sc.scores(out[r0*v.n2:r1*v.n2], v.users[r0:r1])
	})
	return out
}

// ials fits iALS of rank k: Σ_observed (1 - p_u·q_i)² + α Σ_all (p_u·q_i)²
// + λ (Σ_u (n_u + α n2) |p_u|² + Σ_i (n_i + α n1) |q_i|²), by
// ialsSweeps sweeps of alternating least squares, each row's system
// solved by ialsCGSteps conjugate-gradient steps from its last value
// (Takács, Pilászy and Tikk 2011), from rows drawn N(0, 0.1²/k).
func (b *baseline) ials(k int, alpha, lam float64) (p, q []float64) {
	t := b.t
	st := newStream()
	st.seed(b.s.Seed, 0, streamLists, 3)
	p, q = make([]float64, t.n1*k), make([]float64, t.n2*k)
	for _, x := range [][]float64{p, q} {
		for e := range x {
			x[e] = 0.1 / math.Sqrt(float64(k)) * st.rng.NormFloat64()
		}
	}
	for range ialsSweeps {
		b.ialsHalf(p, q, t.n1, t.n2, t.uStart, t.uItem, t.y, k, alpha, lam)
		b.ialsHalf(q, p, t.n2, t.n1, t.iStart, t.iUser, t.iy, k, alpha, lam)
	}
	return p, q
}

// ialsHalf updates the n rows of x (k wide) against the other side's m
// rows y: row r's system (α YᵀY + Σ_obs y_j y_jᵀ + λ(n_r + α m) I) x_r =
// Σ_obs y_j.
func (b *baseline) ialsHalf(x, y []float64, n, m int, start []int, idx index, vals stored, k int, alpha, lam float64) {
	g := make([]float64, k*k) // α YᵀY
	addGram(g, k, m, b.s.Workers, func(buf []float64, r0, r1 int) { copy(buf, y[r0*k:r1*k]) })
	for i := range k {
		for j := i; j < k; j++ {
			g[i*k+j] *= alpha
			g[j*k+i] = g[i*k+j]
		}
	}
	par.Do(b.s.Workers, n, func(r int) {
		var obs []int
		for e := start[r]; e < start[r+1]; e++ {
			if v := vals.at(e); v == v {
				obs = append(obs, int(idx.at(e)))
			}
		}
		reg := lam * (float64(len(obs)) + alpha*float64(m))
		xr := x[r*k : (r+1)*k]
		// A v = α YᵀY v + Σ_obs y_j (y_j·v) + reg v.
		av := func(out, v []float64) {
			kernel.DotRows(out, g, k, k, v)
			kernel.Axpy(reg, v, out)
			for _, j := range obs {
				yj := y[j*k : (j+1)*k]
				kernel.Axpy(kernel.Dot(yj, v), yj, out)
			}
		}
		rhs := make([]float64, k)
		for _, j := range obs {
			kernel.Axpy(1, y[j*k:(j+1)*k], rhs)
		}
		cg(av, xr, rhs, ialsCGSteps)
	})
}

// cg runs steps of the conjugate-gradient method on A x = b from x, in
// place.
func cg(av func(out, v []float64), x, b []float64, steps int) {
	k := len(x)
	r, p, ap := make([]float64, k), make([]float64, k), make([]float64, k)
	av(ap, x)
	for i := range r {
		r[i] = b[i] - ap[i]
	}
	copy(p, r)
	rr := dot(r, r)
	for range steps {
		if rr <= 1e-30 {
			return
		}
		av(ap, p)
		a := rr / dot(p, ap)
		for i := range x {
			x[i] += a * p[i]
			r[i] -= a * ap[i]
		}
		next := dot(r, r)
		for i := range p {
			p[i] = r[i] + next/rr*p[i]
		}
		rr = next
	}
}
