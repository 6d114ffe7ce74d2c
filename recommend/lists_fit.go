package recommend

import (
	"context"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
)

// How the lists are fitted. The interaction matrix X (1 where a user
// rated an item, the weight for implicit feedback) has its item columns
// scaled by count^-Pop, X_s = X D^-Pop, and the lists' part of a score is
// the rank-Rank ridge regression of X_s on itself (Jin et al. 2021): with
// X_s ≈ Y Σ Vᵀ its leading singular triplets, P = X_s V F and Q = V with
// F = diag(σ² / (σ² + λ)), so that P Qᵀ = X_s B for the B of rank Rank
// that minimizes |X_s - X_s B|² + λ|B|² (PureSVD: Pop 0, λ 0). The triplets
// come from a randomized subspace iteration (listPower products with X_s
// and X_sᵀ, listOversample extra columns). Pop, Rank and λ (relative to the
// mean squared norm of X_s's columns) are chosen a coordinate at a time by
// the NDCG at listN on listHeldOut of the interactions held out; see
// docs/recommend.md ("Top-N lists") for the variants measured and left out.
const (
	listHeldOut    = 0.2
	listN          = 20
	listOversample = 16
	listPower      = 5
	// listValBudget bounds the validation's users × items, whose scores
	// (and the ratings model's) it keeps: 2 × 128 MiB.
	listValBudget = 1 << 24
	// A larger rank is tried while the penalty chosen is among the
	// listBinding smallest (the shrinkage is weak: the rank binds), the
	// last rank gained listRankGain of the validation's NDCG, and its
	// spectrum's cost, (n1 + n2) k², is at most listSpectrumBudget.
	listBinding        = 2
	listRankGain       = 0.01
	listSpectrumBudget = 1 << 36
)

// The validation's settings, tried a coordinate at a time from the middle
// of each list.
var (
	listPops  = []float64{0, 0.25, 0.5}
	listRanks = []int{32, 64, 128, 256}
	// listGrown are the ranks past listRanks the search grows to while
	// the rank binds (see searchLists).
	listGrown   = []int{512, 1024, 2048}
	listLambdas = []float64{1, 3, 10, 30, 100, 300}
)

// DefaultRelevant returns the least rating relevant to a list by default,
// in the lists' validation: three quarters of the way up the scale [lo,
// hi] (4 stars of 1 to 5, 4 of 0.5 to 5 in half stars: the field's
// protocol on MovieLens).
func DefaultRelevant(lo, hi float64) float64 { return lo + 0.75*(hi-lo) }

// imat is the interaction matrix of a table: entry (u, i) of a rating not
// held out weighs 1 (the baselines'), its value (implicit feedback), or
// its rating mapped from the scale [lo, hi] to [ratingFloor, 1] (the
// lists of ratings: an item rated high weighs more, as input and as
// target, than one rated low; on MovieLens 1 to 5 stars weigh 0.2 to 1,
// r/5). The lists of ratings so weighted list better than of which items
// were rated (MovieLens u1, validation-tuned, P@10 0.400 against 0.368).
type imat struct {
	t    *table
	mode int
	// lo and span map a rating (ratingWeights).
	lo, span float64
}

// The modes of an imat.
const (
	unitWeights = iota
	valueWeights
	ratingWeights
)

// ratingFloor is the weight of the lowest rating of the scale.
const ratingFloor = 0.2

// ratingsMatrix returns the table's matrix of ratings weights.
func ratingsMatrix(t *table) imat {
	lo, hi := t.y.valueRange(nil)
	x := imat{t: t, mode: ratingWeights, lo: lo, span: hi - lo}
	if !(x.span > 0) {
		x.mode = unitWeights
	}
	return x
}

// weights names the mode for Lists.Weights.
func (x imat) weights() string {
	switch x.mode {
	case valueWeights:
		return "value"
	case ratingWeights:
		return "rating"
	}
	return "one"
}

