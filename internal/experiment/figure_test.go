package experiment

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// small are the sizes the pipeline tests run at: seconds for all six
// figures.
var small = Options{Seed: 1, N: 10, Rank: 2}

// TestFigureSpecs checks the specifications against the table of
// Section 4's settings.
func TestFigureSpecs(t *testing.T) {
	figs := Figures()
	if len(figs) != 6 {
		t.Fatalf("%d figures, want 6", len(figs))
	}
	for i, f := range figs {
		if f.Number != i+1 {
			t.Errorf("figure %d is numbered %d", i+1, f.Number)
		}
		kind, rank := synth.Sensing, 10
		if f.Number%2 == 0 {
			kind, rank = synth.Quadratic, 5
		}
		if f.Problem.Kind != kind || f.Problem.N1 != 100 || f.Problem.Rank != rank || f.Problem.M != 0 {
			t.Errorf("figure %d: problem %+v, want %v, n=100, r=%d, m=8nr", f.Number, f.Problem, kind, rank)
		}
		if len(f.Claims) == 0 {
			t.Errorf("figure %d has no claims", f.Number)
		}
	}
	settings := func(p *Panel, m scaledsm.Method, get func(Curve) float64) []float64 {
		var v []float64
		for _, c := range p.Curves {
			if c.Method == m {
				v = append(v, get(c))
			}
		}
		return v
	}
	kappa := func(c Curve) float64 { return c.Setting.Kappa }
	for _, n := range []int{1, 2} {
		f := figs[n-1]
		for i, ps := range []float64{0, 0.2} {
			p := &f.Panels[i]
			for _, m := range methods {
				if got := settings(p, m, kappa); !slices.Equal(got, []float64{1, 5, 10, 20}) {
					t.Errorf("figure %d(%s) %v: κ = %v", n, p.Name, m, got)
				}
			}
			for _, c := range p.Curves {
				if c.Setting.PS != ps || !math.IsInf(c.Setting.SNR, 1) || c.Step.Rule != Polyak || c.MaxIter != 1000 {
					t.Errorf("figure %d(%s): curve %+v", n, p.Name, c)
				}
			}
		}
	}
	for _, n := range []int{3, 4} {
		f := figs[n-1]
		a, b := f.Panel("a"), f.Panel("b")
		for _, m := range methods {
			if got := settings(a, m, func(c Curve) float64 { return c.Setting.PS }); !slices.Equal(got, []float64{0.1, 0.2, 0.3}) {
				t.Errorf("figure %d(a) %v: p_s = %v", n, m, got)
			}
			if got := settings(b, m, func(c Curve) float64 { return c.Setting.SNR }); !slices.Equal(got, []float64{40, 60, 80}) {
				t.Errorf("figure %d(b) %v: SNR = %v", n, m, got)
			}
		}
		for _, c := range a.Curves {
			if c.Setting.Kappa != 10 || c.MaxIter != 1000 || !math.IsInf(c.Setting.SNR, 1) {
				t.Errorf("figure %d(a): curve %+v", n, c)
			}
		}
		for _, c := range b.Curves {
			if c.Setting.Kappa != 10 || c.Setting.PS != 0.1 || c.MaxIter != 300 {
				t.Errorf("figure %d(b): curve %+v", n, c)
			}
		}
	}
	for n, qB := range map[int]float64{5: 0.91, 6: 0.92} {
		f := figs[n-1]
		a := f.Panel("a")
		if len(a.Curves) != 6*18 {
			t.Errorf("figure %d(a) has %d curves, want the 6×18 grid", n, len(a.Curves))
		}
		grid := map[Curve]bool{}
		for _, c := range a.Curves {
			grid[c] = true
		}
		for _, name := range []string{"b", "c"} {
			p := f.Panel(name)
			if p.Curves[0].Step.Rule != Polyak {
				t.Errorf("figure %d(%s) does not start with Polyak's steps", n, name)
			}
			for _, c := range p.Curves[1:] {
				if !grid[c] {
					t.Errorf("figure %d(%s): curve %+v is not one of the grid's", n, name, c)
				}
				if name == "b" && c.Step.Q != qB || name == "c" && c.Step.Lambda != 5 {
					t.Errorf("figure %d(%s): curve %+v", n, name, c)
				}
			}
		}
		for _, p := range f.Panels {
			for _, c := range p.Curves {
				if c.Method != scaledsm.ScaledSM || c.Setting != (synth.Setting{Kappa: 10, PS: 0.2, SNR: math.Inf(1)}) || c.MaxIter != 1000 {
					t.Errorf("figure %d(%s): curve %+v", n, p.Name, c)
				}
			}
		}
	}
	if _, err := Lookup(7); err == nil {
		t.Error("Lookup(7) succeeded")
	}
}

