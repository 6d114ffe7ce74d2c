package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/dataio"
)

// fileFlags name the files of a problem read from disk and where the
// results go.
type fileFlags struct {
	sensing, quadratic, y, truth, out string
	n1, rank                          int
	fs                                *flag.FlagSet
}

// Flags that belong to one mode of solve only.
var (
	syntheticOnly = []string{"problem", "n", "r", "m", "kappa", "snr", "seed", "precision"}
	filesOnly     = []string{"sensing", "quadratic", "y", "truth", "n1", "rank", "out"}
)

func (f *fileFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.sensing, "sensing", "", "solve the matrix sensing problem (X = L Rᵀ) whose matrices A_i are in this .npy file:\nshape (m, n1, n2), or (m, n1·n2) with --n1 and --n2")
	fs.StringVar(&f.quadratic, "quadratic", "", "solve the quadratic sampling problem (PSD X = L Lᵀ) whose vectors a_i are in this .npy file: shape (m, n)")
	fs.StringVar(&f.y, "y", "", "the observations y: a .npy file of shape (m,)")
	fs.StringVar(&f.truth, "truth", "", "optional: X*, a .npy file of shape (n1, n2), to report the relative error and stop at --tol")
	fs.IntVar(&f.n1, "n1", 0, "rows n1 of each matrix of a two-dimensional --sensing file (with --n2)")
	fs.IntVar(&f.rank, "rank", 0, "rank r of the matrix to recover from files")
	fs.StringVar(&f.out, "out", "", "directory for the results: L.npy, R.npy, trace.csv, summary.json (created if needed)")
}

// given reports whether the problem comes from files.
func (f *fileFlags) given() bool { return f.sensing != "" || f.quadratic != "" }

// flagValue returns the value of the named flag as given.
func flagValue(fs *flag.FlagSet, name string) string { return fs.Lookup(name).Value.String() }

// rejectInSynthetic returns the error for a file flag given without files.
func (f *fileFlags) rejectInSynthetic() error {
	set := setFlags(f.fs)
	for _, name := range filesOnly {
		if !set[name] {
			continue
		}
		reason := "applies to a problem read from files: give --sensing or --quadratic"
		if name == "rank" {
			reason += " (the rank of a synthetic problem is --r)"
		}
		return badFlag(name, flagValue(f.fs, name), reason)
	}
	return nil
}

// solveUsage prints the help of solve with the flags in groups: the synthetic
// problem's, the files', and the rest.
func solveUsage(fs *flag.FlagSet, synopsis string) func() {
	return func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage:\n  scaledsm solve [flags]                 a synthetic problem\n  scaledsm solve --sensing A.npy --y y.npy --rank r --out DIR [flags]\n  scaledsm solve --quadratic A.npy --y y.npy --rank r --out DIR [flags]\n\n%s\n", synopsis)
		groups := []struct {
			title string
			names []string
		}{
			{"Synthetic problem (the default):", syntheticOnly},
			{"Problem from NumPy .npy files (float64 or float32, C or Fortran order):", filesOnly},
		}
		listed := map[string]bool{}
		for _, g := range groups {
			fmt.Fprintf(w, "\n%s\n", g.title)
			for _, name := range g.names {
				printFlag(w, fs.Lookup(name))
				listed[name] = true
			}
		}
		fmt.Fprint(w, "  With files, --step defaults to auto (f(X*) is unknown; polyak computes it from\n"+
			"  --truth); the initialization drops the --ps fraction of largest |y_i| if given,\n"+
			"  else those above 3 times the median (--trim overrides both); without --truth,\n"+
			"  --tol applies to the relative change of X_t between iterations.\n")
		fmt.Fprintln(w, "\nBoth:")
		fs.VisitAll(func(f *flag.Flag) {
			if !listed[f.Name] {
				printFlag(w, f)
			}
		})
	}
}

