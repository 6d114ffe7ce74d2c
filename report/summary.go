// Package report is what a solve reports: its summary (the problem, how it
// was solved, what came out, where its time went and every fit it made),
// as the command line prints it, writes it to summary.json and hands it
// to Python, one value with one name for each figure. A Summary is filled
// from the library's values (NewRun, NewChoices, NewTiming, NewDraw) and
// printed for a person (Print) or encoded as JSON.
package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/parse"
	"github.com/scaledsm/scaledsm/synth"
)

// The JSON the commands print or write (solve --json, Summary.json,
// problem.json) share these pieces, so that a field has one name and one
// meaning wherever it appears.

// Shape is the size of a problem.
type Shape struct {
	Problem string `json:"problem"` // "ms" (matrix sensing), "qs" (quadratic sampling), "mc" (matrix completion) or "rpca" (robust PCA)
	N1      int    `json:"n1"`
	N2      int    `json:"n2"`
	Rank    int    `json:"rank"`
	M       int    `json:"m"` // measurements; for the entry models, the entries observed (and fitted)
}

// Draw is the synthetic draw of a problem: the truth's condition
// number, the corruption and the seed.
type Draw struct {
	TrueRank  int      `json:"true_rank"` // the rank r of X*
	Kappa     float64  `json:"kappa"`
	P         *float64 `json:"p,omitempty"` // the entry models: the probability that an entry is observed
	PS        float64  `json:"ps"`
	Outliers  int      `json:"outliers"` // measurements actually corrupted
	SNR       *float64 `json:"snr_db"`   // null without dense noise
	Seed      uint64   `json:"seed"`
	Precision string   `json:"precision"` // storage of the operator's data: f64 or f32
}

func NewDraw(c synth.Config, s synth.Setting, in *synth.Instance) Draw {
	d := Draw{TrueRank: c.Rank, Kappa: s.Kappa, PS: s.PS, Outliers: in.Outliers, SNR: Finite(s.SNR), Seed: c.Seed, Precision: c.Precision.String()}
	if c.Kind.Entries() {
		d.P = &c.P
	}
	return d
}

// Inputs names the files of a problem read from disk.
type Inputs struct {
	Operator   string  `json:"operator_file"` // for the entry models, the rows, ratings or masked file
	Y          string  `json:"y_file,omitempty"`
	Truth      *string `json:"truth_file"`
	Cols       string  `json:"cols_file,omitempty"`
	TruthLeft  string  `json:"truth_left_file,omitempty"` // the entry models' truth as factors L*, R*
	TruthRight string  `json:"truth_right_file,omitempty"`
}

// Entries is what the entry models (matrix completion, robust PCA)
// add: how much of the matrix was seen, the rows and columns that no entry
// constrains, and the fit to the entries held out.
type Entries struct {
	Observed    float64  `json:"observed_fraction"` // m / (n1·n2)
	EmptyRows   int      `json:"empty_rows"`        // rows with no entry in the fit: not recoverable
	EmptyCols   int      `json:"empty_cols"`
	Missing     *int     `json:"missing,omitempty"` // --masked: the NaN entries
	Holdout     *float64 `json:"holdout,omitempty"` // the fraction asked for
	TestEntries *int     `json:"test_entries,omitempty"`
	TestRMSE    *float64 `json:"test_rmse,omitempty"` // on the entries held out
	TestMAE     *float64 `json:"test_mae,omitempty"`
	// TestFit is the fraction of the entries held out that the factors
	// predict to the fit tolerance (see Result.FitFraction): about 1 - p_s
	// on an exact recovery, as gross errors are not predicted.
	TestFit *float64 `json:"test_fit_fraction,omitempty"`
	// The sparse part's support (see Entries.SparsePart): the entries
	// fitted whose residual is an outlier, and for a synthetic problem
	// the precision and recall of that support against the outliers'.
	OutliersFound    *int     `json:"outliers_found,omitempty"`
	OutlierPrecision *float64 `json:"outlier_precision,omitempty"`
	OutlierRecall    *float64 `json:"outlier_recall,omitempty"`
}

