package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/experiment"
	"github.com/scaledsm/scaledsm/internal/mem"
)

// figureFlags are the flags of "figure" and "reproduce".
type figureFlags struct {
	out  string
	seed uint64
	n, r int // 0: the paper's
	fs   *flag.FlagSet
}

func (f *figureFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.out, "out", "", "directory to write the CSVs, the panels (PNG and SVG) and index.html to (required; created if missing)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of every random draw")
	fs.IntVar(&f.n, "n", 0, "run at this n instead of the paper's 100, for a quick look (m stays 8nr)")
	fs.IntVar(&f.r, "r", 0, "run at this rank instead of the paper's (10 for sensing, 5 for quadratic sampling)")
}

// check validates the flags for the figures and makes sure the output
// directory can be written, before any work starts.
func (f *figureFlags) check(figs []*experiment.Figure) error {
	switch {
	case f.out == "":
		return usageError{"--out is required: the directory to write the figures and index.html to"}
	case f.n < 0 || f.n == 0 && setFlags(f.fs)["n"]: // 0 given is not the paper's size
		return badFlag("n", f.n, "must be positive (leave it out for the paper's size)")
	case f.r < 0 || f.r == 0 && setFlags(f.fs)["r"]:
		return badFlag("r", f.r, "must be positive (leave it out for the paper's rank)")
	}
	for _, fig := range figs {
		n, r := fig.Problem.N1, fig.Problem.Rank
		if f.n > 0 {
			n = f.n
		}
		switch {
		case f.r > 0 && f.r > n:
			return badFlag("r", f.r, fmt.Sprintf("rank must lie in [1, n] = [1, %d]", n))
		case f.r == 0 && r > n:
			return badFlag("n", f.n, fmt.Sprintf("figure %d's rank %d needs n ≥ %d (or a smaller --r)", fig.Number, r, r))
		}
		if _, err := fig.Config(experiment.Options{Seed: f.seed, N: f.n, Rank: f.r}); err != nil {
			var ie *scaledsm.InputError
			if errors.As(err, &ie) && (ie.Input == "n" || ie.Input == "rank") {
				// The figures draw m themselves: there is no --m to give.
				reason := strings.TrimSuffix(ie.Reason, ", or m")
				if ie.Input == "n" {
					return badFlag("n", f.n, reason)
				}
				return badFlag("r", f.r, reason)
			}
			return usageError{err.Error()}
		}
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return badFlag("out", f.out, unwrapPath(err).Error())
	}
	if err := probe(f.out); err != nil {
		return badFlag("out", f.out, "cannot write there: "+unwrapPath(err).Error())
	}
	return nil
}

// figureSynopsis is the help of figure (what = "figure N (1 to 6)", whose =
// "the figure") and of reproduce.
func figureSynopsis(what, whose string) string {
	return fmt.Sprintf(`Reproduces %s of the paper's Section 4: runs every curve of
%s on one synthetic draw, then writes to --out
  figureN.csv     one row per curve and iteration (tidy CSV)
  figureN.json    the sizes, the seed, and the run time and machine
  figureNa.png    each panel, also as .svg
  index.html      the report of every figure in --out, with the paper's
                  claims checked
and prints the claims table. On two cores at the paper's size, Figures 2,
4 and 6 (quadratic sampling) take seconds, Figures 1 and 3 (matrix sensing)
about a minute each and Figure 5 about nine: --n 40 gives a quick look.`, what, whose)
}

