package experiment

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/csvfmt"
	"github.com/scaledsm/scaledsm/synth"
)

// Header is the header of a figure's CSV: one row per curve and iteration.
var Header = []string{"panel", "method", "step", "kappa", "ps", "snr_db", "lambda", "q", "iteration", "rel_error", "step_length"}

// FitStep is the step column of the rows of a panel (d) that carry the
// geometric schedule fitted to Polyak's step lengths.
const FitStep = "geometric-fit"

// curveFields returns the columns panel to q of a curve.
func curveFields(panel string, c Curve) []string {
	lambda, q := "", ""
	if c.Step.Rule == Geometric {
		lambda, q = csvfmt.Float(c.Step.Lambda), csvfmt.Float(c.Step.Q)
	}
	snr := ""
	if !math.IsInf(c.Setting.SNR, 1) {
		snr = csvfmt.Float(c.Setting.SNR)
	}
	return []string{panel, c.Method.String(), c.Step.Rule.String(),
		csvfmt.Float(c.Setting.Kappa), csvfmt.Float(c.Setting.PS), snr, lambda, q}
}

// WriteCSV writes a result as tidy CSV with the columns of Header: one row
// per panel, curve and iteration, iteration 0 being the initialization.
// Fields that do not apply are empty: lambda and q for Polyak's steps,
// snr_db without noise, step_length at a run's last iterate (no step is
// taken from it). A StepPanel adds, after its Polyak run, the rows of the
// fitted geometric schedule (step geometric-fit, with the fitted lambda
// and q, no rel_error) at the iterations of the step lengths fitted.
func WriteCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	cw.Write(Header)
	for i, p := range r.Figure.Panels {
		for _, run := range r.Panels[i] {
			head := curveFields(p.Name, run.Curve)
			for _, it := range run.Trace {
				cw.Write(append(head[:len(head):len(head)], strconv.Itoa(it.Iter), csvfmt.Float(it.RelError), csvfmt.Float(it.StepLength)))
			}
			if p.Kind != StepPanel || run.Curve.Step.Rule != Polyak {
				continue
			}
			fit, err := FitGeometric(run.Trace)
			if err != nil {
				continue // nothing to fit: no rows
			}
			head = slices.Clone(head)
			head[2], head[6], head[7] = FitStep, csvfmt.Float(fit.Lambda), csvfmt.Float(fit.Q)
			for t := range fit.Points {
				cw.Write(append(head[:len(head):len(head)], strconv.Itoa(t), "", csvfmt.Float(fit.Lambda*math.Pow(fit.Q, float64(t)))))
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Meta is what a figure's run records beside its CSV (as figureN.json):
// the sizes, the seed, and how long it took on what.
type Meta struct {
	Figure     int     `json:"figure"`
	Problem    string  `json:"problem"` // ms or qs
	N1         int     `json:"n1"`
	N2         int     `json:"n2"`
	Rank       int     `json:"rank"`
	M          int     `json:"m"`
	Seed       uint64  `json:"seed"`
	Seconds    float64 `json:"seconds"`
	Runs       int     `json:"runs"`
	Iterations int     `json:"iterations"`
	Machine    string  `json:"machine"`
}

// Meta returns the result's record.
func (r *Result) Meta() Meta {
	return Meta{
		Figure: r.Figure.Number, Problem: r.Config.Kind.String(),
		N1: r.Config.N1, N2: r.Config.N2, Rank: r.Config.Rank, M: r.Config.M, Seed: r.Config.Seed,
		Seconds: r.Elapsed.Seconds(), Runs: r.Runs, Iterations: r.Iterations, Machine: r.Machine,
	}
}

// WriteMeta writes the result's record as indented JSON.
func WriteMeta(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Meta())
}

// ReadResult restores a result from its record (WriteMeta) and its CSV
// (WriteCSV). The traces it restores hold the iteration, the relative
// error and the step length; the other fields of their records are NaN.
// It returns an error naming the line at fault when the CSV does not
// match the figure's specification.
func ReadResult(meta, data io.Reader) (*Result, error) {
	var m Meta
	dec := json.NewDecoder(meta)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	fig, err := Lookup(m.Figure)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	kind, err := synth.ParseKind(m.Problem)
	if err != nil || kind != fig.Problem.Kind {
		return nil, fmt.Errorf("record: problem %q is not figure %d's %v", m.Problem, m.Figure, fig.Problem.Kind)
	}
	res := &Result{
		Figure:  fig,
		Config:  synth.Config{Kind: kind, N1: m.N1, N2: m.N2, Rank: m.Rank, M: m.M, Seed: m.Seed},
		Elapsed: time.Duration(m.Seconds * float64(time.Second)),
		Runs:    m.Runs, Iterations: m.Iterations, Machine: m.Machine,
	}

	// Where each curve's rows go.
	type slot struct{ panel, curve int }
	slots := map[string]slot{}
	for i, p := range fig.Panels {
		for j, c := range p.Curves {
			slots[strings.Join(curveFields(p.Name, c), ",")] = slot{i, j}
		}
	}
	res.Panels = make([][]Run, len(fig.Panels))
	for i, p := range fig.Panels {
		res.Panels[i] = make([]Run, len(p.Curves))
		for j, c := range p.Curves {
			res.Panels[i][j].Curve = c
		}
	}

	cr := csv.NewReader(bufio.NewReader(data))
	cr.FieldsPerRecord = len(Header)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("csv header: %w", err)
	}
	if got := strings.Join(head, ","); got != strings.Join(Header, ",") {
		return nil, fmt.Errorf("csv header is %q, want %q", got, strings.Join(Header, ","))
	}
	for {
		row, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("csv: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if row[2] == FitStep {
			continue // recomputed from the Polyak run's step lengths
		}
		key := strings.Join(row[:8], ",")
		s, ok := slots[key]
		if !ok {
			return nil, fmt.Errorf("csv line %d: curve %s is not in figure %d", line, key, fig.Number)
		}
		it := scaledsm.Iteration{Change: math.NaN(), Loss: math.NaN(), Step: math.NaN()}
		if it.Iter, err = strconv.Atoi(row[8]); err != nil {
			return nil, fmt.Errorf("csv line %d: iteration %q is not an integer", line, row[8])
		}
		run := &res.Panels[s.panel][s.curve]
		if it.Iter != len(run.Trace) {
			return nil, fmt.Errorf("csv line %d: iteration %d of curve %s follows iteration %d", line, it.Iter, key, len(run.Trace)-1)
		}
		if it.RelError, err = parseField(row[9]); err != nil {
			return nil, fmt.Errorf("csv line %d: rel_error: %w", line, err)
		}
		if it.StepLength, err = parseField(row[10]); err != nil {
			return nil, fmt.Errorf("csv line %d: step_length: %w", line, err)
		}
		run.Trace = append(run.Trace, it)
	}
	for i, p := range fig.Panels {
		for j, run := range res.Panels[i] {
			if len(run.Trace) == 0 {
				return nil, fmt.Errorf("csv has no rows for curve %s", strings.Join(curveFields(p.Name, fig.Panels[i].Curves[j]), ","))
			}
		}
	}
	return res, nil
}

// parseField reads a CSV number; an empty field is NaN.
func parseField(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// CSVName returns the name of figure n's CSV in an output directory:
// figureN.csv.
func CSVName(n int) string { return fmt.Sprintf("figure%d.csv", n) }

// MetaName returns the name of figure n's record: figureN.json.
func MetaName(n int) string { return fmt.Sprintf("figure%d.json", n) }

// PanelName returns the name of a panel's image: figureNa.png, say, for
// ext "png".
func PanelName(n int, panel, ext string) string {
	return fmt.Sprintf("figure%d%s.%s", n, panel, ext)
}

// LoadDir restores the results of every figure whose record and CSV are in
// dir, in figure order. A figure with neither is skipped; one whose files
// cannot be read is reported in errs and skipped.
func LoadDir(dir string) (results []*Result, errs []error) {
	for n := 1; n <= 6; n++ {
		mf, err := os.Open(filepath.Join(dir, MetaName(n)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r, err := func() (*Result, error) {
			defer mf.Close()
			df, err := os.Open(filepath.Join(dir, CSVName(n)))
			if err != nil {
				return nil, err
			}
			defer df.Close()
			return ReadResult(mf, df)
		}()
		if err != nil {
			errs = append(errs, fmt.Errorf("figure %d in %s: %w", n, dir, err))
			continue
		}
		results = append(results, r)
	}
	return results, errs
}

// Machine describes the machine this process runs on: the CPU model (from
// /proc/cpuinfo where there is one), the cores Go uses, the system and
// the Go version.
func Machine() string {
	cpu := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v) + ", "
				break
			}
		}
	}
	return fmt.Sprintf("%s%d cores (GOMAXPROCS %d), %s/%s, %s", cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
}
