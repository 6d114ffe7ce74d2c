package scaledsm_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/parse"
	"github.com/scaledsm/scaledsm/synth"
)

// adaptive is the step η/f(X_t) for the nonsmooth l2 loss f: the step that
// turns ScaledGD into ScaledSM on that loss (the paper's remark).
type adaptive struct{ eta float64 }

func (a adaptive) Size(c *scaledsm.StepContext) float64 {
	return a.eta / scaledsm.L2.Value(c.Residuals)
}

// TestRemarkL2IsScaledGD checks the paper's remark on ScaledGD: ScaledSM on
// the nonsmooth loss ||A(X) - y||_2 with steps η is ScaledGD on the squared
// loss with the adaptive steps η/||A(X_t) - y||_2, iterate for iterate, on
// both problems. With the same constant step on both, the iterates differ,
// so the test can tell.
func TestRemarkL2IsScaledGD(t *testing.T) {
	for _, c := range []synth.Config{
		{Kind: synth.Sensing, N1: 12, N2: 10, Rank: 2, Seed: 201},
		{Kind: synth.Quadratic, N1: 15, Rank: 2, Seed: 202},
	} {
		in := instance(t, c, synth.Setting{Kappa: 4, SNR: noNoise})
		const eta, iters = 0.3, 40
		// The remark is about the paper's undamped preconditioner.
		sm := solve(t, in.Problem(), scaledsm.Settings{Method: scaledsm.ScaledSM, Loss: scaledsm.L2, Step: scaledsm.Constant{Eta: eta}, MaxIter: iters, Tol: -1, Damping: scaledsm.Damping{None: true}})
		gd := solve(t, in.Problem(), scaledsm.Settings{Method: scaledsm.ScaledGD, Step: adaptive{eta}, MaxIter: iters, Tol: -1, Damping: scaledsm.Damping{None: true}})
		plain := solve(t, in.Problem(), scaledsm.Settings{Method: scaledsm.ScaledGD, Step: scaledsm.Constant{Eta: eta}, MaxIter: iters, Tol: -1})
		if len(sm.Trace) != iters+1 || len(gd.Trace) != iters+1 {
			t.Fatalf("%v: runs stopped early: %v, %v", c.Kind, sm.Status, gd.Status)
		}
		for i := range sm.Trace {
			a, b := sm.Trace[i].RelError, gd.Trace[i].RelError
			if math.Abs(a-b) > 1e-9*b {
				t.Fatalf("%v: iteration %d: ScaledSM on l2 at error %.12g, ScaledGD with η/||r|| at %.12g", c.Kind, i, a, b)
			}
			// The squared loss of ScaledGD's iterate is half the square of
			// the l2 loss of ScaledSM's.
			if l2, l2sq := sm.Trace[i].Loss, gd.Trace[i].Loss; math.Abs(l2*l2/2-l2sq) > 1e-9*l2sq {
				t.Fatalf("%v: iteration %d: l2 loss %g, l2sq loss %g, want l2²/2", c.Kind, i, l2, l2sq)
			}
		}
		var d mat.Dense
		d.Sub(sm.Product(), gd.Product())
		if e := mat.Norm(&d, 2) / mat.Norm(gd.Product(), 2); e > 1e-9 {
			t.Errorf("%v: final iterates differ by %.3g", c.Kind, e)
		}
		if e := math.Abs(plain.RelError-sm.RelError) / sm.RelError; e < 1e-3 {
			t.Errorf("%v: a constant ScaledGD step gives the same error as the adaptive one (%.3g apart): the test cannot tell", c.Kind, e)
		}
		if sm.RelError > 0.5*sm.Trace[0].RelError {
			t.Errorf("%v: ScaledSM on l2 went from %.3g to only %.3g", c.Kind, sm.Trace[0].RelError, sm.RelError)
		}
	}
}

