package recommend

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"gonum.org/v1/gonum/mat"
)

// TestPriorDraws: the draws of drawPrior average to the mean of their
// Normal-Wishart posterior: E[Λ] = nu_n W_n, E[mu] = n x̄ / (beta0 + n).
func TestPriorDraws(t *testing.T) {
	const n, d = 40, 3
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = 0.5*rng.NormFloat64() + float64(i%d)
	}
	// W_n⁻¹ = I + Σ (x - x̄)(x - x̄)ᵀ + (2n/(2+n)) x̄ x̄ᵀ.
	xm := mat.NewDense(n, d, x)
	mean := make([]float64, d)
	for c := range d {
		mean[c] = mat.Sum(xm.ColView(c)) / n
	}
	winv := mat.NewSymDense(d, nil)
	for a := range d {
		for b := range d {
			var s float64
			for i := range n {
				s += (x[i*d+a] - mean[a]) * (x[i*d+b] - mean[b])
			}
			v := s + 2*n/(2.0+n)*mean[a]*mean[b]
			if a == b {
				v++
			}
			winv.SetSym(a, b, v)
		}
	}
	var w mat.Dense
	if err := w.Inverse(winv); err != nil {
		t.Fatal(err)
	}
	const draws = 20000
	lam, mu := make([]float64, d*d), make([]float64, d)
	p := newPrior(d)
	for range draws {
		drawPrior(&p, x, n, d, rng)
		for i, v := range p.lam {
			lam[i] += v / draws
		}
		for i, v := range p.mu {
			mu[i] += v / draws
		}
	}
	nuN := float64(d + n)
	for a := range d {
		for b := range d {
			want := nuN * w.At(a, b)
			// Var Λ_ab = nu (W_ab² + W_aa W_bb): five standard errors.
			sd := math.Sqrt(nuN * (w.At(a, b)*w.At(a, b) + w.At(a, a)*w.At(b, b)) / draws)
			if math.Abs(lam[a*d+b]-want) > 5*sd {
				t.Errorf("E[Λ](%d,%d) = %.4f, want %.4f ± %.4f", a, b, lam[a*d+b], want, 5*sd)
			}
		}
		if want := n * mean[a] / (2 + n); math.Abs(mu[a]-want) > 0.01*math.Max(1, math.Abs(want)) {
			t.Errorf("E[mu](%d) = %.4f, want %.4f", a, mu[a], want)
		}
	}
}

// smallTable is a table of random ratings for the tests of the sweeps.
func smallTable(seed uint64) *table {
	rng := rand.New(rand.NewPCG(seed, 1))
	const n1, n2 = 30, 20
	var rows, cols []int32
	var vals []float32
	for u := range n1 {
		for i := range n2 {
			if rng.Float64() < 0.4 {
				rows, cols = append(rows, int32(u)), append(cols, int32(i))
				vals = append(vals, float32(1+rng.IntN(5)))
			}
		}
	}
	return newTable(n1, n2, rows, cols, vals)
}

// TestRidgeStepExact: a penalized sweep over the users moves each row's
// coordinates to their minimizers one after another (coordinate descent
// on the row's quadratic, ridgePasses passes a sweep), so that sweeps of
// the users alone, the items fixed, land on each row's minimizer: the
// gradient of Σ_i (y_ui - z_i·x_u)² + λ n_u |x_u|² vanishes at every row.
//
// With ratings held out for validation (every third), the minimizer is
// that of the ratings fitted alone: the held-out ones neither pull the row
// nor count in its penalty.
func TestRidgeStepExact(t *testing.T) {
	for _, hold := range []bool{false, true} {
		ridgeStepExact(t, hold)
	}
}