// initialError is the relative error of the truncated spectral
// initialization of a setting, computed afresh from its own draw.
func initialError(t *testing.T, cfg synth.Config, s synth.Setting) float64 {
	t.Helper()
	d, err := synth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	in, err := d.Instance(s)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: cfg.Rank}.Spectral(scaledsm.TruncateFraction(s.PS))
	if err != nil {
		t.Fatal(err)
	}
	var diff mat.Dense
	diff.Sub(spec.Product(), in.Truth)
	return mat.Norm(&diff, 2) / mat.Norm(in.Truth, 2)
}

// TestEveryFigurePipeline runs every figure at a small size through the
// whole pipeline: run, CSV (checked field by field and read back), claims,
// panels and report.
func TestEveryFigurePipeline(t *testing.T) {
	for _, fig := range Figures() {
		t.Run(fmt.Sprint("figure", fig.Number), func(t *testing.T) {
			var last Progress
			opts := small
			opts.Progress = func(p Progress) {
				// The share done never falls, and the bound never rises.
				if last.Bound > 0 && (p.Bound > last.Bound || float64(p.Iterations)/float64(p.Bound) < float64(last.Iterations)/float64(last.Bound)) {
					t.Errorf("progress went from %+v back to %+v", last, p)
				}
				last = p
			}
			r, err := RunFigure(context.Background(), fig, opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Config.N1 != 10 || r.Config.Rank != 2 || r.Config.M != 8*10*2 || r.Config.Seed != 1 {
				t.Errorf("ran at %+v", r.Config)
			}
			distinct := map[Curve]bool{}
			inits := map[synth.Setting]float64{}
			updates := map[Curve]int{}
			for i, p := range fig.Panels {
				if len(r.Panels[i]) != len(p.Curves) {
					t.Fatalf("panel %s has %d runs, want %d", p.Name, len(r.Panels[i]), len(p.Curves))
				}
				for j, run := range r.Panels[i] {
					c := p.Curves[j]
					if run.Curve != c {
						t.Errorf("panel %s run %d is %+v, want %+v", p.Name, j, run.Curve, c)
					}
					distinct[c] = true
					checkTrace(t, run)
					updates[c] = run.Iterations()
					// Curves on one setting share its draw and initialization.
					if e, ok := inits[c.Setting]; ok && e != run.Trace[0].RelError {
						t.Errorf("panel %s: curves on %+v start at errors %v and %v", p.Name, c.Setting, e, run.Trace[0].RelError)
					}
					inits[c.Setting] = run.Trace[0].RelError
				}
			}
			if r.Runs != len(distinct) {
				t.Errorf("%d runs solved, want the %d distinct curves", r.Runs, len(distinct))
			}
			total := 0
			for _, n := range updates {
				total += n
			}
			if r.Iterations != total || last.Iterations != total || last.Bound != total || last.Runs != r.Runs || last.RunsDone != r.Runs {
				t.Errorf("iterations %d, last progress %+v; want %d iterations over %d runs", r.Iterations, last, total, r.Runs)
			}
			for s, e := range inits {
				if want := initialError(t, r.Config, s); math.Abs(e-want) > 1e-12*want {
					t.Errorf("iteration 0 at %+v has error %v, the initialization's is %v", s, e, want)
				}
			}

			var data bytes.Buffer
			if err := WriteCSV(&data, r); err != nil {
				t.Fatal(err)
			}
			checkCSV(t, r, data.Bytes())
			var meta bytes.Buffer
			if err := WriteMeta(&meta, r); err != nil {
				t.Fatal(err)
			}
			back, err := ReadResult(&meta, bytes.NewReader(data.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if back.Config != r.Config || back.Runs != r.Runs || back.Iterations != r.Iterations {
				t.Errorf("read back %+v, %d runs, %d iterations; wrote %+v, %d, %d", back.Config, back.Runs, back.Iterations, r.Config, r.Runs, r.Iterations)
			}
			for i := range r.Panels {
				for j, run := range r.Panels[i] {
					got := back.Panels[i][j].Trace
					if len(got) != len(run.Trace) {
						t.Fatalf("panel %s curve %d: %d records read back, %d written", fig.Panels[i].Name, j, len(got), len(run.Trace))
					}
					for k, it := range run.Trace {
						if !sameFloat(got[k].RelError, it.RelError) || !sameFloat(got[k].StepLength, it.StepLength) || got[k].Iter != it.Iter {
							t.Fatalf("panel %s curve %d iteration %d: read %+v, wrote %+v", fig.Panels[i].Name, j, k, got[k], it)
						}
					}
				}
			}
			if a, b := Check(r), Check(back); !slices.Equal(a, b) || len(a) != len(fig.Claims) {
				t.Errorf("claims on the run and on its CSV differ:\n%v\n%v", a, b)
			}
			for i := range fig.Panels {
				for _, format := range []string{"png", "svg"} {
					var img bytes.Buffer
					if err := RenderPanel(&img, r, i, format); err != nil {
						t.Fatalf("panel %s as %s: %v", fig.Panels[i].Name, format, err)
					}
				}
			}
			var page bytes.Buffer
			if err := WriteReport(&page, []*Result{back}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// checkTrace checks that a run's trace counts iterations from 0 and ends
// for one of the reasons a run may stop.
func checkTrace(t *testing.T, run Run) {
	t.Helper()
	tr := run.Trace
	if len(tr) == 0 {
		t.Fatalf("%+v: empty trace", run.Curve)
	}
	for k, it := range tr {
		if it.Iter != k {
			t.Fatalf("%+v: record %d is iteration %d", run.Curve, k, it.Iter)
		}
		if k < len(tr)-1 && !(it.StepLength > 0) {
			t.Fatalf("%+v: iteration %d of %d took no step (%v)", run.Curve, k, len(tr)-1, it.StepLength)
		}
	}
	last := tr[len(tr)-1]
	stalled := last.StepLength == 0
	switch {
	case last.RelError <= Tol, last.Iter == run.Curve.MaxIter, run.Status == scaledsm.Diverged, stalled:
	default:
		t.Errorf("%+v: stopped at iteration %d with error %v, step length %v, for no reason", run.Curve, last.Iter, last.RelError, last.StepLength)
	}
	if last.Iter > run.Curve.MaxIter {
		t.Errorf("%+v: %d iterations beyond the limit %d", run.Curve, last.Iter, run.Curve.MaxIter)
	}
}

// checkCSV checks a figure's CSV field by field against its result.
func checkCSV(t *testing.T, r *Result, data []byte) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("encoding/csv cannot read the CSV: %v", err)
	}
	if got := strings.Join(rows[0], ","); got != "panel,method,step,kappa,ps,snr_db,lambda,q,iteration,rel_error,step_length" {
		t.Fatalf("header %q", got)
	}
	num := func(row []string, col int, empty bool) float64 {
		t.Helper()
		s := row[col]
		if s == "" {
			if !empty {
				t.Fatalf("row %v: %s is empty", row, Header[col])
			}
			return math.NaN()
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("row %v: %s %q is not a number", row, Header[col], s)
		}
		return v
	}
	// Expected rows, in order: each panel's runs, each trace, and the fit
	// after a StepPanel's Polyak run.
	k := 1
	for i, p := range r.Figure.Panels {
		for _, run := range r.Panels[i] {
			c := run.Curve
			for _, it := range run.Trace {
				if k >= len(rows) {
					t.Fatalf("CSV ends before panel %s's curve %+v", p.Name, c)
				}
				row := rows[k]
				k++
				want := []string{p.Name, c.Method.String(), c.Step.Rule.String()}
				if !slices.Equal(row[:3], want) {
					t.Fatalf("row %d: %v, want %v", k, row[:3], want)
				}
				if num(row, 3, false) != c.Setting.Kappa || num(row, 4, false) != c.Setting.PS {
					t.Fatalf("row %d: kappa, ps = %v, %v for %+v", k, row[3], row[4], c.Setting)
				}
				if snr := num(row, 5, true); math.IsInf(c.Setting.SNR, 1) != math.IsNaN(snr) || !math.IsNaN(snr) && snr != c.Setting.SNR {
					t.Fatalf("row %d: snr_db %q for SNR %v", k, row[5], c.Setting.SNR)
				}
				lambda, q := num(row, 6, true), num(row, 7, true)
				if geo := c.Step.Rule == Geometric; geo == math.IsNaN(lambda) || geo == math.IsNaN(q) || geo && (lambda != c.Step.Lambda || q != c.Step.Q) {
					t.Fatalf("row %d: lambda, q = %q, %q for %v", k, row[6], row[7], c.Step)
				}
				if n, err := strconv.Atoi(row[8]); err != nil || n != it.Iter {
					t.Fatalf("row %d: iteration %q, want %d", k, row[8], it.Iter)
				}
				if e := num(row, 9, false); e != it.RelError {
					t.Fatalf("row %d: rel_error %v, want %v", k, e, it.RelError)
				}
				isLast := it.Iter == len(run.Trace)-1
				if l := num(row, 10, isLast); !sameFloat(l, it.StepLength) || !isLast && !(l > 0) {
					t.Fatalf("row %d: step_length %q, want %v", k, row[10], it.StepLength)
				}
			}
			if p.Kind != StepPanel {
				continue
			}
			fit, err := FitGeometric(run.Trace)
			if err != nil {
				continue
			}
			for n := range fit.Points {
				row := rows[k]
				k++
				if row[0] != p.Name || row[2] != FitStep || row[9] != "" {
					t.Fatalf("row %d: %v, want the fit's row %d", k, row, n)
				}
				lambda, q, l := num(row, 6, false), num(row, 7, false), num(row, 10, false)
				if lambda != fit.Lambda || q != fit.Q || math.Abs(l-lambda*math.Pow(q, float64(n))) > 1e-12*l {
					t.Fatalf("row %d: %v, want λ=%v, q=%v", k, row, fit.Lambda, fit.Q)
				}
			}
		}
	}
	if k != len(rows) {
		t.Errorf("CSV has %d rows, the result %d", len(rows)-1, k-1)
	}
}

// TestReproducible: the same seed gives the same bits on one core or
// many; another seed, another draw.
func TestReproducible(t *testing.T) {
	fig, _ := Lookup(2)
	csvOf := func(o Options) string {
		r, err := RunFigure(context.Background(), fig, o)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteCSV(&b, r); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	a := csvOf(small)
	prev := runtime.GOMAXPROCS(1)
	b := csvOf(small)
	runtime.GOMAXPROCS(prev)
	if a != b {
		t.Error("one core and many give different CSVs")
	}
	other := small
	other.Seed = 2
	if csvOf(other) == a {
		t.Error("seeds 1 and 2 give the same CSV")
	}
}

func TestRunFigureRejects(t *testing.T) {
	fig, _ := Lookup(1)
	for _, o := range []Options{{N: -1}, {Rank: -2}, {N: 5, Rank: 6}} {
		if _, err := RunFigure(context.Background(), fig, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunFigure(ctx, fig, small); err != context.Canceled {
		t.Errorf("cancelled run: error %v, want context.Canceled", err)
	}
}

func TestFitGeometric(t *testing.T) {
	var tr []scaledsm.Iteration
	for k := range 50 {
		tr = append(tr, scaledsm.Iteration{Iter: k, StepLength: 1.85 * math.Pow(0.91, float64(k))})
	}
	fit, err := FitGeometric(tr)
	if err != nil || math.Abs(fit.Lambda-1.85) > 1e-12 || math.Abs(fit.Q-0.91) > 1e-12 || fit.Points != 50 {
		t.Errorf("fit %+v, %v; want λ=1.85, q=0.91 over 50", fit, err)
	}
	// Non-positive and missing step lengths are left out and t counts
	// only those kept, as the authors' code does.
	holey := []scaledsm.Iteration{{StepLength: 2}, {StepLength: 0}, {StepLength: math.NaN()}, {StepLength: -1}, {StepLength: 1}, {StepLength: 0.5}}
	fit, err = FitGeometric(holey)
	if err != nil || math.Abs(fit.Lambda-2) > 1e-12 || math.Abs(fit.Q-0.5) > 1e-12 || fit.Points != 3 {
		t.Errorf("fit %+v, %v; want λ=2, q=0.5 over 3", fit, err)
	}
	if _, err := FitGeometric(holey[:2]); err == nil {
		t.Error("a fit to one step length succeeded")
	}
}