// TestLossGradients checks the scaling of the l2 losses against their
// values: one step of GD from the spectral initialization moves the factors
// by η times the central-difference gradient of Loss.Value, for L2Squared
// ((m/2)||z||²) and L2 (sqrt(m)·||z||), on both problems.
func TestLossGradients(t *testing.T) {
	for _, c := range []synth.Config{
		{Kind: synth.Sensing, N1: 6, N2: 5, Rank: 2, Seed: 211},
		{Kind: synth.Quadratic, N1: 7, Rank: 2, Seed: 212},
	} {
		in := instance(t, c, synth.Setting{Kappa: 3, PS: 0.1, SNR: noNoise})
		spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: c.Rank}.Spectral(scaledsm.TruncateFraction(0.1))
		if err != nil {
			t.Fatal(err)
		}
		for _, loss := range []scaledsm.Standard{scaledsm.L2Squared, scaledsm.L2} {
			method := scaledsm.GD
			if loss == scaledsm.L2 {
				method = scaledsm.VanillaSM
			}
			const eta = 1e-3
			res := solve(t, in.Problem(), scaledsm.Settings{Method: method, Loss: loss, Step: scaledsm.Constant{Eta: eta}, MaxIter: 1, Tol: -1,
				Init: &spec})
			value := func(l, r *mat.Dense) float64 {
				x := scaledsm.Factors{L: l, R: r}.Product()
				z := make([]float64, len(in.Y))
				in.Op.Apply(z, x)
				for i := range z {
					z[i] -= in.Y[i]
				}
				return loss.Value(z)
			}
			check := func(name string, f, moved *mat.Dense) {
				rows, cols := f.Dims()
				for i := range rows {
					for j := range cols {
						h := 1e-6 * math.Max(1, math.Abs(f.At(i, j)))
						old := f.At(i, j)
						f.Set(i, j, old+h)
						up := value(spec.L, spec.R)
						f.Set(i, j, old-h)
						down := value(spec.L, spec.R)
						f.Set(i, j, old)
						grad := (up - down) / (2 * h)
						got := (old - moved.At(i, j)) / eta
						if math.Abs(got-grad) > 1e-5*math.Max(1, math.Abs(grad)) {
							t.Fatalf("%v, %v: d/d%s[%d,%d] is %.8g by differences, the step moved by η·%.8g", c.Kind, loss, name, i, j, grad, got)
						}
					}
				}
			}
			check("L", spec.L, res.L)
			if spec.R != nil {
				check("R", spec.R, res.R)
			}
		}
	}
}

// TestScaledGDFlatInKappa runs the smooth baselines on noiseless matrix
// sensing: ScaledGD with the constant step 0.5 takes the same number of
// iterations at κ = 1 and 10, GD with 0.5/σ₁ several times more at κ = 10;
// with 20% outliers neither gets anywhere near X*.
func TestScaledGDFlatInKappa(t *testing.T) {
	d := newDraw(t, synth.Config{Kind: synth.Sensing, N1: 20, Rank: 2, Seed: 221})
	iters := map[scaledsm.Method][]int{}
	for _, kappa := range []float64{1, 10} {
		in := instanceOf(t, d, synth.Setting{Kappa: kappa, SNR: noNoise})
		for _, m := range []scaledsm.Method{scaledsm.ScaledGD, scaledsm.GD} {
			eta := 0.5
			if m == scaledsm.GD {
				eta /= kappa // σ₁(X*) = κ in the recipe
			}
			res := solve(t, in.Problem(), scaledsm.Settings{Method: m, Step: scaledsm.Constant{Eta: eta}, Tol: 1e-10, MaxIter: 3000})
			if res.Status != scaledsm.Converged {
				t.Fatalf("κ=%g %v: %v at error %.3g", kappa, m, res.Status, res.RelError)
			}
			iters[m] = append(iters[m], res.Iterations)
		}
	}
	s, g := iters[scaledsm.ScaledGD], iters[scaledsm.GD]
	t.Logf("ScaledGD %v, GD %v iterations at κ = 1, 10", s, g)
	if r := float64(s[1]) / float64(s[0]); r > 1.15 || r < 1/1.15 {
		t.Errorf("ScaledGD: %d iterations at κ=10, %d at κ=1: not flat in κ", s[1], s[0])
	}
	if r := float64(g[1]) / float64(g[0]); r < 4 {
		t.Errorf("GD: %d iterations at κ=10, %d at κ=1: it should slow down about κ-fold", g[1], g[0])
	}

	in := instanceOf(t, d, synth.Setting{Kappa: 1, PS: 0.2, SNR: noNoise})
	res := solve(t, in.Problem(), scaledsm.Settings{Method: scaledsm.ScaledGD, Step: scaledsm.Constant{Eta: 0.5}, Truncation: scaledsm.TruncateFraction(0.2), Tol: 1e-10, MaxIter: 500})
	if res.RelError < 0.1 {
		t.Errorf("ScaledGD with 20%% outliers reached error %.3g: least squares should not recover X*", res.RelError)
	}
	l1 := solve(t, in.Problem(), scaledsm.Settings{Method: scaledsm.ScaledSM, Step: scaledsm.Polyak{FStar: in.FStar}, Truncation: scaledsm.TruncateFraction(0.2), Tol: 1e-10, MaxIter: 500})
	if l1.Status != scaledsm.Converged {
		t.Errorf("ScaledSM on the same data: %v at %.3g", l1.Status, l1.RelError)
	}
}