func ridgeStepExact(t *testing.T, hold bool) {
	tb := smallTable(1)
	s := newSampler(tb, 3, math.Inf(1), 7, 2)
	s.noise, s.lambda = false, 0.3
	heldAt := func(p int) bool { return hold && p%3 == 0 }
	if hold {
		var p pairs
		for u := range tb.n1 {
			for q := tb.uStart[u]; q < tb.uStart[u+1]; q++ {
				if heldAt(q) {
					i := tb.uItem.at(q)
					p.users, p.items, p.values = append(p.users, int32(u)), append(p.items, i), append(p.values, tb.y.at(q))
					p.uOff = append(p.uOff, int32(q-tb.uStart[u]))
					p.iOff = append(p.iOff, int32(tb.itemPos(int32(u), i)-tb.iStart[i]))
				}
			}
		}
		p.n = len(p.values)
		s.hold(&p)
		defer s.release(&p)
	}
	// One sweep's pass is not the minimizer (3 passes of coordinate
	// descent); fifty are, to rounding.
	for n := range 50 {
		s.rows(n, s.users())
	}
	d, k := s.d, s.k
	for u := range tb.n1 {
		x := s.u[u*d : u*d+d]
		grad := make([]float64, d)
		n := 0
		for p := tb.uStart[u]; p < tb.uStart[u+1]; p++ {
			if heldAt(p) {
				continue
			}
			n++
			z := append(append([]float64(nil), s.v[int(tb.uItem.at(p))*d:int(tb.uItem.at(p))*d+k]...), 1)
			r := float64(tb.y.at(p)) - tb.mean - s.v[int(tb.uItem.at(p))*d+k] - dot(x, z)
			for a := range d {
				grad[a] -= r * z[a]
			}
		}
		for a := range d {
			grad[a] += s.lambda * float64(max(n, 1)) * x[a]
			if math.Abs(grad[a]) > 1e-10 {
				t.Fatalf("held out %v: user %d: gradient %v after the sweeps", hold, u, grad)
			}
		}
	}
}

// TestRowDraws: with noise, the draws of a row's coordinates, one after
// another from their scalar conditionals, the other side and the prior
// fixed, sample the row's joint Gaussian conditional: the mean H⁻¹g and
// the covariance H⁻¹ (a Gibbs sampler's stationary law).
func TestRowDraws(t *testing.T) {
	tb := smallTable(2)
	s := newSampler(tb, 2, math.Inf(1), 7, 1)
	d := s.d
	const u, draws = 4, 40000
	// The conditional's H and g, by hand.
	h := mat.NewSymDense(d, append([]float64(nil), s.pu.lam...))
	g := mat.NewVecDense(d, append([]float64(nil), s.pu.lmu...))
	for p := tb.uStart[u]; p < tb.uStart[u+1]; p++ {
		j := int(tb.uItem.at(p))
		z := append(append([]float64(nil), s.v[j*d:j*d+s.k]...), 1)
		for a := range d {
			g.SetVec(a, g.AtVec(a)+s.alpha*(tb.at(p)-s.v[j*d+s.k])*z[a])
			for b := 0; b <= a; b++ { // SetSym sets (a, b) and (b, a)
				h.SetSym(a, b, h.At(a, b)+s.alpha*z[a]*z[b])
			}
		}
	}
	var cov mat.Dense
	if err := cov.Inverse(h); err != nil {
		t.Fatal(err)
	}
	var want mat.VecDense
	want.MulVec(&cov, g)
	mean, second := make([]float64, d), make([]float64, d*d)
	for n := range draws {
		s.rows(n, s.users())
		x := s.u[u*d : u*d+d]
		for a := range d {
			mean[a] += x[a] / draws
			for b := range d {
				second[a*d+b] += x[a] * x[b] / draws
			}
		}
	}
	for a := range d {
		// Successive draws are correlated: ten standard errors of
		// independent ones.
		if sd := math.Sqrt(cov.At(a, a) / draws); math.Abs(mean[a]-want.AtVec(a)) > 10*sd {
			t.Errorf("mean[%d] = %.5f, want %.5f ± %.5f", a, mean[a], want.AtVec(a), 10*sd)
		}
		for b := range d {
			c := second[a*d+b] - mean[a]*mean[b]
			if math.Abs(c-cov.At(a, b)) > 0.05*math.Sqrt(cov.At(a, a)*cov.At(b, b)) {
				t.Errorf("cov(%d,%d) = %.5f, want %.5f", a, b, c, cov.At(a, b))
			}
		}
	}
}

// truncateDense is a merge's truncation of left rightᵀ (see truncate),
// the Grams by table.gram with its rows in two blocks (float32: the
// entries must be float32's, see round32).
func truncateDense(left, right *mat.Dense, rank int) (a, b *mat.Dense) {
	var tb table
	gram := func(x *mat.Dense) []float64 {
		n, c := x.Dims()
		w := c / 2
		l, r := make([]float32, n*w), make([]float32, n*(c-w))
		for i := range n {
			for j := range c {
				if j < w {
					l[i*w+j] = float32(x.At(i, j))
				} else {
					r[i*(c-w)+j-w] = float32(x.At(i, j))
				}
			}
		}
		return tb.gram(blocks{xs: [][]float32{l, r}, widths: []int{w, c - w}}, n)
	}
	_, cols := left.Dims()
	m1, m2 := truncate(gram(left), gram(right), cols, rank)
	a, b = new(mat.Dense), new(mat.Dense)
	a.Mul(left, m1)
	b.Mul(right, m2)
	return a, b
}