// Run is how a solve ran and how it ended.
type Run struct {
	Method       string   `json:"method"`
	Step         string   `json:"step"`
	Lambda       *float64 `json:"lambda"` // geometric steps only
	Q            *float64 `json:"q"`      // geometric steps only
	Eta          *float64 `json:"eta"`    // constant steps only
	Loss         string   `json:"loss"`
	Truncation   string   `json:"init_trim"` // "median", "none" or the fraction dropped
	MaxIter      int      `json:"max_iter"`
	Tol          float64  `json:"tol"` // 0: no early stop
	Kernel       string   `json:"kernel"`
	Status       string   `json:"status"`
	Iterations   int      `json:"iterations"`     // updates made before the stop
	FinalLoss    *float64 `json:"final_loss"`     // null when not finite
	FStar        *float64 `json:"f_star"`         // the loss at the truth, when known
	RelError     *float64 `json:"rel_error"`      // null without a truth
	InitRelError *float64 `json:"init_rel_error"` // the initialization's
	FinalChange  *float64 `json:"final_change"`   // relative change of X in the last iteration
	FitFraction  float64  `json:"fit_fraction"`   // measurements fitted exactly (see scaledsm.Result)
	Unfitted     int      `json:"unfitted"`       // measurements not fitted exactly (see scaledsm.Evidence)
	UnfittedRows int      `json:"unfitted_rows"`  // entries: rows, columns more than half unfitted
	UnfittedCols int      `json:"unfitted_cols"`
	GrossRows    int      `json:"gross_rows"` // l2trim: rows, columns found gross (their entries outliers)
	GrossCols    int      `json:"gross_cols"`
	Fallbacks    int      `json:"fallbacks"` // updates that needed the pseudo-inverse
	Seconds      float64  `json:"seconds"`   // the iterations' wall time
	MsPerIter    *float64 `json:"ms_per_iter"`
	SetupSeconds float64  `json:"setup_seconds"` // reading or drawing, and initializing
	// Restarted: the fit from the first start was not exact, and this
	// one, from RestartInit ("spectral", truncated at
	// Result.RestartTruncation, or "convex"), is (init_trim and
	// init_rel_error are then that start's).
	Restarted    bool    `json:"restarted,omitempty"`
	RestartInit  string  `json:"restart_init,omitempty"`
	FirstSeconds float64 `json:"first_seconds,omitempty"` // with restarted, the earlier fits' iterations
	// Polished: the rounds of the polish of robust PCA kept (see
	// completion.Choices.Polished), and its time.
	Polished      int     `json:"polished,omitempty"`
	PolishSeconds float64 `json:"polish_seconds,omitempty"`
}