// TestDefaultLoss checks that each method's default loss is the one it
// names, and that the zero Settings are ScaledSM on l1 with Auto steps.
func TestDefaultLoss(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Quadratic, N1: 12, Rank: 2, Seed: 231}, synth.Setting{Kappa: 2, PS: 0.1, SNR: noNoise})
	same := func(name string, a, b scaledsm.Settings) {
		t.Helper()
		a.MaxIter, b.MaxIter = 15, 15
		ra, rb := solve(t, in.Problem(), a), solve(t, in.Problem(), b)
		if len(ra.Trace) != len(rb.Trace) {
			t.Fatalf("%s: %d and %d records", name, len(ra.Trace), len(rb.Trace))
		}
		for i := range ra.Trace {
			if !sameRecord(ra.Trace[i], rb.Trace[i]) {
				t.Fatalf("%s: iteration %d differs: %+v, %+v", name, i, ra.Trace[i], rb.Trace[i])
			}
		}
	}
	same("zero settings", scaledsm.Settings{}, scaledsm.Settings{Method: scaledsm.ScaledSM, Loss: scaledsm.L1, Step: scaledsm.Auto{}})
	same("scaledgd", scaledsm.Settings{Method: scaledsm.ScaledGD, Step: scaledsm.Constant{Eta: 0.02}},
		scaledsm.Settings{Method: scaledsm.ScaledGD, Loss: scaledsm.L2Squared, Step: scaledsm.Constant{Eta: 0.02}})
	same("gd", scaledsm.Settings{Method: scaledsm.GD, Step: scaledsm.Constant{Eta: 0.01}},
		scaledsm.Settings{Method: scaledsm.GD, Loss: scaledsm.L2Squared, Step: scaledsm.Constant{Eta: 0.01}})
	// ScaledGD and ScaledSM on the same loss are the same directions.
	same("scaledsm on l2sq", scaledsm.Settings{Method: scaledsm.ScaledSM, Loss: scaledsm.L2Squared, Step: scaledsm.Constant{Eta: 0.02}},
		scaledsm.Settings{Method: scaledsm.ScaledGD, Step: scaledsm.Constant{Eta: 0.02}})
	for _, m := range []scaledsm.Method{scaledsm.ScaledSM, scaledsm.VanillaSM, scaledsm.ScaledGD, scaledsm.GD} {
		want := scaledsm.L1
		if m == scaledsm.ScaledGD || m == scaledsm.GD {
			want = scaledsm.L2Squared
		}
		if got := m.DefaultLoss(); got != want || m.Smooth() != want.Smooth() {
			t.Errorf("%v: default loss %v, want %v", m, got, want)
		}
		if p, err := parse.Method(m.String()); err != nil || p != m {
			t.Errorf("parse.Method(%q) = %v, %v", m.String(), p, err)
		}
	}
	for _, l := range []scaledsm.Standard{scaledsm.L1, scaledsm.L2, scaledsm.L2Squared} {
		if p, err := parse.Loss(l.String()); err != nil || p != l {
			t.Errorf("parse.Loss(%q) = %v, %v", l.String(), p, err)
		}
	}
	if _, err := parse.Loss("default"); err == nil {
		t.Errorf("parse.Loss accepts \"default\", which names no loss")
	}
}

// TestLossValues checks the l2 losses' scaling by hand.
func TestLossValues(t *testing.T) {
	z := []float64{3, -4, 0, 0}
	if got := scaledsm.L1.Value(z); got != 7 {
		t.Errorf("l1 = %g, want 7", got)
	}
	if got := scaledsm.L2.Value(z); got != 10 { // sqrt(4)·5
		t.Errorf("l2 = %g, want sqrt(m)·||z|| = 10", got)
	}
	if got := scaledsm.L2Squared.Value(z); got != 50 { // 4/2·25
		t.Errorf("l2sq = %g, want (m/2)||z||² = 50", got)
	}
	if got := scaledsm.Standard(0).Value(z); !math.IsNaN(got) {
		t.Errorf("Standard(0).Value = %g, want NaN: it names no loss", got)
	}
}

// TestPseudoInverseFallbackRepeats starts ScaledSM from factors that share
// a zero column: the Gram matrices stay singular at every iteration, and
// every update of the undamped method goes through the pseudo-inverse
// without failing.
func TestPseudoInverseFallbackRepeats(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Sensing, N1: 10, N2: 8, Rank: 2, Seed: 241}, synth.Setting{Kappa: 2, SNR: noNoise})
	spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 2}.Spectral(scaledsm.TruncateFraction(0))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		spec.L.Set(i, 1, 0)
	}
	for i := range 8 {
		spec.R.Set(i, 1, 0)
	}
	res := solve(t, in.Problem(), scaledsm.Settings{Step: scaledsm.Polyak{FStar: in.FStar}, Init: &spec, MaxIter: 10, Tol: -1, Damping: scaledsm.Damping{None: true}})
	if res.Fallbacks != res.Iterations || res.Iterations < 2 {
		t.Errorf("%d fallbacks in %d iterations (%v): want one per update", res.Fallbacks, res.Iterations, res.Status)
	}
}
