package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/synth"
)

// CompletionConfig sets up the matrix completion and robust PCA study,
// beyond the paper (issue 13, item 9): the entry models' default method
// (completion.DefaultSettings: ScaledGD on the trimmed least squares with a
// constant step) against the condition number and the outlier fraction,
// with the methods it replaced for contrast.
type CompletionConfig struct {
	N, Rank int     // n1 = n2 = N, the true and fitted rank
	P       float64 // the fraction of entries observed (completion)
	PS      float64 // the outlier fraction of parts (a), (c) and (e)
	Kappas  []float64
	Seeds   []uint64 // (a): the default method's draws; every other run uses Seeds[0]
	SweepPS []float64
	Kappa   float64   // κ of parts (b) to (e)
	RPCAPS  []float64 // (d): outlier fractions of robust PCA (every entry observed)
	Tol     float64
	MaxIter int // of the default method
	// ContrastIter is the iteration limit of the other methods (GD on the
	// trimmed loss, VanillaSM, ScaledGD on least squares, ScaledSM on l1).
	ContrastIter int
	// Spread is the most the median iterations of the default method may
	// vary across κ, relative to the fewest (0.2 for 20%).
	Spread float64
	// Slow is the factor by which the unscaled methods' iterations must
	// grow from the smallest κ to the largest (or they do not converge).
	Slow float64
}

// DefaultCompletion is the study run by reproduce: n1 = n2 = 1000, r = 5,
// p = 0.1; (a) κ = 1, 10, 100 at p_s = 0.1 over seeds 1 to 3; (b) p_s from
// 0 to 0.4, (c) least squares, (d) robust PCA at p_s = 0.1, 0.2, 0.3 and
// (e) ScaledSM on l1, at κ = 10 on seed 1; 1e-10 within 600 iterations
// for the default method and 1000 for the others. About two minutes on
// two cores.
func DefaultCompletion() CompletionConfig {
	return CompletionConfig{
		N: 1000, Rank: 5, P: 0.1, PS: 0.1,
		Kappas: []float64{1, 10, 100}, Seeds: []uint64{1, 2, 3},
		SweepPS: []float64{0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4},
		Kappa:   10, RPCAPS: []float64{0.1, 0.2, 0.3},
		Tol: 1e-10, MaxIter: 600, ContrastIter: 1000, Spread: 0.2, Slow: 3,
	}
}

// Validate checks the configuration.
func (c CompletionConfig) Validate() error {
	switch {
	case c.N < 1 || c.Rank < 1 || c.Rank > c.N:
		return fmt.Errorf("completion study: n = %d and r = %d must satisfy 1 ≤ r ≤ n", c.N, c.Rank)
	case !(c.P > 0 && c.P <= 1):
		return fmt.Errorf("completion study: p = %g must lie in (0, 1]", c.P)
	case len(c.Kappas) == 0 || len(c.Seeds) == 0 || len(c.SweepPS) == 0 || len(c.RPCAPS) == 0:
		return errors.New("completion study: condition numbers, seeds and outlier fractions are needed")
	case !(c.Tol > 0) || c.MaxIter < 1 || c.ContrastIter < 1:
		return errors.New("completion study: a tolerance and iteration limits are needed")
	}
	return nil
}

// Solver is a way of solving the entry models, named as the study's tables
// and legends name it.
type Solver string

// The solvers of the study.
const (
	// Default is completion.DefaultSettings for the entry models: ScaledGD on
	// TrimmedL2 with Constant{Eta: 0.5}, from the spectral start with the
	// median trimming (it is told nothing of the outliers).
	Default Solver = "ScaledGD l2trim (default)"
	// GDTrimmed is the unscaled counterpart of Default: GD on TrimmedL2 with
	// the step 0.5/σ₁ of the initialization.
	GDTrimmed Solver = "GD l2trim"
	// VanillaL1 is the paper's VanillaSM: l1, Polyak's step with f(X*) known.
	VanillaL1 Solver = "VanillaSM l1 polyak"
	// ScaledGDL2 is plain ScaledGD: least squares, Constant{Eta: L2Eta}.
	ScaledGDL2 Solver = "ScaledGD l2sq"
	// ScaledL1Auto is plain ScaledSM: l1 with the automatic global step.
	ScaledL1Auto Solver = "ScaledSM l1 auto"
	// ScaledL1Polyak is plain ScaledSM: l1 with Polyak's global step.
	ScaledL1Polyak Solver = "ScaledSM l1 polyak"
)