// NewRun records the run of the settings s, their defaults filled in as
// Solve fills them (a zero MaxIter is 1000, not none), and what it gave.
func NewRun(s scaledsm.Settings, res *completion.Result) Run {
	if full, err := s.Resolved(); err == nil {
		s = full
	}
	r := Run{
		Method: s.Method.String(), Step: fmt.Sprint(s.Step), Loss: s.Loss.String(),
		Truncation: s.Truncation.String(), MaxIter: s.MaxIter, Tol: max(s.Tol, 0), Kernel: kernel.Active(),
		Status: res.Status.String(), Iterations: res.Iterations,
		FinalLoss: Finite(res.Loss), RelError: Finite(res.RelError),
		FitFraction: res.FitFraction, Fallbacks: res.Fallbacks,
		Unfitted: res.Unfitted, UnfittedRows: res.UnfittedRows, UnfittedCols: res.UnfittedCols,
		GrossRows: res.GrossRows, GrossCols: res.GrossCols,
		Seconds: res.Runtime.Seconds(), Restarted: res.Restarted, FirstSeconds: res.FirstRuntime.Seconds(),
		Polished: res.Polished, PolishSeconds: res.PolishRuntime.Seconds(),
	}
	start := s.Start
	if res.Restarted {
		start, r.RestartInit = res.RestartStart, res.RestartStart.String()
		r.Truncation = res.RestartTruncation.String()
	}
	if start == scaledsm.ConvexStart {
		r.Truncation = "none" // the convex start truncates nothing
	}
	switch step := s.Step.(type) {
	case scaledsm.Geometric:
		r.Lambda, r.Q = &step.Lambda, &step.Q
	case scaledsm.Constant:
		r.Eta = &step.Eta
	}
	if n := len(res.Trace); n > 0 {
		r.InitRelError = Finite(res.Trace[0].RelError)
		r.FinalChange = Finite(res.Trace[n-1].Change)
		if res.Iterations > 0 {
			r.MsPerIter = Finite(1000 * res.Runtime.Seconds() / float64(n))
		}
	}
	return r
}

// Summary is what solve prints with --json and writes as Summary.json: the
// problem, how it was solved, and what came out.
type Summary struct {
	Shape
	Source string `json:"source"` // "synthetic" or "files"
	*Draw
	*Inputs
	*Entries
	Run
	Choices
	Timing
	Interrupted bool     `json:"interrupted"`
	Files       []string `json:"files,omitempty"` // the outputs written to --out

	// On the ranks of mpirun: how many; each one's peak resident set size
	// and the bytes of its shard of the data (operator and y), in MB, and
	// the seconds of the iterations it spent in collectives (waiting for
	// the other ranks included); the collectives per iteration and the KB
	// each rank contributes to them.
	Began time.Time `json:"-"` // when the command began: the wall time's start

	Ranks               int       `json:"ranks,omitempty"`
	RankPeakMB          []float64 `json:"rank_peak_rss_mb,omitempty"`
	RankDataMB          []float64 `json:"rank_data_mb,omitempty"`
	RankCommSeconds     []float64 `json:"rank_comm_seconds,omitempty"`
	CollectivesPerIter  float64   `json:"collectives_per_iter,omitempty"`
	CollectiveKBPerIter float64   `json:"collective_kb_per_iter,omitempty"`
}

