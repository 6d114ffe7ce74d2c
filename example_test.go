package scaledsm_test

import (
	"context"
	"fmt"
	"math"

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
