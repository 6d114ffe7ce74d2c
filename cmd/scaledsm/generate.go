package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/synth"
)

// problemFile is problem.json, written by generate beside the arrays.
type problemFile struct {
	shapeJSON
	drawJSON
	Dtype string   `json:"dtype"`
	Order string   `json:"order"`
	FStar float64  `json:"f_star"`
	Files []string `json:"files"`
	Solve string   `json:"solve"`
}

// generatedFiles are the names of every file generate may write: a
// directory that holds another problem loses those the new one does not
// have.
var generatedFiles = []string{"A.npy", "y.npy", "X_star.npy", "L_star.npy", "R_star.npy", "outliers.npy",
	"rows.npy", "cols.npy", "values.npy", "train.csv", "test.csv", "problem.json"}

// genFile is a file of generate: its name, a description of its shape and
// how to write it.
type genFile struct {
	name, desc string
	write      func(io.Writer) error
}

func runGenerate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("generate", `Draws a synthetic problem of the paper's Section 4 recipe, as solve does, and
writes it to --out DIR as NumPy .npy files: the operator A.npy (matrix sensing:
shape (m, n1, n2); quadratic sampling: (m, n)), the observations y.npy (m,),
the truth X_star.npy (n1, n2), its factors L_star.npy (n1, r) and, for
sensing, R_star.npy (n2, r), the outlier mask outliers.npy (m,) of bools, and
problem.json with the setting and the solve command to run. For --problem mc or
rpca it writes the observed entries as COO triplets instead: rows.npy and
cols.npy (m,) int32 and values.npy (m,) float64, sorted by row and column, with
L_star.npy, R_star.npy and problem.json. The set is written
to a new directory beside DIR and moved into DIR once complete: a failure or an
interrupt leaves DIR as it was, and a DIR that held another problem keeps no
file of it.`, stdout)
	var sp synthFlags
	sp.register(fs)
	out := fs.String("out", "", "directory for the files (created if needed)")
	dtype := fs.String("dtype", "float64", "element type of A.npy: float64 or float32 (the operator is rounded to\nfloat32 before y is computed, so the problem stays exact)")
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
		return generateRatings(fs, &sp, *out, stdout)
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
	if st, err := os.Stat(*out); err == nil && !st.IsDir() {
		return badFlag("out", *out, "is not a directory")
	}
	if err := writableParent(*out); err != nil {
		return badFlag("out", *out, "cannot be written: "+err.Error())
	}
	if err := checkMemory(src, false); err != nil {
		return err
	}

	// A signal stops the writing: nothing is moved into --out.
	ctx, stop := interruptContext()
	defer stop()
	var (
		files []genFile
		meta  problemFile
	)
	setPhase("drawing the problem")
	if entryKind(src.cfg.Kind) {
		set := setFlags(fs)
		for _, name := range []string{"dtype", "order"} {
			if set[name] {
				return badFlag(name, flagValue(fs, name), fmt.Sprintf("applies to A.npy of --problem ms or qs; --problem %s writes COO triplets", src.cfg.Kind))
			}
		}
		files, meta, err = entryProblem(src, *out)
	} else {
		files, meta, err = operatorProblem(src, *out, *dtype, *order)
	}
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return exitError{errors.New("interrupted; nothing written"), exitInterrupted}
	}
	for _, f := range files {
		meta.Files = append(meta.Files, f.name)
	}
	meta.Files = append(meta.Files, "problem.json")
	files = append(files, genFile{"problem.json", "", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(meta)
	}})

	listing, err := writeGenerated(ctx, *out, files, meta.Files)
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