func runFigure(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("figure N", figureSynopsis(fmt.Sprintf("figure N (1 to %d)", len(experiment.Figures())), "the figure"), stdout)
	var ff figureFlags
	ff.register(fs)
	// The figure number comes first ("figure 3 --out DIR") or last.
	var num string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		num, args = args[0], args[1:]
	} else if k := len(args) - 1; k >= 0 && !strings.HasPrefix(args[k], "-") && (k == 0 || !takesValue(fs, args[k-1])) {
		num, args = args[k], args[:k]
	}
	if err := parseFlags(fs, args); err != nil {
		if num == "" && strings.HasPrefix(err.Error(), "unexpected argument") { // the number among the flags
			return usageError{fmt.Sprintf("unexpected argument %q: the figure number goes first or last (scaledsm figure N --out DIR)", fs.Arg(0))}
		}
		return err
	}
	count := len(experiment.Figures())
	if num == "" {
		return usageError{fmt.Sprintf("missing the figure number (usage: scaledsm figure N --out DIR, N from 1 to %d)", count)}
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return usageError{fmt.Sprintf("figure %q: the paper's figures are 1 to %d", num, count)}
	}
	fig, err := experiment.Lookup(n)
	if err != nil {
		return usageError{err.Error()}
	}
	figs := []*experiment.Figure{fig}
	if err := ff.check(figs); err != nil {
		return err
	}
	return reproduce(ff, figs, stdout, stderr)
}

