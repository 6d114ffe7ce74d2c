package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/recommend"
)

const recommendSynopsis = `Lists the best items for users from the model that "scaledsm solve --ratings FILE
--out DIR" or "scaledsm solve --interactions FILE --out DIR" wrote: for every user of
the training data (or those of --users), the --top items they did not interact with in
training, best first, as user,item,rank,score lines (a header, rank from 1, ties to
the smaller item id). The scores are made a block of users at a time by matrix
products on every core, the lists written as they are made.`

// listFlags are recommend's flags.
type listFlags struct {
	factors, users, out, cold string
	top                       int
	includeSeen               bool
}

// runRecommendLists runs "scaledsm recommend".
func runRecommendLists(args []string, stdout, stderr io.Writer) error {
	var f listFlags
	fs := newFlagSet("recommend", recommendSynopsis, stdout)
	fs.StringVar(&f.factors, "factors", "", "the model's directory (model.json, lists_P.npy, ...)")
	fs.IntVar(&f.top, "top", 10, "the items in a list")
	fs.StringVar(&f.users, "users", "", "a file of the users to list, one id a line (the first field; a header line is skipped);\nby default every user of the training data")
	fs.BoolVar(&f.includeSeen, "include-seen", false, "list the users' training items too")
	fs.StringVar(&f.cold, "cold", "none", "a user of --users the model has not seen, or one whose items it cannot place: none\n(no list) or popular (the items with the most training interactions, the user's own left out)")
	fs.StringVar(&f.out, "out", "", "the lists, a CSV file")
	var fold foldFlags
	fold.register(fs, "first")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o, err := f.check(fold.inputs()...)
	if err != nil {
		return err
	}
	if err := fold.check(); err != nil {
		return err
	}
	m, err := loadModel(f.factors)
	if err != nil {
		return err
	}
	m, folded, err := fold.apply(m, f.factors)
	if err != nil {
		return err
	}
	if folded != nil {
		fmt.Fprintf(stdout, "%s\n", describe(folded))
	}
	if m.Lists == nil {
		return exitError{fmt.Errorf("--factors %s: the model has no lists (fitted with --lists=false, on MPI ranks, or by an earlier version): fit it again", f.factors), exitBadInput}
	}
	if f.top > len(m.Items) {
		return badFlag("top", f.top, fmt.Sprintf("the model has %d items", len(m.Items)))
	}
	var users []int64
	unknown := 0
	if f.users != "" {
		if users, err = dataio.ReadIDs("users", f.users); err != nil {
			return fileError(err)
		}
		for _, id := range users {
			if _, ok := m.Users.Index(id); !ok {
				unknown++
			}
		}
	}
	ctx, stop := interruptContext()
	defer stop()
	begin := time.Now()
	total := len(m.Users)
	if users != nil {
		total = len(users)
	}
	bar := newProgressBar(stderr, "recommend")
	lists, rows, blank := 0, 0, 0
	err = atomicio.WriteFile(f.out, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		buf := []byte("user,item,rank,score\n")
		err := m.Recommend(ctx, users, o, func(l recommend.List) error {
			if l.Blank {
				blank++
			}
			for k, item := range l.Items {
				buf = strconv.AppendInt(buf, l.User, 10)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, item, 10)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, int64(k+1), 10)
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, l.Scores[k], 'g', 7, 64)
				buf = append(buf, '\n')
				rows++
			}
			lists++
			if len(buf) > 1<<16 {
				if _, err := bw.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
			if lists%4096 == 0 {
				bar.show("%d of %d users listed, %s", lists, total, time.Since(begin).Round(time.Second))
			}
			return nil
		})
		if err != nil {
			return err
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
		return bw.Flush()
	})
	bar.done()
	if err != nil {
		if ctx.Err() != nil {
			return exitError{errors.New("interrupted; nothing written"), exitInterrupted}
		}
		var ie *recommend.InputError
		if errors.As(err, &ie) {
			return exitError{fmt.Errorf("--factors %s: %v", f.factors, err), exitBadInput}
		}
		return outputError("out", f.out, err)
	}
	fmt.Fprintf(stdout, "wrote the top %d items of %d users to %s (%d rows) in %.3g s", f.top, lists, f.out, rows, time.Since(begin).Seconds())
	what := "no list"
	if o.Cold == recommend.ColdPopular {
		what = "the most popular items"
	}
	if unknown > 0 {
		fmt.Fprintf(stdout, "; %d of the %d users of %s are not in the model: %s for them", unknown, len(users), f.users, what)
	}
	if blank > 0 {
		fmt.Fprintf(stdout, "; %s whose items the model cannot place (new to it, with no rater it knows): %s", count(blank, "user"), what)
	}
	fmt.Fprintln(stdout)
	return nil
}

// check checks recommend's flags before anything is read, and returns the
// lists' options.
func (f *listFlags) check(more ...input) (recommend.ListOptions, error) {
	o := recommend.ListOptions{N: f.top, IncludeSeen: f.includeSeen}
	for _, g := range [][2]string{{"factors", f.factors}, {"out", f.out}} {
		if g[1] == "" {
			return o, usageError{"--" + g[0] + ": missing"}
		}
	}
	switch f.cold {
	case "none":
	case "popular":
		o.Cold = recommend.ColdPopular
	default:
		return o, badFlag("cold", f.cold, "want none or popular")
	}
	if f.top < 1 {
		return o, badFlag("top", f.top, "must be at least 1")
	}
	if !recommend.IsModel(f.factors) {
		return o, badFlag("factors", f.factors, "holds no model.json: give the --out directory of \"scaledsm solve --ratings\" or \"--interactions\"")
	}
	if ext := strings.ToLower(filepath.Ext(f.out)); ext != ".csv" {
		return o, badFlag("out", f.out, "want a .csv file")
	}
	if st, err := os.Stat(f.out); err == nil && st.IsDir() {
		return o, badFlag("out", f.out, "is a directory")
	}
	if err := writableParent(f.out); err != nil {
		return o, badFlag("out", f.out, "cannot be written: "+err.Error())
	}
	inputs := append([]input{{"factors", filepath.Join(f.factors, recommend.ModelFile)}}, more...)
	if f.users != "" {
		inputs = append(inputs, input{"users", f.users})
	}
	return o, refuseOverwrite("out", f.out, []string{f.out}, inputs...)
}
