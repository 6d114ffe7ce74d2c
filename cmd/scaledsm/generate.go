package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/dataio"
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

func runGenerate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("generate", `Draws a synthetic problem of the paper's Section 4 recipe, as solve does, and
writes it to --out DIR as NumPy .npy files: the operator A.npy (matrix sensing:
shape (m, n1, n2); quadratic sampling: (m, n)), the observations y.npy (m,),
the truth X_star.npy (n1, n2), its factors L_star.npy (n1, r) and, for
sensing, R_star.npy (n2, r), the outlier mask outliers.npy (m,) of bools, and
problem.json with the setting and the solve command to run.`, stderr)
	var pf problemFlags
	pf.register(fs)
	out := fs.String("out", "", "directory for the files (created if needed)")
	dtype := fs.String("dtype", "float64", "element type of A.npy: float64 or float32 (the operator is rounded to\nfloat32 before y is computed, so the problem stays exact)")
	order := fs.String("order", "C", "memory order of A.npy: C (row-major, NumPy's default) or F (column-major,\nas np.asfortranarray writes it; slower to write)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, setting, err := pf.config()
	if err != nil {
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
	if st, err := os.Stat(*out); err == nil && !st.IsDir() {
		return badFlag("out", *out, "is not a directory")
	}

	// A signal stops the writing: the file under way is removed, those
	// already written are complete.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *dtype == "float32" && cfg.Kind == synth.Sensing {
		// Generated as float32, at half the memory; y comes from the
		// stored values.
		cfg.Precision = synth.Float32
	}
	draw, err := synth.New(cfg)
	if err != nil {
		return err
	}
	var writeA func(io.Writer, dataio.Header) error
	if s, ok := draw.Op.(*scaledsm.Sensing); ok && s.Data32() != nil {
		writeA = func(w io.Writer, h dataio.Header) error { return dataio.WriteArray(w, h, s.Data32()) }
	} else {
		a := draw.Op.(interface{ Data() []float64 }).Data()
		if *dtype == "float32" {
			// Rounded before y is computed, so that the problem stays
			// exact.
			for i, v := range a {
				a[i] = float64(float32(v))
			}
		}
		writeA = func(w io.Writer, h dataio.Header) error { return dataio.WriteArray(w, h, a) }
	}
	in, err := draw.Instance(setting)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return exitError{errors.New("interrupted; nothing written"), 130}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %v", *out, unwrapPath(err))
	}

	m, n1, n2, r := cfg.M, cfg.N1, cfg.N2, cfg.Rank
	shape := []int{m, n1, n2}
	if cfg.Kind == synth.Quadratic {
		shape = []int{m, n1}
	}
	hA := dataio.Header{Dtype: "<f8", Fortran: *order == "F", Shape: shape}
	if *dtype == "float32" {
		hA.Dtype = "<f4"
	}
	mask := in.Corrupted()
	type file struct {
		name, desc string
		write      func(io.Writer) error
	}
	files := []file{
		{"A.npy", fmt.Sprintf("%s %s, %s order", dataio.ShapeString(shape), *dtype, *order), func(w io.Writer) error { return writeA(w, hA) }},
		{"y.npy", fmt.Sprintf("(%d,)", m), func(w io.Writer) error { return dataio.WriteFloat64(w, []int{m}, in.Y) }},
		{"X_star.npy", fmt.Sprintf("(%d, %d)", n1, n2), denseWriter(in.Truth)},
		{"L_star.npy", fmt.Sprintf("(%d, %d)", n1, r), denseWriter(in.Star.L)},
	}
	if in.Star.R != nil {
		files = append(files, file{"R_star.npy", fmt.Sprintf("(%d, %d)", n2, r), denseWriter(in.Star.R)})
	}
	files = append(files, file{"outliers.npy", fmt.Sprintf("(%d,) bool", m), func(w io.Writer) error { return dataio.WriteBool(w, []int{m}, mask) }})

	opFlag := "--sensing"
	if cfg.Kind == synth.Quadratic {
		opFlag = "--quadratic"
	}
	solve := fmt.Sprintf("scaledsm solve %s %s --y %s --rank %d --truth %s", opFlag,
		filepath.Join(*out, "A.npy"), filepath.Join(*out, "y.npy"), r, filepath.Join(*out, "X_star.npy"))
	if setting.PS > 0 {
		solve += fmt.Sprintf(" --ps %g", setting.PS)
	}
	solve += " --out " + filepath.Join(*out, "result")
	meta := problemFile{
		shapeJSON: shapeJSON{Problem: cfg.Kind.String(), N1: n1, N2: n2, Rank: r, M: m},
		drawJSON:  newDrawJSON(cfg, setting, in),
		Dtype:     *dtype, Order: *order, FStar: in.FStar, Solve: solve,
	}
	for _, f := range files {
		meta.Files = append(meta.Files, f.name)
	}
	meta.Files = append(meta.Files, "problem.json")
	files = append(files, file{"problem.json", "", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(meta)
	}})

	// The files are written one by one, each complete or not at all:
	// holding them all as temporary files would double the disk space of
	// A.npy for no gain, and problem.json, written last, marks a complete
	// set.
	var listing []string
	for _, f := range files {
		err := writeAtomic(filepath.Join(*out, f.name), func(w io.Writer) error {
			return f.write(ctxWriter{ctx, w})
		})
		if ctx.Err() != nil {
			return exitError{fmt.Errorf("interrupted while writing %s; %s holds an incomplete problem (no problem.json)", f.name, *out), 130}
		}
		if err != nil {
			return fmt.Errorf("--out %s: %s: %v", *out, f.name, unwrapPath(err))
		}
		listing = append(listing, strings.TrimSpace(f.name+" "+f.desc))
	}

	kind := map[synth.Kind]string{synth.Sensing: "matrix sensing", synth.Quadratic: "quadratic sampling"}[cfg.Kind]
	fmt.Fprintf(stdout, "wrote a %s problem (n1=%d, n2=%d, rank %d, m=%d, kappa=%g, %d outliers, seed %d) to %s:\n",
		kind, n1, n2, r, m, setting.Kappa, meta.Outliers, cfg.Seed, *out)
	fmt.Fprintf(stdout, "  %s\n", strings.Join(listing, "\n  "))
	fmt.Fprintf(stdout, "solve it with\n  %s\n", solve)
	return nil
}

// denseWriter returns a function writing a matrix as a float64 .npy array.
func denseWriter(x *mat.Dense) func(io.Writer) error {
	return func(w io.Writer) error {
		r, c := x.Dims()
		data := make([]float64, 0, r*c)
		for i := range r {
			data = append(data, x.RawRowView(i)...)
		}
		return dataio.WriteFloat64(w, []int{r, c}, data)
	}
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
