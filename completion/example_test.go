package completion_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/synth"
	"gonum.org/v1/gonum/mat"
)

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
	op, y, err := completion.NewEntries(n1, n2, rows, cols, values)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := completion.DefaultSettings()
	res, err := completion.Solve(context.Background(), scaledsm.Problem{Op: op, Y: y, Rank: r, Truth: truth}, s)
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
	op, y, err := completion.NewEntries(n1, n2, rows, cols, vals)
	if err != nil {
		panic(err)
	}
	p := scaledsm.Problem{Op: op, Y: y, Rank: 6}
	errOf := func(f scaledsm.Factors) float64 {
		var d mat.Dense
		d.Sub(f.Product(), &x)
		return mat.Norm(&d, 2) / mat.Norm(&x, 2)
	}
	s := completion.DefaultSettings() // Ridge: AutoRidge
	auto, err := completion.Solve(context.Background(), p, s)
	if err != nil {
		panic(err)
	}
	s.Ridge = 0
	none, err := completion.Solve(context.Background(), p, s)
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
func ExampleSolve_float32() {
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
	op, y, err := completion.NewEntries(n1, n2, rows, cols, stars)
	if err != nil {
		fmt.Println(err)
		return
	}
	y32 := make([]float32, len(y))
	for k, s := range y {
		y32[k] = float32(s)
	}
	s := completion.DefaultSettings()
	a, err := completion.Solve(context.Background(), scaledsm.Problem{Op: op, Y: y, Rank: 2}, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := completion.Solve(context.Background(), scaledsm.Problem{Op: op, Y32: y32, Rank: 2}, s)
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
	m := completion.Full32{N1: n1, N2: n2, Y: make([]float32, n1*n2)}
	for k, v := range y.RawMatrix().Data {
		m.Y[k] = float32(v)
	}
	res, err := completion.SolveSampled(context.Background(), m, 2, completion.SampledSettings{Budget: n1 * n2 / 9})
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
