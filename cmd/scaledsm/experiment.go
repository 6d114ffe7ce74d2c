package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/scaledsm/scaledsm/experiment"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/recommend"
)

const experimentSynopsis = `Measures the recommender on real ratings beside the baselines a user would try
first, on the same splits: the global mean, the user and item biases, ridge (the
same model by penalized least squares, ALS-WR, penalty and rank by validation) and
ALS-WR at rank 50 with penalty 0.12 (the tuned setting of issue 23).

  scaledsm experiment movielens --data DIR     MovieLens 100k's five splits u1..u5
                                               (DIR holds u1.base, u1.test, ...)
  scaledsm experiment ratings --ratings FILE   one random split of any ratings file
                                               (--holdout of it for the test)

Prints each split's test RMSE and MAE per model, with the time to fit and
predict, and their mean; --corrupt F replaces F of each training set's ratings
by uniform random ones (the test sets stay clean) to measure robustness.
MovieLens may not be redistributed: nothing of it is in this repository.`

// runExperiment runs "scaledsm experiment movielens|ratings".
func runExperiment(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprintf(stdout, "Usage: scaledsm experiment movielens|ratings [flags]\n\n%s\n", experimentSynopsis)
			return nil
		}
		return usageError{"want a study: movielens or ratings (run \"scaledsm experiment --help\")"}
	}
	kind, args := args[0], args[1:]
	if kind != "movielens" && kind != "ratings" {
		return usageError{fmt.Sprintf("unknown study %q: want movielens or ratings", kind)}
	}
	fs := newFlagSet("experiment "+kind, experimentSynopsis, stdout)
	data := fs.String("data", "", "movielens: the directory of u1.base, u1.test ... u5.test")
	folds := fs.String("folds", "1,2,3,4,5", "movielens: the splits to run")
	ratings := fs.String("ratings", "", "ratings: the ratings file (layouts as solve --ratings reads them)")
	holdout := fs.Float64("holdout", 0.2, "ratings: the fraction held out for the test")
	corrupt := fs.Float64("corrupt", 0, "replace this fraction of each training set's ratings by values drawn uniformly from\nthe ratings' distinct values")
	seed := fs.Uint64("seed", 1, "seed of the split, the corruption and the fits")
	nu := fs.Float64("nu", recommend.DefaultNu, "the default model's degrees of freedom (inf: Gaussian)")
	jsonOut := fs.String("json", "", "also write the results to this JSON file")
	oracle := fs.Bool("oracle", false, "with --corrupt: also fit the default model to each training set without the replaced\nratings, and without only those replaced by a value 2 or more from the original (the limit of a\nrobust loss that could tell them)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := setFlags(fs)
	for _, name := range map[string][]string{"movielens": {"ratings", "holdout"}, "ratings": {"data", "folds"}}[kind] {
		if set[name] {
			return badFlag(name, flagValue(fs, name), "does not apply to experiment "+kind)
		}
	}
	if !(*corrupt >= 0 && *corrupt < 1) {
		return badFlag("corrupt", *corrupt, "must lie in [0, 1)")
	}
	if math.IsNaN(*nu) || *nu < 1 {
		return badFlag("nu", *nu, "must be at least 1, or inf")
	}
	if *jsonOut != "" {
		if err := writableParent(*jsonOut); err != nil {
			return badFlag("json", *jsonOut, "cannot be written: "+err.Error())
		}
	}
	var splits []experiment.RatingsSplit
	switch kind {
	case "movielens":
		if *data == "" {
			return usageError{"--data: missing: give the directory of MovieLens 100k's u1.base ... u5.test"}
		}
		var ks []int
		for _, f := range strings.Split(*folds, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || k < 1 || k > 5 {
				return badFlag("folds", *folds, "want folds among 1,2,3,4,5")
			}
			ks = append(ks, k)
		}
		var err error
		if splits, err = experiment.MovieLensSplits(*data, ks); err != nil {
			return exitError{fmt.Errorf("--data %s: %v", *data, dataErrorText(err)), exitBadInput}
		}
	case "ratings":
		if *ratings == "" {
			return usageError{"--ratings: missing: give the ratings file"}
		}
		if !(*holdout > 0 && *holdout < 1) {
			return badFlag("holdout", *holdout, "must lie in (0, 1)")
		}
		all, err := experiment.ReadRatings(*ratings)
		if err != nil {
			return exitError{fmt.Errorf("--ratings %s: %v", *ratings, dataErrorText(err)), exitBadInput}
		}
		train, test, err := recommend.Split(all, *holdout, *seed)
		if err != nil {
			return err
		}
		splits = []experiment.RatingsSplit{{Name: "split", Train: train, Test: test}}
	}
	if *oracle && *corrupt == 0 {
		return badFlag("oracle", true, "applies with --corrupt")
	}
	var oracles []experiment.RatingsSplit
	if *corrupt > 0 {
		for i := range splits {
			clean := splits[i].Train
			var idx []int
			splits[i].Train, idx = experiment.Corrupt(clean, *corrupt, *seed+uint64(i))
			if *oracle {
				drop, far := experiment.Without(clean, idx, nil), experiment.Without(splits[i].Train, idx, func(k int) bool {
					return math.Abs(splits[i].Train.Values[k]-clean.Values[k]) >= 2
				})
				oracles = append(oracles,
					experiment.RatingsSplit{Name: splits[i].Name + " without the replaced", Train: drop, Test: splits[i].Test},
					experiment.RatingsSplit{Name: splits[i].Name + " without the far replaced", Train: far, Test: splits[i].Test})
			}
		}
	}
	ctx, stop := interruptContext()
	defer stop()
	bar := newProgressBar(stderr, "experiment")
	res, err := experiment.RunRatings(ctx, splits, recommend.Settings{Seed: *seed, Nu: *nu}, func(split string, row experiment.RatingsRow) {
		bar.show("%s: %s %.4f", split, row.Model, row.RMSE)
	})
	bar.done()
	if err != nil {
		if ctx.Err() != nil {
			return exitError{errors.New("interrupted"), exitInterrupted}
		}
		return err
	}
	printRatingsResults(stdout, res, *corrupt)
	for _, o := range oracles {
		m, err := recommend.Fit(ctx, o.Train, recommend.Settings{Seed: *seed, Nu: *nu})
		if err != nil {
			return err
		}
		e, _ := m.Evaluate(o.Test)
		fmt.Fprintf(stdout, "%s (%d training ratings): scaledsm %.4f (%.4f)\n", o.Name, o.Train.Len(), e.RMSE, e.MAE)
	}
	if *jsonOut != "" {
		if err := atomicio.WriteFile(*jsonOut, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}); err != nil {
			return outputError("json", *jsonOut, err)
		}
	}
	return nil
}

// dataErrorText returns the reason of a file error, whose file the caller
// names.
func dataErrorText(err error) error {
	if pe := new(os.PathError); errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// printRatingsResults prints a table: a line per split, a column per
// model (test RMSE), then the mean, then the times of the default model.
func printRatingsResults(w io.Writer, res []experiment.RatingsResult, corrupt float64) {
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
