package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/experiment"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/csvfmt"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/recommend"
	"github.com/scaledsm/scaledsm/synth"
)

// recommendFlags are solve's flags of a ratings file: which model, and the
// recommender's settings.
type recommendFlags struct {
	model      string
	columns    string
	nu         float64
	validation float64
	penalty    float64
	test       string
	fs         *flag.FlagSet
}

// The models of a ratings file.
const (
	modelBayes   = "bayes"
	modelRidge   = "ridge"
	modelLowRank = "lowrank"
)

// recommendOnly are the flags of the recommender models alone.
var recommendOnly = []string{"model", "nu", "validation", "penalty", "test"}

// lowRankFlags are the solver's flags, which with --ratings choose the
// plain low-rank completion of the ratings matrix.
var lowRankFlags = []string{"method", "loss", "step", "eta", "lambda", "q", "trim", "tol", "init", "init-scale", "init-seed", "damping", "ps", "truth-left", "truth-right"}

func (r *recommendFlags) register(fs *flag.FlagSet) {
	r.fs = fs
	fs.StringVar(&r.model, "model", "", "with --ratings: bayes (the recommender: mean, user and item biases and low-rank factors,\n"+
		"sampled with a robust Student-t likelihood and averaged), ridge (the same model by penalized least\n"+
		"squares, ALS-WR), or lowrank (the plain low-rank completion of the ratings matrix with --method)\n"+
		"(default bayes, or lowrank when a solver flag such as --method or --loss is given)")
	fs.StringVar(&r.columns, "columns", "", "with --ratings: the user, item and rating columns, `U,I,R`, by header name or number from 1\n(default: found by name in a header line, or the first three columns)")
	fs.Float64Var(&r.nu, "nu", recommend.DefaultNu, "bayes: degrees of freedom of the Student-t likelihood (smaller resists wrong ratings more,\nand fits right ones less well below about 4); inf for a Gaussian likelihood")
	fs.Float64Var(&r.validation, "validation", recommend.DefaultValidation, "bayes, ridge: the fraction of the ratings held out to choose the rank and the sweeps\n(and ridge's penalty) when they are not given")
	fs.Float64Var(&r.penalty, "penalty", 0, "ridge: the penalty λ of λ(n_u|L_u|² + n_i|R_i|²) (default: chosen by validation)")
	fs.StringVar(&r.test, "test", "", "bayes, ridge: a ratings file to evaluate the model on (test_rmse, test_mae), beside the\nglobal mean's and the biases' errors; its predictions go to test.csv")
}

// ratingsModel returns the model that a solve of --ratings fits.
func (r *recommendFlags) ratingsModel() (string, error) {
	set := setFlags(r.fs)
	var solver string
	for _, name := range lowRankFlags {
		if set[name] {
			solver = name
			break
		}
	}
	switch {
	case !set["model"] && solver != "":
		return modelLowRank, nil
	case !set["model"]:
		return modelBayes, nil
	}
	switch r.model {
	case modelBayes, modelRidge:
		if solver != "" {
			return "", badFlag(solver, flagValue(r.fs, solver), "applies to --model lowrank, the plain low-rank completion, not to --model "+r.model)
		}
	case modelLowRank:
	default:
		return "", badFlag("model", r.model, "want bayes, ridge or lowrank")
	}
	return r.model, nil
}

// rejectOutside refuses the recommender's flags with another problem,
// described by other.
func (r *recommendFlags) rejectOutside(other string) error {
	set := setFlags(r.fs)
	for _, name := range recommendOnly {
		if set[name] {
			return badFlag(name, flagValue(r.fs, name), "applies to --ratings with --model bayes or ridge, not to "+other)
		}
	}
	return nil
}

// layout returns the --columns layout.
func (r *recommendFlags) layout() (dataio.Layout, error) {
	if r.columns == "" {
		return dataio.Layout{}, nil
	}
	l, err := dataio.ParseLayout(r.columns)
	if err != nil {
		return l, badFlag("columns", r.columns, strings.TrimPrefix(err.Error(), fmt.Sprintf("%q: ", r.columns)))
	}
	return l, nil
}

