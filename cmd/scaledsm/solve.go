package main

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/csvfmt"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/parse"
	"github.com/scaledsm/scaledsm/report"
)

// solverFlags choose the method, its loss, its step rule, the
// initialization's truncation and the stopping rule.
type solverFlags struct {
	method, loss, step, trim string
	ridge                    string
	lambda, q, eta           float64
	iters                    int
	restart                  bool
	polish                   bool
	tol                      float64
	fs                       *flag.FlagSet
}

// Flags of the solver settings, which also name the inputs of the
// library's errors.
var solverInputs = map[string]string{
	"method": "method", "loss": "loss", "step": "step", "lambda": "lambda", "q": "q", "eta": "eta",
	"trim": "trim", "tol": "tol", "iterations": "iters", "ridge": "ridge",
}

func (s *solverFlags) register(fs *flag.FlagSet) {
	s.fs = fs
	fs.StringVar(&s.method, "method", "scaledsm", "scaledsm, vanillasm (subgradient methods) or scaledgd, gd (gradient methods, the smooth baselines)")
	fs.StringVar(&s.loss, "loss", "", "l1, l2 (||A(X)-y||_2), l2sq (||A(X)-y||²/2) or l2trim (l2sq without the residuals beyond 6 times the mean kept residual of their row and of their column; entry models only)\n(default l1 for the subgradient methods, l2sq for the gradient methods, which need it; l2trim for matrix completion and robust PCA)")
	fs.StringVar(&s.step, "step", "", "stepsize rule: polyak (needs f(X*)), auto (needs nothing), geometric, or constant (smooth loss only)\n(default polyak for a synthetic problem, whose f(X*) is known, auto for files; constant for the gradient methods)")
	fs.Float64Var(&s.lambda, "lambda", 0, "geometric steps: initial step length lambda > 0, in the units of X (default the length of the\nfirst automatic step, its estimate of the distance to X*)")
	fs.Float64Var(&s.q, "q", 0.9, "geometric steps: decay rate q in (0, 1)")
	fs.Float64Var(&s.eta, "eta", 0, "constant steps: eta > 0 (default for scaledgd 0.5 on sensing, 0.05 on quadratic sampling; for gd the same divided by the top singular value of the initialization)")
	fs.StringVar(&s.trim, "trim", "", "truncation of the spectral initialization: a fraction in [0, 0.5) of largest |y_i| to drop, none, or median\n(drop |y_i| > 3·median|y|, needs no p_s) (default: with files, --ps if given; with a synthetic problem,\nits p_s, except with --step auto; median otherwise)")
	fs.StringVar(&s.ridge, "ridge", "", "penalty μ/2(||L||² + ||R||²), μ times the nuclear norm: none, a μ > 0 in the units of the whole matrix,\nor auto, which keeps an exact fit and otherwise chooses μ and the iterations on 5% of the entries held out\n(default auto for matrix completion and robust PCA with their default method, none otherwise)")
	fs.IntVar(&s.iters, "iters", 1000, "iteration limit of a fit (each start's, see --restart; the recommender: its number of sweeps,\nchosen by validation unless given)")
	fs.BoolVar(&s.polish, "polish", true, "robust PCA (every entry observed) with --ridge auto: complete the entries the fit does not mark\nas outliers, the marks grown by one entry, and keep that while it lowers Σ|y - x| (blobs' borders)")
	fs.BoolVar(&s.restart, "restart", true, "entries with --ridge auto: when the fit from the first start is not exact, fit again from the\nspectral start dropping the largest 40% of |y_i|, then on small matrices from the convex start, each\nwith its own --iters; the summary names every fit (fits)")
	fs.Float64Var(&s.tol, "tol", 1e-12, "stop when the relative error (without a truth: the relative change of X) reaches this; 0 never stops early")
}

