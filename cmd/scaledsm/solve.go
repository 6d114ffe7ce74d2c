package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/synth"
)

// problemFlags describe a synthetic problem of the paper's recipe.
type problemFlags struct {
	problem        string
	precision      string // solve only: f64 or f32
	n, n2, r, m    int
	kappa, ps, snr float64
	seed           uint64
	fs             *flag.FlagSet
}

func (p *problemFlags) register(fs *flag.FlagSet) {
	p.fs = fs
	fs.StringVar(&p.problem, "problem", "qs", "measurement model: ms (matrix sensing, X = L Rᵀ) or qs (quadratic sampling, X = L Lᵀ)")
	fs.IntVar(&p.n, "n", 100, "rows n1 of X* (and columns, unless --n2 is given)")
	fs.IntVar(&p.n2, "n2", 0, "columns n2 of X* (default n; sensing only)")
	fs.IntVar(&p.r, "r", 5, "rank r of X*")
	fs.IntVar(&p.m, "m", 0, "number of measurements (default 4(n1+n2)r, the paper's 8nr when square)")
	fs.Float64Var(&p.kappa, "kappa", 10, "condition number of X*: singular values evenly spaced from kappa to 1")
	fs.Float64Var(&p.ps, "ps", 0, "fraction p_s of measurements corrupted by outliers, in [0, 0.5)")
	fs.Float64Var(&p.snr, "snr", math.Inf(1), "signal-to-noise ratio in dB of the dense bounded noise (default none)")
	fs.Uint64Var(&p.seed, "seed", 1, "seed of every random draw")
}

// config checks the flags and returns the problem's configuration and
// setting.
func (p *problemFlags) config() (synth.Config, synth.Setting, error) {
	kind, err := synth.ParseKind(p.problem)
	if err != nil {
		return synth.Config{}, synth.Setting{}, badFlag("problem", p.problem, "want ms or qs")
	}
	set := setFlags(p.fs)
	switch {
	case p.n < 1:
		return synth.Config{}, synth.Setting{}, badFlag("n", p.n, "must be at least 1")
	case set["n2"] && p.n2 < 1:
		return synth.Config{}, synth.Setting{}, badFlag("n2", p.n2, "must be at least 1")
	case set["n2"] && kind == synth.Quadratic && p.n2 != p.n:
		return synth.Config{}, synth.Setting{}, badFlag("n2", p.n2, fmt.Sprintf("quadratic sampling recovers a square matrix; leave --n2 out or set it to --n %d", p.n))
	}
	n2 := p.n
	if set["n2"] {
		n2 = p.n2
	}
	switch {
	case p.r < 1 || p.r > min(p.n, n2):
		return synth.Config{}, synth.Setting{}, badFlag("r", p.r, fmt.Sprintf("rank must lie in [1, min(n1, n2)] = [1, %d]", min(p.n, n2)))
	case set["m"] && p.m < 1:
		return synth.Config{}, synth.Setting{}, badFlag("m", p.m, "must be at least 1")
	case !(p.kappa >= 1) || math.IsInf(p.kappa, 0):
		return synth.Config{}, synth.Setting{}, badFlag("kappa", p.kappa, "condition number must be finite and at least 1")
	case !(p.ps >= 0 && p.ps < 0.5):
		return synth.Config{}, synth.Setting{}, badFlag("ps", p.ps, "outlier fraction must lie in [0, 0.5)")
	case math.IsNaN(p.snr) || math.IsInf(p.snr, -1):
		return synth.Config{}, synth.Setting{}, badFlag("snr", p.snr, "must be a number of dB")
	}
	c := synth.Config{Kind: kind, N1: p.n, N2: n2, Rank: p.r, M: p.m, Seed: p.seed}
	if p.precision != "" {
		if c.Precision, err = synth.ParsePrecision(p.precision); err != nil {
			return synth.Config{}, synth.Setting{}, badFlag("precision", p.precision, "want f64 or f32")
		}
		if c.Precision == synth.Float32 && kind != synth.Sensing {
			return synth.Config{}, synth.Setting{}, badFlag("precision", p.precision, "float32 storage applies to matrix sensing (--problem ms); quadratic sampling data is small")
		}
	}
	if err := c.Validate(); err != nil {
		return synth.Config{}, synth.Setting{}, usageError{err.Error()}
	}
	return c, synth.Setting{Kappa: p.kappa, PS: p.ps, SNR: p.snr}, nil
}

