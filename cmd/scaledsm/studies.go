package main

import (
	"context"
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/experiment"
)

// studyFlags are the sizes of the completion and image studies: the
// defaults are the report's, smaller ones give a quick look.
type studyFlags struct {
	n, r                 int
	p                    float64
	imageRank, imageIter int
}

func (s *studyFlags) register(fs *flag.FlagSet) {
	d, im := experiment.DefaultCompletion(), experiment.DefaultImage()
	fs.IntVar(&s.n, "n", d.N, "n1 = n2 of the completion study")
	fs.IntVar(&s.r, "r", d.Rank, "rank of the completion study")
	fs.Float64Var(&s.p, "p", d.P, "fraction of the entries observed in the completion study")
	fs.IntVar(&s.imageRank, "image-rank", im.Rank, "rank the photograph is recovered at")
	fs.IntVar(&s.imageIter, "image-iters", im.MaxIter, "iteration limit of the photograph's solves")
}

// configs returns the studies' configurations, checked.
func (s *studyFlags) configs() (experiment.CompletionConfig, experiment.ImageConfig, error) {
	c, im := experiment.DefaultCompletion(), experiment.DefaultImage()
	c.N, c.Rank, c.P = s.n, s.r, s.p
	im.Rank, im.MaxIter = s.imageRank, s.imageIter
	if err := c.Validate(); err != nil {
		return c, im, usageError{err.Error()}
	}
	if err := im.Validate(); err != nil {
		return c, im, usageError{err.Error()}
	}
	return c, im, nil
}

const studiesSynopsis = `Measures the studies beyond the paper for matrix completion and robust PCA
(issue 13) and checks their claims:
  (a) kappa = 1, 10, 100 at n1 = n2 = 1000, r = 5, p = 0.1, p_s = 0.1: the
      entry models' default method (ScaledGD on l2trim) over seeds 1-3, GD on
      l2trim and VanillaSM for contrast;
  (b) p_s from 0 to 0.4; (c) plain ScaledGD on least squares; (d) robust PCA
      at p_s = 0.1, 0.2, 0.3; (e) plain ScaledSM on l1 with global steps;
and NASA's astronaut photograph with half its pixels hidden and 10% of the
rest salt and pepper, recovered at rank 30. Writes to --out
  completion.json, completion.md, completion_a.png ... (also .svg)
  image.json, astronaut_*.png
  index.html      the report of everything in --out
and prints the tables. About two minutes on two cores; reproduce runs it too.`

func runStudies(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("completion", studiesSynopsis, stdout)
	out := fs.String("out", "", "directory to write the studies and index.html to (required; created if missing)")
	var sf studyFlags
	sf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{"--out is required: the directory to write the studies and index.html to"}
	}
	c, im, err := sf.configs()
	if err != nil {
		return err
	}
	if err := prepareOut(*out); err != nil {
		return err
	}
	ctx, stop := interruptContext()
	defer stop()
	if err := studies(ctx, *out, studyConfig{c, im}, stdout, stderr); err != nil {
		return err
	}
	return writeReport(*out, stdout, stderr)
}

// prepareOut creates the output directory and checks it can be written.
func prepareOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return badFlag("out", dir, unwrapPath(err).Error())
	}
	if err := probe(dir); err != nil {
		return badFlag("out", dir, "cannot write there: "+unwrapPath(err).Error())
	}
	return nil
}

// studies runs the completion and image studies and writes their files
// into dir, each study's set together (its record last).
// studyConfig is the completion and the image studies' grids.
type studyConfig struct {
	completion experiment.CompletionConfig
	image      experiment.ImageConfig
}

func studies(ctx context.Context, dir string, cfg studyConfig, stdout, stderr io.Writer) error {
	c, im := cfg.completion, cfg.image
	interrupted := func(what string) error {
		return exitError{fmt.Errorf("interrupted during the %s; its files were not written", what), exitInterrupted}
	}
	bar := newProgressBar(stderr, "completion study")
	res, err := experiment.RunCompletion(ctx, c, func(done, total int) {
		bar.update(experiment.Progress{Runs: total, RunsDone: done, Iterations: done, Bound: total})
	})
	bar.done()
	if ctx.Err() != nil {
		return interrupted("completion study")
	}
	if err != nil {
		return err
	}
	var md strings.Builder
	if err := res.WriteMarkdown(&md); err != nil {
		return err
	}
	var set atomicio.Set
	add := func(name string, write func(io.Writer) error) error {
		if err := set.Add(filepath.Join(dir, name), write); err != nil {
			return outputError("out", dir, fmt.Errorf("%s: %w", name, unwrapPath(err)))
		}
		return nil
	}
	for i, p := range experiment.CompletionPanels {
		for _, ext := range []string{"png", "svg"} {
			if err := add(experiment.CompletionPanelName(p.Name, ext), func(w io.Writer) error { return experiment.RenderCompletion(w, res, i, ext) }); err != nil {
				return err
			}
		}
	}
	if err := add("completion.md", func(w io.Writer) error { _, err := io.WriteString(w, md.String()); return err }); err != nil {
		return err
	}
	if err := add(experiment.CompletionName, res.WriteJSON); err != nil {
		return err
	}
	if err := set.Commit(); err != nil {
		return outputError("out", dir, err)
	}
	fmt.Fprintf(stdout, "completion study: %d runs in %.1f s\n%s", len(res.Runs), res.Seconds, md.String())

	bar = newProgressBar(stderr, "image study")
	bar.update(experiment.Progress{Runs: 1, Bound: 1})
	img, err := experiment.RunImage(ctx, im)
	bar.done()
	if ctx.Err() != nil {
		return interrupted("image study")
	}
	if err != nil {
		return err
	}
	names := img.ImageFiles()
	for i, g := range img.Images() {
		if err := add(names[i], func(w io.Writer) error { return png.Encode(w, g) }); err != nil {
			return err
		}
	}
	if err := add(experiment.ImageName, img.WriteJSON); err != nil {
		return err
	}
	if err := set.Commit(); err != nil {
		return outputError("out", dir, err)
	}
	fmt.Fprintf(stdout, "image study: %s in %.1f s\n", strings.Join(names, " "), img.Seconds)
	for _, c := range img.Captions() {
		fmt.Fprintf(stdout, "  %s\n", c)
	}
	for _, v := range img.Claims() {
		mark := "FAILS"
		if v.Holds {
			mark = "holds"
		}
		fmt.Fprintf(stdout, "  (%s) %s  %s: %s\n", v.Panel, mark, v.Claim, v.Measured)
	}
	return nil
}
