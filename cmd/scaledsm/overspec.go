package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/experiment"
)

func runOverSpec(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("overspec", "Measures the over-specified rank study, beyond the paper: damped and undamped\nScaledSM, damped ScaledSM from a small random start, and VanillaSM, fitting 1, 2\nand 4 times the true rank on matrix sensing (n=30, r=2) and quadratic sampling\n(n=40, r=2) at kappa = 1 and 100 with 10% outliers, and checks its claims.\nPrints the table (Markdown) and, with --out, writes it to DIR/overspec.md,\nthe study to DIR/overspec.json and the report DIR/index.html.\nA minute or two.", stdout)
	out := fs.String("out", "", "directory to write overspec.md, overspec.json and index.html to (created if missing)")
	seed := fs.Uint64("seed", 1, "seed of every random draw")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx, stop := interruptContext()
	defer stop()
	if err := overSpecStudy(ctx, *out, *seed, stdout); err != nil {
		return err
	}
	if *out == "" {
		return nil
	}
	return writeReport(*out, io.Discard, stderr)
}

// overSpecStudy measures the over-specified rank study, prints its table
// and, when dir is not empty, writes overspec.md and overspec.json there.
func overSpecStudy(ctx context.Context, dir string, seed uint64, stdout io.Writer) error {
	cfg := experiment.DefaultOverSpec()
	cfg.Seed = seed
	res, err := experiment.RunOverSpec(ctx, cfg)
	if err != nil {
		return err
	}
	var b strings.Builder
	if err := res.WriteMarkdown(&b); err != nil {
		return err
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return outputError("out", dir, err)
		}
		if err := atomicio.WriteFile(filepath.Join(dir, "overspec.md"), func(w io.Writer) error { _, err := io.WriteString(w, b.String()); return err }); err != nil {
			return outputError("out", dir, err)
		}
		if err := atomicio.WriteFile(filepath.Join(dir, experiment.OverSpecName), res.WriteJSON); err != nil {
			return outputError("out", dir, err)
		}
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}
