package experiment

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/synth"
)

var errSVD = errors.New("the SVD did not converge")

// OutlierModel is how the phase study places its outliers.
type OutlierModel string

// The outlier models: entries at random (Bernoulli p_s, the paper's),
// whole columns (a fraction p_s of them, every entry; X* is then judged on
// the other columns, as no method can know the corrupted ones), and
// spatially clustered blocks (squares of side ⌈√(n1 n2)/10⌉ at random
// places until they cover p_s of the matrix, one value per block, as a
// moving object in a video).
const (
	RandomOutliers OutlierModel = "random"
	ColumnOutliers OutlierModel = "columns"
	BlockOutliers  OutlierModel = "blocks"
)

// outliers names the model's outliers: "column outliers".
func (m OutlierModel) outliers() string { return strings.TrimSuffix(string(m), "s") + " outliers" }

// PhaseMethod names a method of the phase study.
type PhaseMethod string

// The methods: the entry models' default (completion.DefaultSettings) and
// the two references of rpcaref.go.
const (
	PhaseDefault PhaseMethod = "default"
	PhasePCP     PhaseMethod = "pcp"
	PhaseTalpha  PhaseMethod = "scaledgd-talpha"
)

// PhaseMethods are the study's methods, in order.
var PhaseMethods = []PhaseMethod{PhaseDefault, PhasePCP, PhaseTalpha}

// PhaseConfig is the grid of the phase study: robust PCA (every entry
// observed) of rank Rank at each shape, condition number, outlier
// fraction, outlier model and seed, by every method. A run succeeds when
// its relative error is at most Success.
type PhaseConfig struct {
	Shapes  [][2]int       `json:"shapes"`
	Rank    int            `json:"rank"`
	Kappas  []float64      `json:"kappas"`
	PSs     []float64      `json:"ps"`
	Models  []OutlierModel `json:"models"`
	Seeds   []uint64       `json:"seeds"`
	Success float64        `json:"success"`
	MaxIter int            `json:"max_iter"` // the default method's and T_α's limit
	// Methods are the methods run, in PhaseMethods' order when nil (all
	// of them).
	Methods []PhaseMethod `json:"methods,omitempty"`
}

// DefaultPhase is the report's grid: shapes 100×100, 200×200, 400×400,
// 200×50 and 50×200 (ratios 1/4 to 4), r = 5, κ = 1, 10, 100, p_s = 0.05 to 0.3, the
// three outlier models, seeds 1 and 2.
func DefaultPhase() PhaseConfig {
	return PhaseConfig{
		Shapes: [][2]int{{100, 100}, {200, 200}, {400, 400}, {200, 50}, {50, 200}},
		Rank:   5, Kappas: []float64{1, 10, 100}, PSs: []float64{0.05, 0.1, 0.2, 0.3},
		Models: []OutlierModel{RandomOutliers, ColumnOutliers, BlockOutliers},
		Seeds:  []uint64{1, 2}, Success: 1e-8, MaxIter: 2000,
	}
}

// QuickPhase is a small grid for a look and for tests.
func QuickPhase() PhaseConfig {
	c := DefaultPhase()
	c.Shapes, c.Kappas, c.PSs, c.Seeds = [][2]int{{60, 60}, {80, 40}}, []float64{1, 100}, []float64{0.1, 0.3}, []uint64{1}
	return c
}

// Validate checks the grid.
func (c PhaseConfig) Validate() error {
	switch {
	case len(c.Shapes) == 0 || len(c.Kappas) == 0 || len(c.PSs) == 0 || len(c.Models) == 0 || len(c.Seeds) == 0:
		return errors.New("phase study: every axis needs a value")
	case c.Rank < 1:
		return fmt.Errorf("phase study: rank %d must be positive", c.Rank)
	case !(c.Success > 0) || c.MaxIter < 1:
		return fmt.Errorf("phase study: success %g and iterations %d must be positive", c.Success, c.MaxIter)
	}
	for _, s := range c.Shapes {
		if min(s[0], s[1]) < 2*c.Rank || max(s[0], s[1]) > 2000 {
			return fmt.Errorf("phase study: shape %d×%d: want sides from 2r = %d to 2000", s[0], s[1], 2*c.Rank)
		}
	}
	for _, k := range c.Kappas {
		if !(k >= 1) || math.IsInf(k, 0) {
			return fmt.Errorf("phase study: κ = %g must be finite and at least 1", k)
		}
	}
	for _, p := range c.PSs {
		if !(p > 0 && p < 0.5) {
			return fmt.Errorf("phase study: p_s = %g must lie in (0, 0.5)", p)
		}
	}
	for _, m := range c.Models {
		if !slices.Contains([]OutlierModel{RandomOutliers, ColumnOutliers, BlockOutliers}, m) {
			return fmt.Errorf("phase study: outlier model %q: want random, columns or blocks", m)
		}
	}
	for _, m := range c.Methods {
		if !slices.Contains(PhaseMethods, m) {
			return fmt.Errorf("phase study: method %q: want default, pcp or scaledgd-talpha", m)
		}
	}
	return nil
}

