package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/recommend"
)

// foldFlags are the flags of new ratings to fold into a model before it
// is used (predict, recommend) or saved again (update).
type foldFlags struct {
	ratings, interactions, columns string
	fs                             *flag.FlagSet
}

func (f *foldFlags) register(fs *flag.FlagSet, before string) {
	f.fs = fs
	fs.StringVar(&f.ratings, "ratings", "", "new ratings (user,item,rating lines, the readers of solve --ratings) to fold into the model\n"+before+
		": each of their users' rows recomputed against the fixed items, a known user's\nnew ratings added to those the model holds (a pair it holds replaced), new items' rows from the users'")
	fs.StringVar(&f.interactions, "interactions", "", "new interactions (user,item[,weight]) to fold into a model of implicit feedback "+before)
	fs.StringVar(&f.columns, "columns", "", "with --ratings or --interactions: the user, item and rating (or weight) columns, by header\nname or number from 1")
}

// given reports whether new ratings are given.
func (f *foldFlags) given() bool { return f.ratings != "" || f.interactions != "" }

// inputs returns the new ratings' file as an input that no output may
// overwrite.
func (f *foldFlags) inputs() []input {
	if f.ratings != "" {
		return []input{{"ratings", f.ratings}}
	}
	if f.interactions != "" {
		return []input{{"interactions", f.interactions}}
	}
	return nil
}

// check checks the flags before anything is read.
func (f *foldFlags) check() error {
	if f.ratings != "" && f.interactions != "" {
		return badFlag("interactions", f.interactions, "give either --ratings or --interactions, not both")
	}
	if f.columns != "" && !f.given() {
		return badFlag("columns", f.columns, "applies to --ratings or --interactions")
	}
	for _, in := range f.inputs() {
		if _, err := os.Stat(in.path); err != nil {
			return exitError{fmt.Errorf("--%s %s: cannot read: %v", in.flag, in.path, unwrapPath(err)), exitBadInput}
		}
	}
	return nil
}

// apply folds the new ratings into m (as it is without them), and returns
// the model and what was folded in.
func (f *foldFlags) apply(m *recommend.Model, factors string) (*recommend.Model, *recommend.FoldReport, error) {
	if !f.given() {
		return m, nil, nil
	}
	implicit := m.Info.Method == recommend.MethodImplicit
	flagName, path := "ratings", f.ratings
	if f.interactions != "" {
		flagName, path = "interactions", f.interactions
	}
	switch {
	case implicit && f.ratings != "":
		return nil, nil, badFlag("ratings", f.ratings, "the model is of implicit feedback (solve --interactions): give --interactions")
	case !implicit && f.interactions != "":
		return nil, nil, badFlag("interactions", f.interactions, "the model is of ratings (solve --ratings): give --ratings")
	}
	var layout dataio.Layout
	if f.columns != "" {
		var err error
		if layout, err = parseColumns(f.columns, implicit); err != nil {
			return nil, nil, err
		}
	}
	read := dataio.ReadRatings32
	if implicit {
		read = dataio.ReadInteractions
	}
	rt, err := readRatingsAs(flagName, path, layout, read)
	if err != nil {
		return nil, nil, err
	}
	if implicit { // the weights as the fit weighed them (solve --weight)
		weigh(rt.Values, cmp.Or(m.Info.Weight, weightOne))
	}
	r := recommend.ByID(rt, false)
	ctx, stop := interruptContext()
	defer stop()
	out, rep, err := m.FoldIn(ctx, r, 0)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, exitError{errors.New("interrupted while folding in; nothing written"), exitInterrupted}
		}
		var ie *recommend.InputError
		if errors.As(err, &ie) {
			if ie.Input == "model" {
				return nil, nil, exitError{fmt.Errorf("--factors %s: %s", factors, ie.Reason), exitBadInput}
			}
			return nil, nil, exitError{fmt.Errorf("--%s %s: %s", flagName, path, ie.Reason), exitBadInput}
		}
		return nil, nil, err
	}
	return out, &rep, nil
}

// loadModel reads the recommender's model of --factors dir, its errors
// naming the file at fault.
func loadModel(dir string) (*recommend.Model, error) {
	m, err := recommend.Load(dir)
	var ie *recommend.InputError
	if errors.As(err, &ie) {
		return nil, exitError{fmt.Errorf("--factors %s: %s", ie.Input, ie.Reason), exitBadInput}
	}
	if err != nil {
		return nil, exitError{fmt.Errorf("--factors %s: %v", dir, err), exitBadInput}
	}
	return m, nil
}

