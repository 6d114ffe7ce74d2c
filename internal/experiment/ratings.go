package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/recommend"
)

// A RatingsSplit is a training set and a test set of ratings.
type RatingsSplit struct {
	Name        string
	Train, Test recommend.Ratings
}

// MovieLensSplits reads the five published splits of MovieLens 100k,
// u1.base/u1.test ... u5.base/u5.test, from dir (the ml-100k directory of
// the GroupLens archive: tab-separated user, item, rating, time). folds
// selects some of them (nil: all).
func MovieLensSplits(dir string, folds []int) ([]RatingsSplit, error) {
	if folds == nil {
		folds = []int{1, 2, 3, 4, 5}
	}
	var out []RatingsSplit
	for _, k := range folds {
		if k < 1 || k > 5 {
			return nil, fmt.Errorf("fold %d: MovieLens 100k has the folds 1 to 5", k)
		}
		s := RatingsSplit{Name: fmt.Sprintf("u%d", k)}
		var err error
		if s.Train, err = ReadRatings(filepath.Join(dir, s.Name+".base")); err != nil {
			return nil, err
		}
		if s.Test, err = ReadRatings(filepath.Join(dir, s.Name+".test")); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// ReadRatings reads a ratings file as dataio.ReadRatings finds its
// columns.
func ReadRatings(path string) (recommend.Ratings, error) {
	if _, err := os.Stat(path); err != nil {
		return recommend.Ratings{}, err
	}
	rt, err := dataio.ReadRatings(path)
	if err != nil {
		return recommend.Ratings{}, err
	}
	return recommend.ByID(rt, false), nil
}

// ReadInteractions reads a file of interactions (user,item[,weight]) as
// dataio.ReadInteractions finds its columns, every weight 1: the lists of
// implicit feedback are fitted on which items each user interacted with.
func ReadInteractions(path string) (recommend.Ratings, error) {
	if _, err := os.Stat(path); err != nil {
		return recommend.Ratings{}, err
	}
	rt, err := dataio.ReadInteractions(path, dataio.Layout{})
	if err != nil {
		return recommend.Ratings{}, err
	}
	return recommend.ByID(rt, true), nil
}

// Corrupt returns a copy of r with a fraction of its ratings, drawn from
// seed, replaced by values drawn uniformly from the distinct values of r
// (for MovieLens 100k, the integers 1 to 5), and the indices replaced.
func Corrupt(r recommend.Ratings, fraction float64, seed uint64) (recommend.Ratings, []int) {
	rng := rand.New(rand.NewPCG(seed, 0xc0))
	levels := slices.Clone(r.Values)
	slices.Sort(levels)
	levels = slices.Compact(levels)
	out := recommend.Ratings{Users: r.Users, Items: r.Items, Values: slices.Clone(r.Values)}
	idx := rng.Perm(r.Len())[:int(math.Round(fraction*float64(r.Len())))]
	slices.Sort(idx)
	for _, k := range idx {
		out.Values[k] = levels[rng.IntN(len(levels))]
	}
	return out, idx
}

// Without returns r without the ratings at the increasing indices idx for
// which drop returns true (all of them when drop is nil).
func Without(r recommend.Ratings, idx []int, drop func(k int) bool) recommend.Ratings {
	var keep []int
	j := 0
	for k := range r.Len() {
		if j < len(idx) && idx[j] == k {
			j++
			if drop == nil || drop(k) {
				continue
			}
		}
		keep = append(keep, k)
	}
	out := recommend.Ratings{Users: make([]int64, len(keep)), Items: make([]int64, len(keep)), Values: make([]float64, len(keep))}
	for n, k := range keep {
		out.Users[n], out.Items[n], out.Values[n] = r.Users[k], r.Items[k], r.Values[k]
	}
	return out
}

// RatingsRow is one model's errors on one split.
type RatingsRow struct {
	Model   string  `json:"model"`
	RMSE    float64 `json:"rmse"`
	MAE     float64 `json:"mae"`
	Seconds float64 `json:"seconds"` // fit and predict
	Rank    int     `json:"rank,omitempty"`
	Sweeps  int     `json:"sweeps,omitempty"`
	Penalty float64 `json:"penalty,omitempty"`
}

// RatingsResult is what RunRatings measured on one split.
type RatingsResult struct {
	Split  string       `json:"split"`
	Train  int          `json:"train"`
	Test   int          `json:"test"`
	Unseen int          `json:"unseen"` // test ratings with a user or an item not in the training ratings
	Rows   []RatingsRow `json:"rows"`
}

// The models RunRatings measures, by name.
const (
	ModelDefault = "scaledsm"      // recommend.Fit with no setting
	ModelMean    = "global mean"   // recommend.GlobalMean
	ModelBiases  = "biases"        // recommend.Biases, Surprise's penalties
	ModelRidge   = "ridge"         // recommend.Fit, Ridge, penalty and rank by validation
	ModelALSWR   = "ALS-WR 50/.12" // Ridge at rank 50, penalty 0.12, 20 sweeps: issue 23's tuned ALS-WR
)

// RunRatings fits the default recommender and the baselines to each
// split's training ratings and measures them on its test ratings; the
// default's settings may be changed by s (its seed seeds the fits).
// progress, if not nil, is told of each row as it is measured.
func RunRatings(ctx context.Context, splits []RatingsSplit, s recommend.Settings, progress func(split string, row RatingsRow)) ([]RatingsResult, error) {
	var out []RatingsResult
	for _, sp := range splits {
		res := RatingsResult{Split: sp.Name, Train: sp.Train.Len(), Test: sp.Test.Len()}
		fits := []struct {
			name string
			fit  func() (*recommend.Model, error)
		}{
			{ModelDefault, func() (*recommend.Model, error) { return recommend.Fit(ctx, sp.Train, s) }},
			{ModelMean, func() (*recommend.Model, error) { return recommend.GlobalMean(sp.Train) }},
			{ModelBiases, func() (*recommend.Model, error) {
				return recommend.Biases(sp.Train, recommend.DefaultBiasUser, recommend.DefaultBiasItem)
			}},
			{ModelRidge, func() (*recommend.Model, error) {
				return recommend.Fit(ctx, sp.Train, recommend.Settings{Method: recommend.Ridge, Seed: s.Seed, Workers: s.Workers})
			}},
			{ModelALSWR, func() (*recommend.Model, error) {
				return recommend.Fit(ctx, sp.Train, recommend.Settings{Method: recommend.Ridge, Rank: 50, Lambda: 0.12, Sweeps: 20, Seed: s.Seed, Workers: s.Workers})
			}},
		}
		for _, f := range fits {
			begin := time.Now()
			m, err := f.fit()
			if err != nil {
				return out, fmt.Errorf("%s, %s: %w", sp.Name, f.name, err)
			}
			e, err := m.Evaluate(sp.Test)
			if err != nil {
				return out, err
			}
			row := RatingsRow{Model: f.name, RMSE: e.RMSE, MAE: e.MAE, Seconds: time.Since(begin).Seconds(),
				Rank: m.Info.Rank, Sweeps: m.Info.Sweeps, Penalty: m.Info.Lambda}
			res.Unseen = e.Unseen
			res.Rows = append(res.Rows, row)
			if progress != nil {
				progress(sp.Name, row)
			}
		}
		out = append(out, res)
	}
	return out, nil
}

// WriteRatingsTable writes the results of a ratings experiment as a table: a line per split, a column per
// model (test RMSE), then the mean, then the times of the default model.
func WriteRatingsTable(w io.Writer, res []RatingsResult, corrupt float64) {
	if len(res) == 0 {
		return
	}
	if corrupt > 0 {
		fmt.Fprintf(w, "training ratings corrupted: %.3g%% replaced by uniform random values\n", 100*corrupt)
	}
	fmt.Fprintf(w, "test RMSE (MAE)\n%-6s %7s %7s %7s", "split", "train", "test", "unseen")
	for _, r := range res[0].Rows {
		fmt.Fprintf(w, " %16s", r.Model)
	}
	fmt.Fprintf(w, " %9s\n", "seconds")
	sums := make([]float64, len(res[0].Rows))
	for _, r := range res {
		fmt.Fprintf(w, "%-6s %7d %7d %7d", r.Split, r.Train, r.Test, r.Unseen)
		for j, row := range r.Rows {
			fmt.Fprintf(w, " %8.4f (%.4f)", row.RMSE, row.MAE)
			sums[j] += row.RMSE
		}
		fmt.Fprintf(w, " %9.2f\n", r.Rows[0].Seconds)
	}
	if len(res) > 1 {
		fmt.Fprintf(w, "%-6s %7s %7s %7s", "mean", "", "", "")
		for _, s := range sums {
			fmt.Fprintf(w, " %8.4f %7s", s/float64(len(res)), "")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "seconds: the default model's fit and prediction; its rank and sweeps:")
	for _, r := range res {
		fmt.Fprintf(w, " %s %d/%d", r.Split, r.Rows[0].Rank, r.Rows[0].Sweeps)
	}
	fmt.Fprintln(w)
}

// CorruptSplits returns the splits with frac of each one's training
// ratings replaced by values drawn uniformly from their distinct values
// (see Corrupt; split i from the seed seed+i), and, with oracle, for each
// the oracle fits' splits: its training ratings without those replaced,
// and without only those replaced by a value 2 or more from the original
// (the limit of a robust loss that could tell them). With frac 0 it
// returns the splits as they are.
func CorruptSplits(splits []RatingsSplit, frac float64, seed uint64, oracle bool) (corrupted, oracles []RatingsSplit) {
	if frac == 0 {
		return splits, nil
	}
	corrupted = slices.Clone(splits)
	for i := range corrupted {
		clean := corrupted[i].Train
		var idx []int
		corrupted[i].Train, idx = Corrupt(clean, frac, seed+uint64(i))
		if !oracle {
			continue
		}
		train := corrupted[i].Train
		drop, far := Without(clean, idx, nil), Without(train, idx, func(k int) bool {
			return math.Abs(train.Values[k]-clean.Values[k]) >= 2
		})
		oracles = append(oracles,
			RatingsSplit{Name: corrupted[i].Name + " without the replaced", Train: drop, Test: corrupted[i].Test},
			RatingsSplit{Name: corrupted[i].Name + " without the far replaced", Train: far, Test: corrupted[i].Test})
	}
	return corrupted, oracles
}