// w returns the weight of a table value, 0 for one held out (NaN).
func (x imat) w(y float32) float64 {
	switch {
	case y != y:
		return 0
	case x.mode == valueWeights:
		return float64(y)
	case x.mode == ratingWeights:
		return ratingFloor + (1-ratingFloor)*(float64(y)-x.lo)/x.span
	}
	return 1
}

// itemWeights returns each item's total weight.
func (x imat) itemWeights() []float64 {
	t := x.t
	c := make([]float64, t.n2)
	for i := range t.n2 {
		for q := t.iStart[i]; q < t.iStart[i+1]; q++ {
			c[i] += x.w(t.iy.at(q))
		}
	}
	return c
}

// scales returns the item columns' scales count^-pop (0 for an item
// without interactions) and the mean squared norm of the scaled columns.
func (x imat) scales(counts []float64, pop float64) (s []float64, lambda0 float64) {
	t := x.t
	s = make([]float64, t.n2)
	var sq float64
	for i, c := range counts {
		if c > 0 {
			s[i] = math.Pow(c, -pop)
		}
		for q := t.iStart[i]; q < t.iStart[i+1]; q++ {
			v := x.w(t.iy.at(q)) * s[i]
			sq += v * v
		}
	}
	return s, sq / float64(max(1, t.n2))
}

// mulX sets out (n1×l) to X_s in (in n2×l), X_s = X diag(s).
func (x imat) mulX(out, in, s []float64, l, workers int) {
	t := x.t
	par.Do(workers, t.n1, func(u int) {
		o := out[u*l : u*l+l]
		clear(o)
		for e := t.uStart[u]; e < t.uStart[u+1]; e++ {
			if w := x.w(t.y.at(e)); w != 0 {
				i := int(t.uItem.at(e))
				kernel.Axpy(w*s[i], in[i*l:i*l+l], o)
			}
		}
	})
}

// mulXT sets out (n2×l) to X_sᵀ in (in n1×l).
func (x imat) mulXT(out, in, s []float64, l, workers int) {
	t := x.t
	par.Do(workers, t.n2, func(i int) {
		o := out[i*l : i*l+l]
		clear(o)
		for q := t.iStart[i]; q < t.iStart[i+1]; q++ {
			if w := x.w(t.iy.at(q)); w != 0 {
				u := int(t.iUser.at(q))
				kernel.Axpy(w, in[u*l:u*l+l], o)
			}
		}
		for j := range o {
			o[j] *= s[i]
		}
	})
}

// spectrum is the leading part of X_s's singular value decomposition:
// y = X_s z (n1×l, the left singular vectors times σ), z (n2×l, the right
// singular vectors) and σ², decreasing.
type spectrum struct {
	y, z []float64
	sig2 []float64
	l    int
}