// operatorProblem draws a problem of the Gaussian models and returns its
// files (the operator in the given dtype and order) and problem.json.
func operatorProblem(src *synthetic, out, dtype, order string) ([]genFile, problemFile, error) {
	cfg, setting := src.cfg, src.setting
	draw, err := synth.New(cfg)
	if err != nil {
		return nil, problemFile{}, inputFlag(err, synthInputs)
	}
	var writeA func(io.Writer, dataio.Header) error
	if s, ok := draw.Op.(*scaledsm.Sensing); ok && s.Data32() != nil {
		writeA = func(w io.Writer, h dataio.Header) error { return dataio.WriteArray(w, h, s.Data32()) }
	} else {
		a := draw.Op.(interface{ Data() []float64 }).Data()
		writeA = func(w io.Writer, h dataio.Header) error { return dataio.WriteArray(w, h, a) }
	}
	in, err := draw.Instance(setting)
	if err != nil {
		return nil, problemFile{}, inputFlag(err, synthInputs)
	}

	m, n1, n2, r := cfg.M, cfg.N1, cfg.N2, cfg.Rank
	shape := []int{m, n1, n2}
	if cfg.Kind == synth.Quadratic {
		shape = []int{m, n1}
	}
	hA := dataio.Header{Dtype: "<f8", Fortran: order == "F", Shape: shape}
	if dtype == "float32" {
		hA.Dtype = "<f4"
	}
	mask := in.Corrupted()
	files := []genFile{
		{"A.npy", fmt.Sprintf("%s %s, %s order", dataio.ShapeString(shape), dtype, order), func(w io.Writer) error { return writeA(w, hA) }},
		{"y.npy", fmt.Sprintf("(%d,)", m), func(w io.Writer) error { return dataio.WriteFloat64(w, []int{m}, in.Y) }},
		{"X_star.npy", fmt.Sprintf("(%d, %d)", n1, n2), denseWriter(in.Truth)},
		{"L_star.npy", fmt.Sprintf("(%d, %d)", n1, r), denseWriter(in.Star.L)},
	}
	if in.Star.R != nil {
		files = append(files, genFile{"R_star.npy", fmt.Sprintf("(%d, %d)", n2, r), denseWriter(in.Star.R)})
	}
	files = append(files, genFile{"outliers.npy", fmt.Sprintf("(%d,) bool", m), func(w io.Writer) error { return dataio.WriteBool(w, []int{m}, mask) }})

	opFlag := "--sensing"
	if cfg.Kind == synth.Quadratic {
		opFlag = "--quadratic"
	}
	solve := fmt.Sprintf("scaledsm solve %s %s --y %s --rank %d --truth %s", opFlag,
		filepath.Join(out, "A.npy"), filepath.Join(out, "y.npy"), r, filepath.Join(out, "X_star.npy"))
	if setting.PS > 0 {
		solve += fmt.Sprintf(" --ps %g", setting.PS)
	}
	solve += " --out " + filepath.Join(out, "result")
	meta := problemFile{
		shapeJSON: shapeJSON{Problem: cfg.Kind.String(), N1: n1, N2: n2, Rank: r, M: m},
		drawJSON:  newDrawJSON(cfg, setting, in),
		Dtype:     dtype, Order: order, FStar: in.FStar, Solve: solve,
	}
	return files, meta, nil
}