// recommendJSON is the summary of a recommender's solve.
type recommendJSON struct {
	Problem   string               `json:"problem"` // "ratings"
	Model     string               `json:"model"`
	Ratings   string               `json:"ratings_file"`
	Count     int                  `json:"ratings"`
	Users     int                  `json:"users"`
	Items     int                  `json:"items"`
	Observed  float64              `json:"observed"` // the fraction of the user-item pairs rated
	Min       float64              `json:"min"`
	Max       float64              `json:"max"`
	Status    string               `json:"status"` // "fitted" or "interrupted"
	Seconds   float64              `json:"seconds"`
	Rank      int                  `json:"rank"`       // of each sweep's factors
	ModelRank int                  `json:"model_rank"` // columns of L and R
	Sweeps    int                  `json:"sweeps"`     // of the final fit
	Nu        float64              `json:"nu"`         // 0: Gaussian
	Penalty   float64              `json:"penalty"`    // ridge
	NoiseSD   float64              `json:"noise_sd"`   // bayes
	Seed      uint64               `json:"seed"`
	Selection *recommend.Selection `json:"selection,omitempty"`
	// Evaluation on --holdout or --test.
	Holdout  *float64    `json:"holdout,omitempty"`
	TestFile string      `json:"test_file,omitempty"`
	Test     *evaluation `json:"test,omitempty"`
	Files    []string    `json:"files,omitempty"`
}

// evaluation is the model's and the baselines' errors on test ratings.
type evaluation struct {
	Ratings    int     `json:"ratings"`
	Unseen     int     `json:"unseen"` // with a user or an item not in the training ratings
	RMSE       float64 `json:"test_rmse"`
	MAE        float64 `json:"test_mae"`
	MeanRMSE   float64 `json:"global_mean_rmse"`
	MeanMAE    float64 `json:"global_mean_mae"`
	BiasesRMSE float64 `json:"biases_rmse"`
	BiasesMAE  float64 `json:"biases_mae"`
}

