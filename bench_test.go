package scaledsm_test

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// The benchmarks run at the paper's sizes: matrix sensing n = 100, r = 10,
// m = 8000 (an 8000 × 10000 operator, 640 MB as float64), quadratic
// sampling n = 100, r = 5, m = 4000; batches of 109 runs, the number of
// curves of Figures 5 and 6. They are skipped with -short. The command
// `scaledsm bench` measures the same cases beside the floor.

var (
	paperOnce  sync.Once
	paperDraws map[string]*synth.Draw
)

// paperDraw returns the paper-size draw of a kind: "ms", "ms32" (float32
// storage) or "qs", generated once.
func paperDraw(b *testing.B, name string) *synth.Draw {
	if testing.Short() {
		b.Skip("paper size")
	}
	paperOnce.Do(func() { paperDraws = map[string]*synth.Draw{} })
	if d, ok := paperDraws[name]; ok {
		return d
	}
	c := synth.Config{Kind: synth.Sensing, N1: 100, Rank: 10, Seed: 1}
	switch name {
	case "ms32":
		c.Precision = synth.Float32
	case "qs":
		c = synth.Config{Kind: synth.Quadratic, N1: 100, Rank: 5, Seed: 1}
	}
	// One big operator at a time.
	clear(paperDraws)
	d, err := synth.New(c)
	if err != nil {
		b.Fatal(err)
	}
	paperDraws[name] = d
	return d
}

// paperEvaluations returns count Evaluations of the draw at the truth's
// factors perturbed (so that the residuals are not zero), from an instance
// with 20% outliers.
func paperEvaluations(b *testing.B, d *synth.Draw, count int) []*scaledsm.Evaluation {
	in, err := d.Instance(synth.Setting{Kappa: 10, PS: 0.2, SNR: math.Inf(1)})
	if err != nil {
		b.Fatal(err)
	}
	es := make([]*scaledsm.Evaluation, count)
	for k := range es {
		e := scaledsm.NewEvaluation(d.Op, d.Rank)
		perturb := func(f *mat.Dense) *mat.Dense {
			g := mat.DenseCopyOf(f)
			g.Apply(func(i, j int, v float64) float64 { return v * (1 + 0.01*math.Sin(float64(i+3*j+k))) }, g)
			return g
		}
		e.L = perturb(in.Star.L)
		if in.Star.R != nil {
			e.R = perturb(in.Star.R)
		}
		e.Y = in.Y
		es[k] = e
	}
	return es
}

// BenchmarkEvaluate is one pass of each operator at the paper's size.
func BenchmarkEvaluate(b *testing.B) {
	for _, name := range []string{"ms", "ms32", "qs"} {
		b.Run(name, func(b *testing.B) {
			d := paperDraw(b, name)
			e := paperEvaluations(b, d, 1)[0]
			for b.Loop() {
				d.Op.Evaluate(e)
			}
		})
	}
}

// BenchmarkEvaluateBatch is one batched pass of 109 runs (the curves of
// Figures 5 and 6) and, for sensing, of 4 (the tail of Figure 1, where a
// pass is bound by memory); ms/run is the time per run.
func BenchmarkEvaluateBatch(b *testing.B) {
	for _, c := range []struct {
		name string
		runs int
	}{{"ms", 109}, {"ms32", 109}, {"qs", 109}, {"ms", 4}} {
		b.Run(fmt.Sprintf("%s/runs=%d", c.name, c.runs), func(b *testing.B) {
			d := paperDraw(b, c.name)
			es := paperEvaluations(b, d, c.runs)
			for b.Loop() {
				scaledsm.EvaluateBatch(d.Op, es)
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N)/float64(c.runs), "ms/run")
		})
	}
}

// BenchmarkIteration is whole iterations of Solve (the pass and the
// solver's work around it) from the spectral initialization, with slowly
// decaying geometric steps so that no run stops before b.N iterations.
func BenchmarkIteration(b *testing.B) {
	for _, name := range []string{"ms", "ms32", "qs"} {
		b.Run(name, func(b *testing.B) {
			d := paperDraw(b, name)
			in, err := d.Instance(synth.Setting{Kappa: 10, PS: 0.2, SNR: math.Inf(1)})
			if err != nil {
				b.Fatal(err)
			}
			spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: d.Rank}.Spectral(scaledsm.TruncateFraction(0.2))
			if err != nil {
				b.Fatal(err)
			}
			s := scaledsm.Settings{
				Step: scaledsm.Geometric{Lambda: 1, Q: 0.999}, Init: &spec,
				MaxIter: b.N, Tol: -1,
			}
			b.ResetTimer()
			res, err := scaledsm.Solve(context.Background(), in.Problem(), s)
			if err != nil {
				b.Fatal(err)
			}
			if res.Iterations != b.N {
				b.Fatalf("%v after %d iterations, want %d", res.Status, res.Iterations, b.N)
			}
		})
	}
}