// print writes the Summary for a person.
func (s *Summary) Print(w io.Writer, dir string) {
	kind, _ := synth.ParseKind(s.Problem)
	shape := fmt.Sprintf("n=%d", s.N1)
	if s.N2 != s.N1 {
		shape = fmt.Sprintf("n1=%d n2=%d", s.N1, s.N2)
	}
	if s.Draw != nil {
		fmt.Fprintf(w, "problem    %s, %s, r=%d, m=%d, kappa=%g, seed %d\n", kind.Model(), shape, s.TrueRank, s.M, s.Kappa, s.Seed)
		noise := "no noise"
		if s.SNR != nil {
			noise = fmt.Sprintf("SNR %g dB", *s.SNR)
		}
		fmt.Fprintf(w, "corruption %d outliers (p_s=%g), %s\n", s.Outliers, s.PS, noise)
	} else {
		fmt.Fprintf(w, "problem    %s from %s, m=%d, %s, rank %d\n", kind.Model(), s.Operator, s.M, shape, s.Rank)
	}
	step := s.Step + " steps"
	if s.Lambda != nil {
		step += fmt.Sprintf(" (lambda=%.3g, q=%g)", *s.Lambda, *s.Q)
	}
	if s.Eta != nil {
		step += fmt.Sprintf(" (eta=%.3g)", *s.Eta)
	}
	trim, _ := parse.Truncation(s.Truncation)
	init := "spectral initialization " + trim.Describe()
	switch {
	case s.InitScale != nil:
		init = fmt.Sprintf("random initialization of scale %g", *s.InitScale)
	case s.Init == scaledsm.ConvexStart.String():
		init = "convex initialization (robust completion's relaxation, solved roughly)"
	}
	fmt.Fprintf(w, "method     %s, %s, %s loss, damping %s; %s\n", s.Method, step, s.Loss, s.Damping, init)
	note := ""
	switch s.Status {
	case scaledsm.Stationary.String():
		note = " (X stopped changing; without a truth, the fit below is the evidence of recovery)"
	case scaledsm.Plateaued.String():
		note = fmt.Sprintf(" (the loss levelled off: %s; the data are not exactly low rank, or the method got no closer)", scaledsm.Plateau{})
	case scaledsm.Partial.String():
		note = fmt.Sprintf(" (X stopped changing, but on data declared free of outliers it leaves %s: X* is not recovered there)", s.Localized())
	case scaledsm.Validated.String():
		note = " (the number of iterations that predicted 5% of the entries held out best; more would fit noise)"
	}
	if s.Restarted {
		note += fmt.Sprintf(" from another start (%s): the fit from the first was not exact", s.RestartInit)
	}
	fmt.Fprintf(w, "status     %s after %s%s\n", s.Status, Iterations(s.Iterations), note)
	if s.Polished > 0 {
		fmt.Fprintf(w, "polished   %d %s of the polish (least absolute deviations, or a completion of the entries not marked as outliers) lowered Σ|y - x|: X below is the polish's, the status above the fit's it started from\n",
			s.Polished, plural(s.Polished, "round", "rounds"))
	}
	switch {
	case s.RelError != nil && s.InitRelError != nil:
		fmt.Fprintf(w, "error      %.3g relative (from %.3g at the initialization)\n", *s.RelError, *s.InitRelError)
	case s.FinalChange != nil:
		fmt.Fprintf(w, "change     %.3g relative in the last iteration (no truth to compare with)\n", *s.FinalChange)
	}
	fit := fmt.Sprintf("%s%% of the measurements fitted exactly (residual below %g·median|y|)", percent(s.FitFraction, s.Unfitted > 0), obs.FitTolerance)
	if s.Unfitted > 0 {
		fit += fmt.Sprintf(", %d not", s.Unfitted)
		if l := s.Localized(); l != "" {
			fit += ": " + l
		}
	}
	if s.FinalLoss != nil {
		fit += fmt.Sprintf("; final loss %.6g", *s.FinalLoss)
	}
	fmt.Fprintf(w, "fit        %s\n", fit)
	s.printRank(w)
	if e := s.Entries; e != nil {
		line := fmt.Sprintf("%.3g%% of the matrix observed; %d empty rows, %d empty columns", 100*e.Observed, e.EmptyRows, e.EmptyCols)
		if e.TestRMSE != nil {
			line += fmt.Sprintf("; %d held out: test RMSE %.4g, MAE %.4g, %.3g predicted exactly", *e.TestEntries, *e.TestRMSE, *e.TestMAE, *e.TestFit)
		}
		fmt.Fprintf(w, "entries    %s\n", line)
		if e.OutliersFound != nil {
			line := fmt.Sprintf("%d residuals beyond the bounds of l2trim (the sparse part's support)", *e.OutliersFound)
			if e.OutlierPrecision != nil && e.OutlierRecall != nil {
				line += fmt.Sprintf(": precision %.4g, recall %.4g against the outliers drawn", *e.OutlierPrecision, *e.OutlierRecall)
			}
			fmt.Fprintf(w, "outliers   %s\n", line)
		}
	}
	s.printFits(w)
	s.printTime(w)
	if len(s.Files) > 0 {
		paths := make([]string, len(s.Files))
		for i, f := range s.Files {
			paths[i] = filepath.Join(dir, f)
		}
		fmt.Fprintf(w, "results    %s\n", strings.Join(paths, ", "))
	}
}

