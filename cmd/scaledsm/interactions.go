package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/csvfmt"
	"github.com/scaledsm/scaledsm/recommend"
	"github.com/scaledsm/scaledsm/report"
)

// interactionsAllowed are the flags of solve --interactions.
var interactionsAllowed = []string{"interactions", "columns", "weight", "seed", "out", "json", "test", "holdout", "kernel"}

// runInteractions is solve with --interactions: implicit feedback read,
// the lists fitted alone (recommend.FitInteractions), scored on the
// interactions held out or given, the model written and summarized.
func runInteractions(c *solveCmd) error {
	rf, ef := &c.rf, &c.ef
	layout, err := c.interactionsChecks()
	if err != nil {
		return err
	}
	ctx, stop := interruptContext()
	defer stop()
	begin := time.Now()
	setPhase("reading the interactions")
	rt, err := readRatingsAs("interactions", rf.interactions, layout, dataio.ReadInteractions)
	if err != nil {
		return err
	}
	x := recommend.Compact(rt)
	weigh(x.Values, rf.weight)
	var test recommend.Ratings
	if ef.holdout > 0 {
		if x, test, err = x.Split(ef.holdout, c.sp.seed); err != nil {
			return err
		}
	}
	if rf.test != "" {
		tr, err := readRatingsAs("test", rf.test, layout, dataio.ReadInteractions)
		if err != nil {
			return err
		}
		test = recommend.ByID(tr, true)
	}
	setPhase("fitting")
	bar := newProgressBar(c.stderr, "fitting")
	if !c.of.json {
		bar.show("fitting the lists, %d interactions", x.Len())
	}
	m, err := recommend.FitInteractions(ctx, x, recommend.Settings{Seed: c.sp.seed})
	bar.done()
	if m != nil {
		m.Info.Weight = rf.weight
	}
	if err != nil {
		if ctx.Err() != nil {
			return exitError{errors.New("interrupted while fitting; nothing written"), exitInterrupted}
		}
		var dup *recommend.DuplicateError
		if errors.As(err, &dup) {
			where := fmt.Sprintf("user %d and item %d appear twice", dup.User, dup.Item)
			if ef.holdout == 0 { // the indices are the file's order
				l := layout
				l.Weights = true // as ReadInteractions reads the file
				if lines, lerr := dataio.RecordLines(rf.interactions, l, dup.First, dup.Second); lerr == nil {
					where = fmt.Sprintf("lines %d and %d both hold user %d, item %d", lines[0], lines[1], dup.User, dup.Item)
				}
			}
			return exitError{fmt.Errorf("--interactions %s: %s: each pair may appear once (add repeated interactions into one line's weight)", rf.interactions, where), exitBadInput}
		}
		var ie *recommend.InputError
		if errors.As(err, &ie) {
			return exitError{fmt.Errorf("--interactions %s: %s", rf.interactions, ie.Reason), exitBadInput}
		}
		return err
	}
	sum := report.NewRecommender(recommend.MethodImplicit, rf.interactions, x.Len(), m)
	sum.Problem, sum.Lists, sum.Weight = "interactions", report.NewLists(m), rf.weight
	if test.Len() > 0 {
		sum.TestFile = rf.test
		if ef.holdout > 0 {
			sum.Holdout = &ef.holdout
		}
		if sum.TestLists, err = report.EvaluateLists(ctx, m, test, math.Inf(-1)); err != nil {
			return err
		}
	}
	sum.Seconds = time.Since(begin).Seconds()
	if c.of.out != "" {
		setPhase(writingPhase)
		var held recommend.Ratings // --holdout's interactions, to holdout.csv
		if ef.holdout > 0 {
			held = test
		}
		if err := writeModel(c.of.out, m, sum, held); err != nil {
			return err
		}
	}
	if c.of.json {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	sum.Print(c.stdout, c.of.out)
	return nil
}

// interactionsChecks checks solve --interactions' flags, outputs and
// memory before the work starts, and returns the file's layout.
func (c *solveCmd) interactionsChecks() (dataio.Layout, error) {
	rf, ef := &c.rf, &c.ef
	var layout dataio.Layout
	set := setFlags(c.fs)
	var names []string
	for name := range set {
		if !slices.Contains(interactionsAllowed, name) {
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		slices.Sort(names)
		return layout, badFlag(names[0], flagValue(c.fs, names[0]), "does not apply to --interactions (the lists of implicit feedback)")
	}
	switch rf.weight {
	case weightOne, weightLog, weightRaw:
	default:
		return layout, badFlag("weight", rf.weight, "want one, log or raw")
	}
	if !(ef.holdout >= 0 && ef.holdout < 1) {
		return layout, badFlag("holdout", ef.holdout, "must lie in [0, 1)")
	}
	if ef.holdout > 0 && rf.test != "" {
		return layout, badFlag("holdout", ef.holdout, "give either --holdout or --test, not both")
	}
	if world != nil {
		return layout, badFlag("interactions", rf.interactions, "is fitted by one process, not on the ranks of mpirun")
	}
	if rf.columns != "" {
		cols := strings.Split(rf.columns, ",")
		if len(cols) < 2 || len(cols) > 3 || slices.Contains(cols, "") {
			return layout, badFlag("columns", rf.columns, "want two or three columns, user,item[,weight] (names or numbers from 1)")
		}
		layout.Columns = cols
		if len(cols) == 2 && rf.weight != weightOne { // no weight to take the log of
			return layout, badFlag("weight", rf.weight, "needs a weight column: --columns "+rf.columns+" names none")
		}
	}
	if err := c.of.check(); err != nil {
		return layout, err
	}
	if c.of.out != "" {
		if err := refuseOverwrite("out", c.of.out, within(c.of.out, solveOutputs()), input{"interactions", rf.interactions}, input{"test", rf.test}); err != nil {
			return layout, err
		}
	}
	return layout, checkRatingsMemory(rf.interactions, listsBytes, 0)
}

// weigh sets the weights read to those of --weight.
func weigh(w []float32, how string) {
	for k, v := range w {
		switch how {
		case weightOne:
			w[k] = 1
		case weightLog:
			w[k] = float32(1 + math.Log1p(float64(v)))
		}
	}
}

// writeModel writes a model and its summary.json to out.
func writeModel(out string, m *recommend.Model, sum *report.Recommender, held recommend.Ratings) error {
	unlock, err := atomicio.Lock(out)
	if err != nil {
		return outputError("out", out, err)
	}
	defer unlock()
	files := recommend.ModelFiles(m)
	var extra []recommend.File
	if held.Len() > 0 {
		// The pairs alone: the lists' evaluation counts every held-out
		// interaction, whatever its weight, and the file is a --test.
		extra = append(extra, recommend.File{Name: "holdout.csv", Write: func(w io.Writer) error {
			if _, err := io.WriteString(w, "user,item\n"); err != nil {
				return err
			}
			return csvfmt.WriteLines(w, held.Len(), func(dst []byte, k int) []byte {
				dst = strconv.AppendInt(dst, held.Users[k], 10)
				dst = append(dst, ',')
				dst = strconv.AppendInt(dst, held.Items[k], 10)
				return append(dst, '\n')
			})
		}})
		files = append(files, "holdout.csv")
	}
	files = append(files, "summary.json")
	sum.Files = files
	extra = append(extra, recommend.File{Name: "summary.json", Write: func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}})
	if err := m.Save(out, extra...); err != nil {
		return setError(out, err)
	}
	if err := removeOthers(out, files); err != nil {
		return outputError("out", out, err)
	}
	return nil
}
