package recommend

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// interactionTable returns the table of a random binary interaction matrix of
// n1 users and n2 items, each pair interacted with probability p (every
// user and item at least once).
func interactionTable(t *testing.T, n1, n2 int, p float64, seed uint64) *table {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var rows, cols []int32
	for u := range n1 {
		for i := range n2 {
			if rng.Float64() < p || i == u%n2 || u == i%n1 {
				rows, cols = append(rows, int32(u)), append(cols, int32(i))
			}
		}
	}
	vals := make([]float32, len(rows))
	for k := range vals {
		vals[k] = float32(1 + rng.IntN(5))
	}
	return newTable(n1, n2, rows, cols, vals)
}

// dense returns the table's interaction matrix X (1 where interacted).
func dense(t *table) *mat.Dense {
	x := mat.NewDense(t.n1, t.n2, nil)
	for u := range t.n1 {
		for e := t.uStart[u]; e < t.uStart[u+1]; e++ {
			x.Set(u, int(t.uItem.at(e)), 1)
		}
	}
	return x
}

// TestListsClosedForm checks the lists' scores P Qᵀ against the ridge
// regression they stand for, computed densely: at full rank,
// X_s (X_sᵀX_s + λI)⁻¹ X_sᵀX_s with X_s = X diag(count^-pop), on both sides
// of the spectrum's iteration (fewer users than items, and more).
func TestListsClosedForm(t *testing.T) {
	for _, shape := range [][2]int{{40, 25}, {25, 40}} {
		tb := interactionTable(t, shape[0], shape[1], 0.15, 3)
		x := imat{t: tb}
		pop, lam := 0.25, 0.7
		s, lambda0 := x.scales(x.itemWeights(), pop)
		k := min(tb.n1, tb.n2)
		sp := x.spectrumOf(s, k, 1, 2)
		p, q := sp.factors(tb.n1, tb.n2, k, lam*lambda0)
		var got mat.Dense
		got.Mul(mat.NewDense(tb.n1, k, p), mat.NewDense(tb.n2, k, q).T())

		xs := dense(tb)
		for i := range tb.n2 {
			for u := range tb.n1 {
				xs.Set(u, i, xs.At(u, i)*s[i])
			}
		}
		var g, gl, inv, want mat.Dense
		g.Mul(xs.T(), xs)
		gl.CloneFrom(&g)
		for i := range tb.n2 {
			gl.Set(i, i, gl.At(i, i)+lam*lambda0)
		}
		if err := inv.Inverse(&gl); err != nil {
			t.Fatal(err)
		}
		var b mat.Dense
		b.Mul(&inv, &g)
		want.Mul(xs, &b)
		if d := maxDiff(&got, &want); d > 1e-8 {
			t.Errorf("%d×%d: P Qᵀ differs from the dense ridge regression by %.3g", tb.n1, tb.n2, d)
		}
	}
}