// finite returns a pointer to v, or nil when v is NaN or infinite, so that
// JSON shows null.
func Finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// percent returns 100·f with one decimal, rounded down when short is set
// (a fraction short of 1), so that a count of unfitted measurements is
// never rounded up to 100.0%.
func percent(f float64, short bool) string {
	if short {
		return fmt.Sprintf("%.1f", math.Floor(1000*f)/10)
	}
	return fmt.Sprintf("%.1f", 100*f)
}

// localized says which whole rows and columns the unfitted measurements
// gather in (see scaledsm.Evidence), or "" when they gather in none.
func (r *Run) Localized() string {
	var parts []string
	if n := r.UnfittedRows + r.UnfittedCols; n > 0 {
		parts = append(parts, rowsCols(r.UnfittedRows, r.UnfittedCols)+" mostly unfitted")
	}
	if n := r.GrossRows + r.GrossCols; n > 0 {
		parts = append(parts, rowsCols(r.GrossRows, r.GrossCols)+" found gross")
	}
	return strings.Join(parts, ", ")
}

// rowsCols returns "2 rows and 1 column", "1 row" or "3 columns".
func rowsCols(rows, cols int) string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{rows, "row"}, {cols, "column"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.what)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", c.n, c.what))
		}
	}
	return strings.Join(parts, " and ")
}

// Choices is the rank of a solve's result, its initialization and the
// damping of its preconditioner.
type Choices struct {
	FitRank        int       `json:"fit_rank"`        // the columns of the factors fitted (auto: of the over-specified fit)
	EffectiveRank  int       `json:"effective_rank"`  // the rank read from the singular values (scaledsm.EffectiveRank)
	SingularValues []float64 `json:"singular_values"` // of the fitted L Rᵀ, largest first
	Init           string    `json:"init"`            // "spectral", "random" or "convex"
	InitScale      *float64  `json:"init_scale"`      // random initialization only
	Damping        string    `json:"damping"`         // "auto", "none" or the fixed λ; "none" for the vanilla methods
	// --rank auto on entries: the ranks fitted on 95% of them and the
	// mean |y - x| of each on the 5% held out (completion.ChooseRank).
	RankTried      []int     `json:"rank_tried,omitempty"`
	RankValidation []float64 `json:"rank_validation,omitempty"`
	RankSeconds    float64   `json:"rank_seconds,omitempty"` // the validation fits' wall time
	// RankExact: the rank chosen fitted most of the 95% and predicted
	// most of the 5% to the fit tolerance (the smallest such rank): exact
	// whatever the outliers add to the mean |y - x|.
	RankExact bool `json:"rank_exact,omitempty"`
	// The penalty μ of μ/2(||L||² + ||R||²) of the fit returned (0:
	// none); with --ridge auto and a fit that was not exact, the
	// penalties fitted on 95% of the entries, the least mean (y - x)² of
	// each along its fit on the 5% held out, and the iteration it was
	// least at (completion.ChooseRidge).
	Ridge           float64   `json:"ridge"`
	TrimFloor       float64   `json:"trim_floor,omitempty"` // l2trim's least factor (completion.TrimmedL2.Floor)
	RidgeTried      []float64 `json:"ridge_tried,omitempty"`
	RidgeFloors     []float64 `json:"ridge_trim_floors,omitempty"` // the trimming floor of each tried
	RidgeValidation []float64 `json:"ridge_validation,omitempty"`
	RidgeIterations []int     `json:"ridge_iterations,omitempty"`
	RidgeSeconds    float64   `json:"ridge_seconds,omitempty"`
}