// solverFlags choose the method, its loss, its step rule, the
// initialization's truncation and the stopping rule.
type solverFlags struct {
	method, loss, step, trim string
	lambda, q, eta           float64
	iters                    int
	tol                      float64
	fs                       *flag.FlagSet
}

func (s *solverFlags) register(fs *flag.FlagSet) {
	s.fs = fs
	fs.StringVar(&s.method, "method", "scaledsm", "scaledsm, vanillasm (subgradient methods) or scaledgd, gd (gradient methods, the smooth baselines)")
	fs.StringVar(&s.loss, "loss", "", "l1, l2 (||A(X)-y||_2) or l2sq (||A(X)-y||²/2) (default l1 for the subgradient methods, l2sq for the gradient methods, which need it)")
	fs.StringVar(&s.step, "step", "", "stepsize rule: polyak (needs f(X*)), auto (needs nothing), geometric, or constant (smooth loss only) (default polyak for the subgradient methods when f(X*) is known, as for synthetic data, auto when it is not; constant for the gradient methods)")
	fs.Float64Var(&s.lambda, "lambda", 2, "geometric steps: initial step length lambda > 0")
	fs.Float64Var(&s.q, "q", 0.9, "geometric steps: decay rate q in (0, 1)")
	fs.Float64Var(&s.eta, "eta", 0, "constant steps: eta > 0 (default for scaledgd 0.5 on sensing, 0.05 on quadratic sampling; for gd the same divided by the top singular value of the initialization)")
	fs.StringVar(&s.trim, "trim", "", "truncation of the spectral initialization: a fraction in [0, 0.5) of largest |y_i| to drop, or median (drop |y_i| > 3·median|y|, needs no p_s) (default median with --step auto, else the outlier fraction when it is known)")
	fs.IntVar(&s.iters, "iters", 1000, "iteration limit")
	fs.Float64Var(&s.tol, "tol", 1e-12, "stop when the relative error reaches this")
}

