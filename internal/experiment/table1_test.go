package experiment

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// TestTable1Quick runs the quick Table 1 and checks its mathematics: the
// scaled methods' iteration counts are flat in κ, the vanilla ones' grow
// about linearly on sensing, least squares do not converge with outliers,
// and the least absolute deviations do.
func TestTable1Quick(t *testing.T) {
	res, err := RunTable1(context.Background(), QuickTable1())
	if err != nil {
		t.Fatal(err)
	}
	cell := func(kind synth.Kind, ps float64, m scaledsm.Method) Table1Cell {
		for _, c := range res.Cells {
			if c.Problem == kind && c.PS == ps && c.Method == m {
				return c
			}
		}
		t.Fatalf("no cell for %v p_s=%g %v", kind, ps, m)
		return Table1Cell{}
	}
	if len(res.Cells) != 16 {
		t.Fatalf("%d cells, want 16", len(res.Cells))
	}
	for _, kind := range []synth.Kind{synth.Sensing, synth.Quadratic} {
		for _, ps := range []float64{0, 0.2} {
			for _, m := range []scaledsm.Method{scaledsm.ScaledSM, scaledsm.VanillaSM} {
				c := cell(kind, ps, m)
				if c.Fitted != 3 {
					t.Errorf("%v p_s=%g %v: %d of 3 runs converge", kind, ps, m, c.Fitted)
				}
			}
			if e := cell(kind, ps, scaledsm.ScaledSM).Exponent; math.Abs(e) > 0.25 {
				t.Errorf("%v p_s=%g: ScaledSM's exponent of κ is %.2f, want about 0", kind, ps, e)
			}
		}
		if e := cell(kind, 0, scaledsm.ScaledGD).Exponent; math.Abs(e) > 0.25 {
			t.Errorf("%v: ScaledGD's exponent of κ is %.2f, want about 0", kind, e)
		}
		for _, m := range []scaledsm.Method{scaledsm.GD, scaledsm.ScaledGD} {
			if c := cell(kind, 0.2, m); c.Fitted != 0 {
				t.Errorf("%v: %v converges with outliers in %d runs", kind, m, c.Fitted)
			}
		}
	}
	for _, m := range []scaledsm.Method{scaledsm.GD, scaledsm.VanillaSM} {
		if e := cell(synth.Sensing, 0, m).Exponent; e < 0.6 || e > 1.3 {
			t.Errorf("sensing: %v's exponent of κ is %.2f, want about 1", m, e)
		}
	}
	// The best step of each gradient run is one of its trials, the one with
	// the fewest iterations among those that converged.
	for _, c := range res.Cells {
		if !c.Method.Smooth() {
			continue
		}
		for _, run := range c.Runs {
			if !run.Converged {
				continue
			}
			for _, tr := range res.Trials {
				if tr.Problem == run.Problem && tr.PS == run.PS && tr.Kappa == run.Kappa && tr.Method == run.Method && tr.Converged && tr.Iterations < run.Iterations {
					t.Errorf("%v κ=%g %v: step %g converged in %d, the table keeps %g with %d", run.Problem, run.Kappa, run.Method, tr.Step, tr.Iterations, run.Step, run.Iterations)
				}
			}
		}
	}

	var csvOut, steps, md, png, svg bytes.Buffer
	for _, w := range []func() error{
		func() error { return res.WriteCSV(&csvOut) },
		func() error { return res.WriteStepsCSV(&steps) },
		func() error { return res.WriteMarkdown(&md) },
		func() error { return res.WritePlot(&png, "png") },
		func() error { return res.WritePlot(&svg, "svg") },
	} {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 16*3 + 4; len(rows) != want {
		t.Errorf("table1.csv has %d rows, want %d", len(rows), want)
	}
	if !strings.HasPrefix(png.String(), "\x89PNG") || !strings.Contains(svg.String(), "<svg") {
		t.Errorf("plots are not PNG and SVG")
	}
	for _, want := range []string{"| ScaledSM | matrix sensing | 0 |", "κ/(1−2p_s)² (exponent 1)", "| quadratic sampling | 0.2 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := res.WritePlot(&png, "gif"); err == nil {
		t.Errorf("WritePlot accepts gif")
	}
}

func TestKappaExponent(t *testing.T) {
	runs := []Table1Run{
		{Kappa: 1, Iterations: 100, Converged: true},
		{Kappa: 10, Iterations: 1000, Converged: true},
		{Kappa: 100, Iterations: 10000, Converged: true},
		{Kappa: 1000, Iterations: 5, Converged: false},
	}
	if e, n := kappaExponent(runs); math.Abs(e-1) > 1e-12 || n != 3 {
		t.Errorf("exponent %g from %d runs, want 1 from 3", e, n)
	}
	if e, n := kappaExponent(runs[:1]); !math.IsNaN(e) || n != 1 {
		t.Errorf("one run: exponent %g from %d", e, n)
	}
}

func TestTable1ConfigRejects(t *testing.T) {
	for name, mod := range map[string]func(*Table1Config){
		"n":     func(c *Table1Config) { c.N = 0 },
		"rank":  func(c *Table1Config) { c.Rank = 50 },
		"kappa": func(c *Table1Config) { c.Kappas = []float64{0.5} },
		"ps":    func(c *Table1Config) { c.PS = 0.5 },
		"sweep": func(c *Table1Config) { c.Sweep = []float64{0.6} },
		"tol":   func(c *Table1Config) { c.Tol = 0 },
		"steps": func(c *Table1Config) { c.Steps = []float64{-1} },
		"iters": func(c *Table1Config) { c.MaxIter = 0 },
	} {
		c := QuickTable1()
		mod(&c)
		if _, err := RunTable1(context.Background(), c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