// SetRank fills in the rank of the result: "rank" becomes the columns of
// the returned factors (with --rank auto, the rank found), fit_rank those
// of the fit the singular values are of.
func (s *Summary) SetRank(fitted int, settings scaledsm.Settings, res *completion.Result) {
	s.Rank = res.Factors.Rank()
	s.FitRank = fitted
	if s.FitRank == scaledsm.AutoRank {
		s.FitRank = len(res.SingularValues)
	}
	s.EffectiveRank = res.EffectiveRank
	if c := res.RankChoice; c != nil {
		s.FitRank = c.Rank
		s.RankTried, s.RankValidation, s.RankSeconds, s.RankExact = c.Ranks, c.Errors, c.Runtime.Seconds(), c.Exact
	}
	s.Ridge = max(settings.Ridge, 0)
	if c := res.RidgeChoice; c != nil {
		s.Ridge = c.Ridge
		s.RidgeTried, s.RidgeValidation, s.RidgeIterations, s.RidgeSeconds = c.Ridges, c.Errors, c.Iterations, c.Runtime.Seconds()
		s.RidgeFloors = c.TrimFloors
	}
	s.TrimFloor = res.TrimFloor
	s.SingularValues = res.SingularValues
	if s.SingularValues == nil {
		s.SingularValues = []float64{}
	}
}

// NewChoices records the initialization and damping of the settings, and
// the start of res when it was fitted again from another (see
// completion.Choices.Restarted).
func NewChoices(set scaledsm.Settings, res *completion.Result) Choices {
	r := Choices{Init: set.Start.String(), Damping: set.Damping.String()}
	if res.Restarted {
		r.Init = res.RestartStart.String()
	}
	if set.Start == scaledsm.RandomStart {
		scale := set.InitScale
		r.InitScale = &scale
	}
	if set.Method == scaledsm.VanillaSM || set.Method == scaledsm.GD {
		r.Damping = "none"
	}
	return r
}

// printRank writes the rank line of the Summary for a person.
func (s *Summary) printRank(w io.Writer) {
	sv := ""
	for i, v := range s.SingularValues {
		if i == 8 {
			sv += fmt.Sprintf(" … (%d)", len(s.SingularValues))
			break
		}
		sv += fmt.Sprintf(" %.3g", v)
	}
	fmt.Fprintf(w, "rank       %d effective of %d fitted; singular values%s\n", s.EffectiveRank, s.FitRank, sv)
	if len(s.RankTried) > 0 {
		tried := ""
		for k, r := range s.RankTried {
			tried += fmt.Sprintf(" %d: %.3g", r, s.RankValidation[k])
		}
		if s.RankExact {
			tried += fmt.Sprintf("; %d the smallest fitted and predicted exactly", s.FitRank)
		}
		fmt.Fprintf(w, "           chosen by validation (mean |y - x| on 5%% of the entries held out, %.3g s):%s\n", s.RankSeconds, tried)
	}
	if len(s.RidgeTried) > 0 {
		tried := ""
		for k, mu := range s.RidgeTried {
			tried += fmt.Sprintf(" %.3g", mu)
			if s.RidgeFloors[k] != s.RidgeFloors[0] { // the ladder's own floor
				tried += fmt.Sprintf(" trimmed to %g", s.RidgeFloors[k])
			}
			tried += fmt.Sprintf(": %.3g (%d)", s.RidgeValidation[k], s.RidgeIterations[k])
		}
		floor := ""
		if s.TrimFloor != s.RidgeFloors[0] {
			floor = fmt.Sprintf(" with l2trim's bounds down to %g times the kept means", s.TrimFloor)
		}
		fmt.Fprintf(w, "ridge      %.3g%s, chosen by validation (least clipped mean (y - x)² on 5%% of the entries held out, at the iteration in parentheses, %.3g s):%s\n",
			s.Ridge, floor, s.RidgeSeconds, tried)
	} else if s.Ridge > 0 {
		fmt.Fprintf(w, "ridge      %.3g\n", s.Ridge)
	}
}