// settings checks the flags and returns the solver settings. fStar is
// f(X*), or NaN when it is unknown; the caller sets Polyak's FStar for the
// loss chosen, Constant's Eta when --eta is not given (see defaultEta) and
// the initialization's trim when --trim is not given (see initTrim).
func (s *solverFlags) settings(fStar float64) (scaledsm.Settings, error) {
	set := setFlags(s.fs)
	method, err := scaledsm.ParseMethod(s.method)
	if err != nil {
		return scaledsm.Settings{}, badFlag("method", s.method, "want scaledsm, vanillasm, scaledgd or gd")
	}
	loss := method.DefaultLoss()
	if set["loss"] {
		if loss, err = scaledsm.ParseLoss(s.loss); err != nil {
			return scaledsm.Settings{}, badFlag("loss", s.loss, "want l1, l2 or l2sq")
		}
	}
	if method.Smooth() && !loss.Smooth() {
		return scaledsm.Settings{}, badFlag("loss", s.loss, fmt.Sprintf("%v is a gradient method and needs the smooth loss l2sq (use --method scaledsm or vanillasm for %v)", method, loss))
	}
	known := !math.IsNaN(fStar)
	name := s.step
	if !set["step"] {
		// --lambda or --q name the geometric rule, when the method can use it.
		switch {
		case (set["lambda"] || set["q"]) && !method.Smooth():
			name = "geometric"
		case method.Smooth():
			name = "constant"
		case known:
			name = "polyak"
		default:
			name = "auto"
		}
	}
	var step scaledsm.Step
	switch name {
	case "polyak":
		if !known {
			return scaledsm.Settings{}, badFlag("step", name, "needs f(X*), which only synthetic data gives; use auto")
		}
		step = scaledsm.Polyak{FStar: fStar}
	case "auto":
		step = scaledsm.Auto{}
	case "geometric":
		switch {
		case !(s.lambda > 0) || math.IsInf(s.lambda, 0):
			return scaledsm.Settings{}, badFlag("lambda", s.lambda, "must be positive and finite")
		case !(s.q > 0 && s.q < 1):
			return scaledsm.Settings{}, badFlag("q", s.q, "must lie in (0, 1)")
		}
		step = scaledsm.Geometric{Lambda: s.lambda, Q: s.q}
	case "constant":
		if !loss.Smooth() {
			return scaledsm.Settings{}, badFlag("step", name, fmt.Sprintf("a constant step does not converge on the nonsmooth %v loss; use polyak, auto or geometric", loss))
		}
		if set["eta"] && (!(s.eta > 0) || math.IsInf(s.eta, 0)) {
			return scaledsm.Settings{}, badFlag("eta", s.eta, "must be positive and finite")
		}
		step = scaledsm.Constant{Eta: s.eta}
	default:
		return scaledsm.Settings{}, badFlag("step", s.step, "want polyak, auto, geometric or constant")
	}
	for _, only := range [][2]string{{"eta", "constant"}, {"lambda", "geometric"}, {"q", "geometric"}} {
		if set[only[0]] && name != only[1] {
			return scaledsm.Settings{}, badFlag(only[0], s.fs.Lookup(only[0]).Value, fmt.Sprintf("applies to --step %s, not %s", only[1], name))
		}
	}
	switch {
	case s.iters <= 0:
		return scaledsm.Settings{}, badFlag("iters", s.iters, "must be positive")
	case !(s.tol >= 0):
		return scaledsm.Settings{}, badFlag("tol", s.tol, "must be non-negative")
	}
	if set["trim"] {
		if _, err := s.initTrim(0); err != nil {
			return scaledsm.Settings{}, err
		}
	}
	tol := s.tol
	if tol == 0 {
		tol = -1 // never stop early
	}
	return scaledsm.Settings{Method: method, Loss: loss, Step: step, MaxIter: s.iters, Tol: tol}, nil
}

// initTrim returns the truncation of the spectral initialization: --trim
// when given, otherwise MedianTrim with --step auto or when the outlier
// fraction ps is unknown (NaN), and ps itself otherwise.
func (s *solverFlags) initTrim(ps float64) (scaledsm.Trim, error) {
	if !setFlags(s.fs)["trim"] {
		if s.stepName() == "auto" || math.IsNaN(ps) {
			return scaledsm.Trim{}, nil
		}
		return scaledsm.TrimFraction(ps), nil
	}
	t, err := scaledsm.ParseTrim(s.trim)
	if err != nil {
		return t, badFlag("trim", s.trim, "want a fraction in [0, 0.5) or median")
	}
	return t, nil
}

// stepName returns the name of the step rule that settings chose.
func (s *solverFlags) stepName() string {
	if setFlags(s.fs)["step"] {
		return s.step
	}
	return ""
}

// defaultEta returns the constant step used when --eta is not given: 0.5
// for scaledgd on sensing and 0.05 on quadratic sampling, whose heavy-tailed
// least squares tolerate less (measured at the paper's sizes: 0.1 diverges
// at n=100, r=5); for gd the same divided by σ₁ of the initialization, as
// the authors divide by σ₁(X*).
func defaultEta(method scaledsm.Method, op scaledsm.Operator, init scaledsm.Factors) float64 {
	eta := 0.5
	if op.Symmetric() {
		eta = 0.05
	}
	if method == scaledsm.GD {
		var svd mat.SVD
		if svd.Factorize(init.Product(), mat.SVDNone) {
			if s1 := svd.Values(nil)[0]; s1 > 0 {
				eta /= s1
			}
		}
	}
	return eta
}