// settings checks the flags and returns the solver settings for a problem
// whose source knows f(X*) (oracle) or X* (truth), of an entry model
// (entries: the defaults are entryDefaults') or not. What depends on the
// problem is filled in by complete, once it is loaded and initialized.
func (s *solverFlags) settings(oracle, truth, entries bool) (completion.Settings, error) {
	set := setFlags(s.fs)
	method, loss, modelDefaults, err := s.methodLoss(entries)
	if err != nil {
		return completion.Settings{}, err
	}
	step, name, err := s.stepRule(method, loss, modelDefaults, oracle || truth, oracle)
	if err != nil {
		return completion.Settings{}, err
	}
	model := entryDefaults()
	for _, only := range [][2]string{{"eta", "constant"}, {"lambda", "geometric"}, {"q", "geometric"}} {
		if set[only[0]] && name != only[1] {
			return completion.Settings{}, badFlag(only[0], flagValue(s.fs, only[0]), fmt.Sprintf("applies to --step %s, not %s", only[1], name))
		}
	}
	switch {
	case s.iters <= 0:
		return completion.Settings{}, badFlag("iters", s.iters, "must be positive")
	case !(s.tol >= 0):
		return completion.Settings{}, badFlag("tol", s.tol, "must be non-negative (0 never stops early)")
	}
	settings := completion.Settings{Settings: scaledsm.Settings{Method: method, Loss: loss, Step: step, MaxIter: s.iters, Tol: s.tol}}
	if s.tol == 0 {
		settings.Tol = -1 // never stop early
	}
	settings.OneStart = !s.restart
	if !s.polish {
		settings.Polish = completion.PolishNever
	}
	if entries && !set["tol"] {
		// Without a truth, the model's stop at a levelled loss (see
		// scaledsm.Plateau); a --tol given is honoured alone.
		settings.Converger = model.Converger
	}
	switch {
	case !set["ridge"]:
		if modelDefaults && loss == model.Loss {
			settings.Ridge = model.Ridge
		}
	case s.ridge == "auto":
		settings.Ridge = completion.AutoRidge
	case s.ridge == "none":
	default:
		mu, perr := strconv.ParseFloat(s.ridge, 64)
		if perr != nil || !(mu > 0) || math.IsInf(mu, 0) {
			return completion.Settings{}, badFlag("ridge", s.ridge, "want auto, none or a penalty μ > 0")
		}
		settings.Ridge = mu
	}
	if set["trim"] {
		if settings.Truncation, err = parse.Truncation(s.trim); err != nil {
			return completion.Settings{}, inputFlag(err, solverInputs)
		}
	}
	if err := settings.Validate(); err != nil {
		return completion.Settings{}, inputFlag(err, solverInputs)
	}
	return settings, nil
}

// methodLoss returns the method and the loss of the flags, and whether
// they are the entry models' defaults (whose default step goes with them).
func (s *solverFlags) methodLoss(entries bool) (scaledsm.Method, scaledsm.Loss, bool, error) {
	set := setFlags(s.fs)
	method, err := parse.Method(s.method)
	if err != nil {
		return 0, nil, false, badFlag("method", s.method, "want scaledsm, vanillasm, scaledgd or gd")
	}
	model := entryDefaults()
	if entries && !set["method"] {
		method = model.Method
	}
	// The model's default loss and step go with its default method.
	modelDefaults := entries && method == model.Method
	loss := method.DefaultLoss()
	if modelDefaults && model.Loss != nil {
		loss = model.Loss
	}
	if set["loss"] {
		if loss, err = parseLoss(s.loss); err != nil {
			return 0, nil, false, badFlag("loss", s.loss, "want l1, l2, l2sq or l2trim")
		}
	}
	if err := (scaledsm.Settings{Method: method, Loss: loss}).Validate(); err != nil {
		return 0, nil, false, inputFlag(err, solverInputs)
	}
	return method, loss, modelDefaults, nil
}

// parseLoss returns the loss named s: a standard one (parse.Loss)
// or l2trim, the entry models' trimmed least squares.
func parseLoss(s string) (scaledsm.Loss, error) {
	if s == (completion.TrimmedL2{}).String() {
		return completion.TrimmedL2{}, nil
	}
	return parse.Loss(s)
}