// round32 rounds m's entries to float32's.
func round32(m *mat.Dense) {
	m.Apply(func(_, _ int, v float64) float64 { return float64(float32(v)) }, m)
}

// TestTruncate: a product of rank r is kept to 1e-9 at rank r or more,
// and truncated to its best approximation below; so is a product whose
// factors have columns of norms over seven orders of magnitude (the
// posterior mean's held columns beside a sweep's).
func TestTruncate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	randn := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	// A rank-4 product written with 7 columns, of small integers (a
	// sweep's block is float32).
	randi := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				m.Set(i, j, float64(rng.IntN(9)-4))
			}
		}
		return m
	}
	l4, r4 := randi(50, 4), randi(30, 4)
	var left, right, want mat.Dense
	left.Mul(l4, randi(4, 7))
	right.Mul(r4, randi(4, 7))
	want.Mul(&left, right.T())
	for _, rank := range []int{4, 7} {
		a, b := truncateDense(&left, &right, rank)
		var got mat.Dense
		got.Mul(a, b.T())
		if !mat.EqualApprox(&got, &want, 1e-9*mat.Norm(&want, 2)) {
			t.Errorf("rank %d: the product changed", rank)
		}
		if _, c := a.Dims(); c > 4 {
			t.Errorf("rank %d: %d columns kept of a rank-4 product", rank, c)
		}
	}
	a, b := truncateDense(&left, &right, 2)
	var got mat.Dense
	got.Mul(a, b.T())
	var svd mat.SVD
	svd.Factorize(&want, mat.SVDThin)
	sv := svd.Values(nil)
	var diff mat.Dense
	diff.Sub(&want, &got)
	// Eckart-Young: the Frobenius error (mat.Norm's 2) of the best rank-2
	// approximation is that of the other singular values.
	if e, best := mat.Norm(&diff, 2), math.Hypot(sv[2], sv[3]); math.Abs(e-best) > 1e-9*sv[0] {
		t.Errorf("rank 2: error %v, want that of the third and fourth singular values %v", e, best)
	}
	// Graded columns: 8 held (norms 1 down to 1e-7) beside 8 of a sweep.
	gl, gr := randn(200, 16), randn(120, 16)
	for j := range 8 {
		f := math.Pow(10, -float64(j))
		for _, m := range []*mat.Dense{gl, gr} {
			r, _ := m.Dims()
			for i := range r {
				m.Set(i, j, m.At(i, j)*f)
			}
		}
	}
	round32(gl)
	round32(gr)
	var prod mat.Dense
	prod.Mul(gl, gr.T())
	svd.Factorize(&prod, mat.SVDThin)
	sv = svd.Values(nil)
	for _, rank := range []int{6, 16} {
		a, b := truncateDense(gl, gr, rank)
		var got, diff mat.Dense
		got.Mul(a, b.T())
		diff.Sub(&prod, &got)
		var best float64
		for _, v := range sv[rank:] {
			best = math.Hypot(best, v)
		}
		if e := mat.Norm(&diff, 2); math.Abs(e-best) > 1e-9*sv[0] {
			t.Errorf("graded, rank %d: error %v, want the optimum %v to 1e-9 of %v", rank, e, best, sv[0])
		}
	}
	// Graded on one side only, at three scales: the product of full rank
	// kept to the tolerance's 10^-7 or so (a tolerance a hundred times
	// looser, or not relative to the largest entry, loses columns of norm
	// 10^-6 to 10^-5 and misses it).
	for _, scale := range []float64{1e-3, 1, 1e3} {
		l, r := randn(200, 16), randn(120, 16)
		for j := range 8 {
			f := scale * math.Pow(10, -float64(j))
			for i := range 200 {
				l.Set(i, j, l.At(i, j)*f)
			}
		}
		for j := 8; j < 16; j++ {
			for i := range 200 {
				l.Set(i, j, l.At(i, j)*scale)
			}
		}
		round32(l)
		round32(r)
		var prod, got, diff mat.Dense
		prod.Mul(l, r.T())
		a, b := truncateDense(l, r, 16)
		got.Mul(a, b.T())
		diff.Sub(&prod, &got)
		if e, n := mat.Norm(&diff, 2), mat.Norm(&prod, 2); e > 2e-7*n {
			t.Errorf("graded on one side, scale %g: error %.3g of the product's norm, want at most 2e-7", scale, e/n)
		}
	}
	// The merge's width, 120 columns, where the factorization runs in
	// blocks of 64: products of rank 30, 70, 100 and 120 kept at that
	// rank, to the float32 rounding of their factors (which the
	// tolerance drops, 5·10^-8 of the product).
	for _, k := range []int{30, 70, 100, 120} {
		l, r := randn(300, k), randn(200, k)
		ml, mr := randn(k, 120), randn(k, 120)
		var left, right, prod, got, diff mat.Dense
		left.Mul(l, ml)
		right.Mul(r, mr)
		round32(&left)
		round32(&right)
		prod.Mul(&left, right.T())
		a, b := truncateDense(&left, &right, 120)
		if _, c := a.Dims(); c != k {
			t.Errorf("rank %d at 120 columns: %d columns kept", k, c)
		}
		got.Mul(a, b.T())
		diff.Sub(&prod, &got)
		if e, n := mat.Norm(&diff, 2), mat.Norm(&prod, 2); e > 1e-6*n {
			t.Errorf("rank %d at 120 columns: error %.3g of the product's norm", k, e/n)
		}
	}
}

