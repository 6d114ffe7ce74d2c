package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/synth"
)

// The JSON the commands print or write (solve --json, summary.json,
// problem.json) share these pieces, so that a field has one name and one
// meaning wherever it appears.

// shapeJSON is the size of a problem.
type shapeJSON struct {
	Problem string `json:"problem"` // "ms" (matrix sensing), "qs" (quadratic sampling), "mc" (matrix completion) or "rpca" (robust PCA)
	N1      int    `json:"n1"`
	N2      int    `json:"n2"`
	Rank    int    `json:"rank"`
	M       int    `json:"m"` // measurements; for the entry models, the entries observed (and fitted)
}

// drawJSON is the synthetic draw of a problem: the truth's condition
// number, the corruption and the seed.
type drawJSON struct {
	TrueRank  int      `json:"true_rank"` // the rank r of X*
	Kappa     float64  `json:"kappa"`
	P         *float64 `json:"p,omitempty"` // the entry models: the probability that an entry is observed
	PS        float64  `json:"ps"`
	Outliers  int      `json:"outliers"` // measurements actually corrupted
	SNR       *float64 `json:"snr_db"`   // null without dense noise
	Seed      uint64   `json:"seed"`
	Precision string   `json:"precision"` // storage of the operator's data: f64 or f32
}

func newDrawJSON(c synth.Config, s synth.Setting, in *synth.Instance) drawJSON {
	d := drawJSON{TrueRank: c.Rank, Kappa: s.Kappa, PS: s.PS, Outliers: in.Outliers, SNR: finite(s.SNR), Seed: c.Seed, Precision: c.Precision.String()}
	if entryKind(c.Kind) {
		d.P = &c.P
	}
	return d
}

// filesJSON names the files of a problem read from disk.
type filesJSON struct {
	Operator   string  `json:"operator_file"` // for the entry models, the rows, ratings or masked file
	Y          string  `json:"y_file,omitempty"`
	Truth      *string `json:"truth_file"`
	Cols       string  `json:"cols_file,omitempty"`
	TruthLeft  string  `json:"truth_left_file,omitempty"` // the entry models' truth as factors L*, R*
	TruthRight string  `json:"truth_right_file,omitempty"`
}