// stepRule returns the step rule of the flags and its name, for the method
// and loss (with the entry models' default step when they are the
// model's); known says whether f(X*) is known (a synthetic problem or
// --truth), oracle whether the problem is synthetic.
func (s *solverFlags) stepRule(method scaledsm.Method, loss scaledsm.Loss, modelDefaults, known, oracle bool) (scaledsm.Step, string, error) {
	set := setFlags(s.fs)
	model := entryDefaults()
	name := s.step
	if !set["step"] {
		// --lambda and --q are the geometric rule's: they do not choose it
		// (a setting never replaces another silently).
		for _, only := range []string{"lambda", "q"} {
			if set[only] && !method.Smooth() {
				return nil, "", badFlag(only, flagValue(s.fs, only), "applies to --step geometric: give --step geometric too")
			}
		}
		switch {
		case method.Smooth():
			name = "constant"
		case oracle:
			name = "polyak"
		default:
			name = "auto"
		}
	}
	var step scaledsm.Step
	if modelDefaults && !set["step"] && !set["eta"] && !set["lambda"] && !set["q"] && model.Step != nil {
		step, name = model.Step, fmt.Sprint(model.Step)
	}
	switch name {
	case fmt.Sprint(step):
		// The model's default, chosen above.
	case "polyak":
		if !known {
			return nil, "", badFlag("step", name, "Polyak's step needs f(X*), known here only from --truth; use --step auto")
		}
		step = scaledsm.Polyak{} // f(X*) once the problem is loaded
	case "auto":
		step = scaledsm.Auto{}
	case "geometric":
		lambda := s.lambda
		if !set["lambda"] {
			lambda = 1 // a placeholder until the initialization gives the default
		}
		step = scaledsm.Geometric{Lambda: lambda, Q: s.q}
	case "constant":
		if !loss.Base().Smooth() {
			return nil, "", badFlag("step", name, fmt.Sprintf("a constant step does not converge on the nonsmooth %v loss; use polyak, auto or geometric", loss))
		}
		eta := s.eta
		if !set["eta"] {
			eta = 1 // a placeholder until the initialization gives the default
		}
		step = scaledsm.Constant{Eta: eta}
	default:
		return nil, "", badFlag("step", s.step, "want polyak, auto, geometric or constant")
	}
	return step, name, nil
}

// complete fills in the settings that depend on the problem: f(X*) for
// Polyak's step, the truncation when --trim is not given (the fraction
// --ps with files; with a synthetic problem its p_s, but the median rule
// with --step auto, which is told nothing; the median rule when p_s is
// unknown), then the spectral
// initialization, and from it the default constant and geometric steps.
func (s *solverFlags) complete(ctx context.Context, settings *scaledsm.Settings, ld *loaded) error {
	set := setFlags(s.fs)
	if _, ok := settings.Step.(scaledsm.Polyak); ok {
		settings.Step = scaledsm.Polyak{FStar: ld.problem.TruthLoss(settings.Loss.Base())}
	}
	if !set["trim"] {
		// The user's --ps with files is what they know; a synthetic
		// problem's p_s is known to the oracle steps, not to auto.
		// l2trim, as auto, is told nothing of the outliers.
		_, auto := settings.Step.(scaledsm.Auto)
		_, trimmed := settings.Loss.(completion.TrimmedL2)
		blind := auto || trimmed
		settings.Truncation = scaledsm.Truncation{}
		if !math.IsNaN(ld.ps) && (ld.files != nil || !blind) {
			settings.Truncation = scaledsm.TruncateFraction(ld.ps)
		}
	}
	ld.problem.Clean = ld.ps == 0 // --ps 0: no outliers, as the user knows
	p := ld.problem
	if p.Rank != scaledsm.AutoRank {
		// With --rank auto, Solve initializes each fit itself.
		init, err := scaledsm.Initial(ctx, p, *settings)
		if err != nil {
			return err
		}
		settings.Init = &init
	}
	switch step := settings.Step.(type) {
	case scaledsm.Constant:
		if !set["eta"] {
			settings.Step = scaledsm.Constant{Eta: scaledsm.DefaultEta(settings.Method, p.Op, settings.Init)}
		}
	case scaledsm.Geometric:
		if !set["lambda"] {
			lambda, err := scaledsm.DefaultLambda(ctx, p, *settings)
			if err != nil {
				return err
			}
			if !(lambda > 0) || math.IsInf(lambda, 0) {
				return badFlag("step", "geometric", "the initialization gives no length for the first step; give --lambda")
			}
			step.Lambda = lambda
			settings.Step = step
		}
	}
	return nil
}

// outputFlags say where solve writes its results.
type outputFlags struct {
	out, trace string
	json       bool
}

func (o *outputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "out", "", "directory for the results: L.npy, R.npy (not for X = L Lᵀ), trace.csv, summary.json\n(created with its parents if needed; without it, nothing is written)")
	fs.StringVar(&o.trace, "trace", "", "write the per-iteration trace to this CSV file")
	fs.BoolVar(&o.json, "json", false, "print the summary as one JSON object")
}