// spectrumOf returns l leading singular triplets of X_s by subspace
// iteration from a random start of the stream of seed, on the smaller
// side: the side's l columns are orthonormalized after each product with
// X_sᵀ X_s (or X_s X_sᵀ), and the triplets come from the Rayleigh-Ritz
// step on them.
func (x imat) spectrumOf(s []float64, l int, seed uint64, workers int) spectrum {
	t := x.t
	users := t.n1 < t.n2 // iterate on the users' side
	n, m := t.n2, t.n1   // the side iterated on, and the other
	if users {
		n, m = t.n1, t.n2
	}
	a, b := make([]float64, n*l), make([]float64, m*l)
	st := newStream()
	st.seed(seed, 0, streamLists, 1)
	for e := range a {
		a[e] = st.rng.NormFloat64()
	}
	orthonormalize(a, n, l)
	// there is X_s a (or X_sᵀ a), back is X_sᵀ b (or X_s b).
	there, back := func() { x.mulX(b, a, s, l, workers) }, func() { x.mulXT(a, b, s, l, workers) }
	if users {
		there, back = func() { x.mulXT(b, a, s, l, workers) }, func() { x.mulX(a, b, s, l, workers) }
	}
	for range listPower {
		there()
		back()
		cholQR(a, n, l, workers)
	}
	there()
	// Rayleigh-Ritz: bᵀb = aᵀ X_sᵀ X_s a = U Λ Uᵀ (or with X_s X_sᵀ).
	g := make([]float64, l*l)
	addGram(g, l, m, workers, func(buf []float64, r0, r1 int) { copy(buf, b[r0*l:r1*l]) })
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(l, g), true) {
		// Not reached for a finite symmetric matrix; a zero spectrum ranks by nothing.
		return spectrum{y: make([]float64, t.n1*l), z: make([]float64, t.n2*l), sig2: make([]float64, l), l: l}
	}
	vals := eig.Values(nil)
	var vec mat.Dense
	eig.VectorsTo(&vec)
	u := mat.NewDense(l, l, nil) // the eigenvectors, largest first
	sig2 := make([]float64, l)
	for j := range l {
		sig2[j] = max(vals[l-1-j], 0)
		for r := range l {
			u.Set(r, j, vec.At(r, l-1-j))
		}
	}
	var au, bu mat.Dense
	au.Mul(mat.NewDense(n, l, a), u) // this side's singular vectors
	bu.Mul(mat.NewDense(m, l, b), u) // the other's, times σ
	sp := spectrum{sig2: sig2, l: l}
	if !users {
		sp.z, sp.y = au.RawMatrix().Data, bu.RawMatrix().Data
		return sp
	}
	// y = X_s V = (left vectors) σ, z = V = (X_sᵀ left vectors) / σ.
	y, z := au.RawMatrix().Data, bu.RawMatrix().Data
	for r := 0; r < len(y); r += l {
		for j := range l {
			y[r+j] *= math.Sqrt(sig2[j])
		}
	}
	for r := 0; r < len(z); r += l {
		for j := range l {
			if sig2[j] > 0 {
				z[r+j] /= math.Sqrt(sig2[j])
			} else {
				z[r+j] = 0
			}
		}
	}
	sp.y, sp.z = y, z
	return sp
}

// cholQR replaces the n×l row-major a by an orthonormal basis of its
// columns: twice Q = a R⁻¹ with Rᵀ R = aᵀa (CholeskyQR2, Fukaya et al.
// 2014: the second pass restores the orthogonality the first loses to
// aᵀa's conditioning), a Gram and a product where a Householder QR takes
// four times the work; a's Householder QR where a Gram is not positive
// definite (columns dependent to working precision).
func cholQR(a []float64, n, l, workers int) {
	g := make([]float64, l*l)
	out := make([]float64, len(a))
	for range 2 {
		clear(g)
		addGram(g, l, n, workers, func(buf []float64, r0, r1 int) { copy(buf, a[r0*l:r1*l]) })
		for i := range l { // the lower triangle, as cholesky reads it
			for j := i + 1; j < l; j++ {
				g[j*l+i] = g[i*l+j]
			}
		}
		if !cholesky(g, l) {
			orthonormalize(a, n, l)
			return
		}
		// a ← a L⁻ᵀ: rows times the columns of L⁻¹ (inv's rows are
		// L⁻ᵀ's columns, as DotBatch takes them).
		inv := lowerInverse(g, l)
		rowsTimesT(out, a, n, l, inv, workers)
		copy(a, out)
	}
}

// lowerInverse returns the inverse of the l×l lower triangular L held in
// g's lower triangle, row-major.
func lowerInverse(g []float64, l int) []float64 {
	inv := make([]float64, l*l)
	for j := range l { // column j of L⁻¹ solves L x = e_j
		inv[j*l+j] = 1 / g[j*l+j]
		for i := j + 1; i < l; i++ {
			var s float64
			for k := j; k < i; k++ {
				s += g[i*l+k] * inv[k*l+j]
			}
			inv[i*l+j] = -s / g[i*l+i]
		}
	}
	return inv
}

// rowsTimesT sets out (n×l) to a (n×l) times mᵀ (m l×l row-major): out's
// entry (r, j) is a_r · m_j, by the kernel's batched dot products in
// blocks of rows on the cores.
func rowsTimesT(out, a []float64, n, l int, m []float64, workers int) {
	const block = kernel.BatchRows
	par.Do(workers, (n+block-1)/block, func(b int) {
		r0, r1 := b*block, min(n, (b+1)*block)
		kernel.DotBatch(out[r0*l:r1*l], l, a[r0*l:r1*l], l, r1-r0, l, m, l, l)
	})
}

