package recommend

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/par"
)

// foldSteps are the reweighted solves of a row of the Student-t
// likelihood: each weighs a rating by (ν+1)/(ν + α e²) from the last
// solve's residual e, as the sampler draws its weights.
const foldSteps = 5

// FoldReport says what FoldIn folded in.
type FoldReport struct {
	Ratings    int // folded in
	Replaced   int // of them, of pairs the model held (the old rating replaced)
	NewUsers   int
	KnownUsers int // users already in the model whose rows were recomputed
	NewItems   int
	// Unfitted are ratings of new items by users that had none of a
	// known item: held in Seen, but no row could be fitted from them.
	Unfitted int
}

// FoldIn returns the model with the ratings r folded in, without a refit.
// Each user of r with a rating of a known item gets its rows recomputed
// against the fixed items from all its ratings (a new rating of a held
// pair replaces the old), then each new item its rows from the users'. A
// row is what the model would make of it. The ratings model's [L_u, b_u]
// is the posterior mean given the items' rows, under the users' prior and
// the noise the fit learned (Info.NoiseSD), Student-t weights by
// reweighted solves (ridge: its penalized least squares); the lists' rows
// are as Lists defines them. The model must hold its training ratings
// (Seen); every other row stays the model's, bit for bit, and no row
// depends on workers (0: GOMAXPROCS). A rating off the scale [Min, Max] (a
// weight ≤ 0 for implicit feedback) is an *InputError: another model's.
func (m *Model) FoldIn(ctx context.Context, r Ratings, workers int) (*Model, FoldReport, error) {
	begin := time.Now()
	var rep FoldReport
	if err := r.check("ratings"); err != nil {
		return nil, rep, err
	}
	if m.Seen == nil {
		return nil, rep, &InputError{Source: "recommend", Input: "model", Reason: "holds no training ratings (seen_*.npy) to fold new ones in with: fit it again"}
	}
	implicit := m.Info.Method == MethodImplicit
	for k, v := range r.Values {
		if implicit && !(v > 0) {
			return nil, rep, &InputError{Source: "recommend", Input: "ratings", Reason: fmt.Sprintf("interaction #%d (user %d, item %d) has weight %v: weights must be positive", k+1, r.Users[k], r.Items[k], v)}
		}
		if !implicit && (v < m.Min || v > m.Max) {
			return nil, rep, &InputError{Source: "recommend", Input: "ratings", Reason: fmt.Sprintf("rating #%d (user %d, item %d) is %v, outside the model's scale [%v, %v]", k+1, r.Users[k], r.Items[k], v, m.Min, m.Max)}
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	f := newFold(m, r)
	rep = f.report
	if err := ctx.Err(); err != nil {
		return nil, rep, err
	}
	out := f.layOut()
	f.fitUsers(out, workers)
	f.fitItems(out, workers)
	out.Info.FoldedIn += rep.Ratings
	out.Info.Seconds = m.Info.Seconds + time.Since(begin).Seconds()
	return out, rep, ctx.Err()
}

// fold is a fold-in under way: the model, the new ids merged with its,
// the ratings by user in the new layout, and which rows to fit.
type fold struct {
	m            *Model
	users, items IDs            // the new model's
	uPos, iPos   []int          // an old index's new one
	seen         *Seen          // the new model's, by new user
	refit        []int          // new user indices whose rows are fitted
	known        []bool         // by new user index: the model had the user
	fresh        map[int][]bool // a touched user's ratings in seen: r's (new or replacing)
	newItems     []int          // new item indices of items the model lacked
	oldItem      []bool
	report       FoldReport
}

// newFold merges r into the model's ids and training ratings.
func newFold(m *Model, r Ratings) *fold {
	f := &fold{m: m}
	f.users, f.uPos = mergeIDs(m.Users, r.Users)
	f.items, f.iPos = mergeIDs(m.Items, r.Items)
	n1, n2 := len(f.users), len(f.items)
	f.oldItem = make([]bool, n2)
	for _, p := range f.iPos {
		f.oldItem[p] = true
	}
	for i := range n2 {
		if !f.oldItem[i] {
			f.newItems = append(f.newItems, i)
		}
	}
	f.report.NewItems = len(f.newItems)
	old := m.Seen
	f.known = make([]bool, n1)
	oldOf := make([]int, n1) // a new user index's old one, -1 for a new user
	for u := range oldOf {
		oldOf[u] = -1
	}
	for u, p := range f.uPos {
		f.known[p], oldOf[p] = true, u
	}
	// The touched users' ratings: the model's, mapped, then r's in their
	// order, a later rating of a pair replacing an earlier one.
	type iv struct {
		i     int32
		v     float32
		fresh bool
	}
	rows := map[int][]iv{}
	at := map[int]map[int32]int{} // a touched row's item positions
	heldBefore := map[int]int{}   // ratings a touched row had before r's
	knownRating := map[int]bool{} // r rates a known item
	for k, id := range r.Users {
		u, _ := f.users.Index(id)
		i, _ := f.items.Index(r.Items[k])
		row, ok := rows[u]
		if !ok {
			pos := map[int32]int{}
			if o := oldOf[u]; o >= 0 {
				for e := old.Start[o]; e < old.Start[o+1]; e++ {
					j := int32(f.iPos[old.Item(e)])
					pos[j] = len(row)
					row = append(row, iv{j, old.Value(e), false})
				}
			}
			at[u], heldBefore[u] = pos, len(row)
		}
		if j, ok := at[u][int32(i)]; ok {
			if j < heldBefore[u] && !row[j].fresh { // the model's, replaced once however often rated
				f.report.Replaced++
			}
			row[j].v, row[j].fresh = float32(r.Values[k]), true
		} else {
			at[u][int32(i)] = len(row)
			row = append(row, iv{int32(i), float32(r.Values[k]), true})
		}
		rows[u] = row
		knownRating[u] = knownRating[u] || f.oldItem[i]
	}
	f.report.Ratings = r.Len()
	for u := range n1 {
		row, touched := rows[u]
		switch {
		case !touched:
		case knownRating[u]:
			f.refit = append(f.refit, u)
			if f.known[u] {
				f.report.KnownUsers++
			} else {
				f.report.NewUsers++
			}
		case !f.known[u]:
			f.report.NewUsers++
			f.report.Unfitted += len(row)
		}
	}
	// The new Seen: the untouched rows copied (their items renumbered
	// when items were added), the touched ones as merged.
	s := &Seen{Start: make([]int64, n1+1)}
	for u := range n1 {
		n := 0
		if row, ok := rows[u]; ok {
			n = len(row)
		} else if o := oldOf[u]; o >= 0 {
			n = int(old.Start[o+1] - old.Start[o])
		}
		s.Start[u+1] = s.Start[u] + int64(n)
	}
	total := s.Start[n1]
	s.items, s.vals.f = makeIndex(int(total), len(f.items)), make([]float32, total)
	f.fresh = map[int][]bool{}
	for u := range n1 {
		dst := s.Start[u]
		if row, ok := rows[u]; ok {
			fr := make([]bool, len(row))
			for j, x := range row {
				s.items.set(int(dst)+j, x.i)
				s.vals.f[dst+int64(j)], fr[j] = x.v, x.fresh
			}
			f.fresh[u] = fr
			continue
		}
		if o := oldOf[u]; o >= 0 {
			lo, hi := old.Start[o], old.Start[o+1]
			for e := lo; e < hi; e++ {
				s.vals.f[dst+e-lo] = old.Value(e)
			}
			for e := lo; e < hi; e++ {
				i := old.Item(e)
				if len(f.newItems) > 0 {
					i = int32(f.iPos[i])
				}
				s.items.set(int(dst+e-lo), i)
			}
		}
	}
	f.seen = s
	return f
}

// mergeIDs returns the ids of old and of add together, increasing, and the
// new index of each old one.
func mergeIDs(old IDs, add []int64) (IDs, []int) {
	var extra []int64
	for _, id := range add {
		if _, ok := old.Index(id); !ok {
			extra = append(extra, id)
		}
	}
	slices.Sort(extra)
	extra = slices.Compact(extra)
	ids := make(IDs, 0, len(old)+len(extra))
	pos := make([]int, len(old))
	j := 0
	for k, id := range old {
		for j < len(extra) && extra[j] < id {
			ids = append(ids, extra[j])
			j++
		}
		pos[k] = len(ids)
		ids = append(ids, id)
	}
	return append(ids, extra[j:]...), pos
}

// layOut returns the new model: the old rows at their new places, the new
// ones 0 until fitted.
func (f *fold) layOut() *Model {
	m := f.m
	n1, n2 := len(f.users), len(f.items)
	out := &Model{Mean: m.Mean, Users: f.users, Items: f.items, Min: m.Min, Max: m.Max, Info: m.Info, Seen: f.seen,
		UserBias: make([]float64, n1), ItemBias: make([]float64, n2)}
	for u, p := range f.uPos {
		out.UserBias[p] = m.UserBias[u]
	}
	// move returns x's rows at their new places; the items' side, which
	// the users' fold-in reads and does not write, is shared when no item
	// is added (the models are read-only).
	move := func(x *mat.Dense, pos []int, n int, share bool) *mat.Dense {
		if x == nil || share {
			return x
		}
		_, k := x.Dims()
		y := mat.NewDense(n, k, nil)
		for r, p := range pos {
			copy(y.RawRowView(p), x.RawRowView(r))
		}
		return y
	}
	sameItems := len(f.newItems) == 0
	out.L, out.R = move(m.L, f.uPos, n1, false), move(m.R, f.iPos, n2, sameItems)
	if sameItems {
		out.ItemBias = m.ItemBias
	} else {
		for i, p := range f.iPos {
			out.ItemBias[p] = m.ItemBias[i]
		}
	}
	if l := m.Lists; l != nil {
		nl := *l
		nl.P, nl.Q = move(l.P, f.uPos, n1, false), move(l.Q, f.iPos, n2, sameItems)
		if !sameItems {
			nl.Scale = make([]float64, n2)
			for i, p := range f.iPos {
				nl.Scale[p] = l.Scale[i]
			}
		}
		out.Lists = &nl
	}
	return out
}

// rowPrior is the prior of a side's rows [x, bias]: the mean and the
// precision (the inverse of the covariance) of the model's rows.
type rowPrior struct {
	mean, prec, cov []float64
	d               int
}

// priorOf returns the prior of the rows of x (n×k, nil for k 0) with
// their biases, from the rows at the indices rows: their mean, and their
// covariance with a ridge of 1e-6 of its trace, inverted.
func priorOf(x *mat.Dense, bias []float64, rows []int, workers int) (rowPrior, bool) {
	k := 0
	if x != nil {
		_, k = x.Dims()
	}
	d := k + 1
	row := func(dst []float64, r int) {
		if k > 0 {
			copy(dst, x.RawRowView(r))
		}
		dst[k] = bias[r]
	}
	p := rowPrior{mean: make([]float64, d), d: d}
	buf := make([]float64, d)
	for _, r := range rows {
		row(buf, r)
		for j, v := range buf {
			p.mean[j] += v
		}
	}
	n := float64(max(1, len(rows)))
	for j := range p.mean {
		p.mean[j] /= n
	}
	g := make([]float64, d*d)
	addGram(g, d, len(rows), workers, func(b []float64, r0, r1 int) {
		for j := r0; j < r1; j++ {
			dst := b[(j-r0)*d : (j-r0+1)*d]
			row(dst, rows[j])
			for c := range dst {
				dst[c] -= p.mean[c]
			}
		}
	})
	var tr float64
	for a := range d {
		tr += g[a*d+a]
	}
	for a := range d {
		for b := a; b < d; b++ {
			g[a*d+b] /= n
			g[b*d+a] = g[a*d+b]
		}
		g[a*d+a] += 1e-6*tr/n/float64(d) + 1e-12
	}
	p.cov = slices.Clone(g)
	if !cholesky(g, d) {
		return p, false
	}
	// prec = Σ⁻¹, column by column.
	p.prec = make([]float64, d*d)
	e := make([]float64, d)
	for c := range d {
		clear(e)
		e[c] = 1
		forward(g, d, e)
		backward(g, d, e)
		for a := range d {
			p.prec[a*d+c] = e[a]
		}
	}
	return p, true
}

// forward solves C y = b in place, C the lower Cholesky factor in c.
func forward(c []float64, d int, b []float64) {
	for i := range d {
		s := b[i]
		for k := range i {
			s -= c[i*d+k] * b[k]
		}
		b[i] = s / c[i*d+i]
	}
}

// rowFit fits one row [x, bias] from observations e_j = row · r_j + noise,
// r_j the rows of the other side with a 1 for the bias.
type rowFit struct {
	d     int
	ridge float64 // ridge: the penalty λ, times the observations
	prior rowPrior
	alpha float64 // the noise precision (bayes)
	nu    float64 // the Student-t degrees of freedom; 0 Gaussian
	bayes bool
}

// solve returns the row from the others' rows rs (len(es)×(d-1),
// row-major) and the targets es, of which fresh tells the new ones.
//
// Ridge recomputes the row from all of them: its penalized least squares,
// what its sweeps make of the row. Bayes updates the row's posterior: a
// row the model fitted (x0, not nil) is the posterior mean given its old
// observations, whose precision is the prior's plus α Σ w r rᵀ over them
// (w the Student-t weights of their residuals at x0); the new ones are
// added to it, reweighted foldSteps times, so that a row with no new
// observation stays the model's and the rows the fit averaged over its
// sweeps are not recomputed from one point estimate of the items. A new
// row (x0 nil) starts from the prior.
func (f *rowFit) solve(rs, es []float64, fresh []bool, x0 []float64) []float64 {
	d, k := f.d, f.d-1
	a0, b0 := make([]float64, d*d), make([]float64, d)
	r := make([]float64, d)
	rowOf := func(j int) []float64 {
		copy(r, rs[j*k:(j+1)*k])
		r[k] = 1
		return r
	}
	// add adds the observations js, weighed by w(j), to the system (a, b):
	// the rows scaled by √w, their Gram by the kernel's tiles.
	add := func(a, b []float64, js []int, w func(j int) float64) {
		buf := make([]float64, len(js)*d)
		for n, j := range js {
			wj := w(j)
			r := rowOf(j)
			for p := range d {
				b[p] += wj * r[p] * es[j]
			}
			sw := math.Sqrt(wj)
			for p, v := range r {
				buf[n*d+p] = sw * v
			}
		}
		addGram(a, d, len(js), 1, func(dst []float64, r0, r1 int) { copy(dst, buf[r0*d:r1*d]) })
	}
	all := func(keep func(j int) bool) []int {
		var js []int
		for j := range es {
			if keep(j) {
				js = append(js, j)
			}
		}
		return js
	}
	x := make([]float64, d)
	if !f.bayes {
		add(a0, b0, all(func(int) bool { return true }), func(int) float64 { return 1 })
		for p := range d {
			a0[p*d+p] += f.ridge * float64(len(es))
		}
		solveSym(a0, b0, d, x)
		return x
	}
	// The old observations' system: the prior, and those the row fitted.
	copy(a0, f.prior.prec)
	for p := range d {
		for q := range d {
			b0[p] += f.prior.prec[p*d+q] * f.prior.mean[q]
		}
	}
	if x0 != nil {
		add(a0, b0, all(func(j int) bool { return !fresh[j] }), func(j int) float64 { return f.alpha * f.weight(es[j]-dot(rowOf(j), x0)) })
		// The model's row is the posterior mean: b0 = A0 x0.
		for p := range d {
			var s float64
			for q := range d {
				if q >= p {
					s += a0[p*d+q] * x0[q]
				} else {
					s += a0[q*d+p] * x0[q]
				}
			}
			b0[p] = s
		}
	} else {
		for j := range es {
			fresh[j] = true // every observation is the row's news
		}
		if len(es) < d {
			return f.fewObservations(rs, es)
		}
	}
	w := make([]float64, len(es))
	for j := range w {
		w[j] = 1
	}
	steps := 1
	if f.nu > 0 {
		steps = foldSteps
	}
	a, b := make([]float64, d*d), make([]float64, d)
	news := all(func(j int) bool { return fresh[j] })
	for step := range steps {
		copy(a, a0)
		copy(b, b0)
		add(a, b, news, func(j int) float64 { return f.alpha * w[j] })
		if !solveSym(a, b, d, x) {
			return x
		}
		if step+1 < steps {
			for j := range es {
				if fresh[j] {
					w[j] = f.weight(es[j] - dot(rowOf(j), x))
				}
			}
		}
	}
	return x
}

// fewObservations is solve's posterior mean of a new row from n < d
// observations, in the observations' space (Woodbury): with the prior's
// mean μ and covariance Σ, the rows R (n×d) and the weights W,
//
//	x = μ + Σ Rᵀ (R Σ Rᵀ + (α W)⁻¹)⁻¹ (e - R μ),
//
// an n×n solve a reweighting where the row's own system is d×d.
func (f *rowFit) fewObservations(rs, es []float64) []float64 {
	d, k, n := f.d, f.d-1, len(es)
	r := make([]float64, n*d) // R, with the 1 of the bias
	for j := range n {
		copy(r[j*d:j*d+k], rs[j*k:(j+1)*k])
		r[j*d+k] = 1
	}
	rc := make([]float64, n*d) // R Σ
	for j := range n {
		for q := range d {
			rc[j*d+q] = dot(r[j*d:(j+1)*d], f.prior.cov[q*d:(q+1)*d])
		}
	}
	base := make([]float64, n*n) // R Σ Rᵀ
	res := make([]float64, n)    // e - R μ
	for a := range n {
		for b := a; b < n; b++ {
			base[a*n+b] = dot(rc[a*d:(a+1)*d], r[b*d:(b+1)*d])
		}
		res[a] = es[a] - dot(r[a*d:(a+1)*d], f.prior.mean)
	}
	w := make([]float64, n)
	for j := range w {
		w[j] = 1
	}
	steps := 1
	if f.nu > 0 {
		steps = foldSteps
	}
	x := slices.Clone(f.prior.mean)
	m, z := make([]float64, n*n), make([]float64, n)
	for step := range steps {
		copy(m, base)
		for j := range n {
			m[j*n+j] += 1 / (f.alpha * w[j])
		}
		if !solveSym(m, res, n, z) {
			return x
		}
		copy(x, f.prior.mean)
		for j, zj := range z { // x = μ + (R Σ)ᵀ z
			axpy(zj, rc[j*d:(j+1)*d], x)
		}
		if step+1 < steps {
			for j := range n {
				w[j] = f.weight(es[j] - dot(r[j*d:(j+1)*d], x))
			}
		}
	}
	return x
}

// weight returns the Student-t likelihood's weight of a residual e,
// (ν+1)/(ν + α e²); 1 for a Gaussian likelihood.
func (f *rowFit) weight(e float64) float64 {
	if f.nu <= 0 {
		return 1
	}
	return (f.nu + 1) / (f.nu + f.alpha*e*e)
}

// solveSym sets x to the solution of a x = b, a symmetric positive
// definite in its upper triangle (overwritten), and reports whether a is.
func solveSym(a, b []float64, d int, x []float64) bool {
	for p := range d { // the lower triangle, as cholesky reads it
		for q := p + 1; q < d; q++ {
			a[q*d+p] = a[p*d+q]
		}
	}
	if !cholesky(a, d) {
		return false
	}
	copy(x, b)
	forward(a, d, x)
	backward(a, d, x)
	return true
}

// newRowFit returns the fit of rows of the model's method for a side
// whose rows (with their biases) are x and bias, the prior from rows.
func (f *fold) newRowFit(x *mat.Dense, bias []float64, rows []int, workers int, items bool) (rowFit, bool) {
	m := f.m
	k := 0
	if x != nil {
		_, k = x.Dims()
	}
	rf := rowFit{d: k + 1}
	if m.Info.Method == Ridge.String() {
		rf.ridge = m.Info.Lambda
		return rf, true
	}
	rf.bayes = true
	rf.nu = m.Info.Nu
	rf.alpha = 1
	if sd := m.Info.NoiseSD; sd > 0 {
		rf.alpha = 1 / (sd * sd)
	}
	var ok bool
	rf.prior, ok = m.prior(items, func() (rowPrior, bool) {
		return priorOf(x, bias, rows, workers)
	})
	return rf, ok
}

// prior returns the prior of the model's users' rows (or its items'),
// made by make the first time: a fold-in of many users one at a time
// makes it once.
func (m *Model) prior(items bool, make func() (rowPrior, bool)) (rowPrior, bool) {
	c := &m.priors[0]
	if items {
		c = &m.priors[1]
	}
	c.once.Do(func() { c.p, c.ok = make() })
	return c.p, c.ok
}

// cachedPrior is a prior made once.
type cachedPrior struct {
	once sync.Once
	p    rowPrior
	ok   bool
}

// ratingsModel reports whether the model has a ratings part to fold in.
func (f *fold) ratingsModel() bool { return f.m.Info.Method != MethodImplicit }

// sideFit returns the row fit of the users' side (or the items', when
// items) with all n of its rows as the prior's sample, and whether the
// model is the ratings model and the fit could be made.
func (f *fold) sideFit(x *mat.Dense, bias []float64, n, workers int, items bool) (rowFit, bool) {
	if !f.ratingsModel() {
		return rowFit{}, false
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return f.newRowFit(x, bias, all, workers, items)
}

// fitUsers fits the rows of the users to refit against the fixed items.
func (f *fold) fitUsers(out *Model, workers int) {
	if len(f.refit) == 0 {
		return
	}
	m := f.m
	rf, fitRatings := f.sideFit(m.L, m.UserBias, len(m.Users), workers, false)
	l := out.Lists
	var filt []float64
	if l != nil {
		filt = l.filter()
	}
	k := out.Rank()
	par.Do(workers, len(f.refit), func(j int) {
		u := f.refit[j]
		lo, hi := f.seen.Start[u], f.seen.Start[u+1]
		var buf []int32
		items := f.seen.items.slice(int(lo), int(hi), &buf)
		if fitRatings {
			var rs, es []float64
			var fresh []bool
			for e, i := range items {
				if !f.oldItem[i] {
					continue
				}
				if k > 0 {
					rs = append(rs, out.R.RawRowView(int(i))...)
				}
				es = append(es, float64(f.seen.Value(lo+int64(e)))-out.Mean-out.ItemBias[i])
				fresh = append(fresh, f.fresh[u][e])
			}
			var x0 []float64
			if f.known[u] {
				x0 = make([]float64, k+1)
				if k > 0 {
					copy(x0, out.L.RawRowView(u))
				}
				x0[k] = out.UserBias[u]
			}
			x := rf.solve(rs, es, fresh, x0)
			if k > 0 {
				copy(out.L.RawRowView(u), x[:k])
			}
			out.UserBias[u] = x[k]
		}
		if l != nil {
			p := l.P.RawRowView(u)
			clear(p)
			for e, i := range items {
				if f.oldItem[i] {
					axpy(l.weight(f.seen.Value(lo+int64(e)))*l.Scale[i], l.Q.RawRowView(int(i)), p)
				}
			}
			for c := range p {
				p[c] *= filt[c]
			}
		}
	})
}

// fitItems fits the rows of the items new to the model against the users'.
func (f *fold) fitItems(out *Model, workers int) {
	if len(f.newItems) == 0 {
		return
	}
	m := f.m
	// Each new item's ratings, from the users' rows.
	type uv struct {
		u int
		v float32
	}
	byItem := map[int][]uv{}
	isNew := make(map[int]bool, len(f.newItems))
	for _, i := range f.newItems {
		isNew[i] = true
	}
	for u := range len(f.users) {
		for e := f.seen.Start[u]; e < f.seen.Start[u+1]; e++ {
			if i := int(f.seen.Item(e)); isNew[i] {
				byItem[i] = append(byItem[i], uv{u, f.seen.Value(e)})
			}
		}
	}
	fitted := make([]bool, len(f.users)) // users with rows: the model's, or refitted
	for _, p := range f.uPos {
		fitted[p] = true
	}
	for _, u := range f.refit {
		fitted[u] = true
	}
	rf, fitRatings := f.sideFit(m.R, m.ItemBias, len(m.Items), workers, true)
	l := out.Lists
	var filt []float64
	if l != nil {
		filt = l.filter()
	}
	k := out.Rank()
	par.Do(workers, len(f.newItems), func(j int) {
		i := f.newItems[j]
		var by []uv
		for _, x := range byItem[i] {
			if fitted[x.u] {
				by = append(by, x)
			}
		}
		if len(by) == 0 {
			return
		}
		if fitRatings {
			var rs, es []float64
			for _, x := range by {
				if k > 0 {
					rs = append(rs, out.L.RawRowView(x.u)...)
				}
				es = append(es, float64(x.v)-out.Mean-out.UserBias[x.u])
			}
			y := rf.solve(rs, es, make([]bool, len(es)), nil)
			if k > 0 {
				copy(out.R.RawRowView(i), y[:k])
			}
			out.ItemBias[i] = y[k]
		}
		if l != nil {
			var c float64
			for _, x := range by {
				c += l.weight(x.v)
			}
			s := 0.0
			if c > 0 {
				s = math.Pow(c, -l.Pop)
			}
			l.Scale[i] = s
			q := l.Q.RawRowView(i)
			clear(q)
			for _, x := range by {
				axpy(l.weight(x.v)*s, l.P.RawRowView(x.u), q)
			}
			for c := range q {
				if d := filt[c] * l.Sig2[c]; d > 0 {
					q[c] /= d
				} else {
					q[c] = 0
				}
			}
		}
	})
}

// filter returns the lists' ridge filter σ²/(σ² + λ λ0) by dimension.
func (l *Lists) filter() []float64 {
	f := make([]float64, len(l.Sig2))
	for j, s := range l.Sig2 {
		if d := s + l.Lambda*l.Lambda0; d > 0 {
			f[j] = s / d
		}
	}
	return f
}

// weight returns the lists' weight of an interaction's value.
func (l *Lists) weight(v float32) float64 {
	switch l.Weights {
	case "rating":
		if l.Span > 0 {
			return ratingFloor + (1-ratingFloor)*(float64(v)-l.Lo)/l.Span
		}
		return 1
	case "value":
		return float64(v)
	}
	return 1
}

// axpy adds a x to y.
func axpy(a float64, x, y []float64) {
	for j, v := range x {
		y[j] += a * v
	}
}