// check makes sure the outputs can be written before any work starts,
// creating nothing: an existing --out must be a writable directory, a new
// one needs a writable parent, and so does --trace.
func (o *outputFlags) check() error {
	if o.out != "" {
		if st, err := os.Stat(o.out); err == nil {
			if !st.IsDir() {
				return badFlag("out", o.out, "is not a directory")
			}
			if err := probe(o.out); err != nil {
				return badFlag("out", o.out, "cannot write there: "+unwrapPath(err).Error())
			}
		} else if err := writableParent(o.out); err != nil {
			return badFlag("out", o.out, "cannot be created: "+err.Error())
		}
	}
	if o.trace != "" {
		if st, err := os.Stat(o.trace); err == nil && st.IsDir() {
			return badFlag("trace", o.trace, "is a directory")
		}
		if err := writableParent(o.trace); err != nil {
			return badFlag("trace", o.trace, "cannot be written: "+err.Error())
		}
	}
	return nil
}

// setError is the error of a set of files that could not be written to
// dir: none of them was (atomicio.Set), so dir holds what it held.
func setError(dir string, err error) error {
	return exitError{fmt.Errorf("--out %s: %v; nothing of this run was written, the files there are as they were", dir, unwrapPath(err)), exitOutput}
}

// refuseInputs refuses outputs that would replace an input file.
func (o *outputFlags) refuseInputs(ff *fileFlags, ef *entryFlags) error {
	inputs := []input{{"sensing", ff.sensing}, {"quadratic", ff.quadratic}, {"y", ff.y}, {"truth", ff.truth},
		{"rows", ef.rows}, {"cols", ef.cols}, {"values", ef.values}, {"ratings", ef.ratings}, {"masked", ef.masked},
		{"truth-left", ef.truthLeft}, {"truth-right", ef.truthRight}}
	if o.out != "" {
		if err := refuseOverwrite("out", o.out, within(o.out, append(solveOutputs(), "trace.csv", "summary.json")), inputs...); err != nil {
			return err
		}
	}
	if o.trace != "" {
		return refuseOverwrite("trace", o.trace, []string{o.trace}, inputs...)
	}
	return nil
}

// writableParent reports why path cannot be created, or nil: its nearest
// existing ancestor must be a writable directory (missing directories
// between them are created when the output is written).
func writableParent(path string) error {
	parent := filepath.Dir(filepath.Clean(path))
	for {
		st, err := os.Stat(parent)
		switch {
		case errors.Is(err, os.ErrNotExist):
			up := filepath.Dir(parent)
			if up == parent {
				return fmt.Errorf("the directory %s does not exist", parent)
			}
			parent = up
			continue
		case err != nil:
			return fmt.Errorf("%s: %v", parent, unwrapPath(err))
		case !st.IsDir():
			return fmt.Errorf("%s is not a directory", parent)
		}
		if err := probe(parent); err != nil {
			return fmt.Errorf("%s: %v", parent, unwrapPath(err))
		}
		return nil
	}
}

