package recommend

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFewObservations checks the posterior mean of a new row from fewer
// observations than dimensions (Woodbury, in the observations' space)
// against the row's own normal equations, (Λ + α RᵀR)⁻¹ (Λμ + α Rᵀe).
func TestFewObservations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d, n := 9, 4
	x := make([]float64, 50*(d-1))
	bias := make([]float64, 50)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for i := range bias {
		bias[i] = rng.NormFloat64()
	}
	rows := make([]int, 50)
	for i := range rows {
		rows[i] = i
	}
	xm := mat2(50, d-1, x)
	prior, ok := priorOf(xm, bias, rows, 2)
	if !ok {
		t.Fatal("prior")
	}
	f := rowFit{d: d, prior: prior, alpha: 2.5, bayes: true}
	rs, es := make([]float64, n*(d-1)), make([]float64, n)
	for i := range rs {
		rs[i] = rng.NormFloat64()
	}
	for i := range es {
		es[i] = rng.NormFloat64()
	}
	got := f.fewObservations(rs, es)
	a, b := slices.Clone(prior.prec), make([]float64, d)
	for p := range d {
		for q := range d {
			b[p] += prior.prec[p*d+q] * prior.mean[q]
		}
	}
	r := make([]float64, d)
	for j := range n {
		copy(r, rs[j*(d-1):(j+1)*(d-1)])
		r[d-1] = 1
		for p := range d {
			b[p] += f.alpha * r[p] * es[j]
			for q := range d {
				a[p*d+q] += f.alpha * r[p] * r[q]
			}
		}
	}
	want := make([]float64, d)
	if !solveSym(a, b, d, want) {
		t.Fatal("solve")
	}
	for p := range d {
		if math.Abs(got[p]-want[p]) > 1e-10*(1+math.Abs(want[p])) {
			t.Fatalf("coordinate %d: %v, the normal equations %v", p, got[p], want[p])
		}
	}
}

// TestFoldInRows checks a fold-in's rows: a known user's lists row
// recomputed from its ratings (one re-rated with the same value) is the
// fit's to rounding, every row not folded in is the model's bit for bit,
// and the rows do not depend on the workers.
func TestFoldInRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var r Ratings
	for u := range 200 {
		for i := range 150 {
			if rng.Float64() < 0.15 {
				r.Users, r.Items, r.Values = append(r.Users, int64(u)), append(r.Items, int64(i)), append(r.Values, float64(1+rng.IntN(5)))
			}
		}
	}
	ctx := context.Background()
	m, err := Fit(ctx, r, Settings{Seed: 1, Rank: 5, Sweeps: 30})
	if err != nil {
		t.Fatal(err)
	}
	u := 7
	k := m.Seen.Start[u]
	again := Ratings{Users: []int64{m.Users[u], 999}, Items: []int64{m.Items[m.Seen.Item(k)], 3}, Values: []float64{float64(m.Seen.Value(int64(k))), 4}}
	var first *Model
	for _, workers := range []int{1, 3} {
		out, rep, err := m.FoldIn(ctx, again, workers)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Replaced != 1 || rep.NewUsers != 1 || rep.KnownUsers != 1 {
			t.Errorf("report %+v", rep)
		}
		if first == nil {
			first = out
		} else if !slices.Equal(out.Lists.P.RawMatrix().Data, first.Lists.P.RawMatrix().Data) || !slices.Equal(out.L.RawMatrix().Data, first.L.RawMatrix().Data) {
			t.Errorf("%d workers: rows differ from one worker's", workers)
		}
	}
	// The pair rated twice in one batch: the later rating is the one
	// held, and the model's rating was replaced once.
	twice := Ratings{Users: []int64{m.Users[u], m.Users[u]}, Items: []int64{m.Items[m.Seen.Item(k)], m.Items[m.Seen.Item(k)]}, Values: []float64{1, 5}}
	if out, rep, err := m.FoldIn(ctx, twice, 1); err != nil || rep.Replaced != 1 || out.Seen.Value(out.Seen.Start[u]) != 5 {
		t.Errorf("a pair twice in a batch: %v, report %+v", err, rep)
	}
	out := first
	for j, v := range m.Lists.P.RawRowView(u) {
		if g := out.Lists.P.At(u, j); math.Abs(g-v) > 1e-10*(1+math.Abs(v)) {
			t.Fatalf("the known user's lists row, dimension %d: %v after its fold-in, %v fitted", j, g, v)
		}
	}
	for v := range len(m.Users) {
		if v == u {
			continue
		}
		w := v // the new user 999 comes after every old one
		if !slices.Equal(out.L.RawRowView(w), m.L.RawRowView(v)) || out.UserBias[w] != m.UserBias[v] || !slices.Equal(out.Lists.P.RawRowView(w), m.Lists.P.RawRowView(v)) {
			t.Fatalf("user %d's rows changed", m.Users[v])
		}
	}
	if !slices.Equal(out.R.RawMatrix().Data, m.R.RawMatrix().Data) || !slices.Equal(out.ItemBias, m.ItemBias) {
		t.Error("the items' rows changed, and no item was added")
	}
	if _, ok := out.Users.Index(999); !ok || out.Predict(999, 3) == m.Mean+m.ItemBias[3] {
		t.Error("the new user has no row of its own")
	}
}

