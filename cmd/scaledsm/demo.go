package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "Recovers a rank-5, 100×100 PSD matrix of condition number 10 from 4000\nquadratic measurements, 20% of them replaced by gross outliers, with ScaledSM and\nwith VanillaSM from the same start, and draws both error curves.", stdout)
	seed := fs.Uint64("seed", 1, "seed of every random draw")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg := synth.Config{Kind: synth.Quadratic, N1: 100, Rank: 5, Seed: *seed}
	setting := synth.Setting{Kappa: 10, PS: 0.2, SNR: math.Inf(1)}
	draw, err := synth.New(cfg)
	if err != nil {
		return err
	}
	in, err := draw.Instance(setting)
	if err != nil {
		return err
	}
	outliers := 0
	for _, c := range in.Corrupted() {
		if c {
			outliers++
		}
	}
	fmt.Fprintf(stdout, "Recovering X* = L Lᵀ (n=%d, rank %d, condition number %g) from m=%d quadratic\n", cfg.N1, cfg.Rank, setting.Kappa, draw.M)
	fmt.Fprintf(stdout, "measurements y_i = a_iᵀ X* a_i / m, of which %d (%.0f%%) are replaced by outliers up to\n10 times the largest clean measurement. Both methods start from the truncated\nspectral initialization and use Polyak's stepsizes.\n\n", outliers, 100*float64(outliers)/float64(draw.M))

	spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: cfg.Rank}.Spectral(scaledsm.TruncateFraction(setting.PS))
	if err != nil {
		return err
	}
	var traces [][]scaledsm.Iteration
	for _, method := range []scaledsm.Method{scaledsm.ScaledSM, scaledsm.VanillaSM} {
		res, err := scaledsm.Solve(context.Background(), in.Problem(), scaledsm.Settings{
			Method: method,
			Step:   scaledsm.Polyak{FStar: in.FStar},
			Init:   &spec,
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  %-9s %-15s relative error %.2e after %4d iterations (%.2f s)\n",
			method, res.Status, res.RelError, res.Iterations, res.Runtime.Seconds())
		traces = append(traces, res.Trace)
	}
	fmt.Fprintln(stdout)
	plotASCII(stdout, traces, []string{"ScaledSM", "VanillaSM"}, []byte{'S', 'v'})
	return nil
}

// plotASCII draws relative error traces on a log scale, one character per
// curve.
func plotASCII(w io.Writer, traces [][]scaledsm.Iteration, names []string, marks []byte) {
	const cols, top, bottom = 64, 1, -12 // decades from 1e1 down to 1e-12
	last := 0
	for _, tr := range traces {
		last = max(last, tr[len(tr)-1].Iter)
	}
	per := max(1, (last+cols-1)/cols)
	rows := top - bottom + 1
	grid := make([][]byte, rows)
	for i := range grid {
		grid[i] = []byte(strings.Repeat(" ", cols))
	}
	for k, tr := range traces {
		for _, it := range tr {
			if !(it.RelError > 0) {
				continue
			}
			c := it.Iter / per
			row := top - int(math.Round(math.Log10(it.RelError)))
			if c >= cols || row < 0 || row >= rows {
				continue
			}
			if g := grid[row][c]; g != ' ' && g != marks[k] {
				grid[row][c] = '*'
			} else {
				grid[row][c] = marks[k]
			}
		}
	}
	fmt.Fprintln(w, "relative error")
	for i, line := range grid {
		fmt.Fprintf(w, "%6s |%s\n", fmt.Sprintf("1e%d", top-i), strings.TrimRight(string(line), " "))
	}
	fmt.Fprintf(w, "%6s +%s\n", "", strings.Repeat("-", cols))
	fmt.Fprintf(w, "%6s  0%*d iterations\n", "", cols-1, per*cols)
	legend := make([]string, len(names))
	for i, n := range names {
		legend[i] = fmt.Sprintf("%c %s", marks[i], n)
	}
	fmt.Fprintf(w, "%6s  %s\n", "", strings.Join(legend, "   "))
}