// takesValue reports whether arg is a flag of fs that takes a value
// (--name without "="), so that the argument after it is its value.
func takesValue(fs *flag.FlagSet, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	if strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

func runReproduce(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("reproduce", figureSynopsis("every figure", "each figure")+"\nThen, unless --n or --r is given, the studies beyond the paper of\n\"scaledsm completion\" (matrix completion, robust PCA, a photograph) and\n\"scaledsm overspec\" (an over-specified rank).", stdout)
	var ff figureFlags
	ff.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	figs := experiment.Figures()
	if err := ff.check(figs); err != nil {
		return err
	}
	if err := reproduce(ff, figs, stdout, stderr); err != nil {
		return err
	}
	// The studies beyond the paper run at their own sizes.
	if ff.n != 0 || ff.r != 0 {
		fmt.Fprintln(stdout, "the completion, image and over-specified rank studies (beyond the paper) run at their own sizes: left out with --n or --r (scaledsm completion --out DIR and scaledsm overspec --out DIR run them)")
		return nil
	}
	ctx, stop := interruptContext()
	defer stop()
	if err := studies(ctx, ff.out, studyConfig{experiment.DefaultCompletion(), experiment.DefaultImage()}, stdout, stderr); err != nil {
		return err
	}
	if err := overSpecStudy(ctx, ff.out, ff.seed, stdout); err != nil {
		return err
	}
	return writeReport(ff.out, stdout, stderr)
}

// reproduce runs the figures one after the other, writing each one's files
// and the report as soon as it is done.
func reproduce(ff figureFlags, figs []*experiment.Figure, stdout, stderr io.Writer) error {
	ctx, stop := interruptContext()
	defer stop()
	opts := experiment.Options{Seed: ff.seed, N: ff.n, Rank: ff.r}
	for _, fig := range figs {
		if cfg, err := fig.Config(opts); err == nil {
			mem.TuneGC(cfg.Bytes()) // a sweep's garbage would grow the heap towards twice the data
		}
		bar := newProgressBar(stderr, fmt.Sprintf("figure %d", fig.Number))
		opts.Progress = bar.update
		res, err := experiment.RunFigure(ctx, fig, opts)
		bar.done()
		if ctx.Err() != nil {
			return exitError{fmt.Errorf("interrupted during figure %d; its files were not written", fig.Number), exitInterrupted}
		}
		if err != nil {
			return err
		}
		written, err := writeFigure(ff.out, res)
		if err != nil {
			return err
		}
		printFigure(stdout, res, written)
		if err := writeReport(ff.out, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", `Rebuilds the panels (PNG and SVG) and index.html of every figure recorded in
--out (figureN.json and figureN.csv, as "figure" and "reproduce" write them),
and of the studies beyond the paper (completion.json, image.json and its PNGs,
as "completion" writes them; overspec.json, as "overspec" writes it), without running anything: after figures were
run separately or elsewhere.`, stdout)
	out := fs.String("out", "", "directory holding the figures' CSVs and records (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{"--out is required: the directory holding figureN.csv and figureN.json"}
	}
	if st, err := os.Stat(*out); err != nil || !st.IsDir() {
		return badFlag("out", *out, "not a directory")
	}
	results, errs := experiment.LoadDir(*out)
	st, serrs := experiment.LoadStudies(*out)
	left := append(errs, serrs...)
	if len(results) == 0 && st.Completion == nil && st.Image == nil && st.OverSpec == nil {
		if len(left) > 0 { // one line: what was there could not be read
			return exitError{fmt.Errorf("--out %s: holds no figure that can be read: %v", *out, left[0]), exitBadInput}
		}
		return exitError{fmt.Errorf("--out %s: holds no figure (figureN.json and figureN.csv, as \"scaledsm figure\" and \"reproduce\" write them)", *out), exitBadInput}
	}
	for _, res := range results {
		written, err := experiment.WritePanels(*out, res)
		if err != nil {
			return fileSetError(*out, err)
		}
		printFigure(stdout, res, written)
	}
	if c := st.Completion; c != nil {
		if _, err := experiment.WriteCompletionPanels(*out, c); err != nil {
			return fileSetError(*out, err)
		}
	}
	return writeReport(*out, stdout, stderr)
}

// writeFigure writes a figure's files (experiment.WriteFigure) and
// returns the names written.
func writeFigure(dir string, res *experiment.Result) ([]string, error) {
	names, err := experiment.WriteFigure(dir, res)
	return names, fileSetError(dir, err)
}

// fileSetError returns the error of a file of a set written into dir, as
// an output error of --out that names the file.
func fileSetError(dir string, err error) error {
	var fe *atomicio.FileError
	if errors.As(err, &fe) {
		return outputError("out", dir, fmt.Errorf("%s: %w", fe.Name, unwrapPath(fe.Err)))
	}
	return err
}

// printFigure prints what a figure run did and its claims table.
func printFigure(w io.Writer, res *experiment.Result, written []string) {
	c := res.Config
	fmt.Fprintf(w, "figure %d: %s, n=%d, r=%d, m=%d, seed %d: %d runs, %d iterations in %s\n",
		res.Figure.Number, c.Kind.Model(),
		c.N1, c.Rank, c.M, c.Seed, res.Runs, res.Iterations, res.Elapsed.Round(100*time.Millisecond))
	fmt.Fprintf(w, "  wrote %s\n", strings.Join(written, " "))
	holds := 0
	vs := experiment.Check(res)
	for _, v := range vs {
		mark := "FAILS"
		if v.Holds {
			mark = "holds"
			holds++
		}
		line := fmt.Sprintf("  (%s) %s  %s: %s", v.Panel, mark, v.Claim, v.Measured)
		if !v.Holds {
			line += "; expected " + v.Expected
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "  %d of %d claims hold\n", holds, len(vs))
	if p := res.Figure.Problem; holds < len(vs) && (c.N1 != p.N1 || c.Rank != p.Rank) {
		fmt.Fprintf(w, "  (the claims are the paper's, at its n=%d, r=%d: a problem of another size may not show them)\n", p.N1, p.Rank)
	}
}

// writeReport rewrites index.html from every figure recorded in dir,
// and says on stderr which it left out.
func writeReport(dir string, stdout, stderr io.Writer) error {
	results, errs := experiment.LoadDir(dir)
	st, serrs := experiment.LoadStudies(dir)
	for _, err := range append(errs, serrs...) {
		fmt.Fprintf(stderr, "scaledsm: left out of the report: %v\n", err)
	}
	var buf bytes.Buffer
	if err := experiment.WriteReportWith(&buf, results, st); err != nil {
		return err
	}
	path := filepath.Join(dir, "index.html")
	if err := atomicio.WriteFile(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return outputError("out", dir, fmt.Errorf("index.html: %w", unwrapPath(err)))
	}
	var nums []string
	for _, r := range results {
		nums = append(nums, strconv.Itoa(r.Figure.Number))
	}
	var parts []string
	if len(nums) > 0 {
		parts = append(parts, "figures "+strings.Join(nums, ", "))
	}
	if st.Completion != nil {
		parts = append(parts, "the completion study")
	}
	if st.Image != nil {
		parts = append(parts, "the image study")
	}
	if st.OverSpec != nil {
		parts = append(parts, "the over-specified rank study")
	}
	if st.Phase != nil {
		parts = append(parts, "the phase study")
	}
	fmt.Fprintf(stdout, "report %s (%s)\n", path, strings.Join(parts, "; "))
	return nil
}