// solveFiles runs solve on a problem read from files.
func solveFiles(ff *fileFlags, pf *problemFlags, sf *solverFlags, tracePath string, asJSON bool, stdout io.Writer) error {
	set := setFlags(ff.fs)
	files, err := ff.check(pf, set)
	if err != nil {
		return err
	}
	// The files carry no f(X*): the automatic step is the default, and
	// Polyak's rule is available only when --truth gives f(X*).
	fStar := math.NaN()
	if sf.step == "polyak" && set["step"] {
		if ff.truth == "" {
			return badFlag("step", sf.step, "Polyak's step needs f(X*), known here only from --truth; use --step auto")
		}
		fStar = 0 // computed from the truth once it is loaded
	}
	settings, err := sf.settings(fStar)
	if err != nil {
		return err
	}
	switch {
	case set["trim"]:
		settings.Trim, err = sf.initTrim(0)
	case set["ps"]:
		settings.Trim = scaledsm.TrimFraction(pf.ps)
	default:
		settings.Trim = scaledsm.Trim{}
	}
	if err != nil {
		return err
	}

	// Stop after the current iteration on SIGINT or SIGTERM, and keep
	// catching them while the results are written.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	t0 := time.Now()
	problem, err := dataio.Load(files, ff.rank)
	if err != nil {
		return loadError(err, ff)
	}
	loaded := time.Since(t0)
	tuneGC(problem.Op)
	if ctx.Err() != nil {
		return exitError{errors.New("interrupted while reading the files; nothing written"), 130}
	}
	var fStarOut *float64
	if p, ok := settings.Step.(scaledsm.Polyak); ok {
		m, _, _ := problem.Op.Dims()
		z := make([]float64, m)
		problem.Op.Apply(z, problem.Truth)
		for i := range z {
			z[i] -= problem.Y[i]
		}
		p.FStar = scaledsm.L1.Value(z)
		settings.Step, fStarOut = p, &p.FStar
	}

	t1 := time.Now()
	init, err := scaledsm.Spectral(problem.Op, problem.Y, problem.Rank, settings.Trim)
	if err != nil {
		return err
	}
	settings.Init = &init
	initialized := time.Since(t1)
	if err := os.MkdirAll(ff.out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %v", ff.out, unwrapPath(err))
	}

	res, err := scaledsm.Solve(ctx, problem, settings)
	if err != nil {
		return err
	}
	sum := newFileSummary(ff, sf, settings, problem, res)
	if settings.Trim == (scaledsm.Trim{}) {
		sum.Trim, sum.PS = "median", nil
	}
	sum.FStar = fStarOut
	sum.LoadSeconds, sum.InitSeconds = loaded.Seconds(), initialized.Seconds()
	if err := sum.write(ff.out, res); err != nil {
		return fmt.Errorf("--out %s: %v", ff.out, unwrapPath(err))
	}
	if tracePath != "" {
		if err := writeAtomic(tracePath, func(w io.Writer) error { return writeTrace(w, res.Trace) }); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		sum.print(stdout, ff.out)
	}
	if res.Status == scaledsm.Interrupted {
		return exitError{fmt.Errorf("interrupted after %d iterations; the partial result is in %s", res.Iterations, ff.out), 130}
	}
	return nil
}