// TestTruncateDegenerate: a zero product is truncated to one zero column,
// and a Gram with a NaN or an infinity keeps the product whole, carried
// to the predictions rather than hidden.
func TestTruncateDegenerate(t *testing.T) {
	const cols = 3
	zero := make([]float64, cols*cols)
	m1, m2 := truncate(zero, zero, cols, 2)
	if _, c := m1.Dims(); c != 1 || mat.Norm(m1, 1) != 0 || mat.Norm(m2, 1) != 0 {
		t.Errorf("zero product: %d columns, norms %v and %v; want one zero column", c, mat.Norm(m1, 1), mat.Norm(m2, 1))
	}
	one := []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		g := []float64{1, 0, 0, 0, bad, 0, 0, 0, 1}
		m1, _ = truncate(g, one, cols, 2)
		if r, c := m1.Dims(); r != cols || c != cols || m1.At(1, 1) != 1 || m1.At(0, 1) != 0 {
			t.Errorf("%v in the Gram: got %d×%d %v, want the identity (the product kept whole)", bad, r, c, mat.Formatted(m1))
		}
	}
}

// TestCholeskySolve: cholesky factors H = C Cᵀ, and backward solves
// Cᵀ x = b, the two steps of drawPrior's Wishart draw.
func TestCholeskySolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const d = 6
	a := make([]float64, d*d)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	h := make([]float64, d*d)
	for i := range d {
		for j := range d {
			for k := range d {
				h[i*d+j] += a[i*d+k] * a[j*d+k]
			}
		}
		h[i*d+i] += 0.1
	}
	b := []float64{1, -2, 3, 0.5, 0, 4}
	x := append([]float64(nil), b...)
	c := append([]float64(nil), h...)
	if !cholesky(c, d) {
		t.Fatal("not positive definite")
	}
	// C is the lower triangle of c.
	lower := func(i, j int) float64 {
		if j > i {
			return 0
		}
		return c[i*d+j]
	}
	for i := range d {
		for j := range d {
			var s float64
			for k := range d {
				s += lower(i, k) * lower(j, k)
			}
			if math.Abs(s-h[i*d+j]) > 1e-10 {
				t.Errorf("(C Cᵀ)[%d,%d] = %v, want %v", i, j, s, h[i*d+j])
			}
		}
	}
	backward(c, d, x)
	for i := range d {
		var s float64
		for k := range d {
			s += lower(k, i) * x[k]
		}
		if math.Abs(s-b[i]) > 1e-10 {
			t.Errorf("(Cᵀ x)[%d] = %v, want %v", i, s, b[i])
		}
	}
	if cholesky([]float64{1, 2, 2, 1}, 2) {
		t.Error("an indefinite matrix factored")
	}
}

// plainBiases is BiasesIndexed written plainly: 20 rounds over the ratings
// in their order, one core.
func plainBiases(x *Indexed, mean, lu, li float64) (b, c []float64) {
	b, c = make([]float64, len(x.Users)), make([]float64, len(x.Items))
	cu, ci := make([]float64, len(b)), make([]float64, len(c))
	for k := range x.Values {
		cu[x.Rows[k]]++
		ci[x.Cols[k]]++
	}
	for range 20 {
		si := make([]fsum.Sum, len(c))
		for k, v := range x.Values {
			si[x.Cols[k]].Add(float64(v) - mean - b[x.Rows[k]])
		}
		for i := range c {
			c[i] = si[i].Value() / (ci[i] + li)
		}
		su := make([]fsum.Sum, len(b))
		for k, v := range x.Values {
			su[x.Rows[k]].Add(float64(v) - mean - c[x.Cols[k]])
		}
		for u := range b {
			b[u] = su[u].Value() / (cu[u] + lu)
		}
	}
	return b, c
}

