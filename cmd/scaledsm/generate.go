package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/synth"
	"github.com/scaledsm/scaledsm/synth/npyset"
)

func runGenerate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("generate", `Draws a synthetic problem of the paper's Section 4 recipe, as solve does, and
writes it to --out DIR as NumPy .npy files: the operator A.npy (matrix sensing:
shape (m, n1, n2); quadratic sampling: (m, n)), the observations y.npy (m,),
the truth X_star.npy (n1, n2), its factors L_star.npy (n1, r) and, for
sensing, R_star.npy (n2, r), the outlier mask outliers.npy (m,) of bools, and
problem.json with the setting and the solve command to run. For --problem mc or
rpca it writes the observed entries as COO triplets instead: rows.npy and
cols.npy (m,) int32 and values.npy (m,) float64, sorted by row and column, with
L_star.npy, R_star.npy and problem.json. For --problem ratings it writes
synthetic ratings that look like real ones (biases, a low-rank interaction,
noise, skewed popularity, stars) as train.csv and test.csv (userId,movieId,
rating): --ratings of them by --users users of --items items (MovieLens
100k's sizes by default; 10^8 in Netflix's shape take about 3 minutes), each
in test.csv with probability --holdout. The set is written
to a new directory beside DIR and moved into DIR once complete: a failure or an
interrupt leaves DIR as it was, and a DIR that held another problem keeps no
file of it.`, stdout)
	var sp synthFlags
	sp.register(fs)
	var rg ratingsGen
	rg.register(fs)
	out := fs.String("out", "", "directory for the files (created if needed)")
	dtype := fs.String("dtype", "float64", "element type of A.npy: float64 or float32 (the operator is rounded to\nfloat32 before y is computed, so the problem stays exact); for mc and rpca,\nof values.npy (the observations rounded to float32, as ratings are held, which\nsolve then holds in half the memory; the rounding, about 6e-8 of each, is noise)")
	order := fs.String("order", "C", "memory order of A.npy: C (row-major, NumPy's default) or F (column-major,\nas np.asfortranarray writes it; slower to write)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *out == "":
		return usageError{"--out: missing: give the directory for the files"}
	case *dtype != "float64" && *dtype != "float32":
		return badFlag("dtype", *dtype, "want float64 or float32")
	case *order != "C" && *order != "F":
		return badFlag("order", *order, "want C or F")
	}
	if sp.problem == "ratings" {
		return generateRatings(fs, &sp, &rg, *out, stdout)
	}
	for _, name := range ratingsOnly {
		if setFlags(fs)[name] {
			return badFlag(name, flagValue(fs, name), "applies to --problem ratings")
		}
	}
	src, err := sp.config()
	if err != nil {
		return err
	}
	if *dtype == "float32" {
		// Drawn as float32 values, so y comes from what A.npy holds (and
		// sensing data is generated at half the memory).
		src.cfg.Precision = synth.Float32
	}
	if err := checkGenerateOut(*out, src); err != nil {
		return err
	}

	// A signal stops the writing: nothing is moved into --out.
	ctx, stop := interruptContext()
	defer stop()
	setPhase("drawing the problem")
	files, meta, err := drawSet(fs, src, *out, *dtype, *order)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return exitError{errors.New("interrupted; nothing written"), exitInterrupted}
	}
	listing, err := writeGenerated(ctx, *out, npyset.WithMeta(files, &meta))
	if err != nil {
		return err
	}

	kind, _ := synth.ParseKind(meta.Problem)
	fmt.Fprintf(stdout, "wrote a %s problem (n1=%d, n2=%d, rank %d, m=%d, kappa=%g, %d outliers, seed %d) to %s:\n",
		kind.Model(), meta.N1, meta.N2, meta.Rank, meta.M, meta.Kappa, meta.Outliers, meta.Seed, *out)
	fmt.Fprintf(stdout, "  %s\n", strings.Join(listing, "\n  "))
	fmt.Fprintf(stdout, "solve it with\n  %s\n", meta.Solve)
	return nil
}

// checkGenerateOut checks that out can take the set and that the
// machine can draw it.
func checkGenerateOut(out string, src *synthetic) error {
	if st, err := os.Stat(out); err == nil && !st.IsDir() {
		return badFlag("out", out, "is not a directory")
	}
	if err := writableParent(out); err != nil {
		return badFlag("out", out, "cannot be written: "+err.Error())
	}
	return checkMemory(src, false)
}

// drawSet draws the problem of src and returns its files (package
// npyset), the operator's stored with the dtype and order given, and its
// problem.json.
func drawSet(fs *flag.FlagSet, src *synthetic, out, dtype, order string) ([]npyset.File, npyset.Meta, error) {
	var (
		files []npyset.File
		meta  npyset.Meta
		err   error
	)
	if src.cfg.Kind.Entries() {
		set := setFlags(fs)
		if set["order"] {
			return nil, meta, badFlag("order", flagValue(fs, "order"), fmt.Sprintf("applies to A.npy of --problem ms or qs; --problem %s writes COO triplets", src.cfg.Kind))
		}
		files, meta, err = npyset.Entries(src.cfg, src.setting, out)
	} else {
		files, meta, err = npyset.Operator(src.cfg, src.setting, out, dtype, order)
	}
	if ie := (*scaledsm.InputError)(nil); errors.As(err, &ie) {
		return nil, meta, inputFlag(err, synthInputs)
	} else if err != nil {
		return nil, meta, exitError{fmt.Errorf("--p %g: %v", src.cfg.P, err), exitBadInput}
	}
	return files, meta, nil
}

// writeGenerated writes generate's files into out as one set (see
// atomicio.WriteDir) and returns the listing printed.
func writeGenerated(ctx context.Context, out string, files []npyset.File) ([]string, error) {
	setPhase("writing the problem")
	set := make([]atomicio.File, len(files))
	var listing []string
	for k, f := range files {
		set[k] = atomicio.File{Name: f.Name, Write: f.Write}
		listing = append(listing, strings.TrimSpace(f.Name+" "+f.Desc))
	}
	err := atomicio.WriteDir(ctx, out, set, npyset.Names)
	var fe *atomicio.FileError
	switch {
	case err == nil:
		return listing, nil
	case errors.As(err, &fe) && errors.Is(fe.Err, atomicio.ErrInterrupted):
		return nil, exitError{fmt.Errorf("interrupted while writing %s; %s is left as it was", fe.Name, out), exitInterrupted}
	case fe != nil:
		return nil, outputError("out", out, fmt.Errorf("%s: %w", fe.Name, unwrapPath(fe.Err)))
	}
	return nil, outputError("out", out, err)
}