// check validates the flags of a solve from files before any file is read.
func (f *fileFlags) check(pf *problemFlags, set map[string]bool) (dataio.Files, error) {
	if f.sensing != "" && f.quadratic != "" {
		return dataio.Files{}, badFlag("quadratic", f.quadratic, "give either --sensing or --quadratic, not both")
	}
	for _, name := range syntheticOnly {
		if !set[name] {
			continue
		}
		reason := "sets up a synthetic problem; with --sensing or --quadratic the problem comes from the files"
		switch name {
		case "r":
			reason = "is the rank of a synthetic problem; with files, give --rank"
		case "n":
			reason = "is the size of a synthetic problem; the files give it (a two-dimensional --sensing file needs --n1 and --n2)"
		case "precision":
			reason = "sets up a synthetic problem; a float32 --sensing file is kept as float32"
		}
		return dataio.Files{}, badFlag(name, flagValue(f.fs, name), reason)
	}
	op := "--sensing"
	if f.quadratic != "" {
		op = "--quadratic"
	}
	switch {
	case f.y == "":
		return dataio.Files{}, usageError{"--y: missing: give the observations of " + op + " " + f.sensing + f.quadratic + " (a .npy file of shape (m,))"}
	case !set["rank"]:
		return dataio.Files{}, usageError{"--rank: missing: give the rank r of the matrix to recover"}
	case f.rank < 1:
		return dataio.Files{}, badFlag("rank", f.rank, "must be at least 1")
	case f.out == "":
		return dataio.Files{}, usageError{"--out: missing: give the directory for the results (L.npy, R.npy, trace.csv, summary.json)"}
	case !(pf.ps >= 0 && pf.ps < 0.5):
		return dataio.Files{}, badFlag("ps", pf.ps, "the fraction of measurements assumed corrupted must lie in [0, 0.5)")
	}
	files := dataio.Files{Y: f.y, Truth: f.truth}
	if f.sensing != "" {
		files.Sensing = f.sensing
		switch {
		case set["n1"] && f.n1 < 1:
			return dataio.Files{}, badFlag("n1", f.n1, "must be at least 1")
		case set["n2"] && pf.n2 < 1:
			return dataio.Files{}, badFlag("n2", pf.n2, "must be at least 1")
		case set["n1"] != set["n2"] && set["n1"]:
			return dataio.Files{}, badFlag("n1", f.n1, "give --n2 too: the shape n1×n2 of each matrix")
		case set["n1"] != set["n2"]:
			return dataio.Files{}, badFlag("n2", pf.n2, "give --n1 too: the shape n1×n2 of each matrix")
		}
		if set["n1"] {
			files.N1, files.N2 = f.n1, pf.n2
		}
	} else {
		files.Quadratic = f.quadratic
		for _, name := range []string{"n1", "n2"} {
			if set[name] {
				return dataio.Files{}, badFlag(name, flagValue(f.fs, name), "applies to --sensing files; the shape (m, n) of --quadratic gives n")
			}
		}
	}
	if st, err := os.Stat(f.out); err == nil && !st.IsDir() {
		return dataio.Files{}, badFlag("out", f.out, "is not a directory")
	} else if err != nil {
		// It will be created once the files are read: its parent must be
		// a directory.
		parent := filepath.Dir(filepath.Clean(f.out))
		if st, perr := os.Stat(parent); perr != nil || !st.IsDir() {
			return dataio.Files{}, badFlag("out", f.out, fmt.Sprintf("cannot be created: %s is not a directory", parent))
		}
		if !errors.Is(err, os.ErrNotExist) {
			return dataio.Files{}, badFlag("out", f.out, unwrapPath(err).Error())
		}
	}
	return files, nil
}

// loadError turns an error of dataio.Load into one line naming the flag and
// file at fault.
func loadError(err error, ff *fileFlags) error {
	var fe *dataio.FileError
	var re *dataio.RankError
	switch {
	case errors.As(err, &fe):
		msg := fe.Err.Error()
		if errors.Is(fe.Err, dataio.ErrMatrixShape) {
			msg += " (give the shape with --n1 and --n2)"
		}
		return fmt.Errorf("--%s %s: %s", fe.Input, fe.Path, msg)
	case errors.As(err, &re):
		return badFlag("rank", ff.rank, fmt.Sprintf("must lie in [1, min(n1, n2)] = [1, %d] for the matrices of %s", re.Max, ff.sensing+ff.quadratic))
	}
	return err
}

// unwrapPath returns the reason of a *fs.PathError, whose path the message
// already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot %s: %w", pe.Op, pe.Err)
	}
	return err
}

// fileSummary is summary.json: what was solved, how, and what came out.
type fileSummary struct {
	shapeJSON
	Operator string   `json:"operator_file"`
	Y        string   `json:"y_file"`
	Truth    *string  `json:"truth_file"`
	PS       *float64 `json:"ps"`
	Trim     string   `json:"trim"`
	FStar    *float64 `json:"f_star"`
	MaxIter  int      `json:"max_iter"`
	Tol      float64  `json:"tol"`
	runJSON
	Interrupted bool     `json:"interrupted"`
	FinalChange *float64 `json:"final_change"`
	LoadSeconds float64  `json:"load_seconds"`
	InitSeconds float64  `json:"init_seconds"`
	Files       []string `json:"files"`
}