// TestBiasesInUserOrder: the biases of ratings listed by user are those of
// the plain rounds over them bit for bit, on one core and on several; in
// another order they are the same to rounding; and the last update is
// exact: each user's bias minimizes the objective given the items'. It
// fails when a user's sum skips a rating: checked.
func TestBiasesInUserOrder(t *testing.T) {
	biasesInUserOrder(t, 50000, true)
}

// TestBiasesInBlocks: above a million ratings the items' sums are added
// in blocks of users: the same bits on one core and on several, the plain
// rounds' to rounding. It fails when the blocks follow the cores: checked.
func TestBiasesInBlocks(t *testing.T) {
	biasesInUserOrder(t, 1<<20+5000, false)
}

// biasesInUserOrder checks the biases of m random ratings, in user order
// bit for bit the plain rounds' when exact.
func biasesInUserOrder(t *testing.T, m int, exact bool) {
	const n1, n2 = 3000, 40
	rng := rand.New(rand.NewPCG(5, 6))
	x := &Indexed{Users: make(IDs, n1), Items: make(IDs, n2), Rows: make([]int32, m), Cols: make([]int32, m), Values: make([]float32, m)}
	for u := range x.Users {
		x.Users[u] = int64(u)
	}
	for i := range x.Items {
		x.Items[i] = int64(i)
	}
	for k := range m {
		x.Rows[k], x.Cols[k] = int32(rng.IntN(n1)), int32(rng.IntN(n2))
		x.Values[k] = float32(1+rng.IntN(9)) / 2
	}
	byUser := &Indexed{Users: x.Users, Items: x.Items, Rows: slices.Clone(x.Rows), Cols: slices.Clone(x.Cols), Values: slices.Clone(x.Values)}
	order := make([]int, m)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(x.Rows[a], x.Rows[b]) })
	for n, k := range order {
		byUser.Rows[n], byUser.Cols[n], byUser.Values[n] = x.Rows[k], x.Cols[k], x.Values[k]
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first *Model
	for _, cores := range []int{1, 3} {
		runtime.GOMAXPROCS(cores)
		got, err := BiasesIndexed(byUser, DefaultBiasUser, DefaultBiasItem)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
		}
		if !slices.Equal(got.UserBias, first.UserBias) || !slices.Equal(got.ItemBias, first.ItemBias) {
			t.Fatalf("%d cores: not one core's biases bit for bit", cores)
		}
		b, c := plainBiases(byUser, got.Mean, DefaultBiasUser, DefaultBiasItem)
		if exact && (!slices.Equal(got.UserBias, b) || !slices.Equal(got.ItemBias, c)) {
			t.Fatalf("%d cores: the biases of ratings listed by user are not the plain rounds' bit for bit", cores)
		}
		for i := range c {
			if d := math.Abs(got.ItemBias[i] - c[i]); d > 1e-12 {
				t.Fatalf("%d cores: item %d's bias %v, the plain rounds' %v", cores, i, got.ItemBias[i], c[i])
			}
		}
		shuffled, _ := BiasesIndexed(x, DefaultBiasUser, DefaultBiasItem)
		for u := range b {
			if d := math.Abs(shuffled.UserBias[u] - b[u]); d > 1e-12 {
				t.Fatalf("%d cores: user %d's bias %v in another order, %v by user", cores, u, shuffled.UserBias[u], b[u])
			}
		}
		num, cnt := make([]float64, n1), make([]float64, n1)
		for k, v := range x.Values {
			num[x.Rows[k]] += float64(v) - shuffled.Mean - shuffled.ItemBias[x.Cols[k]]
			cnt[x.Rows[k]]++
		}
		for u := range num {
			if want := num[u] / (cnt[u] + DefaultBiasUser); math.Abs(shuffled.UserBias[u]-want) > 1e-12 {
				t.Fatalf("user %d's bias %v, its minimizer given the items' %v", u, shuffled.UserBias[u], want)
			}
		}
	}
}