// factors returns the lists' factors of rank k and penalty lam
// (absolute): P, n1×k from the n1 rows of y, and Q, n2×k.
func (sp spectrum) factors(n1, n2, k int, lam float64) (p, q []float64) {
	f := make([]float64, k)
	for j := range k {
		if d := sp.sig2[j] + lam; d > 0 {
			f[j] = sp.sig2[j] / d
		}
	}
	p = make([]float64, n1*k)
	for u := range n1 {
		for j := range k {
			p[u*k+j] = sp.y[u*sp.l+j] * f[j]
		}
	}
	q = make([]float64, n2*k)
	for i := range n2 {
		copy(q[i*k:i*k+k], sp.z[i*sp.l:i*sp.l+k])
	}
	return p, q
}

// listValidation is the held-out interactions the lists are chosen on:
// the users scored, their relevant held-out items and the items of their
// training part, the ratings model's scores of every item for them, and
// the scores of the setting last tried.
type listValidation struct {
	users    []int
	relevant [][]int32
	seen     [][]int32
	workers  int
	n2       int
}

// newListValidation gathers the held-out pairs p of the table by user:
// the relevant ones (value at least rel; every one when implicit), the
// users with at least one, at most listValBudget/n2 of them (drawn from
// the seed's stream), and their items not held out.
func newListValidation(t *table, p *pairs, implicit bool, rel float64, seed uint64, workers int) *listValidation {
	byUser := make([][]int32, t.n1)
	for e, u := range p.users {
		if implicit || float64(p.values[e]) >= rel {
			byUser[u] = append(byUser[u], p.items[e])
		}
	}
	var users []int
	for u, r := range byUser {
		if len(r) > 0 {
			users = append(users, u)
		}
	}
	if most := max(1, listValBudget/max(1, t.n2)); len(users) > most {
		st := newStream()
		st.seed(seed, 0, streamLists, 2)
		perm := st.rng.Perm(len(users))[:most]
		slices.Sort(perm)
		sub := make([]int, most)
		for j, k := range perm {
			sub[j] = users[k]
		}
		users = sub
	}
	v := &listValidation{users: users, workers: workers, n2: t.n2}
	for _, u := range users {
		r := slices.Clone(byUser[u])
		slices.Sort(r)
		v.relevant = append(v.relevant, r)
		var seen []int32
		for e := t.uStart[u]; e < t.uStart[u+1]; e++ {
			if y := t.y.at(e); y == y {
				seen = append(seen, t.uItem.at(e))
			}
		}
		v.seen = append(v.seen, seen)
	}
	return v
}

// scoresOf returns the validation users' scores P_u·Q_i (len(users)×n2).
func (v *listValidation) scoresOf(p, q []float64, k int) []float64 {
	out := make([]float64, len(v.users)*v.n2)
	rows := make([]int, len(v.users))
	for r := range rows {
		rows[r] = r
	}
	sc := newFactorScorer(p, q, k)
	const block = kernel.BatchRows
	par.Do(v.workers, (len(rows)+block-1)/block, func(b int) {
		r0, r1 := b*block, min(len(rows), (b+1)*block)
		sc.scores(out[r0*v.n2:r1*v.n2], rows[r0:r1])
	})
	return out
}

// ndcg returns the mean NDCG at listN of the lists of scores s.
func (v *listValidation) ndcg(s []float64) float64 {
	n2 := v.n2
	per := make([]float64, len(v.users))
	discount, ideals := newListScore(listN, 0).discount, newListScore(listN, 0).ideals
	par.Do(v.workers, len(v.users), func(r int) {
		row := make([]float64, n2)
		copy(row, s[r*n2:(r+1)*n2])
		for _, i := range v.seen[r] {
			row[i] = math.Inf(-1)
		}
		items, vals := make([]int32, listN), make([]float64, listN)
		h := topOf(row, listN, items, vals)
		per[r] = ndcgOf(items[:h], v.relevant[r], discount, ideals)
	})
	var sum float64
	for _, x := range per {
		sum += x
	}
	return sum / float64(max(1, len(per)))
}