// probe creates and removes a file in dir, to learn whether it is writable.
func probe(dir string) error {
	f, err := os.CreateTemp(dir, ".scaledsm-probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// solveCmd is solve's flags, in groups, and its output streams.
type solveCmd struct {
	fs             *flag.FlagSet
	sp             synthFlags
	ff             fileFlags
	ef             entryFlags
	sf             solverFlags
	st             startFlags
	of             outputFlags
	rf             recommendFlags
	kernel         *string
	stdout, stderr io.Writer
}

const solveSynopsis = "Recovers a low-rank matrix and prints a summary (or JSON with --json): by default\nfrom a synthetic problem of the paper's Section 4 recipe; with --sensing or\n--quadratic from NumPy .npy files; with --rows, --ratings or --masked from some of\nits entries (matrix completion, robust PCA). With --out DIR it writes the factors, the trace\nand the summary there."

// newSolveCmd registers solve's flags.
func newSolveCmd(stdout, stderr io.Writer) *solveCmd {
	c := &solveCmd{fs: newFlagSet("solve", solveSynopsis, stdout), stdout: stdout, stderr: stderr}
	c.sp.register(c.fs)
	c.fs.StringVar(&c.sp.precision, "precision", "f64", "the operator's data: f64, or f32 to round it to float32 values, stored as float32 for\nsensing (half the memory and time; y is computed from the stored values, the arithmetic is float64);\nfor mc and rpca, the observations rounded to float32 and held so (the rounding is noise)")
	c.ff.register(c.fs)
	c.ef.register(c.fs)
	c.sf.register(c.fs)
	c.st.register(c.fs)
	c.of.register(c.fs)
	c.rf.register(c.fs)
	c.kernel = kernelFlag(c.fs)
	c.fs.Usage = solveUsage(c.fs, solveSynopsis)
	return c
}

// runSolve parses solve's flags, checks everything that can be checked
// before the work starts (the flags, the outputs, the memory), reads or
// draws the problem, solves it and reports.
func runSolve(args []string, stdout, stderr io.Writer) error {
	c := newSolveCmd(stdout, stderr)
	if err := parseFlags(c.fs, args); err != nil {
		return err
	}
	if err := useKernel(*c.kernel); err != nil {
		return err
	}
	if c.rf.interactions != "" {
		if c.ef.given() {
			return badFlag("interactions", c.rf.interactions, "give either --interactions or --ratings (or other entries), not both")
		}
		return runInteractions(c)
	}
	model, err := c.ratingsModel()
	if err != nil {
		return err
	}
	if model == modelBayes || model == modelRidge {
		return runRecommend(c, model)
	}
	src, err := c.source()
	if err != nil {
		return err
	}
	settings, err := c.settings(src)
	if err != nil {
		return err
	}
	// Stop after the current iteration on SIGINT or SIGTERM, and keep
	// catching them while the results are written.
	ctx, stop := interruptContext()
	defer stop()
	ld, err := c.load(ctx, src, &settings)
	if err != nil {
		return err
	}
	setPhase("solving")
	if t, ok := world.(*timedReducer); ok {
		t.reset()
	}
	bar := newProgress(stderr, settings.Settings)
	if bar != nil && rank0() && !c.of.json {
		settings.Recorder = bar.record
	}
	t1 := time.Now()
	res, err := completion.Solve(ctx, ld.problem, settings)
	bar.clear()
	if err != nil {
		return inputFlag(inputFlag(err, solverInputs), src.inputs())
	}
	return c.report(ld, settings, res, time.Since(t1))
}

// ratingsModel returns the model of a ratings file ("" without one),
// having checked that the flags given suit it.
func (c *solveCmd) ratingsModel() (string, error) {
	ef, rf := &c.ef, &c.rf
	if ef.ratings == "" {
		if err := rf.rejectOutside("this problem"); err != nil {
			return "", err
		}
		if rf.columns != "" {
			return "", badFlag("columns", rf.columns, "applies to --ratings")
		}
		return "", nil
	}
	for _, other := range [][2]string{{"rows", ef.rows}, {"cols", ef.cols}, {"values", ef.values}, {"masked", ef.masked}} {
		if other[1] != "" {
			return "", badFlag("ratings", ef.ratings, "give either --"+other[0]+" or --ratings, not both")
		}
	}
	model, err := rf.ratingsModel()
	if err != nil || model != modelLowRank {
		return model, err
	}
	set := setFlags(c.fs)
	chosen := "(--model lowrank)"
	if !set["model"] {
		chosen = "that --" + rf.solverFlag() + ", a flag of its solver, chose"
	}
	for _, name := range recommendOnly[1:] {
		if set[name] {
			return "", badFlag(name, flagValue(c.fs, name), "applies to --model bayes or ridge, not to the plain low-rank completion "+chosen)
		}
	}
	return model, nil
}

// source returns where the problem comes from: entries, sensing files,
// or a synthetic draw.
func (c *solveCmd) source() (source, error) {
	switch {
	case c.ef.given():
		if c.ff.given() {
			return nil, badFlag("sensing", c.ff.sensing+c.ff.quadratic, "give either --sensing/--quadratic files or entries (--rows, --ratings, --masked), not both")
		}
		e, err := c.ef.config(&c.ff, &c.sp)
		if err != nil {
			return nil, err
		}
		e.layout, err = c.rf.layout()
		return e, err
	case c.ff.given():
		if err := c.ef.reject("--sensing or --quadratic files"); err != nil {
			return nil, err
		}
		return c.ff.config(c.sp.ps, c.sp.n2)
	}
	if err := c.ff.rejectInSynthetic(); err != nil {
		return nil, err
	}
	if err := c.ef.reject("a synthetic problem"); err != nil {
		return nil, err
	}
	return c.sp.config()
}

// settings returns the solver's settings for the problem of src, having
// checked the outputs and the memory the solve needs.
func (c *solveCmd) settings(src source) (completion.Settings, error) {
	settings, err := c.sf.settings(src.oracle(), src.truth(), src.entries())
	if err != nil {
		return settings, err
	}
	seed, synthetic := seedOf(src)
	if err := c.st.apply(&settings.Settings, seed, synthetic); err != nil {
		return settings, err
	}
	if rank0() {
		if err := c.of.check(); err != nil {
			return settings, err
		}
		if err := c.of.refuseInputs(&c.ff, &c.ef); err != nil {
			return settings, err
		}
	}
	// --rank auto and AutoRidge (which validates only without a truth)
	// hold the entries a second time, split.
	validating := src.entries() && (c.ff.rank == scaledsm.AutoRank || settings.Ridge == completion.AutoRidge && !src.truth())
	return settings, checkMemory(src, validating)
}

// load reads or draws the problem of src, warns of what it lacks, and
// completes the settings from its initialization.
func (c *solveCmd) load(ctx context.Context, src source, settings *completion.Settings) (*loaded, error) {
	_, synthetic := src.(*synthetic)
	setPhase(map[bool]string{true: "drawing the problem", false: "reading the problem"}[synthetic])
	if src.entries() {
		// Entries hold no pointers: a tight collector costs little and
		// keeps the heap near what is live (LIBMF's footprint is the bar).
		mem.TuneGC(mem.BigData)
	}
	ld, err := src.load()
	if err != nil {
		return nil, err
	}
	if src.entries() {
		debug.FreeOSMemory() // the files' arrays, copied into the operator
	}
	if ctx.Err() != nil {
		return nil, exitError{fmt.Errorf("interrupted while %s; nothing written", *phase.Load()), exitInterrupted}
	}
	if err := fitRank(ld, c.ff.rank, settings.Settings); err != nil {
		return nil, err
	}
	setPhase("initializing")
	if err := c.sf.complete(ctx, &settings.Settings, ld); err != nil {
		if ctx.Err() != nil {
			return nil, exitError{errors.New("interrupted while initializing; nothing written"), exitInterrupted}
		}
		return nil, inputFlag(inputFlag(inputFlag(err, solverInputs), startInputs), src.inputs())
	}
	// The warnings once the settings are known good: bad input is one line.
	if rank0() {
		warnRank(c.stderr, ld)
		if c.of.out == "" && !synthetic && !c.of.json {
			fmt.Fprintln(c.stderr, "scaledsm solve: warning: no --out: the factors will not be written")
		}
	}
	if e := ld.entries; e != nil && (e.json.EmptyRows > 0 || e.json.EmptyCols > 0) {
		fmt.Fprintf(c.stderr, "scaledsm solve: warning: %d rows and %d columns have no entry to fit; their factors stay at zero, and their entries are not recovered\n",
			e.json.EmptyRows, e.json.EmptyCols)
	}
	if src.entries() {
		debug.FreeOSMemory() // the initialization's buffers, before the run's
	}
	ld.setup = time.Since(started)
	return ld, nil
}

// report summarizes the solve, writes its results and prints the summary.
func (c *solveCmd) report(ld *loaded, settings completion.Settings, res *completion.Result, solve time.Duration) error {
	sum := &report.Summary{Shape: ld.shape, Draw: ld.draw, Inputs: ld.files, Run: report.NewRun(settings.Settings, res),
		Timing: report.NewTiming(res, solve), Choices: report.NewChoices(settings.Settings, res), Began: started}
	sum.SetRank(ld.problem.Rank, settings.Settings, res)
	var extra []namedWriter
	if e := ld.entries; e != nil {
		e.json.SetTest(res.Factors, e.test)
		if res.Status != scaledsm.Diverged {
			if err := e.outlierSupport(ld.problem, res.Factors); err != nil {
				return err
			}
		}
		sum.Entries = &e.json
		if c.of.out != "" {
			extra = e.outputs(ld.problem, res.Factors)
		}
	}
	sum.Source = map[bool]string{true: "files", false: "synthetic"}[ld.files != nil]
	if p, ok := settings.Step.(scaledsm.Polyak); ok {
		sum.FStar = report.Finite(p.FStar)
	}
	sum.SetupSeconds = ld.setup.Seconds()
	sum.Interrupted = res.Status == scaledsm.Interrupted
	rankFigures(sum, ld.problem, res.Iterations)
	settled = true // the last collective
	if !rank0() {
		return outcome(res, io.Discard, "")
	}
	setPhase(writingPhase)
	if err := writeResults(&c.of, sum, res, extra); err != nil {
		return err
	}
	sum.Stamp()
	if c.of.json {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		sum.Print(c.stdout, c.of.out)
		if c.of.trace != "" {
			fmt.Fprintf(c.stdout, "trace      %s\n", c.of.trace)
		}
	}
	return outcome(res, c.stderr, c.of.out)
}

// outcome returns the error that gives a finished solve its exit code, and
// warns on stderr of an iteration limit or a stall.
func outcome(res *completion.Result, stderr io.Writer, out string) error {
	at := fmt.Sprintf("at relative error %.3g", res.RelError)
	if math.IsNaN(res.RelError) {
		at = fmt.Sprintf("with %.1f%% of the measurements fitted exactly", 100*res.FitFraction)
	}
	switch {
	case res.Status == scaledsm.Interrupted:
		msg := "interrupted after " + report.Iterations(res.Iterations)
		if out != "" {
			msg += "; the partial result is in " + out
		}
		return exitError{errors.New(msg), exitInterrupted}
	case res.Status.Failed():
		msg := fmt.Sprintf("the solve failed: %v after %s", res.Status, report.Iterations(res.Iterations))
		if n := len(res.Trace); res.Status == scaledsm.Diverged && n > 1 {
			msg += fmt.Sprintf(" (the loss went from %.3g to %.3g)", res.Trace[0].Loss, res.Trace[n-1].Loss)
		}
		if out != "" {
			l, _ := factorNames(res.Status)
			msg += fmt.Sprintf("; its last iterate, not a result, is in %s", filepath.Join(out, l))
		}
		return exitError{errors.New(msg), exitFailed}
	case res.Status == scaledsm.IterationLimit:
		fmt.Fprintf(stderr, "scaledsm solve: warning: stopped at the iteration limit (%d) %s, short of --tol\n", res.Iterations, at)
	case res.Status == scaledsm.Partial:
		r := report.Run{UnfittedRows: res.UnfittedRows, UnfittedCols: res.UnfittedCols, GrossRows: res.GrossRows, GrossCols: res.GrossCols}
		fmt.Fprintf(stderr, "scaledsm solve: warning: X stopped changing after %s, but on data declared free of outliers it leaves %s: not recovered there\n", report.Iterations(res.Iterations), r.Localized())
	case res.Status == scaledsm.Stalled:
		fmt.Fprintf(stderr, "scaledsm solve: warning: stalled after %s %s: the step rule gave a zero step\n", report.Iterations(res.Iterations), at)
	}
	return nil
}

// factorFiles are the names of every factor file a solve may write.
var factorFiles = []string{"L.npy", "R.npy", "L.diverged.npy", "R.diverged.npy", "L.singular.npy", "R.singular.npy"}

// factorNames returns the names of the factor files of a result: L.npy and
// R.npy, or, when the solve failed, L.diverged.npy and R.diverged.npy (or
// .singular): the last iterate, kept to be looked at, labelled as what it
// is, not a result, and never where a script expects one.
func factorNames(s scaledsm.Status) (l, r string) {
	if s.Failed() {
		return "L." + s.String() + ".npy", "R." + s.String() + ".npy"
	}
	return "L.npy", "R.npy"
}

// writeResults writes --out's files (each complete or not at all, the set
// renamed into place together), with the extra files of the model, and
// --trace.
func writeResults(of *outputFlags, sum *report.Summary, res *completion.Result, extra []namedWriter) error {
	if of.out != "" {
		// Another solve into the same directory waits, so that it holds
		// one solve's complete set of files.
		unlock, err := atomicio.Lock(of.out)
		if err != nil {
			return outputError("out", of.out, err)
		}
		defer unlock()
		lname, rname := factorNames(res.Status)
		sum.Files = []string{lname, rname}
		if res.R == nil {
			sum.Files = []string{lname}
		}
		for _, e := range extra {
			sum.Files = append(sum.Files, e.name)
		}
		sum.Files = append(sum.Files, "trace.csv", "summary.json")
		var set atomicio.Set
		add := func(name string, write func(io.Writer) error) error {
			return set.Add(filepath.Join(of.out, name), write)
		}
		err = add(lname, func(w io.Writer) error { return dataio.WriteDense(w, res.L) })
		if err == nil && res.R != nil {
			err = add(rname, func(w io.Writer) error { return dataio.WriteDense(w, res.R) })
		}
		for _, e := range extra {
			if err == nil {
				err = add(e.name, e.write)
			}
		}
		if err == nil {
			err = add("trace.csv", func(w io.Writer) error { return writeTrace(w, res.Trace) })
		}
		if err == nil {
			err = add("summary.json", func(w io.Writer) error {
				sum.Stamp()
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			})
		}
		if err == nil {
			err = set.Commit()
		}
		if err != nil {
			return setError(of.out, err)
		}
		if err == nil {
			// Files of an earlier solve (an R of an asymmetric result, a
			// result beside a failure's last iterate, a recommender's
			// model) would not belong with these.
			err = removeOthers(of.out, sum.Files)
		}
		if err != nil {
			return outputError("out", of.out, err)
		}
	}
	if of.trace != "" {
		if err := atomicio.WriteFile(of.trace, func(w io.Writer) error { return writeTrace(w, res.Trace) }); err != nil {
			return outputError("trace", of.trace, err)
		}
	}
	return nil
}

// writeTrace writes a trace as tidy CSV: one row per iteration, empty
// fields where a value does not apply.
func writeTrace(w io.Writer, trace []scaledsm.Iteration) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"iteration", "rel_error", "change", "loss", "gap", "step", "step_length"})
	for _, it := range trace {
		cw.Write([]string{strconv.Itoa(it.Iter), csvfmt.Float(it.RelError), csvfmt.Float(it.Change),
			csvfmt.Float(it.Loss), csvfmt.Float(it.Gap), csvfmt.Float(it.Step), csvfmt.Float(it.StepLength)})
	}
	cw.Flush()
	return cw.Error()
}