// entriesJSON is what the entry models (matrix completion, robust PCA)
// add: how much of the matrix was seen, the rows and columns that no entry
// constrains, and the fit to the entries held out.
type entriesJSON struct {
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

// runJSON is how a solve ran and how it ended.
type runJSON struct {
	Method       string   `json:"method"`
	Step         string   `json:"step"`
	Lambda       *float64 `json:"lambda"` // geometric steps only
	Q            *float64 `json:"q"`      // geometric steps only
	Eta          *float64 `json:"eta"`    // constant steps only
	Loss         string   `json:"loss"`
	Trim         string   `json:"init_trim"` // "median", "none" or the fraction dropped
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
	// scaledsm.RestartTrim, or "convex"), is (init_trim and
	// init_rel_error are then that start's).
	Restarted    bool    `json:"restarted,omitempty"`
	RestartInit  string  `json:"restart_init,omitempty"`
	FirstSeconds float64 `json:"first_seconds,omitempty"` // with restarted, the earlier fits' iterations
}

func newRunJSON(s scaledsm.Settings, res *scaledsm.Result) runJSON {
	r := runJSON{
		Method: s.Method.String(), Step: fmt.Sprint(s.Step), Loss: s.Loss.String(),
		Trim: s.Trim.String(), MaxIter: s.MaxIter, Tol: max(s.Tol, 0), Kernel: kernel.Active(),
		Status: res.Status.String(), Iterations: res.Iterations,
		FinalLoss: finite(res.Loss), RelError: finite(res.RelError),
		FitFraction: res.FitFraction, Fallbacks: res.Fallbacks,
		Unfitted: res.Unfitted, UnfittedRows: res.UnfittedRows, UnfittedCols: res.UnfittedCols,
		GrossRows: res.GrossRows, GrossCols: res.GrossCols,
		Seconds: res.Runtime.Seconds(), Restarted: res.Restarted, FirstSeconds: res.FirstRuntime.Seconds(),
	}
	start := s.Start
	if res.Restarted {
		start, r.RestartInit = res.RestartStart, res.RestartStart.String()
		r.Trim = scaledsm.TrimFraction(scaledsm.RestartTrim).String()
	}
	if start == scaledsm.ConvexStart {
		r.Trim = "none" // the convex start truncates nothing
	}
	switch step := s.Step.(type) {
	case scaledsm.Geometric:
		r.Lambda, r.Q = &step.Lambda, &step.Q
	case scaledsm.Constant:
		r.Eta = &step.Eta
	}
	if n := len(res.Trace); n > 0 {
		r.InitRelError = finite(res.Trace[0].RelError)
		r.FinalChange = finite(res.Trace[n-1].Change)
		if res.Iterations > 0 {
			r.MsPerIter = finite(1000 * res.Runtime.Seconds() / float64(n))
		}
	}
	return r
}

// summary is what solve prints with --json and writes as summary.json: the
// problem, how it was solved, and what came out.
type summary struct {
	shapeJSON
	Source string `json:"source"` // "synthetic" or "files"
	*drawJSON
	*filesJSON
	*entriesJSON
	runJSON
	rankJSON
	timingJSON
	Interrupted bool     `json:"interrupted"`
	Files       []string `json:"files,omitempty"` // the outputs written to --out

	// On the ranks of mpirun: how many; each one's peak resident set size
	// and the bytes of its shard of the data (operator and y), in MB, and
	// the seconds of the iterations it spent in collectives (waiting for
	// the other ranks included); the collectives per iteration and the KB
	// each rank contributes to them.
	began time.Time // when the command began: the wall time's start

	Ranks               int       `json:"ranks,omitempty"`
	RankPeakMB          []float64 `json:"rank_peak_rss_mb,omitempty"`
	RankDataMB          []float64 `json:"rank_data_mb,omitempty"`
	RankCommSeconds     []float64 `json:"rank_comm_seconds,omitempty"`
	CollectivesPerIter  float64   `json:"collectives_per_iter,omitempty"`
	CollectiveKBPerIter float64   `json:"collective_kb_per_iter,omitempty"`
}

// print writes the summary for a person.
func (s *summary) print(w io.Writer, dir string) {
	kind, _ := synth.ParseKind(s.Problem)
	shape := fmt.Sprintf("n=%d", s.N1)
	if s.N2 != s.N1 {
		shape = fmt.Sprintf("n1=%d n2=%d", s.N1, s.N2)
	}
	if s.drawJSON != nil {
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
	trim, _ := scaledsm.ParseTrim(s.Trim)
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
		note = fmt.Sprintf(" (the loss levelled off: %d iterations lowered it by less than %g%%; the data are not exactly low rank, or the method got no closer)",
			scaledsm.DefaultPlateauWindow, 100*scaledsm.DefaultPlateauProgress)
	case scaledsm.Partial.String():
		note = fmt.Sprintf(" (X stopped changing, but on data declared free of outliers it leaves %s: X* is not recovered there)", s.localized())
	case scaledsm.Validated.String():
		note = " (the number of iterations that predicted 5% of the entries held out best; more would fit noise)"
	}
	if s.Restarted {
		note += fmt.Sprintf(" from another start (%s): the fit from the first was not exact", s.RestartInit)
	}
	fmt.Fprintf(w, "status     %s after %s%s\n", s.Status, iterations(s.Iterations), note)
	switch {
	case s.RelError != nil && s.InitRelError != nil:
		fmt.Fprintf(w, "error      %.3g relative (from %.3g at the initialization)\n", *s.RelError, *s.InitRelError)
	case s.FinalChange != nil:
		fmt.Fprintf(w, "change     %.3g relative in the last iteration (no truth to compare with)\n", *s.FinalChange)
	}
	fit := fmt.Sprintf("%s%% of the measurements fitted exactly (residual below %g·median|y|)", percent(s.FitFraction, s.Unfitted > 0), scaledsm.FitTolerance)
	if s.Unfitted > 0 {
		fit += fmt.Sprintf(", %d not", s.Unfitted)
		if l := s.localized(); l != "" {
			fit += ": " + l
		}
	}
	if s.FinalLoss != nil {
		fit += fmt.Sprintf("; final loss %.6g", *s.FinalLoss)
	}
	fmt.Fprintf(w, "fit        %s\n", fit)
	s.printRank(w)
	if e := s.entriesJSON; e != nil {
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
func finite(v float64) *float64 {
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
func (r *runJSON) localized() string {
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