// runRecommend is solve with --ratings and the bayes or ridge model.
func runRecommend(model string, ef *entryFlags, ff *fileFlags, sf *solverFlags, sp *synthFlags, rf *recommendFlags, of *outputFlags, stdout, stderr io.Writer) error {
	set := setFlags(rf.fs)
	allowed := map[string]bool{"ratings": true, "columns": true, "rank": true, "iters": true, "seed": true, "holdout": true,
		"out": true, "json": true, "model": true, "nu": true, "validation": true, "penalty": true, "test": true, "kernel": true}
	if set["trace"] {
		return badFlag("trace", flagValue(rf.fs, "trace"), "does not apply to the recommender: its trace (the held-out RMSE by sweep) is --out's trace.csv")
	}
	var names []string
	for name := range set {
		if !allowed[name] {
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		slices.Sort(names)
		return badFlag(names[0], flagValue(rf.fs, names[0]), "does not apply to the recommender (--ratings with --model "+model+")")
	}
	s := recommend.Settings{Seed: sp.seed, Validation: rf.validation}
	if model == modelRidge {
		s.Method = recommend.Ridge
		s.Nu = math.Inf(1)
		if set["nu"] {
			return badFlag("nu", rf.nu, "applies to --model bayes; ridge is least squares")
		}
		s.Lambda = rf.penalty
		if set["penalty"] && !(rf.penalty > 0) {
			return badFlag("penalty", rf.penalty, "must be positive")
		}
	} else {
		if set["penalty"] {
			return badFlag("penalty", rf.penalty, "applies to --model ridge; bayes learns its regularization")
		}
		s.Nu = rf.nu
		if math.IsNaN(rf.nu) || rf.nu < 1 {
			return badFlag("nu", rf.nu, "must be at least 1, or inf for a Gaussian likelihood")
		}
	}
	switch {
	case ff.rank == autoRank:
	case ff.rank > 0:
		s.Rank = int(ff.rank)
	}
	if set["iters"] {
		if sf.iters <= 0 {
			return badFlag("iters", sf.iters, "must be positive")
		}
		s.Sweeps = sf.iters
	}
	if !(rf.validation > 0 && rf.validation < 0.5) {
		return badFlag("validation", rf.validation, "must lie in (0, 0.5)")
	}
	if !(ef.holdout >= 0 && ef.holdout < 1) {
		return badFlag("holdout", ef.holdout, "must lie in [0, 1)")
	}
	if ef.holdout > 0 && rf.test != "" {
		return badFlag("holdout", ef.holdout, "give either --holdout or --test, not both")
	}
	layout, err := rf.layout()
	if err != nil {
		return err
	}
	if err := of.check(); err != nil {
		return err
	}
	if of.out != "" {
		if err := refuseOverwrite("out", of.out, within(of.out, solveOutputs()), input{"ratings", ef.ratings}, input{"test", rf.test}); err != nil {
			return err
		}
	}
	if err := checkRatingsMemory(ef.ratings); err != nil {
		return err
	}

	ctx, stop := interruptContext()
	defer stop()
	begin := time.Now()
	read := func(flagName, path string) (recommend.Ratings, error) {
		rt, err := dataio.ReadRatingsLayout(path, layout)
		if err != nil {
			var fe *dataio.FileError
			if errors.As(err, &fe) {
				return recommend.Ratings{}, exitError{fmt.Errorf("--%s %s: %v", flagName, path, fe.Err), exitBadInput}
			}
			return recommend.Ratings{}, err
		}
		r := recommend.Ratings{Users: make([]int64, len(rt.Values)), Items: make([]int64, len(rt.Values)), Values: rt.Values}
		for k := range rt.Values {
			r.Users[k], r.Items[k] = rt.RowIDs[rt.Rows[k]], rt.ColIDs[rt.Cols[k]]
		}
		return r, nil
	}
	setPhase("reading the ratings")
	all, err := read("ratings", ef.ratings)
	if err != nil {
		return err
	}
	train, test := all, recommend.Ratings{}
	if ef.holdout > 0 {
		if train, test, err = recommend.Split(all, ef.holdout, sp.seed); err != nil {
			return err
		}
	}
	if rf.test != "" {
		if test, err = read("test", rf.test); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return exitError{errors.New("interrupted while reading the ratings; nothing written"), exitInterrupted}
	}
	bar := newProgressBar(stderr, "fitting")
	var trace []recommend.Progress
	s.Progress = func(p recommend.Progress) {
		trace = append(trace, p)
		if !of.json {
			bar.show("%s: rank %d, sweep %d, %s", p.Stage, p.Rank, p.Sweep, time.Since(begin).Round(time.Second))
		}
	}
	setPhase("fitting")
	m, err := recommend.Fit(ctx, train, s)
	bar.done()
	if err != nil {
		if ctx.Err() != nil {
			return exitError{errors.New("interrupted while fitting; nothing written"), exitInterrupted}
		}
		return recommendError(err, ef.ratings, layout)
	}
	sum := newRecommendJSON(model, ef.ratings, train, m)
	sum.Seconds = time.Since(begin).Seconds()
	var preds []float64
	if test.Len() > 0 {
		sum.TestFile = rf.test
		if ef.holdout > 0 {
			h := ef.holdout
			sum.Holdout = &h
		}
		if sum.Test, preds, err = evaluate(m, train, test); err != nil {
			return err
		}
	}
	if of.out != "" {
		setPhase(writingPhase)
		files, err := writeRecommender(of, m, sum, test, preds, trace)
		if err != nil {
			return err
		}
		sum.Files = files
	}
	if of.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	sum.print(stdout, of.out)
	return nil
}

// recommendOutputs are the files that a recommender's solve may write.
var recommendOutputs = []string{recommend.ModelFile, recommend.UserIDsFile, recommend.ItemIDsFile, recommend.UserBiasFile,
	recommend.ItemBiasFile, recommend.LFile, recommend.RFile, "trace.csv", "test.csv", "holdout.csv", "summary.json"}

// fitsMemory refuses work that needs more memory than the machine has
// available: what names it.
func fitsMemory(need int64, what string) error {
	avail, ok := mem.Available()
	if !ok || need <= avail {
		return nil
	}
	return exitError{fmt.Errorf("%s needs about %s of memory but this machine has %s available", what, gb(need), gb(avail)), exitBadInput}
}

// autoRank is the value of --rank auto.
const autoRank = rankValue(-1)

// newRecommendJSON summarizes a fitted model.
func newRecommendJSON(model, path string, train recommend.Ratings, m *recommend.Model) *recommendJSON {
	return &recommendJSON{Problem: "ratings", Model: model, Ratings: path, Count: train.Len(),
		Users: len(m.Users), Items: len(m.Items), Observed: float64(train.Len()) / (float64(len(m.Users)) * float64(len(m.Items))),
		Min: m.Min, Max: m.Max, Status: "fitted", Rank: m.Info.Rank, ModelRank: m.Rank(), Sweeps: m.Info.Sweeps,
		Nu: m.Info.Nu, Penalty: m.Info.Lambda, NoiseSD: m.Info.NoiseSD, Seed: m.Info.Seed, Selection: m.Info.Selection}
}

// evaluate returns the errors of the model and of the baselines on test,
// and the model's predictions.
func evaluate(m *recommend.Model, train, test recommend.Ratings) (*evaluation, []float64, error) {
	e, err := m.Evaluate(test)
	if err != nil {
		return nil, nil, err
	}
	mean, err := recommend.GlobalMean(train)
	if err != nil {
		return nil, nil, err
	}
	biases, err := recommend.Biases(train, recommend.DefaultBiasUser, recommend.DefaultBiasItem)
	if err != nil {
		return nil, nil, err
	}
	em, _ := mean.Evaluate(test)
	eb, _ := biases.Evaluate(test)
	return &evaluation{Ratings: e.N, Unseen: e.Unseen, RMSE: e.RMSE, MAE: e.MAE,
		MeanRMSE: em.RMSE, MeanMAE: em.MAE, BiasesRMSE: eb.RMSE, BiasesMAE: eb.MAE}, m.PredictAll(test.Users, test.Items, nil), nil
}

// recommendError words an error of the fit: a duplicate rating by its
// lines, an input error by its flag.
func recommendError(err error, path string, layout dataio.Layout) error {
	var dup *recommend.DuplicateError
	if errors.As(err, &dup) {
		lines, lerr := dataio.RecordLines(path, layout, dup.First, dup.Second)
		if lerr == nil {
			return exitError{fmt.Errorf("--ratings %s: lines %d and %d both rate user %d, item %d: each pair may be rated once",
				path, lines[0], lines[1], dup.User, dup.Item), exitBadInput}
		}
	}
	var ie *recommend.InputError
	if errors.As(err, &ie) {
		return exitError{fmt.Errorf("--ratings %s: %s", path, ie.Reason), exitBadInput}
	}
	return err
}

// checkRatingsMemory refuses a ratings file too big for the machine's
// memory, before it is read: about 200 bytes a rating at the peak (the
// file's fields, the ids mapped, the fit's tables), bounded by the lines.
func checkRatingsMemory(path string) error {
	lines, err := dataio.RatingsSize(path)
	if err != nil {
		return fileError(err)
	}
	return fitsMemory(int64(lines)*200, fmt.Sprintf("--ratings %s (%d lines)", path, lines))
}

// writeRecommender writes the model, summary.json, trace.csv and, with
// test ratings, test.csv (or holdout.csv) to --out, and returns their
// names.
func writeRecommender(of *outputFlags, m *recommend.Model, sum *recommendJSON, test recommend.Ratings, preds []float64, trace []recommend.Progress) ([]string, error) {
	unlock, err := atomicio.Lock(of.out)
	if err != nil {
		return nil, outputError("out", of.out, err)
	}
	defer unlock()
	files := []string{recommend.ModelFile, recommend.UserIDsFile, recommend.ItemIDsFile, recommend.UserBiasFile, recommend.ItemBiasFile}
	if m.Rank() > 0 {
		files = append(files, recommend.LFile, recommend.RFile)
	}
	extra := []recommend.File{{Name: "trace.csv", Write: func(w io.Writer) error {
		if _, err := io.WriteString(w, "stage,rank,sweep,rmse\n"); err != nil {
			return err
		}
		for _, p := range trace {
			if _, err := fmt.Fprintf(w, "%s,%d,%d,%s\n", p.Stage, p.Rank, p.Sweep, csvfmt.Float(p.RMSE)); err != nil {
				return err
			}
		}
		return nil
	}}}
	if test.Len() > 0 {
		name := "test.csv"
		if sum.Holdout != nil {
			name = "holdout.csv"
		}
		extra = append(extra, recommend.File{Name: name, Write: func(w io.Writer) error {
			if _, err := io.WriteString(w, "userId,movieId,rating,prediction\n"); err != nil {
				return err
			}
			for k, v := range test.Values {
				if _, err := fmt.Fprintf(w, "%d,%d,%s,%s\n", test.Users[k], test.Items[k], csvfmt.Float(v), csvfmt.Float(preds[k])); err != nil {
					return err
				}
			}
			return nil
		}})
	}
	for _, e := range extra {
		files = append(files, e.Name)
	}
	files = append(files, "summary.json")
	sum.Files = files
	extra = append(extra, recommend.File{Name: "summary.json", Write: func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}})
	if err := m.Save(of.out, extra...); err != nil {
		return nil, setError(of.out, err)
	}
	if err := removeOthers(of.out, files); err != nil {
		return nil, outputError("out", of.out, err)
	}
	return files, nil
}