// Fit is one of the fits a solve made besides the one it returned
// (completion.Fit).
type Fit struct {
	Kind       string   `json:"kind"` // "validation" (on most of the entries) or "not kept"
	Rank       int      `json:"rank"`
	Init       string   `json:"init"` // "spectral", "random" or "convex"
	Truncation string   `json:"init_trim"`
	Ridge      float64  `json:"ridge"`
	Status     string   `json:"status"`
	Iterations int      `json:"iterations"`
	Seconds    float64  `json:"seconds"` // its initialization included
	MsPerIter  *float64 `json:"ms_per_iter,omitempty"`
}

// Timing accounts for a solve's every second and every fit: the
// reading or drawing and the first initialization (setup_seconds, in
// Run), the call to the library (solve_seconds: the iterations of the
// fit returned, Run's seconds, its initialization when the library
// made it, the other fits, and the rest, choosing between them), and what
// follows it, up to the moment the Summary is
// written (evaluating and writing); their sum is wall_seconds.
type Timing struct {
	InitSeconds   float64 `json:"init_seconds"` // the fit returned's initialization in the library call
	Fits          []Fit   `json:"fits,omitempty"`
	FitsSeconds   float64 `json:"fits_seconds,omitempty"` // the other fits'
	SolveSeconds  float64 `json:"solve_seconds"`
	FinishSeconds float64 `json:"finish_seconds"`
	WallSeconds   float64 `json:"wall_seconds"`
}

// NewTiming returns the fits of res and the library call's time.
func NewTiming(res *completion.Result, solve time.Duration) Timing {
	t := Timing{SolveSeconds: solve.Seconds(), InitSeconds: res.InitRuntime.Seconds()}
	for _, f := range res.Fits {
		j := Fit{Kind: "not kept", Rank: f.Rank, Init: f.Start.String(), Truncation: f.Truncation.String(), Ridge: f.Ridge,
			Status: f.Status.String(), Iterations: f.Iterations, Seconds: f.Runtime.Seconds()}
		if f.Validation {
			j.Kind = "validation"
		}
		if f.Start != scaledsm.SpectralStart {
			j.Truncation = "none"
		}
		if f.Iterations > 0 {
			j.MsPerIter = Finite(1000 * f.Runtime.Seconds() / float64(f.Iterations))
		}
		t.Fits = append(t.Fits, j)
		t.FitsSeconds += j.Seconds
	}
	return t
}

// stamp sets the wall time to now and the time after the solve to what
// the setup and the solve leave of it.
func (s *Summary) Stamp() {
	s.WallSeconds = time.Since(s.Began).Seconds()
	s.FinishSeconds = max(0, s.WallSeconds-s.SetupSeconds-s.SolveSeconds)
}

// printTime writes the time line: the fit returned, the other fits, the
// setup, what followed the solve, and the whole.
func (s *Summary) printTime(w io.Writer) {
	line := fmt.Sprintf("%.3g s solving", s.Seconds)
	if s.MsPerIter != nil {
		line += fmt.Sprintf(", %.3g ms per iteration", *s.MsPerIter)
	}
	if s.InitSeconds >= 0.005 {
		line += fmt.Sprintf(", %.3g s initializing it", s.InitSeconds)
	}
	if n := len(s.Fits); n > 0 {
		line += fmt.Sprintf(" (the fit returned), %.3g s in %d other %s", s.FitsSeconds, n, plural(n, "fit", "fits"))
	}
	if s.PolishSeconds >= 0.005 {
		line += fmt.Sprintf(", %.3g s polishing", s.PolishSeconds)
	}
	if rest := s.SolveSeconds - s.Seconds - s.InitSeconds - s.FitsSeconds - s.PolishSeconds; rest >= 0.005 {
		line += fmt.Sprintf(", %.3g s choosing between fits", rest)
	}
	line += fmt.Sprintf("; %.3g s reading or drawing and initializing", s.SetupSeconds)
	if s.WallSeconds > 0 {
		line += fmt.Sprintf("; %s s evaluating and writing; %.3g s in all", seconds(s.FinishSeconds), s.WallSeconds)
	}
	fmt.Fprintf(w, "time       %s\n", line)
}

