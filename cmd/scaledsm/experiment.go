package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/experiment"
	"github.com/scaledsm/scaledsm/recommend"
)

const experimentSynopsis = `Measures the recommender on real data beside the baselines a user would try
first, on the same splits. Its predictions against the global mean, the user and
item biases, ridge (the same model by penalized least squares, ALS-WR, penalty and
rank by validation) and ALS-WR at rank 50 with penalty 0.12 (the tuned setting of
issue 23); its top-N lists (--lists N) against the most popular items, PureSVD,
EASE and iALS, each of those tuned on a validation split of the training data.

  scaledsm experiment movielens --data DIR     MovieLens 100k's five splits u1..u5
                                               (DIR holds u1.base, u1.test, ...)
  scaledsm experiment ratings --ratings FILE   one random split of any ratings file
                                               (--holdout of it for the test)
  scaledsm experiment implicit --train FILE --test FILE
  scaledsm experiment implicit --interactions FILE
                                               implicit feedback (user,item[,weight]):
                                               the lists alone, every item the user
                                               did not interact with a candidate

Prints each split's test RMSE and MAE per model, with the time to fit and
predict, and their mean; then the lists' precision, recall, NDCG and MAP at N
(relevant: a test rating at least three quarters up the scale, 4 of 1 to 5; with
implicit feedback every test interaction) and their coverage of the items.
--corrupt F replaces F of each training set's ratings by uniform random ones
(the test sets stay clean) to measure robustness. MovieLens may not be
redistributed: nothing of it is in this repository.`

// runExperiment runs "scaledsm experiment movielens|ratings".
func runExperiment(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprintf(stdout, "Usage: scaledsm experiment movielens|ratings [flags]\n\n%s\n", experimentSynopsis)
			return nil
		}
		return usageError{"want a study: movielens, ratings or implicit (run \"scaledsm experiment --help\")"}
	}
	kind, args := args[0], args[1:]
	if kind != "movielens" && kind != "ratings" && kind != "implicit" {
		return usageError{fmt.Sprintf("unknown study %q: want movielens, ratings or implicit", kind)}
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
	if e.foldin {
		return runFoldExperiment(splits, e, stdout)
	}
	splits, oracles := experiment.CorruptSplits(splits, e.corrupt, e.seed, e.oracle)
	ctx, stop := interruptContext()
	defer stop()
	bar := newProgressBar(stderr, "experiment")
	s := recommend.Settings{Seed: e.seed, Nu: e.nu}
	var res []experiment.RatingsResult
	if e.kind != "implicit" {
		res, err = experiment.RunRatings(ctx, splits, s, func(split string, row experiment.RatingsRow) {
			bar.show("%s: %s %.4f", split, row.Model, row.RMSE)
		})
	}
	var lists []experiment.ListsResult
	if err == nil && e.lists > 0 {
		bases := []string{}
		if e.baselines != "" {
			bases = strings.Split(e.baselines, ",")
		}
		lists, err = experiment.RunLists(ctx, splits, s, experiment.ListsOptions{N: e.lists, Implicit: e.kind == "implicit", Baselines: bases},
			func(split string, row experiment.ListsRow) {
				bar.show("%s: %s lists NDCG@%d %.4f", split, row.Model, row.Metrics.N, row.Metrics.NDCG)
			})
	}
	bar.done()
	if err != nil {
		if ctx.Err() != nil {
			return exitError{errors.New("interrupted"), exitInterrupted}
		}
		var dup *recommend.DuplicateError
		if errors.As(err, &dup) { // bad input, named by its flag; not a failed fit
			return exitError{fmt.Errorf("%s: user %d and item %d appear twice: each pair may appear once", e.inputName(), dup.User, dup.Item), exitBadInput}
		}
		return err
	}
	experiment.WriteRatingsTable(stdout, res, e.corrupt)
	if len(res) > 0 && len(lists) > 0 {
		fmt.Fprintln(stdout)
	}
	experiment.WriteListsTable(stdout, lists)
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
		return enc.Encode(struct {
			Ratings []experiment.RatingsResult `json:"ratings,omitempty"`
			Lists   []experiment.ListsResult   `json:"lists,omitempty"`
		}{res, lists})
	})
	if err != nil {
		return outputError("json", e.json, err)
	}
	return nil
}

// experimentFlags are the flags of an experiment on ratings.
type experimentFlags struct {
	kind, data, folds, ratings, json string
	train, test, interactions        string
	baselines                        string
	holdout, corrupt, nu             float64
	seed                             uint64
	lists                            int
	oracle, foldin                   bool
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
	lists := 10
	if kind == "implicit" {
		lists = 20
	}
	fs.IntVar(&e.lists, "lists", lists, "the length of the top-N lists scored (0: none)")
	fs.StringVar(&e.baselines, "baselines", strings.Join(recommend.Baselines, ","), "the ranking baselines run beside the lists (\"\": none)")
	fs.BoolVar(&e.foldin, "foldin", false, "movielens, ratings: measure the fold-in instead: 10% of the users (then of the items) held\nout of each split's fit and folded in, against the fit of all (RMSE and P@10 on their test ratings);\nand half of each test user's test ratings folded in, the RMSE on the other half")
	fs.StringVar(&e.train, "train", "", "implicit: the training interactions, user,item[,weight] lines")
	fs.StringVar(&e.test, "test", "", "implicit: the test interactions")
	fs.StringVar(&e.interactions, "interactions", "", "implicit: one file of interactions, split at random (--holdout of it for the test)")
	fs.BoolVar(&e.oracle, "oracle", false, "with --corrupt: also fit the default model to each training set without the replaced\nratings, and without only those replaced by a value 2 or more from the original (the limit of a\nrobust loss that could tell them)")
	return e
}