// TestRerated: the table finds a pair rated twice wherever it lies (users
// in several blocks), on one worker and on several, and finds none in
// distinct pairs.
func TestRerated(t *testing.T) {
	const n1, n2 = 40000, 700
	rng := rand.New(rand.NewPCG(7, 8))
	var rows, cols []int32
	for u := range n1 {
		for _, i := range rng.Perm(n2)[:1+rng.IntN(4)] {
			rows, cols = append(rows, int32(u)), append(cols, int32(i))
		}
	}
	values := make([]float32, len(rows))
	for _, workers := range []int{1, 3} {
		if newTable(n1, n2, rows, cols, values).rerated(workers) {
			t.Fatalf("%d workers: distinct pairs found rated twice", workers)
		}
		for range 20 {
			k := rng.IntN(len(rows))
			r, c := append(slices.Clone(rows), rows[k]), append(slices.Clone(cols), cols[k])
			if !newTable(n1, n2, r, c, append(values, 0)).rerated(workers) {
				t.Fatalf("%d workers: user %d's second rating of item %d not found", workers, rows[k], cols[k])
			}
		}
	}
}

// TestAddGram: addGram's upper triangle is the loop over the rows that
// adds each entry's terms in the rows' order, bit for bit, whatever the
// cores and around its tiles (four rows by eight columns, the rows padded
// with zeros to whole tiles, the triangle's rows in bands of whole
// tiles' rows); the entries below the diagonal are left as they were.
// Enough rows (the last m) make even the narrow Grams take the cores.
func TestAddGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 3, 5, 8, 9, 41} {
		for _, m := range []int{0, 1, 7, 3000, gramAlone/(n*n) + 1} {
			x := make([]float64, m*n)
			for i := range x {
				x[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
			}
			want := make([]float64, n*n)
			for i := range want {
				want[i] = rng.NormFloat64()
			}
			start := slices.Clone(want)
			for r := range m {
				for i := range n {
					for j := i; j < n; j++ {
						want[i*n+j] += float64(x[r*n+i] * x[r*n+j]) // rounded, never fused
					}
				}
			}
			for workers := 1; workers <= 3; workers++ {
				got := slices.Clone(start)
				addGram(got, n, m, workers, func(buf []float64, r0, r1 int) { copy(buf, x[r0*n:r1*n]) })
				for e := range got {
					if math.Float64bits(got[e]) != math.Float64bits(want[e]) {
						t.Fatalf("n %d, m %d, %d workers: entry (%d, %d) = %v, want %v", n, m, workers, e/n, e%n, got[e], want[e])
					}
				}
			}
		}
	}
}

// TestRowsTimes: rowsTimes is the loop that adds each entry's terms in
// the order of the columns, bit for bit (rounded to float32 once), on
// every kernel, for rows and columns around its Gram tiles of four by
// eight and blocks of 64 rows, and so it is when it writes the product
// over its first block, as wide.
func TestRowsTimes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 2, 3, 257, 600} {
		for _, k := range []int{1, 3, 4, 9, 16, 20, 41} {
			for _, first := range []int{2, k} {
				xs := blocks{xs: [][]float32{make([]float32, n*first), make([]float32, n*5)}, widths: []int{first, 5}}
				for _, x := range xs.xs {
					for i := range x {
						x[i] = float32(rng.NormFloat64() * math.Exp(4*rng.NormFloat64()))
					}
				}
				cols := first + 5
				m := mat.NewDense(cols, k, nil)
				for i := range cols {
					for j := range k {
						m.Set(i, j, rng.NormFloat64())
					}
				}
				want := make([]float64, n*k)
				x := make([]float64, cols)
				for r := range n {
					xs.row(x, r)
					for j := range k {
						for i, v := range x {
							want[r*k+j] += v * m.At(i, j)
						}
					}
				}
				var out []float32
				if first == k {
					out = xs.xs[0] // in place
				}
				got := rowsTimes(out, xs, n, m)
				for e, g := range got {
					if math.Float32bits(g) != math.Float32bits(float32(want[e])) {
						t.Fatalf("n %d, k %d, first block %d wide: entry (%d, %d) = %v, want %v", n, k, first, e/k, e%k, g, want[e])
					}
				}
				if first == k && &got[0] != &xs.xs[0][0] {
					t.Fatalf("n %d, k %d: not written in the first block", n, k)
				}
			}
		}
	}
}