// entryProblem draws a problem of the entry models and returns its files,
// the observed entries as COO triplets and the truth's factors, and
// problem.json.
func entryProblem(src *synthetic, out string) ([]genFile, problemFile, error) {
	draw, err := synth.New(src.cfg)
	if err != nil {
		return nil, problemFile{}, inputFlag(err, synthInputs)
	}
	in, err := draw.Instance(src.setting)
	if err != nil {
		return nil, problemFile{}, inputFlag(err, synthInputs)
	}
	cfg := draw.Config
	op := draw.Op.(*scaledsm.Entries)
	m, n1, n2 := op.Dims()
	r := cfg.Rank
	if err := enoughEntries(op, r, fmt.Sprintf("--p %g", cfg.P)); err != nil {
		return nil, problemFile{}, err
	}
	start := op.Start()
	rows := make([]int32, m)
	for i := range n1 {
		for k := start[i]; k < start[i+1]; k++ {
			rows[k] = int32(i)
		}
	}
	vec := fmt.Sprintf("(%d,)", m)
	files := []genFile{
		{"rows.npy", vec + " int32", func(w io.Writer) error { return dataio.WriteInt32(w, []int{m}, rows) }},
		{"cols.npy", vec + " int32", func(w io.Writer) error { return dataio.WriteInt32(w, []int{m}, op.Cols()) }},
		{"values.npy", vec + " float64", func(w io.Writer) error { return dataio.WriteFloat64(w, []int{m}, in.Y) }},
		{"L_star.npy", fmt.Sprintf("(%d, %d)", n1, r), denseWriter(in.Star.L)},
		{"R_star.npy", fmt.Sprintf("(%d, %d)", n2, r), denseWriter(in.Star.R)},
	}
	j := func(name string) string { return filepath.Join(out, name) }
	solve := fmt.Sprintf("scaledsm solve --rows %s --cols %s --values %s --shape %dx%d --rank %d --truth-left %s --truth-right %s",
		j("rows.npy"), j("cols.npy"), j("values.npy"), n1, n2, r, j("L_star.npy"), j("R_star.npy"))
	if src.setting.PS > 0 {
		solve += fmt.Sprintf(" --ps %g", src.setting.PS)
	}
	solve += " --out " + j("result")
	meta := problemFile{
		shapeJSON: shapeJSON{Problem: cfg.Kind.String(), N1: n1, N2: n2, Rank: r, M: m},
		drawJSON:  newDrawJSON(cfg, src.setting, in),
		Dtype:     "float64", Order: "C", FStar: in.FStar, Solve: solve,
	}
	return files, meta, nil
}

// moveInto moves the files names (problem.json last) from the directory tmp
// into dir: tmp itself when dir does not exist, otherwise file by file,
// after removing the files of an earlier problem that the new set lacks.
func moveInto(tmp, dir string, names []string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Chmod(tmp, 0o755); err != nil {
			return err
		}
		return os.Rename(tmp, dir)
	}
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	// problem.json goes first and comes back last: a directory without it
	// holds no complete problem.
	for _, n := range append([]string{"problem.json"}, generatedFiles...) {
		if !keep[n] || n == "problem.json" {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	for _, n := range names {
		if err := os.Rename(filepath.Join(tmp, n), filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}

// ctxWriter fails its writes once ctx is done, so that a long write stops
// promptly on a signal.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, errors.New("interrupted")
	}
	return c.w.Write(p)
}

// writeGenerated writes generate's files to a fresh directory beside out
// and moves them in once complete: on the same file system the moves are
// renames, so the data is written once. It returns the listing printed.
func writeGenerated(ctx context.Context, out string, files []genFile, names []string) ([]string, error) {
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(out)), 0o755); err != nil {
		return nil, outputError("out", out, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(out)), "."+filepath.Base(filepath.Clean(out))+".tmp-*")
	if err != nil {
		return nil, outputError("out", out, err)
	}
	defer atomicio.Track(tmp)()
	defer os.RemoveAll(tmp)
	setPhase("writing the problem")
	var listing []string
	for _, f := range files {
		err := atomicio.WriteFile(filepath.Join(tmp, f.name), func(w io.Writer) error {
			return f.write(ctxWriter{ctx, w})
		})
		if ctx.Err() != nil {
			return nil, exitError{fmt.Errorf("interrupted while writing %s; %s is left as it was", f.name, out), exitInterrupted}
		}
		if err != nil {
			return nil, outputError("out", out, fmt.Errorf("%s: %w", f.name, unwrapPath(err)))
		}
		listing = append(listing, strings.TrimSpace(f.name+" "+f.desc))
	}
	unlock, err := atomicio.Lock(out)
	if err != nil {
		return nil, outputError("out", out, err)
	}
	defer unlock()
	if err := moveInto(tmp, out, names); err != nil {
		return nil, outputError("out", out, err)
	}
	return listing, nil
}
