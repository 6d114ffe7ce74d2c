package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/csvfmt"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/reduce"
	"github.com/scaledsm/scaledsm/recommend"
	"github.com/scaledsm/scaledsm/report"
	"github.com/scaledsm/scaledsm/synth"
	"github.com/scaledsm/scaledsm/synth/npyset"
)

// recommendFlags are solve's flags of a ratings file: which model, and the
// recommender's settings.
type recommendFlags struct {
	model        string
	columns      string
	nu           float64
	validation   float64
	penalty      float64
	test         string
	lists        bool
	interactions string
	weight       string
	fs           *flag.FlagSet
}

// The models of a ratings file.
const (
	modelBayes   = "bayes"
	modelRidge   = "ridge"
	modelLowRank = "lowrank"
)

// recommendOnly are the flags of the recommender models alone.
var recommendOnly = []string{"model", "nu", "validation", "penalty", "test", "lists"}

// The weights of --interactions' third column.
const (
	weightOne = "one" // every interaction 1, the column read and not used
	weightLog = "log" // 1 + ln(1 + w)
	weightRaw = "raw" // w as it is
)

// lowRankFlags are the solver's flags, which with --ratings choose the
// plain low-rank completion of the ratings matrix.
var lowRankFlags = []string{"method", "loss", "step", "eta", "lambda", "q", "trim", "tol", "init", "init-scale", "init-seed", "damping", "ps", "truth-left", "truth-right"}

func (r *recommendFlags) register(fs *flag.FlagSet) {
	r.fs = fs
	fs.StringVar(&r.model, "model", "", "with --ratings: bayes (the recommender: mean, user and item biases and low-rank factors,\n"+
		"sampled with a robust Student-t likelihood and averaged), ridge (the same model by penalized least\n"+
		"squares, ALS-WR), or lowrank (the plain low-rank completion of the ratings matrix with --method)\n"+
		"(default bayes, or lowrank when a solver flag such as --method or --loss is given)")
	fs.StringVar(&r.columns, "columns", "", "with --ratings: the user, item and rating columns, `U,I,R`, by header name or number from 1, of\n--test too (default: found by name in a header line, or the first three columns)")
	fs.Float64Var(&r.nu, "nu", recommend.DefaultNu, "bayes: degrees of freedom of the Student-t likelihood (smaller resists wrong ratings more,\nand fits right ones less well below about 4); inf for a Gaussian likelihood")
	fs.Float64Var(&r.validation, "validation", recommend.DefaultValidation, "bayes, ridge: the fraction of the ratings held out to choose the rank and the sweeps\n(and ridge's penalty) when they are not given (by default at most 10^6 ratings)")
	fs.Float64Var(&r.penalty, "penalty", 0, "ridge: the penalty λ of λ(n_u|L_u|² + n_i|R_i|²) (default: chosen by validation)")
	fs.StringVar(&r.test, "test", "", "bayes, ridge: a ratings file to evaluate the model on (test_rmse, test_mae), beside the\nglobal mean's and the biases' errors; its predictions go to test.csv; and the lists on it\n(with --interactions: interactions to evaluate the lists on), beside the most popular items'")
	fs.BoolVar(&r.lists, "lists", true, "bayes, ridge: also fit the lists that \"scaledsm recommend\" lists from (a low-rank ridge regression\nof which items each user rated, weighted by the ratings; docs/recommend.md)")
	fs.StringVar(&r.interactions, "interactions", "", "implicit feedback: a file of user,item[,weight] lines (views, clicks, purchases, plays; a header\nor not, the readers of --ratings); fits the lists alone, for \"scaledsm recommend\"")
	fs.StringVar(&r.weight, "weight", weightOne, "with --interactions, the weight of an interaction from the file's third column: one (every\ninteraction 1: on Last.fm's play counts the best of the three), log (1 + ln(1 + w)) or raw (w)")
}