// TestStops: a stage stops on its patience (no gain by more than tol in
// patience sweeps, at least minSweeps in all), on a costly trial's share
// (its best after trialSweeps sweeps not below trialBelow) and on its rate
// (a gain over the last rateWindow sweeps below rate a sweep), each at the
// first sweep its rule holds and not before.
func TestStops(t *testing.T) {
	// first returns the first sweep (from 0) after which spec stops a
	// stage whose best RMSEs are bests, -1 for none; the last gain is
	// the last sweep that gained more than tol.
	first := func(spec chainSpec, bests []float64) int {
		lastGain := 0
		for m := range bests {
			if m > 0 && bests[m] < bests[m-1]-spec.tol {
				lastGain = m
			}
			if spec.stops(bests[:m+1], lastGain) {
				return m
			}
		}
		return -1
	}
	// down returns n bests from 1, falling by step a sweep, then by
	// after a sweep.
	down := func(n, at int, step, after float64) []float64 {
		b := []float64{1}
		for m := 1; m < n; m++ {
			d := step
			if m >= at {
				d = after
			}
			b = append(b, b[m-1]-d)
		}
		return b
	}
	never := math.MaxInt
	for _, c := range []struct {
		name  string
		spec  chainSpec
		bests []float64
		want  int
	}{
		{"patience: no gain after sweep 3", chainSpec{patience: 15, minSweeps: 10, tol: 1e-3}, down(40, 4, 0.01, 0), 3 + 15},
		{"patience, scaled: half the sweeps before the last gain", chainSpec{patience: 15, scaled: true, minPatience: 4, minSweeps: 1, tol: 1e-3}, down(40, 13, 0.01, 0), 12 + 6},
		{"patience: not before minSweeps", chainSpec{patience: 2, minSweeps: 10, tol: 1e-3}, down(40, 1, 0.01, 0), 9},
		{"rate: the window's gain falls below 0.01 a sweep", chainSpec{patience: never, minSweeps: 1, rate: 0.01}, down(40, 10, 0.02, 0.005), 13},
		{"rate: never while each sweep gains more", chainSpec{patience: never, minSweeps: 1, rate: 0.01}, down(40, 40, 0.011, 0), -1},
		{"rate: not before minSweeps", chainSpec{patience: never, minSweeps: 20, rate: 0.01}, down(40, 1, 0.02, 0), 19},
		{"rate 0: no rate", chainSpec{patience: never, minSweeps: 1}, down(40, 1, 0.02, 0), -1},
		{"trial: short of its share after 3 sweeps", chainSpec{patience: never, trialSweeps: 3, trialBelow: 0.975}, down(40, 40, 0.01, 0), 2},
		{"trial: its share made by sweep 3", chainSpec{patience: never, trialSweeps: 3, trialBelow: 0.985}, down(40, 40, 0.01, 0), -1},
		{"trial: its share made, then the rate", chainSpec{patience: never, trialSweeps: 3, trialBelow: 0.985, minSweeps: 1, rate: 0.001}, down(40, 3, 0.01, 0), 7},
	} {
		if got := first(c.spec, c.bests); got != c.want {
			t.Errorf("%s: stops after sweep %d, want %d", c.name, got, c.want)
		}
	}
}

// TestStageStops: a chain's stage stops where its spec's rules say, on a
// sampler's own validation RMSEs: with a rate that no gain meets, after
// max(minSweeps, rateWindow+1) sweeps; on a trial whose share cannot be
// made, after trialSweeps; with neither, all its sweeps.
func TestStageStops(t *testing.T) {
	for _, c := range []struct {
		name string
		spec chainSpec
		want int
	}{
		{"rate", chainSpec{patience: math.MaxInt, minSweeps: 8, rate: math.Inf(1)}, 8},
		{"rate, its window", chainSpec{patience: math.MaxInt, minSweeps: 1, rate: math.Inf(1)}, rateWindow + 1},
		{"trial", chainSpec{patience: math.MaxInt, trialSweeps: 3, trialBelow: math.Inf(-1)}, 3},
		{"neither", chainSpec{patience: math.MaxInt}, 12},
	} {
		tb := smallTable(3)
		p := holdOut(tb, 0.2, 5, streamSplit)
		tb.mark(&p, true)
		v := validation{p: &p, t: tb, lo: 1, hi: 5, mean: tb.mean, sd: 1}
		s := newSampler(tb, 2, DefaultNu, 7, 1)
		s.start()
		spec := c.spec
		spec.val = v.scores(burns)
		out, err := newChain(s, spec).stage(context.Background(), 12)
		if err != nil {
			t.Fatal(err)
		}
		if out.sweeps != c.want {
			t.Errorf("%s: %d sweeps, want %d", c.name, out.sweeps, c.want)
		}
	}
}