// PhaseRun is one run of the study.
type PhaseRun struct {
	Model      OutlierModel `json:"model"`
	N1         int          `json:"n1"`
	N2         int          `json:"n2"`
	Kappa      float64      `json:"kappa"`
	PS         float64      `json:"ps"`
	Seed       uint64       `json:"seed"`
	Method     PhaseMethod  `json:"method"`
	RelError   float64      `json:"rel_error"` // NaN (stored as null) when the run failed
	Iterations int          `json:"iterations"`
	Seconds    float64      `json:"seconds"`
}

// PhaseResult is the study: its grid and every run.
type PhaseResult struct {
	Config  PhaseConfig `json:"config"`
	Runs    []PhaseRun  `json:"runs"`
	Seconds float64     `json:"seconds"`
	Machine string      `json:"machine"`
}

// phaseCase is one instance of the grid.
type phaseCase struct {
	model  OutlierModel
	n1, n2 int
	kappa  float64
	ps     float64
	seed   uint64
}

// RunPhase runs the grid, its instances in parallel on the cores (each
// result the same whatever their number), and calls progress after each
// instance.
func RunPhase(ctx context.Context, c PhaseConfig, progress func(done, total int)) (*PhaseResult, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var cases []phaseCase
	for _, m := range c.Models {
		for _, s := range c.Shapes {
			for _, k := range c.Kappas {
				for _, p := range c.PSs {
					for _, seed := range c.Seeds {
						cases = append(cases, phaseCase{m, s[0], s[1], k, p, seed})
					}
				}
			}
		}
	}
	t0 := time.Now()
	runs := make([][]PhaseRun, len(cases))
	errs := make([]error, len(cases))
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				runs[i], errs[i] = c.runCase(ctx, cases[i])
				mu.Lock()
				done++
				if progress != nil {
					progress(done, len(cases))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range cases {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &PhaseResult{Config: c, Machine: Machine()}
	for i, rs := range runs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		res.Runs = append(res.Runs, rs...)
	}
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}

// phaseInstance draws X* (the synthetic recipe's: singular values from κ
// to 1, random orthonormal factors) and Y = X* + S* with the outliers of
// the model; judge is true for the entries the error is measured on.
func phaseInstance(pc phaseCase, rank int) (star, y *mat.Dense, judge []bool, err error) {
	d, err := synth.New(synth.Config{Kind: synth.RobustPCA, N1: pc.n1, N2: pc.n2, Rank: rank, Seed: pc.seed})
	if err != nil {
		return nil, nil, nil, err
	}
	in, err := d.Instance(synth.Setting{Kappa: pc.kappa, SNR: math.Inf(1)})
	if err != nil {
		return nil, nil, nil, err
	}
	star = in.Star.Product()
	n1, n2 := pc.n1, pc.n2
	amp := 0.0
	for _, v := range star.RawMatrix().Data {
		amp = max(amp, math.Abs(v))
	}
	amp *= 10
	rng := rand.New(rand.NewPCG(pc.seed, 0x9a5e+uint64(len(pc.model))))
	out := make([]bool, n1*n2)
	vals := make([]float64, n1*n2)
	judge = make([]bool, n1*n2)
	for k := range judge {
		judge[k] = true
	}
	switch pc.model {
	case RandomOutliers:
		for k := range out {
			if rng.Float64() < pc.ps {
				out[k], vals[k] = true, amp*(2*rng.Float64()-1)
			}
		}
	case ColumnOutliers:
		for _, j := range rng.Perm(n2)[:int(math.Round(pc.ps*float64(n2)))] {
			for i := range n1 {
				k := i*n2 + j
				out[k], vals[k], judge[k] = true, amp*(2*rng.Float64()-1), false
			}
		}
	case BlockOutliers:
		b := max(2, int(math.Ceil(math.Sqrt(float64(n1*n2))/10)))
		b1, b2 := min(b, n1), min(b, n2)
		covered, want := 0, int(pc.ps*float64(n1*n2))
		for covered < want {
			i0, j0 := rng.IntN(n1-b1+1), rng.IntN(n2-b2+1)
			v := amp * (2*rng.Float64() - 1)
			for i := i0; i < i0+b1; i++ {
				for j := j0; j < j0+b2; j++ {
					k := i*n2 + j
					if !out[k] {
						covered++
					}
					out[k], vals[k] = true, v*(0.9+0.2*rng.Float64())
				}
			}
		}
	}
	y = mat.DenseCopyOf(star)
	raw := y.RawMatrix().Data
	for k, o := range out {
		if o {
			raw[k] += vals[k]
		}
	}
	return star, y, judge, nil
}

// runCase runs every method on one instance.
func (c PhaseConfig) runCase(ctx context.Context, pc phaseCase) ([]PhaseRun, error) {
	star, y, judge, err := phaseInstance(pc, c.Rank)
	if err != nil {
		return nil, err
	}
	var runs []PhaseRun
	methods := c.Methods
	if methods == nil {
		methods = PhaseMethods
	}
	for _, m := range methods {
		t0 := time.Now()
		x, its, err := c.solvePhase(ctx, m, pc, y)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		run := PhaseRun{Model: pc.model, N1: pc.n1, N2: pc.n2, Kappa: pc.kappa, PS: pc.ps, Seed: pc.seed,
			Method: m, RelError: math.NaN(), Iterations: its, Seconds: time.Since(t0).Seconds()}
		if err == nil {
			run.RelError = judgedError(x, star, judge)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// solvePhase runs method m on y and returns its estimate of X*.
func (c PhaseConfig) solvePhase(ctx context.Context, m PhaseMethod, pc phaseCase, y *mat.Dense) (*mat.Dense, int, error) {
	switch m {
	case PhasePCP:
		return PCP(ctx, y)
	case PhaseTalpha:
		// α, the fraction of each row and column the estimate may take,
		// at 2 p_s: the reference is told the outlier fraction, and a row
		// of a small matrix holds more than p_s of them by chance (at
		// n = 200, κ = 10, p_s = 0.1: α = 0.15 stops at 0.48, 0.2 reaches
		// 6e-12, 0.3 stops at 0.58).
		return ScaledGDTalpha(ctx, y, c.Rank, min(0.5, 2*pc.ps), c.Success/100, c.MaxIter)
	}
	op, obs, err := denseEntries(y)
	if err != nil {
		return nil, 0, err
	}
	res, err := completion.Solve(ctx, scaledsm.Problem{Op: op, Y: obs, Rank: c.Rank}, c.defaultSettings())
	if err != nil {
		return nil, 0, err
	}
	return res.Factors.Product(), res.Iterations, nil
}

// defaultSettings are the default method's settings in the study: the
// entries' defaults run to the study's tolerance (a hundredth of its
// success threshold) or iteration limit, with no Converger.
func (c PhaseConfig) defaultSettings() completion.Settings {
	s := completion.DefaultSettings()
	s.Converger, s.Tol, s.MaxIter = nil, c.Success/100, c.MaxIter
	return s
}

// denseEntries returns the entry operator of every entry of y (robust
// PCA) and its observations, a copy of y's values.
func denseEntries(y *mat.Dense) (*completion.Entries, []float64, error) {
	n1, n2 := y.Dims()
	rows, cols := make([]int32, 0, n1*n2), make([]int32, 0, n1*n2)
	for i := range n1 {
		for j := range n2 {
			rows, cols = append(rows, int32(i)), append(cols, int32(j))
		}
	}
	return completion.NewEntries(n1, n2, rows, cols, slices.Clone(y.RawMatrix().Data))
}

// judgedError is ||x - star||_F / ||star||_F over the entries judged.
func judgedError(x, star *mat.Dense, judge []bool) float64 {
	xs, ss := x.RawMatrix().Data, star.RawMatrix().Data
	var num, den float64
	for k, j := range judge {
		if j {
			d := xs[k] - ss[k]
			num += d * d
			den += ss[k] * ss[k]
		}
	}
	e := math.Sqrt(num / den)
	if math.IsNaN(e) || math.IsInf(e, 0) {
		return math.Inf(1)
	}
	return e
}

// succeeded reports whether the run reached the study's success threshold.
func (r PhaseRun) succeeded(tol float64) bool { return r.RelError <= tol }

// phaseCell counts the successes of one method at one cell of the grid
// (model, shape, κ, p_s) over the seeds.
type phaseCell struct {
	model  OutlierModel
	n1, n2 int
	kappa  float64
	ps     float64
}

// successes returns each method's successes by cell.
func (r *PhaseResult) successes() map[PhaseMethod]map[phaseCell]int {
	out := map[PhaseMethod]map[phaseCell]int{}
	for _, m := range PhaseMethods {
		out[m] = map[phaseCell]int{}
	}
	for _, run := range r.Runs {
		cell := phaseCell{run.Model, run.N1, run.N2, run.Kappa, run.PS}
		m, ok := out[run.Method]
		if !ok {
			continue
		}
		m[cell] += 0 // every cell counted, successes or not
		if run.succeeded(r.Config.Success) {
			m[cell]++
		}
	}
	return out
}

// Claims checks the study's claims: for each outlier model and each
// reference, the default method succeeds in every cell where the
// reference does (as often, over the seeds), and a count of the cells
// where each succeeds.
func (r *PhaseResult) Claims() []Verdict {
	s := r.successes()
	var vs []Verdict
	for _, model := range r.Config.Models {
		for _, ref := range []PhaseMethod{PhasePCP, PhaseTalpha} {
			var worse []string
			nDef, nRef, cells := 0, 0, 0
			for cell, k := range s[ref] {
				if cell.model != model {
					continue
				}
				cells++
				d := s[PhaseDefault][cell]
				if d == len(r.Config.Seeds) {
					nDef++
				}
				if k == len(r.Config.Seeds) {
					nRef++
				}
				if d < k {
					worse = append(worse, fmt.Sprintf("%d×%d κ=%g p_s=%g (%d/%d against %d)", cell.n1, cell.n2, cell.kappa, cell.ps, d, len(r.Config.Seeds), k))
				}
			}
			slices.Sort(worse)
			measured := fmt.Sprintf("cells of %d where every seed succeeds: default %d, %s %d", cells, nDef, ref, nRef)
			if len(worse) > 0 {
				measured += "; the default succeeds less often at " + joinShort(worse, 6)
			}
			vs = append(vs, Verdict{Panel: string(model),
				Claim:    fmt.Sprintf("with %s the default method succeeds wherever %s does", model.outliers(), ref),
				Expected: fmt.Sprintf("as many successes (error <= %s) in every cell", sci(r.Config.Success)),
				Measured: measured, Holds: len(worse) == 0})
		}
	}
	return vs
}

// joinShort joins up to n of s, saying how many more there are.
func joinShort(s []string, n int) string {
	if len(s) <= n {
		return fmt.Sprint(s)
	}
	return fmt.Sprintf("%v and %d more", s[:n], len(s)-n)
}

// PhaseName is the file the study is stored in.
const PhaseName = "phase.json"

// WriteJSON stores the study.
func (r *PhaseResult) WriteJSON(w io.Writer) error {
	out := *r
	out.Runs = slices.Clone(r.Runs)
	for i := range out.Runs {
		if math.IsNaN(out.Runs[i].RelError) || math.IsInf(out.Runs[i].RelError, 0) {
			out.Runs[i].RelError = -1 // failed: stored as -1
		}
	}
	return json.NewEncoder(w).Encode(out)
}

// ReadPhase restores a study stored by WriteJSON.
func ReadPhase(rd io.Reader) (*PhaseResult, error) {
	var r PhaseResult
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("phase study: %w", err)
	}
	if err := r.Config.Validate(); err != nil {
		return nil, err
	}
	for i := range r.Runs {
		if r.Runs[i].RelError < 0 {
			r.Runs[i].RelError = math.Inf(1)
		}
	}
	return &r, nil
}

// WriteCSV writes one line per run: model, n1, n2, kappa, ps, seed,
// method, rel_error (inf when the run failed), iterations, seconds,
// success (1 or 0).
func (r *PhaseResult) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"model", "n1", "n2", "kappa", "ps", "seed", "method", "rel_error", "iterations", "seconds", "success"})
	for _, run := range r.Runs {
		ok := "0"
		if run.succeeded(r.Config.Success) {
			ok = "1"
		}
		cw.Write([]string{string(run.Model), strconv.Itoa(run.N1), strconv.Itoa(run.N2), num(run.Kappa), num(run.PS),
			strconv.FormatUint(run.Seed, 10), string(run.Method), strconv.FormatFloat(run.RelError, 'g', 4, 64),
			strconv.Itoa(run.Iterations), strconv.FormatFloat(run.Seconds, 'f', 3, 64), ok})
	}
	cw.Flush()
	return cw.Error()
}