// solverFlag returns the first of the low-rank completion's flags given
// ("" for none), which makes it the model of --ratings unless --model
// says otherwise.
func (r *recommendFlags) solverFlag() string {
	set := setFlags(r.fs)
	for _, name := range lowRankFlags {
		if set[name] {
			return name
		}
	}
	return ""
}

// ratingsModel returns the model that a solve of --ratings fits.
func (r *recommendFlags) ratingsModel() (string, error) {
	set := setFlags(r.fs)
	solver := r.solverFlag()
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

// runRecommend is solve with --ratings and the bayes or ridge model: the
// ratings read, the recommender fitted (package recommend), evaluated on
// the ratings held out or given, its files written and its summary
// printed.
func runRecommend(c *solveCmd, model string) error {
	s, err := c.recommendSettings(model)
	if err != nil {
		return err
	}
	layout, err := c.recommendChecks()
	if err != nil {
		return err
	}
	ctx, stop := interruptContext()
	defer stop()
	begin := time.Now()
	recommend.Prepare(s) // beside the reading
	fit := &recommenderFit{}
	train, err := c.readRatings(layout, fit)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return exitError{errors.New("interrupted while reading the ratings; nothing written"), exitInterrupted}
	}
	// The ratings are laid out once, for the baselines and the fit, and
	// given up to the table (LayOutTaking): their memory goes as it is
	// made.
	count := train.Len()
	if world != nil {
		count = reduce.Count(world, count)
	}
	setPhase("fitting")
	resetCollectives() // the fit's alone in the ranks' figures
	tb, err := recommend.LayOutTaking(train, s)
	if err != nil {
		return recommendError(err, c.ef.ratings, layout)
	}
	var mean, biases *recommend.Model
	if c.rf.test != "" || c.ef.holdout > 0 { // on every rank: the ranks share the work
		uncounted(func() { mean, biases, err = report.Baselines(tb) })
		if err != nil {
			return recommendError(err, c.ef.ratings, layout)
		}
	}
	bar := newProgressBar(c.stderr, "fitting")
	s.Progress = func(p recommend.Progress) {
		if p.Stage != "lists" { // the lists have no sweeps to trace
			fit.trace = append(fit.trace, p)
		}
		if !c.of.json && p.Stage == "lists" {
			bar.show("fitting the lists, %s", time.Since(begin).Round(time.Second))
		} else if !c.of.json {
			bar.show("%s: rank %d, sweep %d, %s", p.Stage, p.Rank, p.Sweep, time.Since(begin).Round(time.Second))
		}
	}
	fit.m, err = recommend.FitTable(ctx, tb, s)
	settled = err == nil // the last collective
	bar.done()
	if err != nil {
		if ctx.Err() != nil {
			return exitError{errors.New("interrupted while fitting; nothing written"), exitInterrupted}
		}
		return recommendError(err, c.ef.ratings, layout)
	}
	fit.sum = report.NewRecommender(model, c.ef.ratings, count, fit.m)
	fit.sum.Lists = report.NewLists(fit.m)
	recommenderFigures(fit.sum, len(fit.trace))
	fit.sum.Seconds = time.Since(begin).Seconds()
	if fit.heldTest != nil {
		fit.test, fit.heldTest = fit.heldTest(), nil
	}
	if fit.test.Len() > 0 {
		fit.sum.TestFile = c.rf.test
		if c.ef.holdout > 0 {
			fit.sum.Holdout = &c.ef.holdout
		}
		if fit.sum.Test, fit.preds, err = report.Evaluate(fit.m, mean, biases, fit.test); err != nil {
			return err
		}
		if fit.m.Lists != nil {
			rel := recommend.DefaultRelevant(fit.m.Min, fit.m.Max)
			if fit.sum.TestLists, err = report.EvaluateLists(ctx, fit.m, fit.test, rel); err != nil {
				return err
			}
		}
	}
	return c.reportRecommender(fit)
}

