package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/experiment"
)

const phaseSynopsis = `Measures the phase study of robust PCA (issue 24): the success rate (relative
error <= 1e-8, over the seeds) of the entry models' default method against two
references written independently in the experiment package, principal
component pursuit (inexact ALM) and ScaledGD with the per-row and per-column
sparse estimate T_alpha (told the outlier fraction), over shapes 100x100,
200x200, 400x400, 200x50 and 50x200, r = 5, kappa 1, 10, 100, p_s 0.05 to 0.3, and three
outlier models: entries at random, whole columns (X* judged on the other
columns), and clustered blocks. Writes to --out
  phase.csv         one line per run
  phase.json        the study, read by the report
  phase_MODEL.png   the success maps (also .svg)
  index.html        the report of everything in --out
and prints the claims. About ten minutes on two cores (--quick: seconds).`

func runPhase(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("phase", phaseSynopsis, stdout)
	out := fs.String("out", "", "directory to write the study and index.html to (required; created if missing)")
	quick := fs.Bool("quick", false, "a small grid (two shapes, kappa 1 and 100, p_s 0.1 and 0.3, one seed)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{"--out is required: the directory to write the study and index.html to"}
	}
	c := experiment.DefaultPhase()
	if *quick {
		c = experiment.QuickPhase()
	}
	if err := prepareOut(*out); err != nil {
		return err
	}
	ctx, stop := interruptContext()
	defer stop()
	bar := newProgressBar(stderr, "phase study")
	res, err := experiment.RunPhase(ctx, c, func(done, total int) {
		bar.update(experiment.Progress{Runs: total, RunsDone: done, Iterations: done, Bound: total})
	})
	bar.done()
	if ctx.Err() != nil {
		return exitError{fmt.Errorf("interrupted during the phase study; its files were not written"), exitInterrupted}
	}
	if err != nil {
		return err
	}
	var set atomicio.Set
	add := func(name string, write func(io.Writer) error) error {
		if err := set.Add(filepath.Join(*out, name), write); err != nil {
			return outputError("out", *out, fmt.Errorf("%s: %w", name, unwrapPath(err)))
		}
		return nil
	}
	for _, m := range c.Models {
		for _, ext := range []string{"png", "svg"} {
			if err := add(experiment.PhasePanelName(m, ext), func(w io.Writer) error { return experiment.RenderPhase(w, res, m, ext) }); err != nil {
				return err
			}
		}
	}
	if err := add("phase.csv", res.WriteCSV); err != nil {
		return err
	}
	if err := add(experiment.PhaseName, res.WriteJSON); err != nil {
		return err
	}
	if err := set.Commit(); err != nil {
		return outputError("out", *out, err)
	}
	for _, v := range res.Claims() {
		mark := "holds"
		if !v.Holds {
			mark = "FAILS"
		}
		fmt.Fprintf(stdout, "%-6s %s: %s\n", mark, v.Claim, v.Measured)
	}
	fmt.Fprintf(stdout, "%d runs in %.0f s\n", len(res.Runs), res.Seconds)
	return writeReport(*out, io.Discard, stderr)
}