// fStarFor returns f(X*) of an instance for the loss: the loss of the
// residuals A(X*) - y = -(w + s).
func fStarFor(loss scaledsm.Loss, in *synth.Instance) float64 {
	if loss == scaledsm.L1 {
		return in.FStar
	}
	z := make([]float64, len(in.Y))
	for i := range z {
		z[i] = in.Clean[i] - in.Y[i]
	}
	return loss.Value(z)
}

func runSolve(args []string, stdout, stderr io.Writer) error {
	const synopsis = "Recovers a low-rank matrix, printing a summary (or JSON with --json): by default\nfrom a synthetic problem of the paper's Section 4 recipe; with --sensing or\n--quadratic from NumPy .npy files, writing the factors, the trace and a summary\nto --out DIR."
	fs := newFlagSet("solve", synopsis, stderr)
	var pf problemFlags
	var sf solverFlags
	var ff fileFlags
	pf.register(fs)
	fs.StringVar(&pf.precision, "precision", "f64", "storage of the sensing matrices: f64, or f32 for half the memory and time\n(y is computed from the stored values; the arithmetic is float64)")
	sf.register(fs)
	ff.register(fs)
	kernelName := kernelFlag(fs)
	fs.Usage = solveUsage(fs, synopsis)
	tracePath := fs.String("trace", "", "write the per-iteration trace to this CSV file")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the summary")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := useKernel(*kernelName); err != nil {
		return err
	}
	if ff.given() {
		return solveFiles(&ff, &pf, &sf, *tracePath, *asJSON, stdout)
	}
	if err := ff.rejectInSynthetic(); err != nil {
		return err
	}
	cfg, setting, err := pf.config()
	if err != nil {
		return err
	}
	settings, err := sf.settings(0) // f(X*) is known for synthetic data
	if err != nil {
		return err
	}
	trim, err := sf.initTrim(setting.PS)
	if err != nil {
		return err
	}

	t0 := time.Now()
	draw, err := synth.New(cfg)
	if err != nil {
		return err
	}
	tuneGC(draw.Op)
	inst, err := draw.Instance(setting)
	if err != nil {
		return err
	}
	if p, ok := settings.Step.(scaledsm.Polyak); ok {
		p.FStar = fStarFor(settings.Loss, inst)
		settings.Step = p
	}
	settings.Trim = trim
	problem := inst.Problem()
	init, err := scaledsm.Spectral(problem.Op, problem.Y, problem.Rank, settings.Trim)
	if err != nil {
		return err
	}
	settings.Init = &init
	if c, ok := settings.Step.(scaledsm.Constant); ok && c.Eta == 0 {
		settings.Step = scaledsm.Constant{Eta: defaultEta(settings.Method, problem.Op, *settings.Init)}
	}
	setup := time.Since(t0)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := scaledsm.Solve(ctx, problem, settings)
	if err != nil {
		return err
	}
	if *tracePath != "" {
		if err := writeAtomic(*tracePath, func(w io.Writer) error { return writeTrace(w, res.Trace) }); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
	}
	rep := newReport(cfg, setting, inst, settings, res, setup)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.print(stdout)
	}
	if res.Status == scaledsm.Interrupted {
		return exitError{fmt.Errorf("interrupted after %d iterations", res.Iterations), 130}
	}
	return nil
}

// report is the summary of a synthetic solve; its JSON form is what
// "solve --json" prints.
type report struct {
	shapeJSON
	drawJSON
	Precision string `json:"precision"`
	Kernel    string `json:"kernel"`
	runJSON
	InitTrim     string  `json:"init_trim"`
	FStar        float64 `json:"f_star"`
	SetupSeconds float64 `json:"setup_seconds"`
	trace        []scaledsm.Iteration
}