// recommenderFit is a recommender fitted: the model, its summary, the
// ratings it is tested on with its predictions of them, and its trace.
type recommenderFit struct {
	m    *recommend.Model
	sum  *report.Recommender
	test recommend.Ratings
	// heldTest, when not nil, returns the ratings to test (--test's or
	// those held out), held compact until the fit is done (see readTest
	// and recommend.Indexed.SplitCompact); runRecommend sets test from it.
	heldTest func() recommend.Ratings
	preds    []float64
	trace    []recommend.Progress
}

// recommendSettings returns the recommender's settings from the flags,
// having checked that every flag given applies to the model.
func (c *solveCmd) recommendSettings(model string) (recommend.Settings, error) {
	rf, sf := &c.rf, &c.sf
	set := setFlags(rf.fs)
	allowed := map[string]bool{"ratings": true, "columns": true, "rank": true, "iters": true, "seed": true, "holdout": true,
		"out": true, "json": true, "model": true, "nu": true, "validation": true, "penalty": true, "test": true, "kernel": true, "lists": true}
	if set["trace"] {
		return recommend.Settings{}, badFlag("trace", flagValue(rf.fs, "trace"), "does not apply to the recommender: its trace (the held-out RMSE by sweep) is --out's trace.csv")
	}
	var names []string
	for name := range set {
		if !allowed[name] {
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		slices.Sort(names)
		return recommend.Settings{}, badFlag(names[0], flagValue(rf.fs, names[0]), "does not apply to the recommender (--ratings with --model "+model+")")
	}
	s := recommend.Settings{Seed: c.sp.seed, Reducer: world, NoLists: !rf.lists}
	if set["validation"] {
		s.Validation = rf.validation
	}
	switch {
	case model == modelRidge && set["nu"]:
		return s, badFlag("nu", rf.nu, "applies to --model bayes; ridge is least squares")
	case model == modelRidge && set["penalty"] && !(rf.penalty > 0):
		return s, badFlag("penalty", rf.penalty, "must be positive")
	case model == modelRidge:
		s.Method, s.Nu, s.Lambda = recommend.Ridge, math.Inf(1), rf.penalty
	case set["penalty"]:
		return s, badFlag("penalty", rf.penalty, "applies to --model ridge; bayes learns its regularization")
	case math.IsNaN(rf.nu) || rf.nu < 1:
		return s, badFlag("nu", rf.nu, "must be at least 1, or inf for a Gaussian likelihood")
	default:
		s.Nu = rf.nu
	}
	if c.ff.rank > 0 {
		s.Rank = int(c.ff.rank)
	}
	if set["iters"] {
		if sf.iters <= 0 {
			return s, badFlag("iters", sf.iters, "must be positive")
		}
		s.Sweeps = sf.iters
	}
	if !(rf.validation > 0 && rf.validation < 0.5) {
		return s, badFlag("validation", rf.validation, "must lie in (0, 0.5)")
	}
	return s, nil
}

// recommendChecks checks the recommender's inputs, outputs and memory
// before the work starts, and returns the ratings files' layout.
func (c *solveCmd) recommendChecks() (dataio.Layout, error) {
	ef, of := &c.ef, &c.of
	if !(ef.holdout >= 0 && ef.holdout < 1) {
		return dataio.Layout{}, badFlag("holdout", ef.holdout, "must lie in [0, 1)")
	}
	if ef.holdout > 0 && c.rf.test != "" {
		return dataio.Layout{}, badFlag("holdout", ef.holdout, "give either --holdout or --test, not both")
	}
	if ef.holdout > 0 && world != nil {
		return dataio.Layout{}, badFlag("holdout", ef.holdout, fmt.Sprintf("cannot be drawn on the %d ranks of mpirun, each of which reads only its part of --ratings: give the ratings to test with --test", world.Size()))
	}
	layout, err := c.rf.layout()
	if err != nil {
		return layout, err
	}
	if err := of.check(); err != nil {
		return layout, err
	}
	if of.out != "" {
		if err := refuseOverwrite("out", of.out, within(of.out, solveOutputs()), input{"ratings", ef.ratings}, input{"test", c.rf.test}); err != nil {
			return layout, err
		}
	}
	// The lists are fitted on one process only (see recommend.Settings).
	return layout, checkRatingsMemory(ef.ratings, ratingsBytes(c.rf.lists && world == nil), modelBytes)
}

// readRatings reads the ratings to fit and the ratings to test (held out
// of them, or --test's) into fit.heldTest, and returns those to fit.
func (c *solveCmd) readRatings(layout dataio.Layout, fit *recommenderFit) (*recommend.Indexed, error) {
	setPhase("reading the ratings")
	read := dataio.ReadRatings32
	if world != nil {
		// Each rank reads its part of the file (see
		// recommend.Settings.Reducer), and the ranks share their ids.
		read = func(path string, layout dataio.Layout) (*dataio.Ratings32, error) {
			return dataio.ReadRatings32Part(path, layout, world.Rank(), world.Size())
		}
	}
	rt, err := readRatingsAs("ratings", c.ef.ratings, layout, read)
	if err != nil {
		return nil, err
	}
	// The compact form the fit works on, 12 bytes a rating, as read.
	train := recommend.Compact(rt)
	if world != nil {
		recommend.ShareIDs(train, world)
	}
	if c.ef.holdout > 0 {
		var held *recommend.Indexed
		if train, held, err = train.SplitCompact(c.ef.holdout, c.sp.seed); err != nil {
			return train, err
		}
		fit.heldTest = held.Ratings
	}
	if c.rf.test != "" && rank0() { // which alone prints and writes
		fit.heldTest, err = readTest(c.rf.test, layout)
	}
	return train, err
}

// readRatingsFile reads the ratings file path of the flag flagName.
func readRatingsFile(flagName, path string, layout dataio.Layout) (*dataio.Ratings, error) {
	return readRatingsAs(flagName, path, layout, dataio.ReadRatingsLayout)
}

// readRatingsAs reads the ratings file path of the flag flagName with
// read, its errors worded for the flag.
func readRatingsAs[R any](flagName, path string, layout dataio.Layout, read func(string, dataio.Layout) (*R, error)) (*R, error) {
	rt, err := read(path, layout)
	if err != nil {
		var fe *dataio.FileError
		if errors.As(err, &fe) {
			return nil, exitError{fmt.Errorf("--%s %s: %v", flagName, path, fe.Err), exitBadInput}
		}
		return nil, err
	}
	return rt, nil
}

// readTest reads --test's ratings path and returns what makes them
// recommend.Ratings once the fit is done. Until then they are held as
// read, in 12 bytes a rating where every value is a float32 exactly
// (stars, half stars) and 16 otherwise, not the 24 of recommend.Ratings:
// read up front, so that a fault in the file is found before the fit, but
// not a part of the fit's peak (23 MB of the 178 MB live heap of
// generate's 9 × 10^6 ratings, their test ratings a ninth as many).
func readTest(path string, layout dataio.Layout) (func() recommend.Ratings, error) {
	rt, err := readRatingsFile("test", path, layout)
	if err != nil {
		return nil, err
	}
	if rt32, ok := dataio.Exact32(rt); ok {
		return func() recommend.Ratings { return recommend.ByID(rt32, false) }, nil
	}
	return func() recommend.Ratings { return recommend.ByID(rt, false) }, nil
}

// reportRecommender writes the fit's files to --out and prints its
// summary.
func (c *solveCmd) reportRecommender(fit *recommenderFit) error {
	if c.of.out != "" && rank0() {
		setPhase(writingPhase)
		files, err := writeRecommender(c.of.out, fit)
		if err != nil {
			return err
		}
		fit.sum.Files = files
	}
	if c.of.json {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(fit.sum)
	}
	fit.sum.Print(c.stdout, c.of.out)
	return nil
}

// recommendOutputs are the files that a recommender's solve may write.
var recommendOutputs = []string{recommend.ModelFile, recommend.UserIDsFile, recommend.ItemIDsFile, recommend.UserBiasFile,
	recommend.ItemBiasFile, recommend.LFile, recommend.RFile, recommend.ListsPFile, recommend.ListsQFile, recommend.ListsScaleFile,
	recommend.ListsSig2File, recommend.SeenStartFile, recommend.SeenItemsFile, recommend.SeenValuesFile, "trace.csv", "test.csv",
	"holdout.csv", "summary.json"}

// fitsMemory refuses work that needs more memory than the machine has
// available: what names it.
func fitsMemory(need int64, what string) error {
	if err := mem.Check(need); err != nil {
		return exitError{fmt.Errorf("%s %v", what, err), exitBadInput}
	}
	return nil
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
	if errors.As(err, &ie) && ie.Input == "rank" { // a setting's, not the file's
		return badFlag("rank", ie.Value, ie.Reason)
	}
	if errors.As(err, &ie) {
		return exitError{fmt.Errorf("--ratings %s: %s", path, ie.Reason), exitBadInput}
	}
	return err
}

// checkRatingsMemory refuses a ratings file too big for the machine's
// memory, before it is read, and says how many ratings would fit at
// perLine bytes a line (see ratingsBytes), and whether they would at
// alone bytes a line, the ratings model's without the lists (0: no such
// choice); the lines bound the ratings.
// The collector is tightened for a large file: reading and fitting leave
// garbage a quarter of the data's size at most.
func checkRatingsMemory(path string, perLine, alone int64) error {
	lines, err := dataio.RatingsSize(path)
	if err != nil {
		return fileError(err)
	}
	// The collector as one process's: the margin it leaves is a fraction
	// of the live heap, which a rank's share makes smaller, not a reason
	// to leave a larger fraction. Its thresholds were chosen at the lists'
	// bytes a line, whatever is fitted; the table is live to the end.
	mem.TuneGCTight(int64(lines) * listsBytes)
	if world != nil {
		lines = lines/world.Size() + 1 // each rank holds its share
	}
	avail, known := mem.Available()
	return ratingsFit(path, lines, perLine, alone, avail, known)
}

// ratingsFit refuses a ratings file of the given lines when they need more
// than the avail bytes there are (when known) at perLine bytes a line, in
// one line that says how many ratings would fit, and whether they would at
// alone bytes a line without the lists (0: no such choice).
func ratingsFit(path string, lines int, perLine, alone, avail int64, known bool) error {
	need := int64(lines) * perLine
	if !known || need <= avail {
		return nil
	}
	hint := ""
	if alone > 0 && alone < perLine && int64(lines)*alone <= avail {
		hint = fmt.Sprintf("; the ratings model alone (--lists=false) needs about %d bytes a rating and fits", alone)
	}
	return exitError{fmt.Errorf("--ratings %s (%d lines) %v: about %d bytes a rating, so %d ratings at most%s",
		path, lines, &mem.TooBig{Need: need, Available: avail}, perLine, avail/perLine, hint), exitBadInput}
}

// The peak memory of solve --ratings by rating line, with a margin
// (docs/recommend.md, "At scale"): with the lists, listsBytes (the peak at
// 10^7 ratings); the ratings model alone (--lists=false, or on the ranks
// of mpirun), modelBytes (the peaks at 10^8 and 5 x 10^8 are 15.6 and 15.0
// where the values are coded in a byte; 23.5 and 21.4 at 70d3a4c, as values
// of more than 255 kinds would be).
const (
	listsBytes = 140
	modelBytes = 40
)

// ratingsBytes returns the bytes a line that solve --ratings needs, with
// the lists or without.
func ratingsBytes(lists bool) int64 {
	if lists {
		return listsBytes
	}
	return modelBytes
}

// writeRecommender writes the model, summary.json, trace.csv and, with
// test ratings, test.csv (or holdout.csv) to --out, and returns their
// names.
func writeRecommender(out string, fit *recommenderFit) ([]string, error) {
	m, sum, test, preds, trace := fit.m, fit.sum, fit.test, fit.preds, fit.trace
	unlock, err := atomicio.Lock(out)
	if err != nil {
		return nil, outputError("out", out, err)
	}
	defer unlock()
	files := recommend.ModelFiles(m)
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
			return csvfmt.WriteLines(w, test.Len(), func(dst []byte, k int) []byte {
				dst = strconv.AppendInt(dst, test.Users[k], 10)
				dst = append(dst, ',')
				dst = strconv.AppendInt(dst, test.Items[k], 10)
				dst = append(dst, ',')
				dst = csvfmt.AppendFloat(dst, test.Values[k])
				dst = append(dst, ',')
				dst = csvfmt.AppendFloat(dst, preds[k])
				return append(dst, '\n')
			})
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
	if err := m.Save(out, extra...); err != nil {
		return nil, setError(out, err)
	}
	if err := removeOthers(out, files); err != nil {
		return nil, outputError("out", out, err)
	}
	return files, nil
}

// ratingsGen are generate's flags for --problem ratings.
type ratingsGen struct {
	like                       string
	users, items, ratings      int
	skew, noise, step, holdout float64
	choice                     float64
}

func (g *ratingsGen) register(fs *flag.FlagSet) {
	fs.StringVar(&g.like, "like", "movielens", "ratings: the shape of the ratings, "+strings.Join(synth.RatingsShapes, ", ")+": MovieLens's stars\n"+
		"(the other flags' defaults), Jester's jokes (25,000 users of 100 items on a continuous scale [-10, 10],\n"+
		"1.2 million ratings) or a heavy-tailed shop's (70,000 users, 10,700 items, 10^7 half stars, Zipf popularity,\n"+
		"Student-t noise); the flags below, when given, change it")
	fs.IntVar(&g.users, "users", 950, "ratings: the number of users (MovieLens 25M: 162541, Netflix: 480189)")
	fs.IntVar(&g.items, "items", 1650, "ratings: the number of items (MovieLens 25M: 59047, Netflix: 17770)")
	fs.IntVar(&g.ratings, "ratings", 100000, "ratings: the number of ratings, at most half the pairs")
	fs.Float64Var(&g.skew, "skew", 1, "ratings: the log-normal spread of the items' popularity (the users' activity: 0.7 of it)")
	fs.Float64Var(&g.noise, "noise", 0.8, "ratings: the standard deviation of the noise")
	fs.Float64Var(&g.step, "step", 1, "ratings: the step of the scale 1 to 5 (0.5 for half stars, 0 for unrounded values)")
	fs.Float64Var(&g.holdout, "holdout", 0.2, "ratings: the fraction of the ratings written to test.csv, in [0, 1)")
	fs.Float64Var(&g.choice, "choice", 0, "ratings: how much users choose what they rate by taste (a pair kept with probability\nσ(choice·z), z its interaction over its spread), as real users do: 2 makes which items a user\nrated tell what the user likes, for top-N lists; 0 draws the pairs by popularity alone")
}

// ratingsOnly are the flags of ratingsGen, which apply to --problem
// ratings alone.
var ratingsOnly = []string{"like", "users", "items", "ratings", "skew", "noise", "step", "holdout", "choice"}

// generateRatings is generate --problem ratings: synthetic ratings that
// look like real ones (synth.EachRating; MovieLens 100k's sizes by
// default), each held out into test.csv with probability --holdout and
// the rest written to train.csv, of which each is replaced by a uniform
// random rating with probability --ps. The ratings are drawn as they are
// written, once for each file, so that 10^8 of them take no more memory
// than the set of the pairs drawn.
func generateRatings(fs *flag.FlagSet, sp *synthFlags, g *ratingsGen, out string, stdout io.Writer) error {
	cfg, err := g.config(fs, sp)
	if err != nil {
		return err
	}
	if st, err := os.Stat(out); err == nil && !st.IsDir() {
		return badFlag("out", out, "is not a directory")
	}
	if err := writableParent(out); err != nil {
		return badFlag("out", out, "cannot be written: "+err.Error())
	}
	// The set of pairs drawn, 16 to 32 bytes a rating, is the memory; one
	// for each file's pass, the first's garbage while the second fills:
	// 4.3 GB at 10^8 ratings (43 bytes a rating), with a margin.
	if err := fitsMemory(int64(cfg.Ratings)*48+int64(cfg.Users+cfg.Items)*80, fmt.Sprintf("--ratings %d", cfg.Ratings)); err != nil {
		return err
	}
	var counts [3]int // train, test, replaced
	w := ratingsWriter{cfg: cfg, holdout: g.holdout, ps: sp.ps, counts: &counts}
	files := []npyset.File{{Name: "train.csv", Write: w.file(false)}, {Name: "test.csv", Write: w.file(true)}}
	ctx, stop := interruptContext()
	defer stop()
	setPhase("drawing and writing the ratings")
	if _, err := writeGenerated(ctx, out, files); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d synthetic ratings (%d users, %d items, scale %g to %g, seed %d) to %s:\n  train.csv %d ratings (%d replaced by random ones)\n  test.csv %d ratings\n",
		cfg.Ratings, cfg.Users, cfg.Items, cfg.Min, cfg.Max, sp.seed, out, counts[0], counts[2], counts[1])
	if counts[1] == 0 { // no test ratings (--holdout 0): a --test of none would be refused
		fmt.Fprintf(stdout, "fit a recommender with\n  scaledsm solve --ratings %s\n", filepath.Join(out, "train.csv"))
		return nil
	}
	fmt.Fprintf(stdout, "fit and test a recommender with\n  scaledsm solve --ratings %s --test %s\n", filepath.Join(out, "train.csv"), filepath.Join(out, "test.csv"))
	return nil
}