// parseColumns parses --columns: three for ratings, two or three for
// interactions.
func parseColumns(s string, implicit bool) (dataio.Layout, error) {
	if implicit {
		cols := splitNonEmpty(s)
		if len(cols) < 2 || len(cols) > 3 {
			return dataio.Layout{}, badFlag("columns", s, "want two or three columns, user,item[,weight]")
		}
		return dataio.Layout{Columns: cols}, nil
	}
	l, err := dataio.ParseLayout(s)
	if err != nil {
		return l, badFlag("columns", s, err.Error())
	}
	return l, nil
}

// splitNonEmpty splits s at commas, nil if a part is empty.
func splitNonEmpty(s string) []string {
	var out []string
	start := 0
	for k := 0; k <= len(s); k++ {
		if k == len(s) || s[k] == ',' {
			if k == start {
				return nil
			}
			out = append(out, s[start:k])
			start = k + 1
		}
	}
	return out
}

// describe words a fold-in for the user.
func describe(rep *recommend.FoldReport) string {
	if rep == nil {
		return ""
	}
	s := fmt.Sprintf("folded in %d ratings: %d new users, %d known users' rows recomputed, %d new items", rep.Ratings, rep.NewUsers, rep.KnownUsers, rep.NewItems)
	if rep.Replaced > 0 {
		s += fmt.Sprintf(", %d replacing ratings the model held", rep.Replaced)
	}
	if rep.Unfitted > 0 {
		s += fmt.Sprintf("; %d ratings of new items by users with no known item: held, no row fitted", rep.Unfitted)
	}
	return s
}

const updateSynopsis = `Folds new ratings (or interactions) into the model that "scaledsm solve --ratings" (or
--interactions) wrote and writes the updated model to a new directory, without a refit:
each user of the new ratings gets its rows recomputed against the fixed items, as the
model itself would have them (the ratings model's posterior given the items' rows,
the prior and the noise the fit learned; the lists' ridge regression), a known user's
new ratings added to those the model holds (a rating of a pair it holds replacing the
old one), and each new item its rows from the users'. The model given is not changed.
A rating outside the model's scale is refused: ratings on another scale are a
different model's.`

// runUpdate runs "scaledsm update".
func runUpdate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("update", updateSynopsis, stdout)
	factors := fs.String("factors", "", "the model's directory (model.json, ...)")
	out := fs.String("out", "", "the directory of the updated model (not the one of --factors)")
	var f foldFlags
	f.register(fs, "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, g := range [][2]string{{"factors", *factors}, {"out", *out}} {
		if g[1] == "" {
			return usageError{"--" + g[0] + ": missing"}
		}
	}
	if !f.given() {
		return usageError{"--ratings or --interactions: missing: give the new ratings"}
	}
	if err := f.check(); err != nil {
		return err
	}
	if !recommend.IsModel(*factors) {
		return badFlag("factors", *factors, "holds no model.json: give the --out directory of \"scaledsm solve --ratings\" or \"--interactions\"")
	}
	if a, b := filepath.Clean(*out), filepath.Clean(*factors); a == b {
		return badFlag("out", *out, "is the directory of --factors: the model given stays as it was; give a new directory")
	}
	if st, err := os.Stat(*out); err == nil && !st.IsDir() {
		return badFlag("out", *out, "is not a directory")
	}
	if err := writableParent(*out); err != nil {
		return badFlag("out", *out, "cannot be created: "+err.Error())
	}
	if err := refuseOverwrite("out", *out, within(*out, recommendOutputs), f.inputs()...); err != nil {
		return err
	}
	begin := time.Now()
	m, err := loadModel(*factors)
	if err != nil {
		return err
	}
	m2, rep, err := f.apply(m, *factors)
	if err != nil {
		return err
	}
	setPhase(writingPhase)
	unlock, err := atomicio.Lock(*out)
	if err != nil {
		return outputError("out", *out, err)
	}
	defer unlock()
	if err := m2.Save(*out); err != nil {
		return setError(*out, err)
	}
	if err := removeOthers(*out, recommend.ModelFiles(m2)); err != nil {
		return outputError("out", *out, err)
	}
	fmt.Fprintf(stdout, "%s; wrote the model of %d users and %d items to %s in %.3g s\n", describe(rep), len(m2.Users), len(m2.Items), *out, time.Since(begin).Seconds())
	return nil
}