func newReport(c synth.Config, s synth.Setting, in *synth.Instance, set scaledsm.Settings, res *scaledsm.Result, setup time.Duration) report {
	rep := report{
		shapeJSON: shapeJSON{Problem: c.Kind.String(), N1: c.N1, N2: c.N2, Rank: c.Rank, M: c.M},
		drawJSON:  newDrawJSON(c, s, in),
		Precision: c.Precision.String(), Kernel: kernel.Active(),
		runJSON:  newRunJSON(set, res),
		InitTrim: set.Trim.String(),
		FStar:    fStarFor(set.Loss, in), SetupSeconds: setup.Seconds(),
		trace: res.Trace,
	}
	return rep
}

func (r report) print(w io.Writer) {
	name := map[string]string{"ms": "matrix sensing", "qs": "quadratic sampling"}[r.Problem]
	shape := fmt.Sprintf("n=%d", r.N1)
	if r.N2 != r.N1 {
		shape = fmt.Sprintf("n1=%d n2=%d", r.N1, r.N2)
	}
	noise := "no noise"
	if r.SNR != nil {
		noise = fmt.Sprintf("SNR %g dB", *r.SNR)
	}
	fmt.Fprintf(w, "problem    %s, %s, r=%d, m=%d, kappa=%g, seed %d\n", name, shape, r.Rank, r.M, r.Kappa, r.Seed)
	fmt.Fprintf(w, "corruption %d outliers (p_s=%g), %s\n", r.Outliers, r.PS, noise)
	step := r.Step + " steps"
	if r.Lambda != nil {
		step += fmt.Sprintf(" (lambda=%g, q=%g)", *r.Lambda, *r.Q)
	}
	if r.Eta != nil {
		step += fmt.Sprintf(" (eta=%.3g)", *r.Eta)
	}
	fmt.Fprintf(w, "method     %s, %s, %s loss\n", r.Method, step, r.Loss)
	fmt.Fprintf(w, "status     %s after %d iterations\n", r.Status, r.Iterations)
	if r.RelError != nil && r.InitRelError != nil {
		trim := "dropping the largest " + r.InitTrim + " of |y_i|"
		if v, err := strconv.ParseFloat(r.InitTrim, 64); err == nil {
			trim = fmt.Sprintf("dropping the largest %g%% of |y_i|", 100*v)
		}
		switch r.InitTrim {
		case "0":
			trim = "untruncated"
		case "median":
			trim = "dropping |y_i| > 3 median|y|"
		}
		fmt.Fprintf(w, "error      %.3g relative (from %.3g at the spectral initialization, %s)\n", *r.RelError, *r.InitRelError, trim)
	}
	per := ""
	if r.MsPerIter != nil {
		per = fmt.Sprintf(", %.3g ms per iteration", *r.MsPerIter)
	}
	fmt.Fprintf(w, "time       %.3g s solving%s; %.3g s generating and initializing\n", r.Seconds, per, r.SetupSeconds)
}

// finite returns a pointer to v, or nil when v is NaN or infinite, so that
// JSON shows null.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// writeTrace writes a trace as tidy CSV: one row per iteration, empty
// fields where a value does not apply.
func writeTrace(w io.Writer, trace []scaledsm.Iteration) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"iteration", "rel_error", "change", "loss", "step", "step_length"})
	for _, it := range trace {
		cw.Write([]string{strconv.Itoa(it.Iter), formatFloat(it.RelError), formatFloat(it.Change),
			formatFloat(it.Loss), formatFloat(it.Step), formatFloat(it.StepLength)})
	}
	cw.Flush()
	return cw.Error()
}

// formatFloat formats v in the shortest form that reads back to the same
// bits, or as an empty field when v is NaN.
func formatFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