// config returns the ratings' configuration: the shape of --like, changed
// by the flags given.
func (g *ratingsGen) config(fs *flag.FlagSet, sp *synthFlags) (synth.RatingsConfig, error) {
	set := setFlags(fs)
	for _, name := range []string{"n", "n2", "r", "m", "p", "kappa", "snr", "dtype", "order"} {
		if set[name] {
			return synth.RatingsConfig{}, badFlag(name, flagValue(fs, name), "does not apply to --problem ratings (give --users, --items and --ratings)")
		}
	}
	switch {
	case !(sp.ps >= 0 && sp.ps < 0.5):
		return synth.RatingsConfig{}, badFlag("ps", sp.ps, "the fraction of training ratings replaced must lie in [0, 0.5)")
	case !(g.holdout >= 0 && g.holdout < 1):
		return synth.RatingsConfig{}, badFlag("holdout", g.holdout, "must lie in [0, 1)")
	case !(g.skew > 0 && g.skew <= 4):
		return synth.RatingsConfig{}, badFlag("skew", g.skew, "must lie in (0, 4]")
	case !(g.noise > 0 && g.noise <= 10):
		return synth.RatingsConfig{}, badFlag("noise", g.noise, "must lie in (0, 10]")
	case !(g.step >= 0 && g.step <= 4):
		return synth.RatingsConfig{}, badFlag("step", g.step, "must lie in [0, 4] (0 for unrounded values)")
	case g.users > math.MaxInt32 || g.items > math.MaxInt32:
		return synth.RatingsConfig{}, badFlag("users", g.users, "users and items must be fewer than 2^31")
	}
	// The generator reads a zero as its default: a zero given is refused
	// here, not drawn at the default's size under the zero's name.
	for _, f := range []struct {
		name string
		v    int
	}{{"users", g.users}, {"items", g.items}, {"ratings", g.ratings}} {
		if set[f.name] && f.v < 1 {
			return synth.RatingsConfig{}, badFlag(f.name, f.v, "must be at least 1")
		}
	}
	cfg, err := synth.RatingsLike(g.like, sp.seed)
	if err != nil {
		return cfg, badFlag("like", g.like, fmt.Sprintf("want one of %s", strings.Join(synth.RatingsShapes, ", ")))
	}
	if g.like == "movielens" { // the flags' defaults are its shape
		cfg.Users, cfg.Items, cfg.Ratings, cfg.Skew, cfg.Noise, cfg.Step = g.users, g.items, g.ratings, g.skew, g.noise, g.step
	}
	for name, apply := range map[string]func(){"users": func() { cfg.Users = g.users }, "items": func() { cfg.Items = g.items },
		"ratings": func() { cfg.Ratings = g.ratings }, "skew": func() { cfg.Skew = g.skew }, "noise": func() { cfg.Noise = g.noise },
		"step": func() { cfg.Step = g.step }, "choice": func() { cfg.Choice = g.choice }} {
		if set[name] {
			apply()
		}
	}
	if cfg.Step == 0 {
		cfg.Step = -1
	}
	if err := cfg.Validate(); err != nil {
		var ie *scaledsm.InputError
		if errors.As(err, &ie) && slices.Contains(ratingsOnly, ie.Input) {
			return cfg, badFlag(ie.Input, flagValue(fs, ie.Input), ie.Reason)
		}
		if errors.As(err, &ie) && ie.Input == "rank" { // the shape's own rank, which no flag sets
			return cfg, badFlag("users", cfg.Users, fmt.Sprintf("with --items %d: the generator's rank-%v truth needs at least %v users and items", cfg.Items, ie.Value, ie.Value))
		}
		return cfg, err
	}
	return cfg, nil
}