// print prints the summary for a person.
func (s *recommendJSON) print(w io.Writer, out string) {
	fmt.Fprintf(w, "problem    ratings from %s: %d ratings of %d items by %d users (%.2g%% of the pairs), scale [%s, %s]\n",
		s.Ratings, s.Count, s.Items, s.Users, 100*s.Observed, csvfmt.Float(s.Min), csvfmt.Float(s.Max))
	switch s.Model {
	case modelRidge:
		fmt.Fprintf(w, "model      ridge: mean + user and item biases + rank-%d factors, least squares with penalty %s (ALS-WR), %d sweeps\n",
			s.Rank, csvfmt.Float(s.Penalty), s.Sweeps)
	default:
		lik := fmt.Sprintf("Student-t likelihood (nu %s)", csvfmt.Float(s.Nu))
		if s.Nu == 0 {
			lik = "Gaussian likelihood"
		}
		fmt.Fprintf(w, "model      bayes: mean + user and item biases + rank-%d factors, %s; %d sweeps sampled and averaged (noise sd %.3g)\n",
			s.Rank, lik, s.Sweeps, s.NoiseSD)
	}
	if sel := s.Selection; sel != nil {
		var c []string
		for _, k := range sel.Candidates {
			label := fmt.Sprintf("rank %d", k.Rank)
			if s.Model == modelRidge {
				label += fmt.Sprintf(" penalty %s", csvfmt.Float(k.Lambda))
			}
			c = append(c, fmt.Sprintf("%s %.4f (%d sweeps)", label, k.RMSE, k.Best))
		}
		ch := sel.Candidates[sel.Chosen]
		fmt.Fprintf(w, "selection  validation RMSE on %d held-out ratings (%.3g%%): %s; chose rank %d\n", sel.Ratings, 100*sel.Fraction, strings.Join(c, ", "), ch.Rank)
	}
	if t := s.Test; t != nil {
		what := "test       " + s.TestFile
		if s.Holdout != nil {
			what = fmt.Sprintf("holdout    %.3g%% of the ratings", 100**s.Holdout)
		}
		fmt.Fprintf(w, "%s: %d ratings (%d with an unseen user or item): RMSE %.4f, MAE %.4f; global mean %.4f, %.4f; biases %.4f, %.4f\n",
			what, t.Ratings, t.Unseen, t.RMSE, t.MAE, t.MeanRMSE, t.MeanMAE, t.BiasesRMSE, t.BiasesMAE)
	}
	fmt.Fprintf(w, "time       %.3g s\n", s.Seconds)
	if out != "" {
		fmt.Fprintf(w, "results    %s: %s\n", out, strings.Join(s.Files, ", "))
	}
}

