package experiment

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/scaledsm/scaledsm/internal/csvfmt"
	"github.com/scaledsm/scaledsm/synth"
)

// WriteCSV writes every run of the table, one row per problem, outlier
// fraction, method and κ, followed by the sweep's rows (part "sweep"):
// part,problem,ps,kappa,method,converged,iterations,status,rel_error,step,seconds.
func (r *Table1Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"part", "problem", "ps", "kappa", "method", "converged", "iterations", "status", "rel_error", "step", "seconds"})
	row := func(part string, run Table1Run) {
		cw.Write([]string{part, run.Problem.String(), csvfmt.Float(run.PS), csvfmt.Float(run.Kappa), run.Method.String(),
			strconv.FormatBool(run.Converged), strconv.Itoa(run.Iterations), run.Status.String(),
			csvfmt.Float(run.RelError), csvfmt.Float(run.Step), strconv.FormatFloat(run.Seconds, 'f', 3, 64)})
	}
	for _, c := range r.Cells {
		for _, run := range c.Runs {
			row("table", run)
		}
	}
	for _, run := range r.Sweep {
		row("sweep", run)
	}
	cw.Flush()
	return cw.Error()
}

// WriteStepsCSV writes the grid of constant steps tried for the gradient
// methods: problem,ps,kappa,method,step,converged,iterations,status,rel_error.
// A trial stops as soon as it has used the iterations of the best step
// before it, so its count is then a lower bound.
func (r *Table1Result) WriteStepsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"problem", "ps", "kappa", "method", "step", "converged", "iterations", "status", "rel_error"})
	for _, t := range r.Trials {
		cw.Write([]string{t.Problem.String(), csvfmt.Float(t.PS), csvfmt.Float(t.Kappa), t.Method.String(), csvfmt.Float(t.Step),
			strconv.FormatBool(t.Converged), strconv.Itoa(t.Iterations), t.Status.String(), csvfmt.Float(t.RelError)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes Table 1 as measured: for each method, problem and
// corruption, the iterations at each κ ("—" where the run does not
// converge), the fitted exponent of κ, and the paper's entry beside it;
// then ScaledSM's iterations against p_s beside 1/(1-2p_s)².
func (r *Table1Result) WriteMarkdown(w io.Writer) error {
	c := r.Config
	var b strings.Builder
	fmt.Fprintf(&b, "Iterations to a relative error of %g (at most %d), n = %d, r = %d, m = %d (sensing) and %d (quadratic sampling), seed %d; ",
		c.Tol, c.MaxIter, c.N, c.Rank, r.M[0], r.M[1], c.Seed)
	fmt.Fprintf(&b, "with outliers: p_s = %g. ScaledSM and VanillaSM use Polyak's step with the known f(X*); GD and ScaledGD the best constant step of the grid (GD's divided by σ₁(X*) = κ), shown after the count. ", c.PS)
	b.WriteString("The exponent is the slope of log iterations against log κ over the converged runs (how many in brackets); — marks a run that does not converge.\n\n")

	b.WriteString("| method | problem | p_s |")
	for _, k := range c.Kappas {
		fmt.Fprintf(&b, " κ=%g |", k)
	}
	b.WriteString(" exponent of κ | paper |\n|---|---|---|")
	for range c.Kappas {
		b.WriteString("---:|")
	}
	b.WriteString("---:|---|\n")
	for _, m := range Table1Methods {
		for _, cell := range r.Cells {
			if cell.Method != m {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %g |", m.Name(), cell.Problem.Model(), cell.PS)
			for _, run := range cell.Runs {
				switch {
				case !run.Converged:
					b.WriteString(" — |")
				case m.Smooth():
					fmt.Fprintf(&b, " %d (η=%.3g) |", run.Iterations, run.Step)
				default:
					fmt.Fprintf(&b, " %d |", run.Iterations)
				}
			}
			exp := "does not converge"
			if !math.IsNaN(cell.Exponent) {
				exp = fmt.Sprintf("%.2f (%d)", cell.Exponent, cell.Fitted)
			} else if cell.Fitted == 1 {
				exp = "one run converges"
			}
			paper := cell.Paper
			if !math.IsNaN(cell.Expected) {
				paper = fmt.Sprintf("%s (exponent %g)", cell.Paper, cell.Expected)
			}
			fmt.Fprintf(&b, " %s | %s |\n", exp, paper)
		}
	}
	if len(r.Sweep) > 0 {
		fmt.Fprintf(&b, "\nScaledSM against the outlier fraction at κ = %g, beside the paper's factor 1/(1−2p_s)² (iterations relative to p_s = %g in brackets):\n\n", c.Kappas[0], r.Sweep[0].PS)
		b.WriteString("| problem | p_s | iterations | 1/(1−2p_s)² |\n|---|---:|---:|---:|\n")
		base := map[synth.Kind]Table1Run{}
		for _, run := range r.Sweep {
			if _, ok := base[run.Problem]; !ok {
				base[run.Problem] = run
			}
			b0 := base[run.Problem]
			want := 1 / ((1 - 2*run.PS) * (1 - 2*run.PS)) * ((1 - 2*b0.PS) * (1 - 2*b0.PS))
			got := "—"
			if run.Converged {
				got = strconv.Itoa(run.Iterations)
				if b0.Converged {
					got += fmt.Sprintf(" (%.2f)", float64(run.Iterations)/float64(b0.Iterations))
				}
			}
			fmt.Fprintf(&b, "| %s | %g | %s | %.2f |\n", run.Problem.Model(), run.PS, got, want)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Table1Files are the files WriteFiles writes.
var Table1Files = []string{"table1.csv", "table1_steps.csv", "table1.md", "table1.png", "table1.svg"}

// WriteFiles writes the table's files into dir, each atomically: the
// runs (table1.csv), the constant steps tried (table1_steps.csv), the
// table (table1.md) and its plot (table1.png, table1.svg). A file that
// could not be written is an *atomicio.FileError.
func (r *Table1Result) WriteFiles(dir string) error {
	write := []func(io.Writer) error{r.WriteCSV, r.WriteStepsCSV, r.WriteMarkdown,
		func(w io.Writer) error { return r.WritePlot(w, "png") },
		func(w io.Writer) error { return r.WritePlot(w, "svg") }}
	for k, name := range Table1Files {
		if _, err := writeFiles(dir, nil, name, write[k]); err != nil {
			return err
		}
	}
	return nil
}
