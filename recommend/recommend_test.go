package recommend_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/scaledsm/scaledsm/ranks"
	"github.com/scaledsm/scaledsm/recommend"
	"github.com/scaledsm/scaledsm/synth"
)

// ratings draws synthetic ratings that look like MovieLens 100k (biases,
// noise, skewed sampling, a 1..5 scale) and splits them 80/20.
func ratings(t *testing.T, c synth.RatingsConfig) (train, test recommend.Ratings, expected []float64) {
	t.Helper()
	d, err := synth.GenerateRatings(c)
	if err != nil {
		t.Fatal(err)
	}
	all := recommend.Ratings{Users: d.Users, Items: d.Items, Values: d.Values}
	n := len(d.Values) * 4 / 5
	train = recommend.Ratings{Users: all.Users[:n], Items: all.Items[:n], Values: all.Values[:n]}
	test = recommend.Ratings{Users: all.Users[n:], Items: all.Items[n:], Values: all.Values[n:]}
	return train, test, d.Expected[n:]
}

func rmse(t *testing.T, m *recommend.Model, test recommend.Ratings) float64 {
	t.Helper()
	e, err := m.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	return e.RMSE
}

// TestDefaultsBeatBaselines fits the default model, no setting given, to
// realistic synthetic ratings: it must predict clearly better than the
// global mean and the biases, and close a good part of the biases' gap to
// the best possible predictions (the noiseless ratings, clipped to the
// scale).
func TestDefaultsBeatBaselines(t *testing.T) {
	train, test, expected := ratings(t, synth.RatingsConfig{Users: 600, Items: 900, Ratings: 50000, Seed: 3})
	m, err := recommend.Fit(context.Background(), train, recommend.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	mean, _ := recommend.GlobalMean(train)
	biases, _ := recommend.Biases(train, recommend.DefaultBiasUser, recommend.DefaultBiasItem)
	var sq float64
	for k, e := range expected {
		d := math.Min(math.Max(e, 1), 5) - test.Values[k]
		sq += d * d
	}
	best := math.Sqrt(sq / float64(len(expected)))
	got, rm, rb := rmse(t, m, test), rmse(t, mean, test), rmse(t, biases, test)
	t.Logf("test RMSE: model %.4f (rank %d, %d sweeps), biases %.4f, mean %.4f, noiseless %.4f", got, m.Info.Rank, m.Info.Sweeps, rb, rm, best)
	if got > rb-0.04 || got > rb-0.35*(rb-best) {
		t.Errorf("test RMSE %.4f: want at most the biases' %.4f less 0.04, and a third of the way from them to the noiseless predictions' %.4f", got, rb, best)
	}
	if m.Info.Selection == nil || len(m.Info.Selection.Candidates) < 2 {
		t.Errorf("the rank was not chosen by validation: %+v", m.Info.Selection)
	}
}

// TestRobust corrupts a tenth of the training ratings with uniform random
// values: the Student-t likelihood must predict the clean test ratings
// better than the Gaussian one, and lose less than it to the corruption.
func TestRobust(t *testing.T) {
	c := synth.RatingsConfig{Users: 500, Items: 800, Ratings: 40000, Seed: 5}
	clean, test, _ := ratings(t, c)
	c.Outliers = 0.1
	dirty, _, _ := ratings(t, c)
	fit := func(train recommend.Ratings, nu float64) float64 {
		m, err := recommend.Fit(context.Background(), train, recommend.Settings{Rank: 5, Sweeps: 120, Nu: nu, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return rmse(t, m, test)
	}
	tClean, tDirty := fit(clean, 0), fit(dirty, 0)
	gClean, gDirty := fit(clean, math.Inf(1)), fit(dirty, math.Inf(1))
	t.Logf("test RMSE clean/corrupted: Student-t %.4f/%.4f, Gaussian %.4f/%.4f", tClean, tDirty, gClean, gDirty)
	if tDirty > gDirty-0.005 {
		t.Errorf("with outliers: Student-t %.4f, Gaussian %.4f: want the Student-t better by 0.005", tDirty, gDirty)
	}
	if tClean > gClean+0.005 {
		t.Errorf("clean: Student-t %.4f, Gaussian %.4f: want the Student-t within 0.005", tClean, gClean)
	}
}

// TestSameBits fits on one goroutine and on four: the models are equal
// bit for bit.
func TestSameBits(t *testing.T) {
	train, test, _ := ratings(t, synth.RatingsConfig{Users: 200, Items: 300, Ratings: 8000, Seed: 2})
	var preds [][]float64
	for _, w := range []int{1, 4} {
		m, err := recommend.Fit(context.Background(), train, recommend.Settings{Rank: 4, Sweeps: 30, Workers: w, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		preds = append(preds, m.PredictAll(test.Users, test.Items, nil))
	}
	for k := range preds[0] {
		if math.Float64bits(preds[0][k]) != math.Float64bits(preds[1][k]) {
			t.Fatalf("prediction %d: %v with 1 goroutine, %v with 4", k, preds[0][k], preds[1][k])
		}
	}
}

// TestSaveLoad saves a model, loads it back with the same predictions,
// and refuses a directory whose files come from two saves.
func TestSaveLoad(t *testing.T) {
	train, test, _ := ratings(t, synth.RatingsConfig{Users: 100, Items: 150, Ratings: 3000, Seed: 4})
	fit := func(seed uint64) *recommend.Model {
		m, err := recommend.Fit(context.Background(), train, recommend.Settings{Rank: 3, Sweeps: 20, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := fit(1)
	dir := filepath.Join(t.TempDir(), "a", "model")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := recommend.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, got := m.PredictAll(test.Users, test.Items, nil), back.PredictAll(test.Users, test.Items, nil)
	for k := range want {
		if want[k] != got[k] {
			t.Fatalf("prediction %d: %v saved, %v loaded", k, want[k], got[k])
		}
	}
	if back.Info.Rank != 3 || back.Info.Method != "bayes" {
		t.Errorf("info %+v", back.Info)
	}
	other := filepath.Join(t.TempDir(), "b")
	if err := fit(2).Save(other); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(other, recommend.LFile))
	os.WriteFile(filepath.Join(dir, recommend.LFile), b, 0o644)
	if _, err := recommend.Load(dir); err == nil || !strings.Contains(err.Error(), "does not belong to this model.json") {
		t.Errorf("mixed files: %v", err)
	}
	if _, err := recommend.Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "model.json: cannot read") {
		t.Errorf("empty directory: %v", err)
	}
}

// TestUnseen predicts pairs with a user or an item, or both, that the
// training ratings did not have, from what the model has of them.
func TestUnseen(t *testing.T) {
	train := recommend.Ratings{
		Users:  []int64{1, 1, 2, 2, 3, 3, 4},
		Items:  []int64{10, 20, 10, 30, 20, 30, 10},
		Values: []float64{5, 3, 4, 1, 2, 2, 5},
	}
	m, err := recommend.Fit(context.Background(), train, recommend.Settings{Rank: 1, Sweeps: 10})
	if err != nil {
		t.Fatal(err)
	}
	u, i := m.Users, m.Items
	_ = u
	if got, want := m.Predict(99, 99), m.Mean; got != want {
		t.Errorf("unseen pair: %v, want the mean %v", got, want)
	}
	j, _ := i.Index(20)
	if got, want := m.Predict(99, 20), m.Mean+m.ItemBias[j]; got != want {
		t.Errorf("unseen user: %v, want mean + item bias %v", got, want)
	}
	if ku, ki := m.Known(1, 99); !ku || ki {
		t.Errorf("Known(1, 99) = %v, %v", ku, ki)
	}
	for _, u := range []int64{1, 2, 3, 4} {
		for _, it := range []int64{10, 20, 30} {
			if p := m.Predict(u, it); p < 1 || p > 5 {
				t.Errorf("prediction %v outside the scale [1, 5]", p)
			}
		}
	}
}

// TestFitErrors: bad inputs give errors that name them.
func TestFitErrors(t *testing.T) {
	ok := recommend.Ratings{Users: []int64{1, 2}, Items: []int64{1, 1}, Values: []float64{3, 4}}
	for _, c := range []struct {
		r    recommend.Ratings
		s    recommend.Settings
		want string
	}{
		{recommend.Ratings{}, recommend.Settings{}, "no ratings"},
		{recommend.Ratings{Users: []int64{1}, Items: []int64{1, 2}, Values: []float64{1}}, recommend.Settings{}, "want one of each"},
		{recommend.Ratings{Users: []int64{1}, Items: []int64{1}, Values: []float64{math.NaN()}}, recommend.Settings{}, "is NaN"},
		{recommend.Ratings{Users: []int64{1, 2}, Items: []int64{1, 1}, Values: []float64{3, -1e39}}, recommend.Settings{}, "rating 1 (user 2, item 1) is -1e+39, beyond the range of the float32"},
		{ok, recommend.Settings{Rank: -1}, "rank -1"},
		{ok, recommend.Settings{Rank: 2, Sweeps: 3}, "rank 2: must be at most 1, the fewer of the 2 users and 1 items"}, // it panicked in the spectral start
		{ok, recommend.Settings{Method: recommend.Ridge, Rank: 2, Sweeps: 3, Lambda: 0.1}, "rank 2: must be at most 1"},
		{ok, recommend.Settings{Nu: 0.5}, "nu 0.5"},
		{ok, recommend.Settings{Validation: 0.6}, "validation 0.6"},
		{ok, recommend.Settings{Lambda: 1}, "applies to the ridge method"},
		{recommend.Ratings{Users: []int64{1, 2, 1}, Items: []int64{1, 1, 1}, Values: []float64{3, 4, 5}}, recommend.Settings{Rank: 1, Sweeps: 1}, "user 1 rated item 1 twice (ratings 0 and 2)"},
	} {
		_, err := recommend.Fit(context.Background(), c.r, c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %+v: %v, want %q", c.r, c.s, err, c.want)
		}
	}
	if _, err := recommend.Biases(recommend.Ratings{Users: []int64{1}, Items: []int64{1}, Values: []float64{4e38}}, 1, 1); err == nil || !strings.Contains(err.Error(), "beyond the range") {
		t.Errorf("Biases of 4e38: %v, want it refused", err)
	}
	var dup *recommend.DuplicateError
	_, err := recommend.Fit(context.Background(), recommend.Ratings{Users: []int64{1, 1}, Items: []int64{2, 2}, Values: []float64{1, 2}}, recommend.Settings{Rank: 1, Sweeps: 1})
	if !errors.As(err, &dup) || dup.First != 0 || dup.Second != 1 {
		t.Errorf("duplicate: %v", err)
	}
}

// TestCancel: a cancelled context stops a fit.
func TestCancel(t *testing.T) {
	train, _, _ := ratings(t, synth.RatingsConfig{Users: 100, Items: 150, Ratings: 3000, Seed: 4})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := recommend.Fit(ctx, train, recommend.Settings{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

// TestIndexedSplit: the compact form's split holds out the ratings that
// Split holds out with the same seed, and keeps the rest with only the ids
// they rate; a fit of the compact rest is the fit of the rest, bit for
// bit.
func TestIndexedSplit(t *testing.T) {
	all, _, _ := ratings(t, synth.RatingsConfig{Users: 200, Items: 300, Ratings: 6000, Seed: 4})
	rest, held, err := recommend.Split(all, 0.3, 9)
	if err != nil {
		t.Fatal(err)
	}
	xrest, xheld, err := all.Index().Split(0.3, 9)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(held.Users, xheld.Users) || !slices.Equal(held.Items, xheld.Items) || !slices.Equal(held.Values, xheld.Values) {
		t.Fatal("the compact split holds out other ratings than Split")
	}
	crest, cheld, err := all.Index().SplitCompact(0.3, 9)
	if err != nil {
		t.Fatal(err)
	}
	x := all.Index()
	if h := cheld.Ratings(); !slices.Equal(held.Users, h.Users) || !slices.Equal(held.Items, h.Items) || !slices.Equal(held.Values, h.Values) {
		t.Fatal("the split held compact holds out other ratings than Split")
	}
	if !slices.Equal(cheld.Users, x.Users) || !slices.Equal(cheld.Items, x.Items) {
		t.Fatal("the ratings held compact do not index the split ratings' ids")
	}
	if !slices.Equal(crest.Users, xrest.Users) || !slices.Equal(crest.Items, xrest.Items) || !slices.Equal(crest.Rows, xrest.Rows) ||
		!slices.Equal(crest.Cols, xrest.Cols) || !slices.Equal(crest.Values, xrest.Values) {
		t.Fatal("SplitCompact's rest differs from Split's")
	}
	want := rest.Index()
	if !slices.Equal(want.Users, xrest.Users) || !slices.Equal(want.Items, xrest.Items) ||
		!slices.Equal(want.Rows, xrest.Rows) || !slices.Equal(want.Cols, xrest.Cols) || !slices.Equal(want.Values, xrest.Values) {
		t.Fatal("the compact split's rest differs from Split's rest in the compact form")
	}
	s := recommend.Settings{Rank: 3, Sweeps: 10, Seed: 2}
	a, err := recommend.Fit(context.Background(), rest, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := recommend.FitIndexed(context.Background(), xrest, s)
	if err != nil {
		t.Fatal(err)
	}
	if pa, pb := a.PredictAll(held.Users, held.Items, nil), b.PredictAll(held.Users, held.Items, nil); !slices.Equal(pa, pb) {
		t.Fatal("fits of the rest and of its compact form predict differently")
	}
	if _, err := recommend.FitIndexed(context.Background(), &recommend.Indexed{Users: recommend.IDs{1, 2}, Items: recommend.IDs{5}, Rows: []int32{2}, Cols: []int32{0}, Values: []float32{3}}, s); err == nil {
		t.Fatal("a user index out of range was accepted")
	}
}

// TestRanksSameBits fits the default model (selection, Student-t weights,
// the continued chain) and the ridge model (its penalty chosen, then a
// refit) alone and shared among 2 and 3 in-process ranks
// (ranks.NewLocal, the stand-in for MPI), each given a
// contiguous part of the ratings (one part empty, on 3 ranks): every
// rank's model predicts what the one process's does, bit for bit. A pair
// rated twice, its ratings on two ranks, is named as alone.
func TestRanksSameBits(t *testing.T) {
	train, test, _ := ratings(t, synth.RatingsConfig{Users: 150, Items: 200, Ratings: 8000, Seed: 6})
	for _, s := range []recommend.Settings{{Seed: 3, Workers: 2}, {Method: recommend.Ridge, Rank: 3, Nu: math.Inf(1), Seed: 4}} {
		alone, err := recommend.Fit(context.Background(), train, s)
		if err != nil {
			t.Fatal(err)
		}
		want := alone.PredictAll(test.Users, test.Items, nil)
		for _, p := range []int{2, 3} {
			onRanks(t, p, train, func(r int, part recommend.Ratings, red ranks.Reducer) error {
				s := s
				s.Reducer = red
				m, err := recommend.Fit(context.Background(), part, s)
				if err == nil && !slices.Equal(m.PredictAll(test.Users, test.Items, nil), want) {
					err = fmt.Errorf("%v: predicts otherwise than one process", s.Method)
				}
				return err
			})
		}
	}
	twice := recommend.Ratings{Users: append(slices.Clone(train.Users), train.Users[5]), Items: append(slices.Clone(train.Items), train.Items[5]),
		Values: append(slices.Clone(train.Values), 1)}
	_, err := recommend.Fit(context.Background(), twice, recommend.Settings{})
	var want *recommend.DuplicateError
	if !errors.As(err, &want) || want.First != 5 || want.Second != train.Len() {
		t.Fatalf("alone: %v, want ratings 5 and %d named", err, train.Len())
	}
	onRanks(t, 2, twice, func(r int, part recommend.Ratings, red ranks.Reducer) error {
		_, err := recommend.Fit(context.Background(), part, recommend.Settings{Reducer: red})
		var got *recommend.DuplicateError
		if !errors.As(err, &got) || *got != *want {
			return fmt.Errorf("%v, want %v", err, want)
		}
		return nil
	})
}

// TestBiasesShared fits the biases and the global mean alone and on 2 and
// 3 in-process ranks, as TestRanksSameBits: every rank's are the one
// process's, bit for bit (fewer than 2^20 ratings).
func TestBiasesShared(t *testing.T) {
	train, _, _ := ratings(t, synth.RatingsConfig{Users: 150, Items: 200, Ratings: 8000, Seed: 6})
	x := train.Index()
	for _, l := range []float64{math.Inf(1), recommend.DefaultBiasItem} {
		alone, err := recommend.BiasesIndexed(x, l, l)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []int{2, 3} {
			onRanks(t, p, train, func(r int, part recommend.Ratings, red ranks.Reducer) error {
				x := part.Index()
				recommend.ShareIDs(x, red)
				m, err := recommend.BiasesShared(x, l, l, red)
				if err == nil && (m.Mean != alone.Mean || !slices.Equal(m.UserBias, alone.UserBias) || !slices.Equal(m.ItemBias, alone.ItemBias) ||
					m.Min != alone.Min || m.Max != alone.Max || m.Info != alone.Info) {
					err = fmt.Errorf("lambda %v: mean %v, info %+v; alone %v, %+v, or other biases", l, m.Mean, m.Info, alone.Mean, alone.Info)
				}
				return err
			})
		}
	}
}

// onRanks runs f on p in-process ranks, each with its contiguous part of
// the ratings (on 3 ranks, rank 1's empty), and fails on a rank's error.
func onRanks(t *testing.T, p int, r recommend.Ratings, f func(rank int, part recommend.Ratings, red ranks.Reducer) error) {
	t.Helper()
	reds := ranks.NewLocal(p)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for rank := range p {
		lo, hi := rank*r.Len()/p, (rank+1)*r.Len()/p
		if h := r.Len() / 3; p == 3 {
			lo, hi = [3]int{0, h, h}[rank], [3]int{h, h, r.Len()}[rank]
		}
		part := recommend.Ratings{Users: r.Users[lo:hi], Items: r.Items[lo:hi], Values: r.Values[lo:hi]}
		wg.Go(func() { errs[rank] = f(rank, part, reds[rank]) })
	}
	wg.Wait()
	for rank, err := range errs {
		if err != nil {
			t.Fatalf("%d ranks: rank %d: %v", p, rank, err)
		}
	}
}

// TestTable lays the ratings out once for their baselines and their fit
// (LayOut, Table.Biases, FitTable), alone and on 2 in-process ranks: the
// baselines are BiasesIndexed's and the fit FitIndexed's, bit for bit; a
// second fit of the table is the first (the held-out ratings were given
// back); a fit with another Reducer than the table's is refused.
func TestTable(t *testing.T) {
	train, test, _ := ratings(t, synth.RatingsConfig{Users: 150, Items: 200, Ratings: 8000, Seed: 6})
	s := recommend.Settings{Seed: 3, Workers: 2}
	ctx := context.Background()
	alone, err := recommend.FitIndexed(ctx, train.Index(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := alone.PredictAll(test.Users, test.Items, nil)
	check := func(x *recommend.Indexed, s recommend.Settings, fits int) error {
		tb, err := recommend.LayOut(x, s)
		if err != nil {
			return err
		}
		for _, l := range []float64{math.Inf(1), recommend.DefaultBiasItem} {
			b, err := recommend.BiasesIndexed(train.Index(), l, l)
			if err != nil {
				return err
			}
			got, err := tb.Biases(l, l)
			if err != nil {
				return err
			}
			if got.Mean != b.Mean || !slices.Equal(got.UserBias, b.UserBias) || !slices.Equal(got.ItemBias, b.ItemBias) ||
				got.Min != b.Min || got.Max != b.Max || got.Info != b.Info {
				return fmt.Errorf("lambda %v: the table's baseline differs from BiasesIndexed's", l)
			}
		}
		for fit := range fits {
			m, err := recommend.FitTable(ctx, tb, s)
			if err != nil {
				return err
			}
			if !slices.Equal(m.PredictAll(test.Users, test.Items, nil), want) {
				return fmt.Errorf("fit %d of the table predicts otherwise than FitIndexed", fit+1)
			}
		}
		return nil
	}
	if err := check(train.Index(), s, 2); err != nil {
		t.Fatal(err)
	}
	onRanks(t, 2, train, func(r int, part recommend.Ratings, red ranks.Reducer) error {
		x := part.Index()
		recommend.ShareIDs(x, red)
		s := s
		s.Reducer = red
		return check(x, s, 1)
	})
	tb, err := recommend.LayOut(train.Index(), s)
	if err != nil {
		t.Fatal(err)
	}
	s.Reducer = ranks.NewLocal(1)[0]
	var ie *recommend.InputError
	if _, err := recommend.FitTable(ctx, tb, s); !errors.As(err, &ie) {
		t.Fatalf("a fit with another Reducer than the table's: %v, want an InputError", err)
	}
}
