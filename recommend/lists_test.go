package recommend_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/scaledsm/scaledsm/recommend"
	"github.com/scaledsm/scaledsm/synth"
)

// tasteRatings draws synthetic ratings whose pairs users chose by taste
// (synth's Choice), as real users choose what to rate, split 80/20.
func tasteRatings(t *testing.T, seed uint64) (train, test recommend.Ratings) {
	t.Helper()
	train, test, _ = ratings(t, synth.RatingsConfig{Users: 500, Items: 700, Ratings: 40000, Choice: 3, Seed: seed})
	return train, test
}

// TestListsBeatPopular checks that the default fit's lists beat the most
// popular items' on the test ratings of users who chose what they rate
// (relevant: 4 stars and up), and that the ratings help: the lists of
// which items were rated alone are worse.
func TestListsBeatPopular(t *testing.T) {
	train, test := tasteRatings(t, 1)
	ctx := context.Background()
	m, err := recommend.Fit(ctx, train, recommend.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Lists == nil {
		t.Fatal("the default fit made no lists")
	}
	rk, err := m.Ranking()
	if err != nil {
		t.Fatal(err)
	}
	got, err := rk.Evaluate(ctx, test, 10, 4)
	if err != nil {
		t.Fatal(err)
	}
	pop, _ := rk.Popular().Evaluate(ctx, test, 10, 4)
	if !(got.NDCG > 1.25*pop.NDCG && got.Precision > 1.2*pop.Precision) {
		t.Errorf("lists P@10 %.4f NDCG@10 %.4f; most popular %.4f, %.4f: want 1.2 and 1.25 times at least", got.Precision, got.NDCG, pop.Precision, pop.NDCG)
	}
	x := train.Index()
	for k := range x.Values {
		x.Values[k] = 1 // which items each user rated, alone
	}
	implicit, err := recommend.FitInteractions(ctx, x, recommend.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	irk, _ := implicit.Ranking()
	alone, _ := irk.Evaluate(ctx, test, 10, 4)
	if !(got.NDCG > alone.NDCG) {
		t.Errorf("lists weighted by the ratings NDCG@10 %.4f, of which items were rated %.4f: the ratings should help", got.NDCG, alone.NDCG)
	}
	t.Logf("NDCG@10: weighted by the ratings %.4f, which items were rated %.4f, most popular %.4f", got.NDCG, alone.NDCG, pop.NDCG)
}

// TestListsSameBits checks that the lists do not depend on the number of
// cores, and that the ratings model is the one a fit without lists makes.
func TestListsSameBits(t *testing.T) {
	train, _ := tasteRatings(t, 2)
	ctx := context.Background()
	var first *recommend.Model
	for _, w := range []int{1, 3} {
		m, err := recommend.Fit(ctx, train, recommend.Settings{Seed: 4, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = m
			continue
		}
		if !slices.Equal(m.Lists.P.RawMatrix().Data, first.Lists.P.RawMatrix().Data) || !slices.Equal(m.Lists.Q.RawMatrix().Data, first.Lists.Q.RawMatrix().Data) ||
			m.Lists.Lambda != first.Lists.Lambda {
			t.Errorf("%d workers: the lists differ from one worker's", w)
		}
	}
	bare, err := recommend.Fit(ctx, train, recommend.Settings{Seed: 4, NoLists: true})
	if err != nil {
		t.Fatal(err)
	}
	if bare.Lists != nil {
		t.Error("NoLists: the fit made lists")
	}
	if !slices.Equal(bare.L.RawMatrix().Data, first.L.RawMatrix().Data) || !slices.Equal(bare.ItemBias, first.ItemBias) {
		t.Error("the ratings model with lists differs from the one without")
	}
}

// TestRecommend checks the lists' rules: no training item listed (unless
// asked), scores decreasing, ties to the smaller id, the users' order, a
// user the model has not seen listed by the cold rule, N out of range
// refused; and that a saved model lists the same.
func TestRecommend(t *testing.T) {
	train, _ := tasteRatings(t, 3)
	ctx := context.Background()
	m, err := recommend.Fit(ctx, train, recommend.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[2]int64]bool{}
	for k, u := range train.Users {
		seen[[2]int64{u, train.Items[k]}] = true
	}
	users := []int64{m.Users[5], -7, m.Users[0], m.Users[5]}
	var lists []recommend.List
	collect := func(l recommend.List) error { lists = append(lists, l); return nil }
	if err := m.Recommend(ctx, users, recommend.ListOptions{N: 15, Cold: recommend.ColdPopular}, collect); err != nil {
		t.Fatal(err)
	}
	if len(lists) != len(users) {
		t.Fatalf("%d lists for %d users", len(lists), len(users))
	}
	for k, l := range lists {
		if l.User != users[k] || l.Known != (users[k] != -7) {
			t.Fatalf("list %d: user %d (known %v), want %d", k, l.User, l.Known, users[k])
		}
		if len(l.Items) != 15 {
			t.Fatalf("list %d: %d items, want 15", k, len(l.Items))
		}
		for j, item := range l.Items {
			if l.Known && seen[[2]int64{l.User, item}] {
				t.Errorf("user %d: training item %d listed", l.User, item)
			}
			if j > 0 && (l.Scores[j] > l.Scores[j-1] || l.Scores[j] == l.Scores[j-1] && item < l.Items[j-1]) {
				t.Errorf("user %d: rank %d (%d, %v) after (%d, %v)", l.User, j+1, item, l.Scores[j], l.Items[j-1], l.Scores[j-1])
			}
		}
	}
	if !slices.Equal(lists[0].Items, lists[3].Items) {
		t.Error("the same user listed twice got different lists")
	}
	// With its training items: a user's best items include some of them.
	var with []recommend.List
	m.Recommend(ctx, users[:1], recommend.ListOptions{N: 15, IncludeSeen: true}, func(l recommend.List) error { with = append(with, l); return nil })
	if !slices.ContainsFunc(with[0].Items, func(i int64) bool { return seen[[2]int64{users[0], i}] }) {
		t.Error("IncludeSeen: no training item among the user's 15 best")
	}
	for _, n := range []int{0, len(m.Items) + 1} {
		err := m.Recommend(ctx, nil, recommend.ListOptions{N: n}, collect)
		var ie *recommend.InputError
		if !errors.As(err, &ie) {
			t.Errorf("N %d: error %v, want an InputError", n, err)
		}
	}
	// Saved and loaded, the same lists.
	dir := t.TempDir()
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := recommend.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var again []recommend.List
	if err := back.Recommend(ctx, users, recommend.ListOptions{N: 15, Cold: recommend.ColdPopular}, func(l recommend.List) error { again = append(again, l); return nil }); err != nil {
		t.Fatal(err)
	}
	for k := range lists {
		if !slices.Equal(lists[k].Items, again[k].Items) || !slices.Equal(lists[k].Scores, again[k].Scores) {
			t.Fatalf("user %d: the loaded model lists %v, the fitted one %v", users[k], again[k].Items, lists[k].Items)
		}
	}
	// A model without lists cannot list.
	bare, _ := recommend.Fit(ctx, train, recommend.Settings{Seed: 1, NoLists: true})
	var ie *recommend.InputError
	if err := bare.Recommend(ctx, nil, recommend.ListOptions{N: 5}, collect); !errors.As(err, &ie) {
		t.Errorf("a model without lists: error %v, want an InputError", err)
	}
}

// TestFitInteractions checks implicit feedback: the lists of interactions
// alone beat the most popular items, Predict gives their score, and a
// weight that is not positive and finite is refused.
func TestFitInteractions(t *testing.T) {
	train, test := tasteRatings(t, 5)
	ctx := context.Background()
	x := train.Index()
	for k := range x.Values {
		x.Values[k] = 1
	}
	m, err := recommend.FitInteractions(ctx, x, recommend.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Info.Method != recommend.MethodImplicit || m.L != nil {
		t.Errorf("method %q, factors %v: want an implicit model without a ratings part", m.Info.Method, m.L != nil)
	}
	rk, _ := m.Ranking()
	got, _ := rk.Evaluate(ctx, test, 20, math.Inf(-1))
	pop, _ := rk.Popular().Evaluate(ctx, test, 20, math.Inf(-1))
	if !(got.Recall > 1.15*pop.Recall) {
		t.Errorf("R@20 %.4f, most popular %.4f: want 1.15 times at least", got.Recall, pop.Recall)
	}
	u, i := m.Users[3], m.Items[7]
	if p, want := m.Predict(u, i), dotRows(m, 3, 7); math.Abs(p-want) > 1e-12 {
		t.Errorf("Predict %v, the lists' score %v", p, want)
	}
	for _, bad := range []float32{0, -1, float32(math.Inf(1)), float32(math.NaN())} {
		y := train.Index()
		y.Values[10] = bad
		var ie *recommend.InputError
		if _, err := recommend.FitInteractions(ctx, y, recommend.Settings{}); !errors.As(err, &ie) {
			t.Errorf("weight %v: error %v, want an InputError", bad, err)
		}
	}
}

func dotRows(m *recommend.Model, u, i int) float64 {
	var s float64
	for j, v := range m.Lists.P.RawRowView(u) {
		s += v * m.Lists.Q.At(i, j)
	}
	return s
}

// TestBaselines checks that each ranking baseline fits, chooses its
// setting on the validation, and ranks better than chance.
func TestBaselines(t *testing.T) {
	train, test := tasteRatings(t, 6)
	ctx := context.Background()
	chance := 10.0 / 700 // of an item being relevant, about
	for _, name := range recommend.Baselines {
		if name == recommend.BaselineIALS && testing.Short() {
			continue
		}
		rk, err := recommend.FitBaseline(ctx, train.Index(), name, math.NaN(), recommend.Settings{Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m, err := rk.Evaluate(ctx, test, 10, 4)
		if err != nil {
			t.Fatal(err)
		}
		if !(m.Precision > 3*chance) || (name != recommend.BaselinePopular && len(rk.Selection.Candidates) < 2) {
			t.Errorf("%s (%s): P@10 %.4f with %d settings tried", name, rk.Setting, m.Precision, len(rk.Selection.Candidates))
		}
	}
	if _, err := recommend.FitBaseline(ctx, train.Index(), "slim", 4, recommend.Settings{}); err == nil {
		t.Error("an unknown baseline was fitted")
	}
}