// listCoords are the coordinates searched, in order: the penalty, then
// the popularity exponent.
var listCoords = []int{2, 0}

// listSampleUsers bounds the users of the lists' validation: past it, the
// setting is chosen on the ratings of that many users drawn at random.
const listSampleUsers = 20000

// sampleUsers returns the table of the ratings of n of t's users, drawn
// from the seed's stream, in their order; the items are t's.
func sampleUsers(t *table, n int, seed uint64) *table {
	st := newStream()
	st.seed(seed, 0, streamLists, 4)
	users := st.rng.Perm(t.n1)[:n]
	slices.Sort(users)
	var rows, cols []int32
	var vals []float32
	for r, u := range users {
		for e := t.uStart[u]; e < t.uStart[u+1]; e++ {
			rows, cols, vals = append(rows, int32(r)), append(cols, t.uItem.at(e)), append(vals, t.y.at(e))
		}
	}
	return newTable(n, t.n2, rows, cols, vals)
}

// listFixed, when not nil, is the setting fitLists fits without a search
// (tests).
var listFixed *listChoice

// listChoice is a setting of the lists: indices into listPops, listRanks
// followed by listGrown, and listLambdas.
type listChoice [3]int

// fitLists fits the lists of the table's interactions (ratings, or
// implicit feedback): chooses the setting on interactions held out, then
// fits it on all of them. The table is left as it was given.
func fitLists(ctx context.Context, t *table, implicit bool, s Settings) (*Lists, error) {
	begin := time.Now()
	x := imat{t: t, mode: valueWeights}
	if !implicit {
		x = ratingsMatrix(t)
	}
	sel := &ListSelection{Fraction: listHeldOut, Metric: "NDCG@20"}
	rel := math.Inf(-1)
	if !implicit {
		lo, hi := t.y.valueRange(nil)
		rel = DefaultRelevant(lo, hi)
		sel.Relevant = rel
	}
	// The validation: on a sample of the users when there are many, whose
	// ratings make a table of their own (the setting's penalty is relative
	// to the columns' norms, so that it carries to all of them).
	vt, vx := t, x
	if t.n1 > listSampleUsers {
		vt = sampleUsers(t, listSampleUsers, s.Seed)
		vx = imat{t: vt, mode: x.mode, lo: x.lo, span: x.span}
		sel.Sampled = vt.n1
	}
	p := holdOut(vt, listHeldOut, s.Seed, streamLists)
	sel.HeldOut = p.n
	vt.mark(&p, true)
	v := newListValidation(vt, &p, implicit, rel, s.Seed, s.Workers)
	sel.Users = len(v.users)
	choice, k := listChoice{1, len(listRanks) - 1, 2}, listRanks[len(listRanks)-1]
	if listFixed != nil {
		choice, k = *listFixed, listRanks[listFixed[1]]
	} else if len(v.users) > 0 && p.n > 0 {
		choice, k = searchLists(vx, v, sel, s)
	}
	k = min(k, t.n1, t.n2)
	vt.mark(&p, false)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The final fit, on every interaction.
	pop, lam := listPops[choice[0]], listLambdas[choice[2]]
	counts := x.itemWeights()
	sc, lambda0 := x.scales(counts, pop)
	sp := x.spectrumOf(sc, min(k+listOversample, t.n1, t.n2), s.Seed, s.Workers)
	pf, qf := sp.factors(t.n1, t.n2, k, lam*lambda0)
	l := &Lists{P: mat.NewDense(t.n1, k, pf), Q: mat.NewDense(t.n2, k, qf), Pop: pop, Lambda: lam,
		Scale: sc, Sig2: slices.Clone(sp.sig2[:k]), Lambda0: lambda0, Weights: x.weights(), Lo: x.lo, Span: x.span, Selection: sel}
	sel.Seconds = time.Since(begin).Seconds()
	return l, nil
}