// check checks the flags before anything is read.
func (e *experimentFlags) check() error {
	set := setFlags(e.fs)
	for _, name := range map[string][]string{"movielens": {"ratings", "holdout", "train", "test", "interactions"}, "ratings": {"data", "folds", "train", "test", "interactions"},
		"implicit": {"data", "folds", "ratings", "corrupt", "oracle", "nu"}}[e.kind] {
		if set[name] {
			return badFlag(name, flagValue(e.fs, name), "does not apply to experiment "+e.kind)
		}
	}
	switch {
	case !(e.corrupt >= 0 && e.corrupt < 1):
		return badFlag("corrupt", e.corrupt, "must lie in [0, 1)")
	case e.baselines != "" && slices.ContainsFunc(strings.Split(e.baselines, ","), func(b string) bool { return !slices.Contains(recommend.Baselines, b) }):
		return badFlag("baselines", e.baselines, "want some of "+strings.Join(recommend.Baselines, ","))
	case e.lists < 0:
		return badFlag("lists", e.lists, "must be positive, or 0 for none")
	case e.foldin && (e.kind == "implicit" || e.corrupt > 0):
		return badFlag("foldin", true, "applies to experiment movielens or ratings, without --corrupt")
	case e.kind == "implicit" && e.lists == 0:
		return badFlag("lists", e.lists, "experiment implicit measures the lists alone")
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
			if slices.Contains(ks, k) {
				return nil, badFlag("folds", e.folds, fmt.Sprintf("fold %d given twice: the mean would count it twice", k))
			}
			ks = append(ks, k)
		}
		splits, err := experiment.MovieLensSplits(e.data, ks)
		if err != nil {
			return nil, exitError{fmt.Errorf("--data %s: %v", e.data, dataErrorText(err)), exitBadInput}
		}
		return splits, nil
	}
	if e.kind == "implicit" {
		return e.implicitSplits()
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

// runFoldExperiment is experiment --foldin.
func runFoldExperiment(splits []experiment.RatingsSplit, e *experimentFlags, stdout io.Writer) error {
	ctx, stop := interruptContext()
	defer stop()
	s := recommend.Settings{Seed: e.seed, Nu: e.nu}
	rows, err := experiment.RunFoldIn(ctx, splits, s, 0.1, e.seed)
	if err != nil {
		return err
	}
	known, err := experiment.RunKnownFold(ctx, splits, s, e.seed)
	if err != nil {
		return err
	}
	experiment.WriteFoldTable(stdout, rows)
	fmt.Fprintln(stdout)
	experiment.WriteKnownTable(stdout, known)
	return nil
}

// inputName names the data the study read, as its flag and path.
func (e *experimentFlags) inputName() string {
	for _, f := range [][2]string{{"interactions", e.interactions}, {"train", e.train}, {"ratings", e.ratings}, {"data", e.data}} {
		if f[1] != "" {
			return "--" + f[0] + " " + f[1]
		}
	}
	return "the data"
}

// implicitSplits reads experiment implicit's split: --train and --test,
// or --interactions split at random.
func (e *experimentFlags) implicitSplits() ([]experiment.RatingsSplit, error) {
	read := func(flagName, path string) (recommend.Ratings, error) {
		r, err := experiment.ReadInteractions(path)
		if err != nil {
			return r, exitError{fmt.Errorf("--%s %s: %v", flagName, path, dataErrorText(err)), exitBadInput}
		}
		return r, nil
	}
	switch {
	case e.interactions != "" && (e.train != "" || e.test != ""):
		return nil, badFlag("interactions", e.interactions, "give either --interactions or --train and --test, not both")
	case e.interactions != "":
		if !(e.holdout > 0 && e.holdout < 1) {
			return nil, badFlag("holdout", e.holdout, "must lie in (0, 1)")
		}
		all, err := read("interactions", e.interactions)
		if err != nil {
			return nil, err
		}
		train, test, err := recommend.Split(all, e.holdout, e.seed)
		return []experiment.RatingsSplit{{Name: "split", Train: train, Test: test}}, err
	case e.train == "" || e.test == "":
		return nil, usageError{"--train and --test (or --interactions): missing: give the interactions"}
	}
	train, err := read("train", e.train)
	if err != nil {
		return nil, err
	}
	test, err := read("test", e.test)
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