// L2Eta is the constant step of plain ScaledGD on least squares in the
// study: the largest of 0.5, 0.4, 0.3 with which it recovers X* without
// outliers at the study's sizes (n = 1000, r = 5, p = 0.1, κ = 10, seed 1:
// η = 0.5 diverges in 7 iterations, 0.4 converges in 150), so that its
// failure with outliers is the loss's and not the step's.
const L2Eta = 0.4

// settings returns the solver's settings on an instance, as the command
// line chooses them (scaledsm solve --method ... --loss ... --step ...):
// the oracle steps (Polyak's, and the constant ones of the untrimmed
// losses) trim the spectral start by the known p_s, while auto and the
// trimmed loss are told nothing.
func (s Solver) settings(in *synth.Instance, tol float64, maxIter int) (scaledsm.Settings, error) {
	p := in.Problem()
	set := scaledsm.Settings{Tol: tol, MaxIter: maxIter, Truncation: scaledsm.TruncateFraction(in.PS)}
	switch s {
	case Default:
		d := completion.DefaultSettings()
		set.Method, set.Loss, set.Step, set.Truncation = d.Method, d.Loss, d.Step, scaledsm.Truncation{}
	case GDTrimmed:
		set.Method, set.Loss, set.Truncation = scaledsm.GD, completion.TrimmedL2{}, scaledsm.Truncation{}
		init, err := scaledsm.Initial(context.Background(), p, set)
		if err != nil {
			return set, err
		}
		set.Init = &init
		set.Step = scaledsm.Constant{Eta: 0.5 / init.SingularValues()[0]}
	case VanillaL1:
		set.Method, set.Loss, set.Step = scaledsm.VanillaSM, scaledsm.L1, scaledsm.Polyak{FStar: p.TruthLoss(scaledsm.L1)}
	case ScaledGDL2:
		set.Method, set.Loss, set.Step = scaledsm.ScaledGD, scaledsm.L2Squared, scaledsm.Constant{Eta: L2Eta}
	case ScaledL1Auto:
		set.Method, set.Loss, set.Step, set.Truncation = scaledsm.ScaledSM, scaledsm.L1, scaledsm.Auto{}, scaledsm.Truncation{}
	case ScaledL1Polyak:
		set.Method, set.Loss, set.Step = scaledsm.ScaledSM, scaledsm.L1, scaledsm.Polyak{FStar: p.TruthLoss(scaledsm.L1)}
	default:
		return set, fmt.Errorf("completion study: unknown solver %q", s)
	}
	return set, nil
}

// CompletionRun is one solver on one instance.
type CompletionRun struct {
	Kind       string  `json:"problem"` // "mc" or "rpca"
	Solver     Solver  `json:"solver"`
	Kappa      float64 `json:"kappa"`
	PS         float64 `json:"ps"`
	Seed       uint64  `json:"seed"`
	MaxIter    int     `json:"max_iter"`
	Status     string  `json:"status"`
	Iterations int     `json:"iterations"`
	RelError   float64 `json:"rel_error"`
	// Errors is the relative error at every iterate, from the
	// initialization on.
	Errors []float64 `json:"errors"`
}

// Converged reports whether the run reached the study's tolerance.
func (run CompletionRun) Converged() bool { return run.Status == scaledsm.Converged.String() }

func (run CompletionRun) outcome() string {
	if run.Converged() {
		return fmt.Sprint(run.Iterations)
	}
	return fmt.Sprintf("%s after %d (%s)", sci(run.RelError), run.Iterations, run.Status)
}

// CompletionResult is the measured study.
type CompletionResult struct {
	Config  CompletionConfig `json:"config"`
	Machine string           `json:"machine"`
	Seconds float64          `json:"seconds"`
	Runs    []CompletionRun  `json:"runs"`
}

// completionKey names a run.
type completionKey struct {
	kind   synth.Kind
	solver Solver
	kappa  float64
	ps     float64
	seed   uint64
}

