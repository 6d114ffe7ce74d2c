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

// solverFlags choose the method and its stopping rule.
type solverFlags struct {
	method, step string
	lambda, q    float64
	iters        int
	tol          float64
}

func (s *solverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.method, "method", "scaledsm", "scaledsm or vanillasm")
	fs.StringVar(&s.step, "step", "polyak", "stepsize rule: polyak (needs f(X*), known for synthetic data) or geometric")
	fs.Float64Var(&s.lambda, "lambda", 2, "geometric steps: initial step length lambda > 0")
	fs.Float64Var(&s.q, "q", 0.9, "geometric steps: decay rate q in (0, 1)")
	fs.IntVar(&s.iters, "iters", 1000, "iteration limit")
	fs.Float64Var(&s.tol, "tol", 1e-12, "stop when the relative error reaches this")
}

// settings checks the flags and returns the solver settings; fStar is f(X*)
// for Polyak steps.
func (s *solverFlags) settings(fStar float64) (scaledsm.Settings, error) {
	method, err := scaledsm.ParseMethod(s.method)
	if err != nil {
		return scaledsm.Settings{}, badFlag("method", s.method, "want scaledsm or vanillasm")
	}
	var step scaledsm.Step
	switch s.step {
	case "polyak":
		step = scaledsm.Polyak{FStar: fStar}
	case "geometric":
		switch {
		case !(s.lambda > 0) || math.IsInf(s.lambda, 0):
			return scaledsm.Settings{}, badFlag("lambda", s.lambda, "must be positive and finite")
		case !(s.q > 0 && s.q < 1):
			return scaledsm.Settings{}, badFlag("q", s.q, "must lie in (0, 1)")
		}
		step = scaledsm.Geometric{Lambda: s.lambda, Q: s.q}
	default:
		return scaledsm.Settings{}, badFlag("step", s.step, "want polyak or geometric")
	}
	switch {
	case s.iters <= 0:
		return scaledsm.Settings{}, badFlag("iters", s.iters, "must be positive")
	case !(s.tol >= 0):
		return scaledsm.Settings{}, badFlag("tol", s.tol, "must be non-negative")
	}
	tol := s.tol
	if tol == 0 {
		tol = -1 // never stop early
	}
	return scaledsm.Settings{Method: method, Step: step, MaxIter: s.iters, Tol: tol}, nil
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
	settings, err := sf.settings(0)
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
		p.FStar = inst.FStar
		settings.Step = p
	}
	settings.InitTrim = setting.PS
	problem := inst.Problem()
	l, r, err := scaledsm.Spectral(problem.Op, problem.Y, problem.Rank, settings.InitTrim)
	if err != nil {
		return err
	}
	settings.Init = &scaledsm.Factors{L: l, R: r}
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
	rep := newReport(cfg, setting, inst, sf, res, setup)
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
	Problem      string   `json:"problem"`
	N1           int      `json:"n1"`
	N2           int      `json:"n2"`
	Rank         int      `json:"rank"`
	M            int      `json:"m"`
	Kappa        float64  `json:"kappa"`
	PS           float64  `json:"ps"`
	Outliers     int      `json:"outliers"`
	SNR          *float64 `json:"snr_db"`
	Seed         uint64   `json:"seed"`
	Precision    string   `json:"precision"`
	Kernel       string   `json:"kernel"`
	Method       string   `json:"method"`
	Step         string   `json:"step"`
	Lambda       *float64 `json:"lambda"`
	Q            *float64 `json:"q"`
	Loss         string   `json:"loss"`
	Status       string   `json:"status"`
	Iterations   int      `json:"iterations"`
	RelError     *float64 `json:"rel_error"`
	InitRelError *float64 `json:"init_rel_error"`
	FinalLoss    *float64 `json:"final_loss"`
	FStar        float64  `json:"f_star"`
	Seconds      float64  `json:"seconds"`
	SetupSeconds float64  `json:"setup_seconds"`
	MsPerIter    *float64 `json:"ms_per_iter"`
	trace        []scaledsm.Iteration
}

func newReport(c synth.Config, s synth.Setting, in *synth.Instance, sf solverFlags, res *scaledsm.Result, setup time.Duration) report {
	rep := report{
		Problem: c.Kind.String(), N1: c.N1, N2: c.N2, Rank: c.Rank, M: c.M,
		Kappa: s.Kappa, PS: s.PS, Seed: c.Seed, SNR: finite(s.SNR),
		Precision: c.Precision.String(), Kernel: kernel.Active(),
		Method: sf.method, Step: sf.step, Loss: scaledsm.L1.String(),
		Status: res.Status.String(), Iterations: res.Iterations,
		RelError: finite(res.RelError), FinalLoss: finite(res.Loss), FStar: in.FStar,
		Seconds: res.Runtime.Seconds(), SetupSeconds: setup.Seconds(),
		trace: res.Trace,
	}
	for _, v := range in.Outlier {
		if v != 0 {
			rep.Outliers++
		}
	}
	if len(res.Trace) > 0 {
		rep.InitRelError = finite(res.Trace[0].RelError)
	}
	if res.Iterations > 0 {
		rep.MsPerIter = finite(1000 * res.Runtime.Seconds() / float64(len(res.Trace)))
	}
	if sf.step == "geometric" {
		rep.Lambda, rep.Q = &sf.lambda, &sf.q
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
	fmt.Fprintf(w, "method     %s, %s, %s loss\n", r.Method, step, r.Loss)
	fmt.Fprintf(w, "status     %s after %d iterations\n", r.Status, r.Iterations)
	if r.RelError != nil && r.InitRelError != nil {
		fmt.Fprintf(w, "error      %.3g relative (from %.3g at the truncated spectral initialization)\n", *r.RelError, *r.InitRelError)
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