func newFileSummary(ff *fileFlags, sf *solverFlags, s scaledsm.Settings, p scaledsm.Problem, res *scaledsm.Result) *fileSummary {
	m, n1, n2 := p.Op.Dims()
	sum := &fileSummary{
		shapeJSON: shapeJSON{Problem: "ms", M: m, N1: n1, N2: n2, Rank: p.Rank},
		Operator:  ff.sensing, Y: ff.y,
		Trim: "fraction", PS: finite(s.Trim.Fraction),
		MaxIter: s.MaxIter, Tol: max(s.Tol, 0),
		runJSON:     newRunJSON(s, res),
		Interrupted: res.Status == scaledsm.Interrupted,
		Files:       []string{"L.npy", "R.npy", "trace.csv", "summary.json"},
	}
	if p.Op.Symmetric() {
		sum.Problem, sum.Operator = "qs", ff.quadratic
		sum.Files = []string{"L.npy", "trace.csv", "summary.json"}
	}
	if ff.truth != "" {
		sum.Truth = &ff.truth
	}
	if n := len(res.Trace); n > 0 {
		sum.FinalChange = finite(res.Trace[n-1].Change)
	}
	return sum
}

// write writes the factors, the trace and the summary to dir, each
// complete or not at all, and removes a stale R.npy when X = L Lᵀ.
func (s *fileSummary) write(dir string, res *scaledsm.Result) error {
	var out outputSet
	factor := func(name string, f interface {
		Dims() (int, int)
		RawRowView(int) []float64
	}) error {
		r, c := f.Dims()
		data := make([]float64, 0, r*c)
		for i := range r {
			data = append(data, f.RawRowView(i)...)
		}
		return out.add(filepath.Join(dir, name), func(w io.Writer) error {
			return dataio.WriteFloat64(w, []int{r, c}, data)
		})
	}
	if err := factor("L.npy", res.L); err != nil {
		return err
	}
	if res.R != nil {
		if err := factor("R.npy", res.R); err != nil {
			return err
		}
	}
	if err := out.add(filepath.Join(dir, "trace.csv"), func(w io.Writer) error { return writeTrace(w, res.Trace) }); err != nil {
		return err
	}
	err := out.add(filepath.Join(dir, "summary.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	})
	if err != nil {
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	if res.R == nil {
		if err := os.Remove(filepath.Join(dir, "R.npy")); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

func (s *fileSummary) print(w io.Writer, dir string) {
	kind := map[string]string{"ms": "matrix sensing", "qs": "quadratic sampling"}[s.Problem]
	shape := fmt.Sprintf("n1=%d n2=%d", s.N1, s.N2)
	if s.Problem == "qs" {
		shape = fmt.Sprintf("n=%d", s.N1)
	}
	fmt.Fprintf(w, "problem    %s from %s, m=%d, %s, rank %d\n", kind, s.Operator, s.M, shape, s.Rank)
	step := s.Step + " steps"
	if s.Lambda != nil {
		step += fmt.Sprintf(" (lambda=%g, q=%g)", *s.Lambda, *s.Q)
	}
	init := "the plain spectral initialization (--ps 0)"
	switch {
	case s.Trim == "median":
		init = "the spectral initialization drops the |y_i| above 3 times their median"
	case *s.PS > 0:
		init = fmt.Sprintf("the spectral initialization drops the %g%% largest |y_i|", 100**s.PS)
	}
	fmt.Fprintf(w, "method     %s, %s, %s loss; %s\n", s.Method, step, s.Loss, init)
	fmt.Fprintf(w, "status     %s after %d iterations\n", s.Status, s.Iterations)
	switch {
	case s.RelError != nil && s.InitRelError != nil:
		fmt.Fprintf(w, "error      %.3g relative to %s (from %.3g at the initialization)\n", *s.RelError, *s.Truth, *s.InitRelError)
	case s.FinalChange != nil:
		fmt.Fprintf(w, "change     %.3g relative in the last iteration (no --truth to compare with)\n", *s.FinalChange)
	}
	per := ""
	if s.MsPerIter != nil {
		per = fmt.Sprintf(", %.3g ms per iteration", *s.MsPerIter)
	}
	fmt.Fprintf(w, "time       %.3g s solving%s; %.3g s reading, %.3g s initializing\n", s.Seconds, per, s.LoadSeconds, s.InitSeconds)
	paths := make([]string, len(s.Files))
	for i, f := range s.Files {
		paths[i] = filepath.Join(dir, f)
	}
	fmt.Fprintf(w, "results    %s\n", strings.Join(paths, ", "))
}
