package main

import (
	"encoding/json"
	"errors"
	"flag"
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
	e := newExperimentFlags(kind, stdout)
	if err := parseFlags(e.fs, args); err != nil {
		return err
	}
	if err := e.check(); err != nil {
		return err
	}
	splits, err := e.splits()
	if err != nil {
		return err
	}
	splits, oracles := experiment.CorruptSplits(splits, e.corrupt, e.seed, e.oracle)
	ctx, stop := interruptContext()
	defer stop()
	bar := newProgressBar(stderr, "experiment")
	s := recommend.Settings{Seed: e.seed, Nu: e.nu}
	res, err := experiment.RunRatings(ctx, splits, s, func(split string, row experiment.RatingsRow) {
		bar.show("%s: %s %.4f", split, row.Model, row.RMSE)
	})
	bar.done()
	if err != nil {
		if ctx.Err() != nil {
			return exitError{errors.New("interrupted"), exitInterrupted}
		}
		return err
	}
	experiment.WriteRatingsTable(stdout, res, e.corrupt)
	for _, o := range oracles {
		m, err := recommend.Fit(ctx, o.Train, s)
		if err != nil {
			return err
		}
		ev, _ := m.Evaluate(o.Test)
		fmt.Fprintf(stdout, "%s (%d training ratings): scaledsm %.4f (%.4f)\n", o.Name, o.Train.Len(), ev.RMSE, ev.MAE)
	}
	if e.json == "" {
		return nil
	}
	err = atomicio.WriteFile(e.json, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	})
	if err != nil {
		return outputError("json", e.json, err)
	}
	return nil
}

// experimentFlags are the flags of an experiment on ratings.
type experimentFlags struct {
	kind, data, folds, ratings, json string
	holdout, corrupt, nu             float64
	seed                             uint64
	oracle                           bool
	fs                               *flag.FlagSet
}

// newExperimentFlags registers the flags of the experiment kind.
func newExperimentFlags(kind string, stdout io.Writer) *experimentFlags {
	e := &experimentFlags{kind: kind, fs: newFlagSet("experiment "+kind, experimentSynopsis, stdout)}
	fs := e.fs
	fs.StringVar(&e.data, "data", "", "movielens: the directory of u1.base, u1.test ... u5.test")
	fs.StringVar(&e.folds, "folds", "1,2,3,4,5", "movielens: the splits to run")
	fs.StringVar(&e.ratings, "ratings", "", "ratings: the ratings file (layouts as solve --ratings reads them)")
	fs.Float64Var(&e.holdout, "holdout", 0.2, "ratings: the fraction held out for the test")
	fs.Float64Var(&e.corrupt, "corrupt", 0, "replace this fraction of each training set's ratings by values drawn uniformly from\nthe ratings' distinct values")
	fs.Uint64Var(&e.seed, "seed", 1, "seed of the split, the corruption and the fits")
	fs.Float64Var(&e.nu, "nu", recommend.DefaultNu, "the default model's degrees of freedom (inf: Gaussian)")
	fs.StringVar(&e.json, "json", "", "also write the results to this JSON file")
	fs.BoolVar(&e.oracle, "oracle", false, "with --corrupt: also fit the default model to each training set without the replaced\nratings, and without only those replaced by a value 2 or more from the original (the limit of a\nrobust loss that could tell them)")
	return e
}

// check checks the flags before anything is read.
func (e *experimentFlags) check() error {
	set := setFlags(e.fs)
	for _, name := range map[string][]string{"movielens": {"ratings", "holdout"}, "ratings": {"data", "folds"}}[e.kind] {
		if set[name] {
			return badFlag(name, flagValue(e.fs, name), "does not apply to experiment "+e.kind)
		}
	}
	switch {
	case !(e.corrupt >= 0 && e.corrupt < 1):
		return badFlag("corrupt", e.corrupt, "must lie in [0, 1)")
	case math.IsNaN(e.nu) || e.nu < 1:
		return badFlag("nu", e.nu, "must be at least 1, or inf")
	case e.oracle && e.corrupt == 0:
		return badFlag("oracle", true, "applies with --corrupt")
	case e.json != "":
		if err := writableParent(e.json); err != nil {
			return badFlag("json", e.json, "cannot be written: "+err.Error())
		}
	}
	return nil
}

// splits reads the experiment's splits: MovieLens 100k's folds, or a
// ratings file split at random.
func (e *experimentFlags) splits() ([]experiment.RatingsSplit, error) {
	if e.kind == "movielens" {
		if e.data == "" {
			return nil, usageError{"--data: missing: give the directory of MovieLens 100k's u1.base ... u5.test"}
		}
		var ks []int
		for _, f := range strings.Split(e.folds, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || k < 1 || k > 5 {
				return nil, badFlag("folds", e.folds, "want folds among 1,2,3,4,5")
			}
			ks = append(ks, k)
		}
		splits, err := experiment.MovieLensSplits(e.data, ks)
		if err != nil {
			return nil, exitError{fmt.Errorf("--data %s: %v", e.data, dataErrorText(err)), exitBadInput}
		}
		return splits, nil
	}
	if e.ratings == "" {
		return nil, usageError{"--ratings: missing: give the ratings file"}
	}
	if !(e.holdout > 0 && e.holdout < 1) {
		return nil, badFlag("holdout", e.holdout, "must lie in (0, 1)")
	}
	all, err := experiment.ReadRatings(e.ratings)
	if err != nil {
		return nil, exitError{fmt.Errorf("--ratings %s: %v", e.ratings, dataErrorText(err)), exitBadInput}
	}
	train, test, err := recommend.Split(all, e.holdout, e.seed)
	return []experiment.RatingsSplit{{Name: "split", Train: train, Test: test}}, err
}

// dataErrorText returns the reason of a file error, whose file the caller
// names.
func dataErrorText(err error) error {
	if pe := new(os.PathError); errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}
