package scaledsm_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// Recover a rank-3 matrix from quadratic measurements of which 20% are gross
// outliers, with the scaled subgradient method and Polyak's stepsizes.
func ExampleSolve() {
	draw, err := synth.New(synth.Config{Kind: synth.Quadratic, N1: 40, Rank: 3, Seed: 1})
	if err != nil {
		panic(err)
	}
	in, err := draw.Instance(synth.Setting{Kappa: 10, PS: 0.2, SNR: math.Inf(1)})
	if err != nil {
		panic(err)
	}
	res, err := scaledsm.Solve(context.Background(), in.Problem(), scaledsm.Settings{
		Method:     scaledsm.ScaledSM,
		Step:       scaledsm.Polyak{FStar: in.FStar}, // f(X*) = ||w + s||_1 is known for synthetic data
		Truncation: scaledsm.TruncateFraction(0.2),   // drop the 20% largest |y_i| before the spectral initialization
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v, relative error below 1e-12: %v\n", res.Status, res.RelError < 1e-12)
	// Output: converged, relative error below 1e-12: true
}

// Solve the curves of a figure together: runs that share an operator
// advance as one batch.
func ExampleSolveBatch() {
	draw, err := synth.New(synth.Config{Kind: synth.Sensing, N1: 20, Rank: 2, Seed: 1})
	if err != nil {
		panic(err)
	}
	var jobs []scaledsm.Job
	for _, kappa := range []float64{1, 10} {
		in, err := draw.Instance(synth.Setting{Kappa: kappa, SNR: math.Inf(1)})
		if err != nil {
			panic(err)
		}
		for _, m := range []scaledsm.Method{scaledsm.ScaledSM, scaledsm.VanillaSM} {
			jobs = append(jobs, scaledsm.Job{Problem: in.Problem(), Settings: scaledsm.Settings{
				Method: m, Step: scaledsm.Polyak{FStar: in.FStar}, Tol: 1e-10,
			}})
		}
	}
	results, err := scaledsm.SolveBatch(context.Background(), jobs)
	if err != nil {
		panic(err)
	}
	for i, r := range results {
		fmt.Printf("kappa=%-2v %-9v %v\n", []float64{1, 10}[i/2], jobs[i].Settings.Method, r.Status)
	}
	// Output:
	// kappa=1  scaledsm  converged
	// kappa=1  vanillasm converged
	// kappa=10 scaledsm  converged
	// kappa=10 vanillasm converged
}

// Recover a matrix without knowing f(X*) or the fraction of outliers: the
// automatic step (the default when Settings.Step is nil) estimates Polyak's
// numerator from the residuals, and the zero Truncation truncates the spectral
// initialization without p_s.
func ExampleAuto() {
	draw, err := synth.New(synth.Config{Kind: synth.Quadratic, N1: 40, Rank: 3, Seed: 1})
	if err != nil {
		panic(err)
	}
	in, err := draw.Instance(synth.Setting{Kappa: 10, PS: 0.2, SNR: math.Inf(1)})
	if err != nil {
		panic(err)
	}
	res, err := scaledsm.Solve(context.Background(), in.Problem(), scaledsm.Settings{
		Step: scaledsm.Auto{},
		Tol:  1e-10,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v, relative error below 1e-10: %v\n", res.Status, res.RelError < 1e-10)
	// Output: converged, relative error below 1e-10: true
}

// Run the smooth baselines of Table 1 on matrix sensing: scaled gradient
// descent with the constant step 0.5 of its paper, and gradient descent,
// whose step must shrink like 1/σ₁(X*) (here κ).
func ExampleConstant() {
	draw, err := synth.New(synth.Config{Kind: synth.Sensing, N1: 20, Rank: 2, Seed: 1})
	if err != nil {
		panic(err)
	}
	const kappa = 10
	in, err := draw.Instance(synth.Setting{Kappa: kappa, SNR: math.Inf(1)})
	if err != nil {
		panic(err)
	}
	for _, s := range []scaledsm.Settings{
		{Method: scaledsm.ScaledGD, Step: scaledsm.Constant{Eta: 0.5}},
		{Method: scaledsm.GD, Step: scaledsm.Constant{Eta: 0.5 / kappa}},
	} {
		s.Truncation = scaledsm.Truncation{None: true} // no outliers: the plain spectral initialization
		s.Tol, s.MaxIter = 1e-8, 5000
		res, err := scaledsm.Solve(context.Background(), in.Problem(), s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-8v %v in %d iterations\n", s.Method, res.Status, res.Iterations)
	}
	// Output:
	// scaledgd converged in 94 iterations
	// gd       converged in 728 iterations
}

// Recover a rank-2 matrix with an over-specified rank of 6: the damped
// scaled step (the zero Settings.Damping) keeps the spare columns from
// slowing the fit, and the singular values of the result, computed from
// its factors, show the true rank.
func ExampleSolve_overSpecifiedRank() {
	draw, err := synth.New(synth.Config{Kind: synth.Sensing, N1: 20, Rank: 2, M: 960, Seed: 1})
	if err != nil {
		panic(err)
	}
	in, err := draw.Instance(synth.Setting{Kappa: 100, PS: 0.1, SNR: math.Inf(1)})
	if err != nil {
		panic(err)
	}
	p := in.Problem()
	p.Rank = 6 // an upper bound; (n1+n2)·6 = 240 unknowns, within what m = 960 supports
	m, n1, n2 := p.Op.Dims()
	fmt.Println("supported rank:", scaledsm.SupportedRank(m, n1, n2, 0.1))
	res, err := scaledsm.Solve(context.Background(), p, scaledsm.Settings{
		Step:       scaledsm.Polyak{FStar: in.FStar},
		Truncation: scaledsm.TruncateFraction(0.1),
		Tol:        1e-10,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v, relative error below 1e-10: %v\n", res.Status, res.RelError < 1e-10)
	fmt.Printf("effective rank %d; σ₁ = %.3g, σ₂ = %.3g, σ₃ below 1e-6: %v\n",
		res.EffectiveRank, res.SingularValues[0], res.SingularValues[1], res.SingularValues[2] < 1e-6)
	// Output:
	// supported rank: 8
	// converged, relative error below 1e-10: true
	// effective rank 2; σ₁ = 100, σ₂ = 1, σ₃ below 1e-6: true
}

// Complete a 60×50 matrix of rank 2 from 60% of its entries, 5% of which
// are grossly wrong, with the entry models' default method.
func ExampleDefaultSettings() {
	rng := rand.New(rand.NewPCG(1, 2))
	n1, n2, r := 60, 50, 2
	lStar, rStar := mat.NewDense(n1, r, nil), mat.NewDense(n2, r, nil)
	for _, f := range []*mat.Dense{lStar, rStar} {
		rows, _ := f.Dims()
		for i := range rows {
			for j := range r {
				f.Set(i, j, rng.NormFloat64())
			}
		}
	}
	truth := scaledsm.Factors{L: lStar, R: rStar}
	var rows, cols []int32
	var values []float64
	for i := range n1 {
		for j := range n2 {
			if rng.Float64() < 0.6 {
				v := truth.At(i, j)
				if rng.Float64() < 0.05 {
					v = 50 * (rng.Float64() - 0.5) // an outlier
				}
				rows, cols, values = append(rows, int32(i)), append(cols, int32(j)), append(values, v)
			}
		}
	}
	op, y, err := scaledsm.NewEntries(n1, n2, rows, cols, values)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := scaledsm.DefaultSettings(op)
	res, err := scaledsm.Solve(context.Background(), scaledsm.Problem{Op: op, Y: y, Rank: r, Truth: truth}, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Method, s.Loss, res.Status, res.RelError < 1e-10)
	// Output: scaledgd l2trim converged true
}

// Complete a matrix that is only approximately low rank (rank 2 plus dense
// noise), at a rank larger than its own, with no truth known: the default
// finds the unpenalized fit inexact, chooses a ridge penalty and the
// number of iterations on 5% of the entries held out, and the penalized
// fit is closer to the matrix than the unpenalized one.
func ExampleAutoRidge() {
	const n1, n2 = 60, 50
	rng := rand.New(rand.NewPCG(3, 0))
	u, v := mat.NewDense(n1, 2, nil), mat.NewDense(n2, 2, nil)
	for _, f := range []*mat.Dense{u, v} {
		r, c := f.Dims()
		for i := range r {
			for j := range c {
				f.Set(i, j, rng.NormFloat64())
			}
		}
	}
	var x mat.Dense
	x.Mul(u, v.T())
	var rows, cols []int32
	var vals []float64
	for i := range n1 {
		for j := range n2 {
			if rng.Float64() < 0.6 {
				rows, cols = append(rows, int32(i)), append(cols, int32(j))
				vals = append(vals, x.At(i, j)+0.3*rng.NormFloat64())
			}
		}
	}
	op, y, err := scaledsm.NewEntries(n1, n2, rows, cols, vals)
	if err != nil {
		panic(err)
	}
	p := scaledsm.Problem{Op: op, Y: y, Rank: 6}
	errOf := func(f scaledsm.Factors) float64 {
		var d mat.Dense
		d.Sub(f.Product(), &x)
		return mat.Norm(&d, 2) / mat.Norm(&x, 2)
	}
	s := scaledsm.DefaultSettings(op) // Ridge: AutoRidge
	auto, err := scaledsm.Solve(context.Background(), p, s)
	if err != nil {
		panic(err)
	}
	s.Ridge = 0
	none, err := scaledsm.Solve(context.Background(), p, s)
	if err != nil {
		panic(err)
	}
	fmt.Println("status:", auto.Status)
	fmt.Println("penalty chosen:", auto.RidgeChoice != nil && auto.RidgeChoice.Ridge > 0)
	fmt.Println("closer than unpenalized:", errOf(auto.Factors) < errOf(none.Factors))
	// Output:
	// status: validated
	// penalty chosen: true
	// closer than unpenalized: true
}

// Complete a ratings matrix held as float32 (Problem.Y32): ratings are
// float32 exactly, so the solve is the one of the same values in float64,
// to the bit, in 4 bytes an entry less.
func ExampleProblem_float32() {
	rng := rand.New(rand.NewPCG(3, 4))
	n1, n2 := 80, 60
	u, v := make([]float64, n1), make([]float64, n2)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	var rows, cols []int32
	var stars []float64
	for i := range n1 {
		for j := range n2 {
			if rng.Float64() < 0.3 {
				// whole stars from 1 to 5 around a rank-1 taste
				s := math.Round(3 + u[i]*v[j] + 0.5*rng.NormFloat64())
				rows, cols, stars = append(rows, int32(i)), append(cols, int32(j)), append(stars, math.Max(1, math.Min(5, s)))
			}
		}
	}
	op, y, err := scaledsm.NewEntries(n1, n2, rows, cols, stars)
	if err != nil {
		fmt.Println(err)
		return
	}
	y32 := make([]float32, len(y))
	for k, s := range y {
		y32[k] = float32(s)
	}
	s := scaledsm.DefaultSettings(op)
	a, err := scaledsm.Solve(context.Background(), scaledsm.Problem{Op: op, Y: y, Rank: 2}, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := scaledsm.Solve(context.Background(), scaledsm.Problem{Op: op, Y32: y32, Rank: 2}, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Status, mat.Equal(a.L, b.L) && mat.Equal(a.R, b.R))
	// Output: validated true
}

// SolveSampled separates a video held as float32 (pixels × frames) into a
// low-rank background and moving blobs: the default method on one pixel
// in 9, then least absolute deviations over every entry.
func ExampleSolveSampled() {
	y, star, covered, err := synth.BlobVideo{Height: 48, Width: 64, Frames: 120, Blobs: 6, Seed: 2}.Draw()
	if err != nil {
		fmt.Println(err)
		return
	}
	n1, n2 := y.Dims()
	m := scaledsm.Full32{N1: n1, N2: n2, Y: make([]float32, n1*n2)}
	for k, v := range y.RawMatrix().Data {
		m.Y[k] = float32(v)
	}
	res, err := scaledsm.SolveSampled(context.Background(), m, 2, scaledsm.SampledSettings{Budget: n1 * n2 / 9})
	if err != nil {
		fmt.Println(err)
		return
	}
	var d mat.Dense
	d.Sub(res.Product(), star.Product())
	blobs := 0
	for _, c := range covered {
		if c {
			blobs++
		}
	}
	fmt.Printf("one row in %d sampled; background within 1e-6: %v\n", res.Stride, mat.Norm(&d, 2) <= 1e-6*mat.Norm(star.Product(), 2))
	fmt.Printf("fitted %.1f%% of the entries; the blobs cover %.1f%%\n", 100*res.FitFraction, 100*float64(blobs)/float64(n1*n2))
	// Output:
	// one row in 9 sampled; background within 1e-6: true
	// fitted 96.1% of the entries; the blobs cover 3.9%
}