// TestPostpone: a posterior mean that postpones some sweeps and then
// resumes is bit for bit the one that added them as they came (its
// merges the same), and one that drops them is the one that never took
// them.
func TestPostpone(t *testing.T) {
	tb := smallTable(4)
	s := newSampler(tb, 2, DefaultNu, 9, 1)
	s.start()
	direct, resumed := newPosterior(tb, 3), newPosterior(tb, 3)
	before, dropped := newPosterior(tb, 3), newPosterior(tb, 3)
	for n := range 11 {
		s.sweep(n)
		sf := &sweepFactors{s: s}
		if n == 3 {
			resumed.postpone()
			dropped.postpone()
		}
		direct.add(sf)
		resumed.add(sf)
		dropped.add(sf)
		if n < 3 {
			before.add(sf)
		}
		if n == 8 {
			resumed.resume() // 6 sweeps held: a merge of 4 among them
		}
	}
	dropped.drop()
	same := func(name string, a, b *posterior) {
		ua, ia, la, ra, ka := a.mean()
		ub, ib, lb, rb, kb := b.mean()
		if ka != kb || !slices.Equal(ua, ub) || !slices.Equal(ia, ib) || !slices.Equal(la, lb) || !slices.Equal(ra, rb) {
			t.Errorf("%s: the means differ (ranks %d and %d)", name, ka, kb)
		}
	}
	same("resumed", direct, resumed)
	same("dropped", before, dropped)
	if direct.count != 11 || dropped.count != 3 {
		t.Errorf("counts %d and %d, want 11 and 3", direct.count, dropped.count)
	}
}

// TestPeek: scores.peek returns what add would, bit for bit, and adds
// nothing: averages that start before, at and after a sweep, one that
// has not started, and a chain without burns.
func TestPeek(t *testing.T) {
	tb := smallTable(4)
	p := holdOut(tb, 0.2, 5, streamSplit)
	s := newSampler(tb, 2, DefaultNu, 9, 1)
	s.hold(&p)
	s.start()
	with, without := newScores(p, tb, 1, 5, tb.mean, []int{0, 3, 6}), newScores(p, tb, 1, 5, tb.mean, []int{0, 3, 6})
	alone := newScores(p, tb, 1, 5, tb.mean, nil)
	for n := range 8 {
		s.sweep(n)
		peeked, alonePeeked := with.peek(s, n), alone.peek(s, n)
		added, direct := with.add(s, n), without.add(s, n)
		if !sameBits(peeked, added) || !sameBits(added, direct) {
			t.Errorf("sweep %d: peek %v, add %v, add without peeking %v", n, peeked, added, direct)
		}
		if a := alone.add(s, n); !sameBits(a, alonePeeked) {
			t.Errorf("sweep %d without burns: peek %v, add %v", n, alonePeeked, a)
		}
		if n < 6 && !math.IsNaN(peeked[2]) {
			t.Errorf("sweep %d: the average from sweep 6 has an RMSE, %v", n, peeked[2])
		}
	}
}

// sameBits reports whether a and b hold the same float64s, NaN equal to
// NaN.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestTimesCols: timesCols gives mat.Dense's Mul bit for bit, on a
// product large enough for gonum's parallel blocks, with exact zeros.
func TestTimesCols(t *testing.T) {
	const n, l, cols = 700, 20, 15
	st := newStream()
	st.seed(3, 0, streamStart, 0)
	x, zd := make([]float64, n*l), make([]float64, l*l)
	for i := range x {
		if st.rng.IntN(5) > 0 {
			x[i] = st.rng.NormFloat64()
		}
	}
	for i := range zd {
		zd[i] = st.rng.NormFloat64()
	}
	z := mat.NewDense(l, l, zd)
	var want mat.Dense
	want.Mul(mat.NewDense(n, l, x), z)
	got := make([]float64, n*cols)
	timesCols(x, n, l, z, cols, 2, func(r, j int, v float64) { got[r*cols+j] = v })
	for r := range n {
		for j := range cols {
			if w := want.At(r, j); math.Float64bits(got[r*cols+j]) != math.Float64bits(w) {
				t.Fatalf("(%d, %d): %v, Mul %v", r, j, got[r*cols+j], w)
			}
		}
	}
}

// TestSplitIndices: the held-out ratings are the first of rand.Perm's
// permutation of the stream's draws, as Split drew them before it made
// the permutation in 4 bytes an index: no ratings, one, a few, and
// fractions that hold out none, a rounded share and all but one.
func TestSplitIndices(t *testing.T) {
	for _, m := range []int{0, 1, 2, 7, 100, 1001} {
		for _, f := range []float64{0, 0.1, 0.5, 0.99} {
			st := newStream()
			st.seed(5, 0, streamSplit, 1)
			want := st.rng.Perm(m)[:int(math.Round(f*float64(m)))]
			slices.Sort(want)
			if got := splitIndices(m, f, 5); !slices.Equal(got, want) {
				t.Fatalf("%d ratings, fraction %v: held out %v, rand.Perm's first %v", m, f, got, want)
			}
		}
	}
}