func maxDiff(a, b *mat.Dense) float64 {
	r, c := a.Dims()
	var d float64
	for i := range r {
		for j := range c {
			d = math.Max(d, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return d
}

// TestSpectrumTruncated checks that a truncated spectrum's leading values
// are the matrix's leading squared singular values (by gonum's SVD), on
// interactions of a few groups of users with their groups of items, whose
// leading singular values stand apart as real interactions' do.
func TestSpectrumTruncated(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n1, n2, groups := 150, 90, 4
	var rows, cols []int32
	for u := range n1 {
		for i := range n2 {
			p := 0.03
			if u%groups == i%groups {
				p = 0.4
			}
			if rng.Float64() < p {
				rows, cols = append(rows, int32(u)), append(cols, int32(i))
			}
		}
	}
	tb := newTable(n1, n2, rows, cols, make([]float32, len(rows)))
	x := imat{t: tb}
	ones := make([]float64, tb.n2)
	for i := range ones {
		ones[i] = 1
	}
	sp := x.spectrumOf(ones, 20, 1, 2)
	var svd mat.SVD
	if !svd.Factorize(dense(tb), mat.SVDNone) {
		t.Fatal("svd")
	}
	want := svd.Values(nil)
	for j := range groups {
		if r := math.Abs(sp.sig2[j]-want[j]*want[j]) / (want[j] * want[j]); r > 1e-4 {
			t.Errorf("σ²[%d] = %v, want %v (relative error %.2g)", j, sp.sig2[j], want[j]*want[j], r)
		}
	}
}

// TestEASESides checks that EASE's scores from the users' side (Woodbury,
// fewer users than items) are the item-side formula's X (I - P diag(1/P)).
func TestEASESides(t *testing.T) {
	tb := interactionTable(t, 20, 35, 0.2, 7)
	b := &baseline{t: tb, x: imat{t: tb}, s: Settings{Workers: 2}}
	lam := 3.0
	sc, err := b.easeUsers(lam)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, tb.n1*tb.n2)
	rows := make([]int, tb.n1)
	for u := range rows {
		rows[u] = u
	}
	sc.scores(got, rows)

	x := dense(tb)
	var g, p mat.Dense
	g.Mul(x.T(), x)
	for i := range tb.n2 {
		g.Set(i, i, g.At(i, i)+lam)
	}
	if err := p.Inverse(&g); err != nil {
		t.Fatal(err)
	}
	bm := mat.NewDense(tb.n2, tb.n2, nil)
	for i := range tb.n2 {
		for j := range tb.n2 {
			if i != j {
				bm.Set(i, j, -p.At(i, j)/p.At(j, j))
			}
		}
	}
	var want mat.Dense
	want.Mul(x, bm)
	if d := maxDiff(mat.NewDense(tb.n1, tb.n2, got), &want); d > 1e-9 {
		t.Errorf("EASE from the users' side differs from the items' by %.3g", d)
	}
}

// TestTopOf checks the partial selection against a full sort: the n
// highest scores, ties to the smaller index, -Inf left out.
func TestTopOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		m := 1 + rng.IntN(60)
		scores := make([]float64, m)
		for i := range scores {
			scores[i] = float64(rng.IntN(6)) // many ties
			if rng.IntN(5) == 0 {
				scores[i] = math.Inf(-1)
			}
		}
		n := 1 + rng.IntN(12)
		items, vals := make([]int32, n), make([]float64, n)
		h := topOf(scores, n, items, vals)
		var idx []int32
		for i, s := range scores {
			if s > math.Inf(-1) {
				idx = append(idx, int32(i))
			}
		}
		slices.SortStableFunc(idx, func(a, b int32) int {
			switch {
			case scores[a] > scores[b]:
				return -1
			case scores[a] < scores[b]:
				return 1
			}
			return int(a - b)
		})
		want := idx[:min(n, len(idx))]
		if !slices.Equal(items[:h], want) {
			t.Fatalf("trial %d: top %d of %v = %v, want %v", trial, n, scores, items[:h], want)
		}
		for k, i := range items[:h] {
			if vals[k] != scores[i] {
				t.Fatalf("trial %d: score of item %d is %v, want %v", trial, i, vals[k], scores[i])
			}
		}
	}
}

// TestListScore checks the metrics on lists worked by hand.
func TestListScore(t *testing.T) {
	sc := newListScore(3, 10)
	sc.add([]int32{4, 1, 7}, []int32{1, 2})    // a hit at rank 2 of 2 relevant
	sc.add([]int32{0, 5, 9}, []int32{0, 5, 9}) // all three
	sc.add([]int32{3, 8, 6}, nil)              // no relevant item: coverage only
	m := sc.metrics()
	d := func(k int) float64 { return 1 / math.Log2(float64(k)+1) } // rank k from 1
	want := ListMetrics{N: 3, Users: 2,
		Precision: (1.0/3 + 1) / 2,
		Recall:    (1.0/2 + 1) / 2,
		NDCG:      (d(2)/(d(1)+d(2)) + 1) / 2,
		MAP:       ((1.0/2)/2 + 1) / 2,
		Coverage:  0.9,
	}
	if math.Abs(m.Precision-want.Precision) > 1e-12 || math.Abs(m.Recall-want.Recall) > 1e-12 || math.Abs(m.NDCG-want.NDCG) > 1e-12 ||
		math.Abs(m.MAP-want.MAP) > 1e-12 || m.Users != want.Users || math.Abs(m.Coverage-want.Coverage) > 1e-12 {
		t.Errorf("metrics %+v, want %+v", m, want)
	}
}

// TestCholQR checks the orthonormalization: QᵀQ = I and Q spans the
// columns, for well and badly conditioned columns.
func TestCholQR(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, l := 300, 40
	for _, spread := range []float64{1, 1e6} {
		a := make([]float64, n*l)
		for r := range n {
			for j := range l {
				a[r*l+j] = rng.NormFloat64() * math.Pow(spread, -float64(j)/float64(l-1))
			}
		}
		orig := mat.DenseCopyOf(mat.NewDense(n, l, a))
		cholQR(a, n, l, 2)
		q := mat.NewDense(n, l, a)
		var qtq mat.Dense
		qtq.Mul(q.T(), q)
		for i := range l {
			for j := range l {
				want := 0.0
				if i == j {
					want = 1
				}
				if d := math.Abs(qtq.At(i, j) - want); d > 1e-10 {
					t.Fatalf("spread %g: (QᵀQ)[%d,%d] = %v", spread, i, j, qtq.At(i, j))
				}
			}
		}
		// Q Qᵀ A = A: the span is kept.
		var qta, back mat.Dense
		qta.Mul(q.T(), orig)
		back.Mul(q, &qta)
		if d := maxDiff(&back, orig); d > 1e-8 {
			t.Errorf("spread %g: the columns are not in Q's span (%.3g)", spread, d)
		}
	}
}