// plan lists the study's runs, each once, in order: (a), (b), (c), (d), (e).
func (c CompletionConfig) plan() []completionKey {
	var keys []completionKey
	seen := map[completionKey]bool{}
	add := func(k completionKey) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	mc, rpca, s0 := synth.Completion, synth.RobustPCA, c.Seeds[0]
	for _, kappa := range c.Kappas {
		for _, seed := range c.Seeds {
			add(completionKey{mc, Default, kappa, c.PS, seed})
		}
		add(completionKey{mc, GDTrimmed, kappa, c.PS, s0})
		add(completionKey{mc, VanillaL1, kappa, c.PS, s0})
	}
	for _, ps := range c.SweepPS {
		add(completionKey{mc, Default, c.Kappa, ps, s0})
	}
	for _, ps := range []float64{0, c.PS} {
		add(completionKey{mc, Default, c.Kappa, ps, s0})
		add(completionKey{mc, ScaledGDL2, c.Kappa, ps, s0})
	}
	for _, ps := range c.RPCAPS {
		add(completionKey{rpca, Default, c.Kappa, ps, s0})
	}
	for _, s := range []Solver{Default, ScaledL1Auto, ScaledL1Polyak} {
		add(completionKey{mc, s, c.Kappa, c.PS, s0})
	}
	return keys
}