// TestFoldInErrors checks the refusals: a rating off the scale, a model
// without its training ratings.
func TestFoldInErrors(t *testing.T) {
	r := Ratings{Users: []int64{1, 1, 2, 2, 3}, Items: []int64{1, 2, 1, 2, 1}, Values: []float64{1, 5, 3, 4, 2}}
	ctx := context.Background()
	m, err := Fit(ctx, r, Settings{Seed: 1, Rank: 1, Sweeps: 5, NoLists: true})
	if err != nil {
		t.Fatal(err)
	}
	var ie *InputError
	if _, _, err := m.FoldIn(ctx, Ratings{Users: []int64{1}, Items: []int64{1}, Values: []float64{6}}, 0); !errors.As(err, &ie) {
		t.Errorf("a rating of 6 on [1, 5]: %v", err)
	}
	m.Seen = nil
	if _, _, err := m.FoldIn(ctx, Ratings{Users: []int64{1}, Items: []int64{1}, Values: []float64{3}}, 0); !errors.As(err, &ie) {
		t.Errorf("no training ratings: %v", err)
	}
}

func mat2(r, c int, x []float64) *mat.Dense { return mat.NewDense(r, c, x) }

// TestFoldInBlankUser checks the list of a user folded in with only items
// new to the model: nothing places the user among the others (the lists
// row is zero), so the list is ListOptions.Cold's, the popular items less
// the user's own (here the most popular of all), not every item scored 0
// and listed by id; a user folded in with a known item keeps a list of
// their own; and Evaluate scores a blank user on the popular list.
func TestFoldInBlankUser(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var r Ratings
	for u := range 120 {
		for i := range 80 {
			// Popularity falls with the item's id, so that the popular
			// items and the smallest ids differ.
			if rng.Float64() < 0.5*math.Exp(-float64((i+40)%80)/20) {
				r.Users, r.Items, r.Values = append(r.Users, int64(u)), append(r.Items, int64(i)), append(r.Values, float64(1+rng.IntN(5)))
			}
		}
	}
	ctx := context.Background()
	m, err := Fit(ctx, r, Settings{Seed: 1, Rank: 3, Sweeps: 20})
	if err != nil {
		t.Fatal(err)
	}
	// User 500 rates items 900 and 901, new; users 1000 to 1199 item 900
	// alone, which makes it the most popular; user 501 item 900 and the
	// most popular of the model's items.
	pop, _ := m.Seen.popular(len(m.Items), len(m.Items))
	top := m.Items[pop[0]]
	add := Ratings{Users: []int64{500, 500, 501, 501}, Items: []int64{900, 901, 900, top}, Values: []float64{4, 5, 4, 5}}
	for u := range int64(200) {
		add.Users, add.Items, add.Values = append(add.Users, 1000+u), append(add.Items, 900), append(add.Values, 3)
	}
	out, _, err := m.FoldIn(ctx, add, 1)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := out.Ranking()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := out.Seen.popular(len(out.Items), len(out.Items))
	if out.Items[want[0]] != 900 {
		t.Fatalf("the most popular item is %d, not the new 900", out.Items[want[0]])
	}
	for _, c := range []struct {
		cold Cold
		seen bool
		n    int
	}{{ColdPopular, false, 5}, {ColdPopular, true, 5}, {ColdNone, false, 0}} {
		var got []List
		err := rk.Recommend(ctx, []int64{500, 501}, ListOptions{N: 5, Cold: c.cold, IncludeSeen: c.seen}, func(l List) error { got = append(got, l); return nil })
		if err != nil {
			t.Fatal(err)
		}
		b, linked := got[0], got[1]
		if !b.Known || !b.Blank || len(b.Items) != c.n {
			t.Fatalf("%+v: the blank user's list %+v", c, b)
		}
		var w []int64
		for _, i := range want {
			if id := out.Items[i]; (c.seen || id != 900 && id != 901) && len(w) < c.n {
				w = append(w, id)
			}
		}
		if !slices.Equal(b.Items, w) {
			t.Errorf("%+v: the blank user's items %v, the popular ones%s %v", c, b.Items, map[bool]string{false: " less their own"}[c.seen], w)
		}
		if !linked.Known || linked.Blank || len(linked.Items) != 5 || slices.Contains(linked.Items, top) != c.seen {
			t.Errorf("%+v: the linked user's list %+v", c, linked)
		}
	}
	// Evaluate: the blank user's test item the second most popular, a hit
	// at 1 on the popular list less their own.
	second := out.Items[want[1]]
	met, err := rk.Evaluate(ctx, Ratings{Users: []int64{500}, Items: []int64{second}, Values: []float64{5}}, 1, math.Inf(-1))
	if err != nil || met.Users != 1 || met.Precision != 1 {
		t.Errorf("Evaluate of the blank user on its popular list: %+v, %v; want 1 user, P@1 1", met, err)
	}
}