// ratingsWriter writes the ratings of cfg as CSV, the training file or the
// test file: each rating is held out with probability holdout, and a
// training rating replaced by a random one with probability ps, from
// streams of the seed that both files' passes draw alike.
type ratingsWriter struct {
	cfg         synth.RatingsConfig
	holdout, ps float64
	counts      *[3]int // train, test, replaced
}

// file returns the writer of the test file or the training file.
func (rw ratingsWriter) file(test bool) func(io.Writer) error {
	return func(w io.Writer) error {
		counts := rw.counts
		*counts = [3]int{}
		split := rand.New(rand.NewPCG(rw.cfg.Seed, 0x5e1d))
		corrupt := rand.New(rand.NewPCG(rw.cfg.Seed, 0xc0))
		bw := bufio.NewWriterSize(w, 1<<20)
		buf := []byte("userId,movieId,rating\n")
		var werr error
		err := synth.EachRating(rw.cfg, func(r synth.Rating) bool {
			held := split.Float64() < rw.holdout
			if held {
				counts[1]++
			} else {
				counts[0]++
				if rw.ps > 0 && corrupt.Float64() < rw.ps {
					r.Value = randomRating(corrupt, rw.cfg)
					counts[2]++
				}
			}
			if held != test {
				return true
			}
			buf = strconv.AppendInt(buf, r.User, 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, r.Item, 10)
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, r.Value, 'g', -1, 64)
			buf = append(buf, '\n')
			if len(buf) > 1<<16 {
				_, werr = bw.Write(buf)
				buf = buf[:0]
			}
			return werr == nil
		})
		for _, f := range []func() error{func() error { return werr }, func() error { _, err := bw.Write(buf); return err }, bw.Flush} {
			if err != nil {
				break
			}
			err = f()
		}
		return err
	}
}

// randomRating returns a uniform random rating on the scale of c, on its
// steps (any value when it has none).
func randomRating(rng *rand.Rand, c synth.RatingsConfig) float64 {
	if !(c.Step > 0) {
		return c.Min + (c.Max-c.Min)*rng.Float64()
	}
	levels := int(math.Floor((c.Max-c.Min)/c.Step+1e-9)) + 1
	return c.Min + c.Step*float64(rng.IntN(levels))
}