// searchLists chooses the lists' setting on the validation v, a
// coordinate at a time (the penalty, the popularity exponent; the rank at
// the largest of listRanks) from the middle of each list,
// until a round changes none; then, while the rank binds (the penalty
// chosen among the listBinding smallest), it doubles the rank (listGrown)
// and chooses the penalty again, and keeps the larger rank while it gains
// listRankGain. It records each setting tried in sel and returns the
// choice and its rank.
func searchLists(x imat, v *listValidation, sel *ListSelection, s Settings) (listChoice, int) {
	t := x.t
	counts := x.itemWeights()
	ranks := append(slices.Clone(listRanks), listGrown...)
	rankOf := func(j int) int { return min(ranks[j], t.n1, t.n2) }
	type spec struct {
		sp      spectrum
		lambda0 float64
	}
	specs := map[[2]int]*spec{} // by the popularity exponent and the rank
	specOf := func(pop, k int) *spec {
		if sp, ok := specs[[2]int{pop, k}]; ok {
			return sp
		}
		sc, lambda0 := x.scales(counts, listPops[pop])
		sp := &spec{sp: x.spectrumOf(sc, min(k+listOversample, t.n1, t.n2), s.Seed, s.Workers), lambda0: lambda0}
		// Keep only the validation users' rows of y.
		l := sp.sp.l
		y := make([]float64, len(v.users)*l)
		for r, u := range v.users {
			copy(y[r*l:r*l+l], sp.sp.y[u*l:u*l+l])
		}
		sp.sp.y = y
		specs[[2]int{pop, k}] = sp
		return sp
	}
	tried := map[listChoice]int{} // index into sel.Candidates
	base := len(listRanks) - 1    // the rank of the coordinate search
	score := func(c listChoice) float64 {
		if j, ok := tried[c]; ok {
			return sel.Candidates[j].Score
		}
		k := rankOf(c[1])
		sp := specOf(c[0], rankOf(max(c[1], base)))
		pf, qf := sp.sp.factors(len(v.users), t.n2, k, listLambdas[c[2]]*sp.lambda0)
		r := v.ndcg(v.scoresOf(pf, qf, k))
		tried[c] = len(sel.Candidates)
		sel.Candidates = append(sel.Candidates, ListCandidate{Pop: listPops[c[0]], Rank: k, Lambda: listLambdas[c[2]], Score: r})
		return r
	}
	sizes := [3]int{len(listPops), len(listRanks), len(listLambdas)}
	cur := listChoice{1, base, 2}
	best := score(cur)
	for round := 0; round < 4; round++ {
		moved := false
		for _, coord := range listCoords {
			for j := range sizes[coord] {
				c := cur
				c[coord] = j
				if r := score(c); r > best {
					best, cur, moved = r, c, true
				}
			}
		}
		if !moved {
			break
		}
	}
	// Grow the rank while it binds and pays.
	for next := cur[1] + 1; next < len(ranks) && cur[2] < listBinding && rankOf(next) > rankOf(cur[1]); next++ {
		k := rankOf(next)
		if float64(t.n1+t.n2)*float64(k)*float64(k) > listSpectrumBudget {
			break
		}
		grown, gain := cur, best
		for j := range listLambdas {
			c := cur
			c[1], c[2] = next, j
			if r := score(c); r > gain {
				grown, gain = c, r
			}
		}
		if !(gain > best*(1+listRankGain)) {
			break
		}
		cur, best = grown, gain
	}
	sel.Chosen = tried[cur]
	return cur, ranks[cur[1]]
}

// seenOf returns the table's ratings by user, in the order they came, in
// the table's own memory (its users' half): no copy of 5 or 8 bytes a
// rating.
func seenOf(t *table) *Seen {
	start := make([]int64, t.n1+1)
	for u, p := range t.uStart {
		start[u] = int64(p)
	}
	return &Seen{Start: start, items: t.uItem, vals: t.y}
}