// solveUsage prints the help of solve with the flags in groups: the synthetic
// problem's, the files', and the rest.
func solveUsage(fs *flag.FlagSet, synopsis string) func() {
	return func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage:\n  scaledsm solve [flags]                 a synthetic problem\n  scaledsm solve --sensing A.npy --y y.npy --rank r --out DIR [flags]\n  scaledsm solve --quadratic A.npy --y y.npy --rank r --out DIR [flags]\n  scaledsm solve --rows R.npy --cols C.npy --values V.npy --shape N1xN2 --rank r --out DIR [flags]\n  scaledsm solve --masked Y.npy --rank r --out DIR [flags]\n  scaledsm solve --ratings ratings.csv [--test test.csv] --out DIR [flags]   a recommender\n\n%s\n", synopsis)
		groups := []struct {
			title string
			names []string
		}{
			{"Synthetic problem (the default):", syntheticOnly},
			{"Problem from NumPy .npy files (float64 or float32, C or Fortran order):", filesOnly},
			{"Matrix completion or robust PCA from entries in files (with --rank and --out; --ps and --truth-left/-right optional):", entryOnly},
			{"Ratings (--ratings): the recommender (docs/recommend.md), or with --model lowrank or a solver flag the low-rank completion above:", ratingsFlags},
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
			"  --truth); --ps, if given, is the fraction assumed corrupted, which the\n"+
			"  initialization drops; without --truth, --tol applies to the relative change of\n"+
			"  X_t between iterations, and the run ends \"stationary\", not \"converged\".\n"+
			"  The entry models without a truth and without --tol also stop, \"plateau\", when\n"+
			"  50 iterations have lowered the loss by less than 0.1% (scaledsm.Plateau).\n")
		d := entryDefaults()
		fmt.Fprintf(w, "  Matrix completion and robust PCA (mc, rpca, entry files) default to --method %v\n  with its %v loss and --step %v.\n",
			d.Method, cmp.Or(d.Loss, d.Method.DefaultLoss()), d.Step)
		fmt.Fprintln(w, "\nBoth:")
		fs.VisitAll(func(f *flag.Flag) {
			if !listed[f.Name] {
				printFlag(w, f)
			}
		})
		fmt.Fprint(w, "\nExit status: 0 done (converged, stationary, plateau; an iteration limit, a stall or a\n"+
			"partial recovery warns on stderr), 1 the solve failed (diverged or singular), 2 bad input or not enough\n"+
			"memory, 3 an output could not be written (none of this run's files is; those already there are kept), 130\n"+
			"interrupted by SIGINT, 143 by SIGTERM.\n")
	}
}
