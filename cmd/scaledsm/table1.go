package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/experiment"
)

func runTable1(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("table1", "Measures Table 1 of the paper: iterations to a relative error of 1e-8 of GD,\nScaledGD, VanillaSM and ScaledSM on matrix sensing and quadratic sampling,\nwithout and with 20% outliers, at kappa = 1, 3, 10, 30, 100, with the fitted\nexponent of kappa beside the paper's entry, and ScaledSM against p_s. Writes\ntable1.csv, table1_steps.csv (the constant steps tried), table1.md, table1.png\nand table1.svg to --out, and prints the table. A few minutes at the default size.", stdout)
	out := fs.String("out", "", "directory to write the results to (required; created if missing)")
	def := experiment.DefaultTable1()
	n := fs.Int("n", def.N, "size n of the n×n matrices X*")
	r := fs.Int("r", def.Rank, "rank r")
	iters := fs.Int("iters", def.MaxIter, "iteration limit of each run")
	seed := fs.Uint64("seed", def.Seed, "seed of every random draw")
	quick := fs.Bool("quick", false, "a small version in seconds (n=12, r=2, kappa = 1, 3, 10), to try the pipeline")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := setFlags(fs)
	if *out == "" {
		return usageError{"--out is required: the directory to write the results to"}
	}
	cfg := def
	if *quick {
		cfg = experiment.QuickTable1()
	}
	if set["n"] || !*quick {
		cfg.N = *n
	}
	if set["r"] || !*quick {
		cfg.Rank = *r
	}
	if set["iters"] || !*quick {
		cfg.MaxIter = *iters
	}
	cfg.Seed = *seed
	switch {
	case cfg.N < 1:
		return badFlag("n", cfg.N, "must be at least 1")
	case cfg.Rank < 1 || cfg.Rank > cfg.N:
		return badFlag("r", cfg.Rank, fmt.Sprintf("rank must lie in [1, n] = [1, %d]", cfg.N))
	case cfg.MaxIter < 1:
		return badFlag("iters", cfg.MaxIter, "must be positive")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return badFlag("out", *out, unwrapPath(err).Error())
	}
	if err := probe(*out); err != nil {
		return badFlag("out", *out, "cannot write there: "+unwrapPath(err).Error())
	}

	total := 2 * (2*len(cfg.Kappas)*len(experiment.Table1Methods) + len(cfg.Sweep))
	start := time.Now()
	if isTerminal(stderr) {
		cfg.Progress = func(done int, what string) {
			fmt.Fprintf(stderr, "\r\033[K[%d/%d %.0fs] %s", done, total, time.Since(start).Seconds(), what)
		}
	}
	ctx, stop := interruptContext()
	defer stop()
	res, err := experiment.RunTable1(ctx, cfg)
	if cfg.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		if ctx.Err() != nil {
			return exitError{fmt.Errorf("interrupted; nothing written"), 130}
		}
		return err
	}
	if err := res.WriteFiles(*out); err != nil {
		var fe *atomicio.FileError
		if errors.As(err, &fe) {
			return fmt.Errorf("writing %s: %w", fe.Name, fe.Err)
		}
		return err
	}
	if err := res.WriteMarkdown(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nWrote table1.csv, table1_steps.csv, table1.md, table1.png and table1.svg to %s in %.0f s.\n", *out, time.Since(start).Seconds())
	return nil
}

// isTerminal reports whether w is a terminal, for progress reports.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