// RunCompletion measures the study. Each (problem, seed) is one draw of
// the synthetic recipe (synth), whose instances at every κ and p_s share
// the sampled entries, singular vectors and outlier draws, as the command
// line's solve --problem mc|rpca --seed S builds them.
func RunCompletion(ctx context.Context, c CompletionConfig, progress func(done, total int)) (*CompletionResult, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	res := &CompletionResult{Config: c, Machine: Machine()}
	type drawKey struct {
		kind synth.Kind
		seed uint64
	}
	draws := map[drawKey]*synth.Draw{}
	keys := c.plan()
	for i, k := range keys {
		d := draws[drawKey{k.kind, k.seed}]
		if d == nil {
			cfg := synth.Config{Kind: k.kind, N1: c.N, N2: c.N, Rank: c.Rank, P: c.P, Seed: k.seed}
			if k.kind == synth.RobustPCA {
				cfg.P = 0
			}
			var err error
			if d, err = synth.New(cfg); err != nil {
				return nil, fmt.Errorf("completion study: %w", err)
			}
			draws[drawKey{k.kind, k.seed}] = d
		}
		in, err := d.Instance(synth.Setting{Kappa: k.kappa, PS: k.ps, SNR: noNoise})
		if err != nil {
			return nil, fmt.Errorf("completion study: %w", err)
		}
		limit := c.ContrastIter
		if k.solver == Default {
			limit = c.MaxIter
		}
		set, err := k.solver.settings(in, c.Tol, limit)
		if err != nil {
			return nil, err
		}
		r, err := scaledsm.Solve(ctx, in.Problem(), set)
		if err != nil {
			return nil, fmt.Errorf("completion study, %s at κ=%g p_s=%g: %w", k.solver, k.kappa, k.ps, err)
		}
		if r.Status == scaledsm.Interrupted {
			return nil, ctx.Err()
		}
		run := CompletionRun{Kind: k.kind.String(), Solver: k.solver, Kappa: k.kappa, PS: k.ps, Seed: k.seed,
			MaxIter: limit, Status: r.Status.String(), Iterations: r.Iterations, RelError: finite(r.RelError)}
		for _, it := range r.Trace {
			run.Errors = append(run.Errors, finite(it.RelError))
		}
		res.Runs = append(res.Runs, run)
		if progress != nil {
			progress(i+1, len(keys))
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// find returns the run of a solver on an instance.
func (r *CompletionResult) find(kind synth.Kind, s Solver, kappa, ps float64, seed uint64) (CompletionRun, bool) {
	for _, run := range r.Runs {
		if run.Kind == kind.String() && run.Solver == s && run.Kappa == kappa && run.PS == ps && run.Seed == seed {
			return run, true
		}
	}
	return CompletionRun{}, false
}

// Panel names of the study, as its claims and plots name them.
const completionPanel = " (completion study, beyond the paper)"

// Claims checks the study's claims.
func (r *CompletionResult) Claims() []Verdict {
	c := r.Config
	mc, s0 := synth.Completion, c.Seeds[0]
	missing := func(panel, claim string) Verdict {
		return Verdict{Panel: panel + completionPanel, Claim: claim, Expected: "the runs of the study", Measured: "missing"}
	}
	var vs []Verdict

	// (a) The default method's iterations do not depend on κ.
	var all []string
	every, flat := true, true
	var medians []float64
	for _, kappa := range c.Kappas {
		var its []float64
		var outs []string
		for _, seed := range c.Seeds {
			run, ok := r.find(mc, Default, kappa, c.PS, seed)
			if !ok {
				return append(vs, missing("a", "the default method's runs"))
			}
			every = every && run.Converged()
			its = append(its, float64(run.Iterations))
			outs = append(outs, run.outcome())
		}
		slices.Sort(its)
		medians = append(medians, its[len(its)/2])
		all = append(all, fmt.Sprintf("κ=%g: %s (median %g)", kappa, strings.Join(outs, ", "), its[len(its)/2]))
	}
	lo, hi := slices.Min(medians), slices.Max(medians)
	spread := (hi - lo) / max(lo, 1)
	flat = every && spread <= c.Spread
	vs = append(vs,
		Verdict{Panel: "a" + completionPanel, Claim: fmt.Sprintf("the default method reaches %s at every κ and seed", sci(c.Tol)),
			Expected: fmt.Sprintf("every run converges within %d iterations (seeds %s)", c.MaxIter, seedList(c.Seeds)),
			Measured: strings.Join(all, "; "), Holds: every},
		Verdict{Panel: "a" + completionPanel,
			Claim:    fmt.Sprintf("the default method's iterations to %s vary by at most %g%% across κ (median over %d seeds)", sci(c.Tol), 100*c.Spread, len(c.Seeds)),
			Expected: fmt.Sprintf("(most − fewest)/fewest of the medians ≤ %g%%", 100*c.Spread),
			Measured: fmt.Sprintf("medians %s: %.1f%%", joinNums(medians), 100*spread), Holds: flat})
	for _, s := range []Solver{GDTrimmed, VanillaL1} {
		first, ok1 := r.find(mc, s, c.Kappas[0], c.PS, s0)
		last, ok2 := r.find(mc, s, c.Kappas[len(c.Kappas)-1], c.PS, s0)
		claim := fmt.Sprintf("%s slows with κ or fails", s)
		if !ok1 || !ok2 {
			vs = append(vs, missing("a", claim))
			continue
		}
		var outs []string
		for _, kappa := range c.Kappas {
			run, _ := r.find(mc, s, kappa, c.PS, s0)
			outs = append(outs, fmt.Sprintf("κ=%g: %s", kappa, run.outcome()))
		}
		holds := !last.Converged() || (first.Converged() && float64(last.Iterations) >= c.Slow*float64(first.Iterations))
		vs = append(vs, Verdict{Panel: "a" + completionPanel, Claim: claim,
			Expected: fmt.Sprintf("at κ=%g at least %g× the iterations at κ=%g, or no convergence within %d",
				last.Kappa, c.Slow, first.Kappa, c.ContrastIter),
			Measured: strings.Join(outs, "; "), Holds: holds})
	}

	// (b) Where exact recovery holds.
	var outs []string
	upTo, recovers := math.NaN(), true
	for _, ps := range c.SweepPS {
		run, ok := r.find(mc, Default, c.Kappa, ps, s0)
		if !ok {
			return append(vs, missing("b", "the p_s sweep"))
		}
		outs = append(outs, fmt.Sprintf("p_s=%g: %s", ps, run.outcome()))
		if run.Converged() && recovers {
			upTo = ps
		} else {
			recovers = false
		}
	}
	vs = append(vs, Verdict{Panel: "b" + completionPanel,
		Claim:    fmt.Sprintf("the default method recovers X* exactly up to p_s = %g at least", c.PS),
		Expected: fmt.Sprintf("every p_s ≤ %g reaches %s within %d iterations; the largest p_s recovered is measured", c.PS, sci(c.Tol), c.MaxIter),
		Measured: fmt.Sprintf("exact recovery up to p_s = %s; %s", num(upTo), strings.Join(outs, "; ")),
		Holds:    upTo >= c.PS})

	// (c) Least squares does not survive outliers; the trimmed loss does.
	l2clean, ok1 := r.find(mc, ScaledGDL2, c.Kappa, 0, s0)
	l2dirty, ok2 := r.find(mc, ScaledGDL2, c.Kappa, c.PS, s0)
	def, ok3 := r.find(mc, Default, c.Kappa, c.PS, s0)
	claim := fmt.Sprintf("plain ScaledGD (l2sq) does not recover with %g%% outliers while the default does", 100*c.PS)
	if !ok1 || !ok2 || !ok3 {
		vs = append(vs, missing("c", claim))
	} else {
		vs = append(vs, Verdict{Panel: "c" + completionPanel, Claim: claim,
			Expected: fmt.Sprintf("at p_s=%g ScaledGD l2sq stays above 1e-3 and the default reaches %s; at p_s=0 ScaledGD l2sq reaches %s", c.PS, sci(c.Tol), sci(c.Tol)),
			Measured: fmt.Sprintf("ScaledGD l2sq: p_s=0: %s, p_s=%g: %s; default at p_s=%g: %s", l2clean.outcome(), c.PS, l2dirty.outcome(), c.PS, def.outcome()),
			Holds:    l2clean.Converged() && !l2dirty.Converged() && l2dirty.RelError > 1e-3 && def.Converged()})
	}

	// (d) Robust PCA.
	outs, every = nil, true
	for _, ps := range c.RPCAPS {
		run, ok := r.find(synth.RobustPCA, Default, c.Kappa, ps, s0)
		if !ok {
			return append(vs, missing("d", "the robust PCA runs"))
		}
		every = every && run.Converged()
		outs = append(outs, fmt.Sprintf("p_s=%g: %s", ps, run.outcome()))
	}
	vs = append(vs, Verdict{Panel: "d" + completionPanel,
		Claim:    fmt.Sprintf("robust PCA: the default method reaches %s at every p_s", sci(c.Tol)),
		Expected: fmt.Sprintf("every run converges within %d iterations", c.MaxIter), Measured: strings.Join(outs, "; "), Holds: every})

	// (e) Plain ScaledSM on l1 is sublinear on sampled entries.
	for _, s := range []Solver{ScaledL1Auto, ScaledL1Polyak} {
		claim := fmt.Sprintf("%s converges sublinearly on sampled entries", s)
		run, ok := r.find(mc, s, c.Kappa, c.PS, s0)
		if !ok {
			vs = append(vs, missing("e", claim))
			continue
		}
		half := math.NaN()
		if n := len(run.Errors); n > 2 {
			half = run.Errors[(n-1)/2]
		}
		vs = append(vs, Verdict{Panel: "e" + completionPanel, Claim: claim,
			Expected: fmt.Sprintf("relative error above 1e-6 after %d iterations (a linear rate would be far below)", c.ContrastIter),
			Measured: fmt.Sprintf("%s after %d, %s halfway", sci(run.RelError), run.Iterations, sci(half)),
			Holds:    !run.Converged() && run.RelError > 1e-6})
	}
	return vs
}

// finite returns v, or -1 for a value JSON cannot hold (NaN, ±Inf: a run
// that diverged), which the plots leave out.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return -1
	}
	return v
}

func seedList(seeds []uint64) string {
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

func joinNums(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = num(x)
	}
	return strings.Join(s, ", ")
}

// CompletionName is the file the study is stored in.
const CompletionName = "completion.json"

// WriteJSON stores the study (its configuration and every run's trace).
func (r *CompletionResult) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	return enc.Encode(r)
}