// printFits writes the fits line: the fits made besides the one returned,
// the validation fits together and the others each.
func (s *Summary) printFits(w io.Writer) {
	if len(s.Fits) == 0 {
		return
	}
	var parts []string
	var ranks []int
	n, its, secs := 0, 0, 0.0
	for _, f := range s.Fits {
		if f.Kind != "validation" {
			continue
		}
		n, its, secs = n+1, its+f.Iterations, secs+f.Seconds
		if !slices.Contains(ranks, f.Rank) {
			ranks = append(ranks, f.Rank)
		}
	}
	if n > 0 {
		parts = append(parts, fmt.Sprintf("%d validation %s on 95%% of the entries (%s %s; %d iterations, %.3g s)",
			n, plural(n, "fit", "fits"), plural(len(ranks), "rank", "ranks"), joinInts(ranks), its, secs))
	}
	for _, f := range s.Fits {
		if f.Kind == "validation" {
			continue
		}
		start := f.Init + " start"
		if f.Init == "spectral" {
			trim, _ := parse.Truncation(f.Truncation)
			start += " " + trim.Describe()
		}
		if f.Ridge > 0 {
			start += fmt.Sprintf(", penalty %.3g", f.Ridge)
		}
		parts = append(parts, fmt.Sprintf("not kept: rank %d from the %s, %s after %s (%.3g s)",
			f.Rank, start, f.Status, Iterations(f.Iterations), f.Seconds))
	}
	fmt.Fprintf(w, "fits       %d besides the one returned: %s\n", len(s.Fits), strings.Join(parts, "; "))
}

// plural returns one or many for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// joinInts returns v as "1, 2, 3".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// Iterations returns "1 iteration" or "n iterations".
func Iterations(n int) string {
	if n == 1 {
		return "1 iteration"
	}
	return fmt.Sprintf("%d iterations", n)
}

// NewEntries returns the report of the entries of op: the fraction of the
// matrix observed, and its rows and columns with no entry.
func NewEntries(op *completion.Entries) *Entries {
	m, n1, n2 := op.Dims()
	r := &Entries{Observed: float64(m) / (float64(n1) * float64(n2))}
	start := op.Start()
	for i := range n1 {
		if start[i+1] == start[i] {
			r.EmptyRows++
		}
	}
	seen := make([]bool, n2)
	for _, j := range op.Cols() {
		seen[j] = true
	}
	for _, s := range seen {
		if !s {
			r.EmptyCols++
		}
	}
	return r
}

// SetTest records the errors of the factors f on the entries held out.
func (r *Entries) SetTest(f scaledsm.Factors, held completion.HeldOut) {
	if len(held.Y) == 0 {
		return
	}
	rmse, mae, fit := held.Errors(f)
	n := len(held.Y)
	r.TestEntries, r.TestRMSE, r.TestMAE, r.TestFit = &n, Finite(rmse), Finite(mae), Finite(fit)
}

// SetSupport records the support of the sparse part s (its non-zeros)
// and, with the outliers' mask when known, its precision and recall.
func (r *Entries) SetSupport(s []float64, corrupted []bool) {
	found := 0
	for _, v := range s {
		if v != 0 {
			found++
		}
	}
	r.OutliersFound = &found
	if corrupted == nil {
		return
	}
	tp, outliers := 0, 0
	for k, c := range corrupted {
		if c {
			outliers++
			if s[k] != 0 {
				tp++
			}
		}
	}
	if found > 0 {
		r.OutlierPrecision = Finite(float64(tp) / float64(found))
	}
	if outliers > 0 {
		r.OutlierRecall = Finite(float64(tp) / float64(outliers))
	}
}

// seconds returns v to three digits, or "<0.001" below a millisecond.
func seconds(v float64) string {
	if v < 1e-3 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3g", v)
}
