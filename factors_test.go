package scaledsm_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/synth"
)

// TestErrorsFromFactors solves one problem twice: with the truth as a
// matrix, whose errors the solver measures on formed matrices, and as its
// factors, from which it measures them by QR factorizations of the stacked
// factors without forming anything. Both must trace the same errors and
// changes to within 1e-14 (the formed differences are exact to rounding of
// ||X||, so they are the reference), which a difference of Gram traces
// could not resolve below about 1e-8.
func TestErrorsFromFactors(t *testing.T) {
	for _, c := range []synth.Config{
		{Kind: synth.Sensing, N1: 60, N2: 50, Rank: 2, M: 1200, Seed: 3},
		{Kind: synth.Quadratic, N1: 60, Rank: 2, M: 1200, Seed: 3},
	} {
		in := instance(t, c, synth.Setting{Kappa: 20, PS: 0.1, SNR: noNoise})
		s := scaledsm.Settings{Step: scaledsm.Polyak{FStar: in.FStar}, Truncation: scaledsm.TruncateFraction(0.1), Tol: 1e-13}
		p := in.Problem()
		p.Truth = in.Star // factored
		factored := solve(t, p, s)
		p.Truth = in.Truth // dense
		dense := solve(t, p, s)
		if factored.Status != scaledsm.Converged || factored.Iterations != dense.Iterations {
			t.Fatalf("%v: factored truth %v after %d iterations, dense truth %v after %d", c.Kind, factored.Status, factored.Iterations, dense.Status, dense.Iterations)
		}
		for i, f := range factored.Trace {
			d := dense.Trace[i]
			if math.Abs(f.RelError-d.RelError) > 1e-14+1e-4*d.RelError {
				t.Errorf("%v: iteration %d: error %.6g from the factors, %.6g formed", c.Kind, i, f.RelError, d.RelError)
			}
			if i > 0 && math.Abs(f.Change-d.Change) > 1e-14+1e-4*d.Change {
				t.Errorf("%v: iteration %d: change %.6g from the factors, %.6g formed", c.Kind, i, f.Change, d.Change)
			}
		}
		t.Logf("%v: %d iterations, final error %.4g (factors) and %.4g (formed)", c.Kind, factored.Iterations, factored.RelError, dense.RelError)
	}
}

// TestFactorsMatrix checks Factors as a mat.Matrix: its elements, shape and
// transpose are those of L Rᵀ (and L Lᵀ without R).
func TestFactorsMatrix(t *testing.T) {
	l := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	r := mat.NewDense(4, 2, []float64{1, 0, 0, 1, 1, 1, 2, -1})
	for _, f := range []scaledsm.Factors{{L: l, R: r}, {L: l}} {
		want := f.Product()
		if !mat.Equal(f, want) || !mat.Equal(f.T(), want.T()) {
			t.Errorf("Factors %v as a matrix differs from its product", mat.Formatted(want))
		}
	}
}

// TestRelativeError: RelativeError of factors agrees with the error of
// the products formed, and measures an error of 1e-12 to four digits.
func TestRelativeError(t *testing.T) {
	src := rand.New(rand.NewPCG(3, 4))
	star := scaledsm.Factors{L: randDense(src, 60, 3), R: randDense(src, 40, 3)}
	for _, eps := range []float64{0.3, 1e-11} {
		x := scaledsm.Factors{L: mat.DenseCopyOf(star.L), R: mat.DenseCopyOf(star.R)}
		x.L.Set(5, 1, x.L.At(5, 1)+eps)
		var d mat.Dense
		d.Sub(x.Product(), star.Product())
		want := eps * mat.Norm(star.R.ColView(1), 2) / mat.Norm(star.Product(), 2)
		got := scaledsm.RelativeError(x, star)
		if math.Abs(got-want) > 1e-4*want {
			t.Errorf("eps %g: RelativeError %.6g, want %.6g", eps, got, want)
		}
		if eps > 1e-6 {
			if formed := mat.Norm(&d, 2) / mat.Norm(star.Product(), 2); math.Abs(got-formed) > 1e-12 {
				t.Errorf("eps %g: %.15g from factors, %.15g formed", eps, got, formed)
			}
		}
	}
}