// predictRatings writes the predictions of the recommender saved in dir
// for the pairs of the file pairs to out (ext .csv or .npy).
func predictRatings(dir, pairs, out, ext string, stdout io.Writer) error {
	m, err := recommend.Load(dir)
	if err != nil {
		var ie *recommend.InputError
		if errors.As(err, &ie) {
			return exitError{fmt.Errorf("--factors %s: %s: %s", dir, filepath.Base(ie.Input), ie.Reason), exitBadInput}
		}
		return err
	}
	pp, err := dataio.ReadPairs(pairs)
	if err != nil {
		return fileError(err)
	}
	pred := m.PredictAll(pp.Rows, pp.Cols, nil)
	unseen := 0
	for k := range pred {
		if u, i := m.Known(pp.Rows[k], pp.Cols[k]); !u || !i {
			unseen++
		}
	}
	write := func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(pred)}, pred) }
	if ext == ".csv" {
		write = func(w io.Writer) error {
			if _, err := io.WriteString(w, "userId,movieId,prediction\n"); err != nil {
				return err
			}
			for k, v := range pred {
				if _, err := fmt.Fprintf(w, "%d,%d,%s\n", pp.Rows[k], pp.Cols[k], csvfmt.Float(v)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := atomicio.WriteFile(out, write); err != nil {
		return outputError("out", out, err)
	}
	fmt.Fprintf(stdout, "wrote %d predictions to %s (%d pairs with a user or an item the ratings did not have, predicted from the biases)\n", len(pred), out, unseen)
	return nil
}

// generateRatings is generate --problem ratings: synthetic ratings that
// look like MovieLens 100k (synth.GenerateRatings), split 80/20 into
// train.csv and test.csv, with --ps of the training ratings replaced by
// uniform random ones.
func generateRatings(fs *flag.FlagSet, sp *synthFlags, out string, stdout io.Writer) error {
	set := setFlags(fs)
	for _, name := range []string{"n", "n2", "r", "m", "p", "kappa", "snr", "dtype", "order"} {
		if set[name] {
			return badFlag(name, flagValue(fs, name), "does not apply to --problem ratings (its sizes are MovieLens 100k's)")
		}
	}
	if !(sp.ps >= 0 && sp.ps < 0.5) {
		return badFlag("ps", sp.ps, "the fraction of training ratings replaced must lie in [0, 0.5)")
	}
	if st, err := os.Stat(out); err == nil && !st.IsDir() {
		return badFlag("out", out, "is not a directory")
	}
	if err := writableParent(out); err != nil {
		return badFlag("out", out, "cannot be written: "+err.Error())
	}
	d, err := synth.GenerateRatings(synth.RatingsConfig{Ratings: 100000, Users: 950, Items: 1650, Seed: sp.seed})
	if err != nil {
		return err
	}
	all := recommend.Ratings{Users: d.Users, Items: d.Items, Values: d.Values}
	train, test, err := recommend.Split(all, 0.2, sp.seed)
	if err != nil {
		return err
	}
	var replaced int
	if sp.ps > 0 {
		var idx []int
		train, idx = experiment.Corrupt(train, sp.ps, sp.seed)
		replaced = len(idx)
	}
	csvFile := func(r recommend.Ratings) func(io.Writer) error {
		return func(w io.Writer) error {
			if _, err := io.WriteString(w, "userId,movieId,rating\n"); err != nil {
				return err
			}
			for k, v := range r.Values {
				if _, err := fmt.Fprintf(w, "%d,%d,%s\n", r.Users[k], r.Items[k], csvfmt.Float(v)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	files := []genFile{
		{"train.csv", fmt.Sprintf("%d ratings (%d replaced by random ones)", train.Len(), replaced), csvFile(train)},
		{"test.csv", fmt.Sprintf("%d ratings", test.Len()), csvFile(test)},
	}
	ctx, stop := interruptContext()
	defer stop()
	listing, err := writeGenerated(ctx, out, files, []string{"train.csv", "test.csv"})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote synthetic ratings (%d users, %d items, scale 1 to 5, seed %d) to %s:\n  %s\n", 950, 1650, sp.seed, out, strings.Join(listing, "\n  "))
	fmt.Fprintf(stdout, "fit and test a recommender with\n  scaledsm solve --ratings %s --test %s\n", filepath.Join(out, "train.csv"), filepath.Join(out, "test.csv"))
	return nil
}