// ReadCompletion restores a study stored by WriteJSON.
func ReadCompletion(rd io.Reader) (*CompletionResult, error) {
	var r CompletionResult
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("completion study: %w", err)
	}
	if err := r.Config.Validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// CompletionPanels are the study's panels, in order: their names and
// captions.
var CompletionPanels = []struct{ Name, Caption string }{
	{"a", "condition numbers: the default method, GD on its loss, VanillaSM"},
	{"b", "outlier fractions: the default method"},
	{"c", "least squares: plain ScaledGD (l2sq) against the default method"},
	{"d", "robust PCA (every entry observed): the default method"},
	{"e", "the l1 loss: plain ScaledSM with global steps against the default method"},
}

// CompletionPanelName is the file name of a panel of the study:
// completion_a.png.
func CompletionPanelName(panel, ext string) string { return "completion_" + panel + "." + ext }

// RenderCompletion draws panel i of the study (its relative error against
// the iteration count, one line per run) and writes it as "png" or "svg".
func RenderCompletion(w io.Writer, r *CompletionResult, i int, format string) error {
	if i < 0 || i >= len(CompletionPanels) {
		return fmt.Errorf("experiment: the completion study has no panel %d", i)
	}
	c := r.Config
	mc, s0 := synth.Completion, c.Seeds[0]
	type line struct {
		run   CompletionRun
		label string
	}
	var lines []line
	add := func(kind synth.Kind, s Solver, kappa, ps float64, label string) {
		if run, ok := r.find(kind, s, kappa, ps, s0); ok {
			lines = append(lines, line{run, label})
		}
	}
	setting := fmt.Sprintf("matrix completion, n1=n2=%d, r=%d, p=%g, seed %d", c.N, c.Rank, c.P, s0)
	switch CompletionPanels[i].Name {
	case "a":
		setting += fmt.Sprintf(", p_s=%g", c.PS)
		for _, s := range []Solver{Default, GDTrimmed, VanillaL1} {
			for _, kappa := range c.Kappas {
				add(mc, s, kappa, c.PS, fmt.Sprintf("%s κ=%g", s, kappa))
			}
		}
	case "b":
		setting += fmt.Sprintf(", κ=%g", c.Kappa)
		for _, ps := range c.SweepPS {
			add(mc, Default, c.Kappa, ps, fmt.Sprintf("p_s=%g", ps))
		}
	case "c":
		setting += fmt.Sprintf(", κ=%g", c.Kappa)
		for _, s := range []Solver{Default, ScaledGDL2} {
			for _, ps := range []float64{0, c.PS} {
				add(mc, s, c.Kappa, ps, fmt.Sprintf("%s p_s=%g", s, ps))
			}
		}
	case "d":
		setting = fmt.Sprintf("robust PCA, n1=n2=%d, r=%d, κ=%g, seed %d", c.N, c.Rank, c.Kappa, s0)
		for _, ps := range c.RPCAPS {
			add(synth.RobustPCA, Default, c.Kappa, ps, fmt.Sprintf("p_s=%g", ps))
		}
	case "e":
		setting += fmt.Sprintf(", κ=%g, p_s=%g", c.Kappa, c.PS)
		for _, s := range []Solver{Default, ScaledL1Auto, ScaledL1Polyak} {
			add(mc, s, c.Kappa, c.PS, string(s))
		}
	}
	// One colour per solver, one marker per line of a solver.
	solverColor := map[Solver]int{}
	longest := 0
	for _, l := range lines {
		if _, ok := solverColor[l.run.Solver]; !ok {
			solverColor[l.run.Solver] = len(solverColor)
		}
		longest = max(longest, len(l.run.Errors))
	}
	oneSolver := len(solverColor) == 1
	step := every(longest)
	var ss []series
	count := map[Solver]int{}
	for j, l := range lines {
		k := count[l.run.Solver]
		count[l.run.Solver]++
		s := series{label: l.label, color: palette[solverColor[l.run.Solver]%len(palette)], marker: markers[k%len(markers)]}
		if oneSolver {
			s.color = palette[j%len(palette)]
		}
		for t, e := range l.run.Errors {
			if e > 0 && !math.IsInf(e, 0) {
				s.xys = append(s.xys, plotter.XY{X: float64(t), Y: e})
			}
		}
		off := (j * step) / max(len(lines), 1)
		for t := off; t < len(s.xys); t += step {
			s.markers = append(s.markers, s.xys[t])
		}
		ss = append(ss, s)
	}
	p := CompletionPanels[i]
	title := fmt.Sprintf("Completion study (%s): %s\n%s", p.Name, p.Caption, setting)
	pl, ss, err := linePlot(title, "Iteration count", "Relative error", ss)
	if err != nil {
		return fmt.Errorf("experiment: completion study (%s), %w", p.Name, err)
	}
	return draw2(w, pl, ss, format)
}

// WriteMarkdown writes the study's tables and claims.
func (r *CompletionResult) WriteMarkdown(w io.Writer) error {
	c := r.Config
	var b strings.Builder
	fmt.Fprintf(&b, "Iterations to a relative error of %g (the default method at most %d, the others %d); n1 = n2 = %d, r = %d, p = %g; "+
		"— marks no convergence (final error after the count). Beyond the paper.\n\n", c.Tol, c.MaxIter, c.ContrastIter, c.N, c.Rank, c.P)
	fmt.Fprintf(&b, "(a) matrix completion, p_s = %g:\n\n| method | seed |", c.PS)
	for _, k := range c.Kappas {
		fmt.Fprintf(&b, " κ=%g |", k)
	}
	b.WriteString("\n|---|---|")
	for range c.Kappas {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	row := func(kind synth.Kind, s Solver, seed uint64, ps float64, kappas []float64) {
		for _, k := range kappas {
			if run, ok := r.find(kind, s, k, ps, seed); ok {
				out := run.outcome()
				if !run.Converged() {
					out = "— " + out
				}
				fmt.Fprintf(&b, " %s |", out)
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
	for _, seed := range c.Seeds {
		fmt.Fprintf(&b, "| %s | %d |", Default, seed)
		row(synth.Completion, Default, seed, c.PS, c.Kappas)
	}
	for _, s := range []Solver{GDTrimmed, VanillaL1} {
		fmt.Fprintf(&b, "| %s | %d |", s, c.Seeds[0])
		row(synth.Completion, s, c.Seeds[0], c.PS, c.Kappas)
	}
	fmt.Fprintf(&b, "\n(b)–(e) at κ = %g, seed %d:\n\n| part | problem | method | p_s | outcome |\n|---|---|---|---:|---|\n", c.Kappa, c.Seeds[0])
	part := func(name string, kind synth.Kind, s Solver, ps float64) {
		if run, ok := r.find(kind, s, c.Kappa, ps, c.Seeds[0]); ok {
			out := run.outcome()
			if !run.Converged() {
				out = "— " + out
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %g | %s |\n", name, kind, s, ps, out)
		}
	}
	for _, ps := range c.SweepPS {
		part("b", synth.Completion, Default, ps)
	}
	for _, ps := range []float64{0, c.PS} {
		part("c", synth.Completion, ScaledGDL2, ps)
	}
	for _, ps := range c.RPCAPS {
		part("d", synth.RobustPCA, Default, ps)
	}
	for _, s := range []Solver{ScaledL1Auto, ScaledL1Polyak} {
		part("e", synth.Completion, s, c.PS)
	}
	b.WriteString("\n| panel | claim | expected | measured | holds |\n|---|---|---|---|---|\n")
	for _, v := range r.Claims() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %v |\n", v.Panel, v.Claim, v.Expected, v.Measured, v.Holds)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// LoadStudies restores the studies beyond the paper stored in dir
// (completion.json; image.json and its PNGs; overspec.json; phase.json). A
// study with no file is left nil; one whose files cannot be read is
// reported in errs and left nil.
func LoadStudies(dir string) (st Studies, errs []error) {
	open := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }
	if b, err := open(CompletionName); err == nil {
		if st.Completion, err = ReadCompletion(bytes.NewReader(b)); err != nil {
			errs = append(errs, fmt.Errorf("%s in %s: %w", CompletionName, dir, err))
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	if b, err := open(ImageName); err == nil {
		if st.Image, err = ReadImage(bytes.NewReader(b), open); err != nil {
			errs = append(errs, fmt.Errorf("%s in %s: %w", ImageName, dir, err))
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	if b, err := open(PhaseName); err == nil {
		if st.Phase, err = ReadPhase(bytes.NewReader(b)); err != nil {
			errs = append(errs, fmt.Errorf("%s in %s: %w", PhaseName, dir, err))
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	if b, err := open(OverSpecName); err == nil {
		if st.OverSpec, err = ReadOverSpec(bytes.NewReader(b)); err != nil {
			errs = append(errs, fmt.Errorf("%s in %s: %w", OverSpecName, dir, err))
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return st, errs
}
