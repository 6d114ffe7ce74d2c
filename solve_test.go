package scaledsm_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/synthtest"
	"github.com/scaledsm/scaledsm/synth"
)

// The synthetic problems of the tests (see package synthtest).
var (
	newDraw    = synthtest.NewDraw
	instanceOf = synthtest.InstanceOf
	instance   = synthtest.Instance
)

func solve(t testing.TB, p scaledsm.Problem, s scaledsm.Settings) *scaledsm.Result {
	t.Helper()
	res, err := scaledsm.Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var noNoise = math.Inf(1)

// TestExactRecoveryWithOutliers recovers both kinds of truth (sensing with
// float64 and with float32 storage) to 1e-12 from measurements of which 20%
// are gross outliers.
func TestExactRecoveryWithOutliers(t *testing.T) {
	for _, c := range []synth.Config{
		{Kind: synth.Sensing, N1: 20, N2: 30, Rank: 2, Seed: 11},
		{Kind: synth.Sensing, N1: 20, N2: 30, Rank: 2, Seed: 11, Precision: synth.Float32},
		{Kind: synth.Quadratic, N1: 30, Rank: 3, Seed: 12},
	} {
		in := instance(t, c, synth.Setting{Kappa: 5, PS: 0.2, SNR: noNoise})
		corrupted := 0
		for _, b := range in.Corrupted() {
			if b {
				corrupted++
			}
		}
		if corrupted < len(in.Y)/8 {
			t.Fatalf("%v: only %d of %d measurements corrupted", c.Kind, corrupted, len(in.Y))
		}
		res := solve(t, in.Problem(), scaledsm.Settings{Step: scaledsm.Polyak{FStar: in.FStar}, Truncation: scaledsm.TruncateFraction(0.2)})
		if res.Status != scaledsm.Converged || res.RelError > 1e-12 {
			t.Errorf("%v: %v with relative error %.3g after %d iterations", c.Kind, res.Status, res.RelError, res.Iterations)
		}
		// The recovered factors reproduce the truth.
		var diff mat.Dense
		diff.Sub(res.Product(), in.Truth)
		if e := mat.Norm(&diff, 2) / mat.Norm(in.Truth, 2); e > 1e-12 {
			t.Errorf("%v: factors give relative error %.3g", c.Kind, e)
		}
		t.Logf("%v: %d of %d corrupted, converged in %d iterations", c.Kind, corrupted, len(in.Y), res.Iterations)
	}
}

// TestKappaIndependence runs both methods at κ = 1 and 10 on the same draw:
// ScaledSM's iteration count stays flat, VanillaSM's grows.
func TestKappaIndependence(t *testing.T) {
	for _, c := range []synth.Config{
		{Kind: synth.Quadratic, N1: 40, Rank: 3, Seed: 21},
		{Kind: synth.Sensing, N1: 20, Rank: 2, Seed: 22},
	} {
		d := newDraw(t, c)
		iters := map[scaledsm.Method][]int{}
		for _, kappa := range []float64{1, 10} {
			in := instanceOf(t, d, synth.Setting{Kappa: kappa, PS: 0.1, SNR: noNoise})
			for _, m := range []scaledsm.Method{scaledsm.ScaledSM, scaledsm.VanillaSM} {
				res := solve(t, in.Problem(), scaledsm.Settings{Method: m, Step: scaledsm.Polyak{FStar: in.FStar}, Truncation: scaledsm.TruncateFraction(0.1), Tol: 1e-10, MaxIter: 3000})
				if res.Status != scaledsm.Converged {
					t.Fatalf("%v κ=%g %v: %v at error %.3g", c.Kind, kappa, m, res.Status, res.RelError)
				}
				iters[m] = append(iters[m], res.Iterations)
			}
		}
		s, v := iters[scaledsm.ScaledSM], iters[scaledsm.VanillaSM]
		t.Logf("%v: ScaledSM %v, VanillaSM %v iterations at κ = 1, 10", c.Kind, s, v)
		if ratio := float64(s[1]) / float64(s[0]); ratio > 1.2 || ratio < 1/1.2 {
			t.Errorf("%v: ScaledSM needs %d iterations at κ=10 and %d at κ=1: not flat in κ", c.Kind, s[1], s[0])
		}
		if ratio := float64(v[1]) / float64(v[0]); ratio < 2.5 {
			t.Errorf("%v: VanillaSM needs %d iterations at κ=10 and %d at κ=1: it should slow down with κ", c.Kind, v[1], v[0])
		}
	}
}

// TestScaledSMInvariance checks that ScaledSM's iterates X_t do not change
// under L -> L Q, R -> R Q^{-T}, and that VanillaSM's do (so the test can
// tell the two apart).
func TestScaledSMInvariance(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Sensing, N1: 15, N2: 12, Rank: 3, Seed: 31}, synth.Setting{Kappa: 4, PS: 0.1, SNR: noNoise})
	spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 3}.Spectral(scaledsm.TruncateFraction(0.1))
	if err != nil {
		t.Fatal(err)
	}
	q := mat.NewDense(3, 3, []float64{2, 1, 0, -0.5, 1, 3, 1, 0, 0.7})
	var qinv mat.Dense
	if err := qinv.Inverse(q); err != nil {
		t.Fatal(err)
	}
	var lq, rq mat.Dense
	lq.Mul(spec.L, q)
	rq.Mul(spec.R, qinv.T())

	for _, step := range []scaledsm.Step{scaledsm.Polyak{FStar: in.FStar}, scaledsm.Geometric{Lambda: 1, Q: 0.9}} {
		maxDiff := map[scaledsm.Method]float64{}
		for _, method := range []scaledsm.Method{scaledsm.ScaledSM, scaledsm.VanillaSM} {
			for iters := 1; iters <= 30; iters += 29 {
				// The paper's preconditioner: damping by λI breaks the
				// invariance for a Q that is not orthogonal.
				s := scaledsm.Settings{Method: method, Step: step, MaxIter: iters, Tol: -1, Damping: scaledsm.Damping{None: true}}
				s.Init = &spec
				a := solve(t, in.Problem(), s)
				s.Init = &scaledsm.Factors{L: &lq, R: &rq}
				b := solve(t, in.Problem(), s)
				var d mat.Dense
				d.Sub(a.Product(), b.Product())
				rel := mat.Norm(&d, 2) / mat.Norm(a.Product(), 2)
				maxDiff[method] = math.Max(maxDiff[method], rel)
			}
		}
		if d := maxDiff[scaledsm.ScaledSM]; d > 1e-10 {
			t.Errorf("%T: ScaledSM's iterates move by %.3g under L Q, R Q^-T", step, d)
		}
		if d := maxDiff[scaledsm.VanillaSM]; d < 1e-4 {
			t.Errorf("%T: VanillaSM's iterates move by only %.3g under L Q, R Q^-T: the test cannot tell", step, d)
		}
	}
}

// TestPSDInvariance checks the invariance of the PSD form under L -> L Q
// for orthogonal Q.
func TestPSDInvariance(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Quadratic, N1: 20, Rank: 2, Seed: 32}, synth.Setting{Kappa: 3, SNR: noNoise})
	spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 2}.Spectral(scaledsm.TruncateFraction(0))
	if err != nil {
		t.Fatal(err)
	}
	c, s := math.Cos(0.7), math.Sin(0.7)
	var lq mat.Dense
	lq.Mul(spec.L, mat.NewDense(2, 2, []float64{c, -s, s, c}))
	set := scaledsm.Settings{Step: scaledsm.Polyak{FStar: in.FStar}, MaxIter: 25, Tol: -1, Init: &spec}
	a := solve(t, in.Problem(), set)
	set.Init = &scaledsm.Factors{L: &lq}
	b := solve(t, in.Problem(), set)
	var d mat.Dense
	d.Sub(a.Product(), b.Product())
	if rel := mat.Norm(&d, 2) / mat.Norm(a.Product(), 2); rel > 1e-10 {
		t.Errorf("PSD ScaledSM iterates move by %.3g under L Q", rel)
	}
}

// TestPSDMatchesAsymmetricFromSymmetricStart checks the convention for the
// PSD subgradient: ScaledSM with X = L Lᵀ follows the same iterates as the
// asymmetric method started from L = R on the same measurements.
func TestPSDMatchesAsymmetricFromSymmetricStart(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Quadratic, N1: 12, Rank: 2, Seed: 33}, synth.Setting{Kappa: 2, PS: 0.1, SNR: noNoise})
	q := in.Op.(*scaledsm.Quadratic)
	m, n, _ := q.Dims()
	// The same measurements as a sensing operator with A_i = a_i a_iᵀ.
	a := q.Data()
	dense := make([]float64, m*n*n)
	for i := range m {
		for j := range n {
			for k := range n {
				dense[i*n*n+j*n+k] = a[i*n+j] * a[i*n+k]
			}
		}
	}
	sens, err := scaledsm.NewSensing(m, n, n, dense)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := scaledsm.Problem{Op: q, Y: in.Y, Rank: 2}.Spectral(scaledsm.TruncateFraction(0.1))
	if err != nil {
		t.Fatal(err)
	}
	// Polyak steps coincide. Geometric steps move λ q^t in each method's
	// metric; the asymmetric subgradient stacks two copies of S L, so its
	// norm is 1/√2 of the PSD one and λ must be scaled by √2 to match.
	for _, steps := range [][2]scaledsm.Step{
		{scaledsm.Polyak{FStar: in.FStar}, scaledsm.Polyak{FStar: in.FStar}},
		{scaledsm.Geometric{Lambda: 0.5, Q: 0.9}, scaledsm.Geometric{Lambda: 0.5 * math.Sqrt2, Q: 0.9}},
	} {
		step := steps[0]
		set := scaledsm.Settings{Step: steps[0], MaxIter: 40, Tol: -1, Init: &spec}
		psd := solve(t, in.Problem(), set)
		set.Init = &scaledsm.Factors{L: spec.L, R: spec.L}
		set.Step = steps[1]
		asym := solve(t, scaledsm.Problem{Op: sens, Y: in.Y, Rank: 2, Truth: in.Truth}, set)
		for i := range psd.Trace {
			a, b := psd.Trace[i].RelError, asym.Trace[i].RelError
			if math.Abs(a-b) > 1e-8*b+1e-14 {
				t.Fatalf("%T: iteration %d: PSD error %.6g, asymmetric error %.6g", step, i, a, b)
			}
		}
	}
}

// TestPolyakNegativeNumeratorKeepsIterate gives Polyak's step an optimal
// value above the loss at the start, so that its numerator f(X_t) - f(X*)
// is negative by a margin no rounding can flip: the step must be zero,
// never negative, the run stalled at once and the iterate kept, bit for
// bit. (A run into a noise floor, where the numerator turns negative by
// rounding alone, tells nothing reliable: Polyak's steps approach the level
// f(X*) from above, and whether the last bits ever cross it depends on the
// kernels; TestPolyakAtNoiseFloor checks what holds there on every path.)
func TestPolyakNegativeNumeratorKeepsIterate(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Quadratic, N1: 30, Rank: 3, Seed: 41}, synth.Setting{Kappa: 5, PS: 0.1, SNR: 40})
	start, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 3}.Spectral(scaledsm.TruncateFraction(0.1))
	if err != nil {
		t.Fatal(err)
	}
	p := in.Problem()
	p.Truth = nil // the numerator from FStar, not from the truth
	var x mat.Dense
	x.Mul(start.L, start.L.T())
	z := make([]float64, len(in.Y))
	in.Op.Apply(z, &x)
	for i, y := range in.Y {
		z[i] -= y
	}
	f0 := scaledsm.L1.Value(z)
	res := solve(t, p, scaledsm.Settings{Step: scaledsm.Polyak{FStar: 1.5 * f0}, Init: &start, MaxIter: 50})
	if res.Status != scaledsm.Stalled || res.Iterations != 0 {
		t.Fatalf("status %v after %d iterations: want stalled at once, f(X_0) = %g below f(X*) = %g", res.Status, res.Iterations, f0, 1.5*f0)
	}
	first := res.Trace[0]
	if first.Step != 0 || !(first.Gap < 0) {
		t.Errorf("step %g with numerator %g: want a zero step on a negative numerator", first.Step, first.Gap)
	}
	if !mat.Equal(res.L, start.L) {
		t.Error("the iterate moved on a zero step")
	}
}

// TestPolyakAtNoiseFloor runs Polyak's step with the true f(X*) into the
// noise floor of a 40 dB problem: whether it ends stalled (the numerator
// rounded to zero or below) or at the iteration limit (the iterate fixed,
// the numerator a few ulps above zero) depends on the kernels' last bits,
// but on every path no step is negative and the iterate is not thrown
// away: the final error is the best on the way and a plausible floor.
func TestPolyakAtNoiseFloor(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Quadratic, N1: 30, Rank: 3, Seed: 41}, synth.Setting{Kappa: 5, PS: 0.1, SNR: 40})
	res := solve(t, in.Problem(), scaledsm.Settings{Step: scaledsm.Polyak{FStar: in.FStar}, Truncation: scaledsm.TruncateFraction(0.1), MaxIter: 200, Damping: scaledsm.Damping{None: true}})
	if res.Status != scaledsm.Stalled && res.Status != scaledsm.IterationLimit {
		t.Fatalf("status %v at error %.3g: want stalled or the iteration limit at the floor", res.Status, res.RelError)
	}
	best := math.Inf(1)
	for _, it := range res.Trace {
		if it.Step < 0 {
			t.Fatalf("iteration %d took a negative step %g", it.Iter, it.Step)
		}
		if it.Gap < -1e-12*in.FStar {
			t.Errorf("iteration %d: numerator %g, below the rounding of f(X*) = %g", it.Iter, it.Gap, in.FStar)
		}
		best = math.Min(best, it.RelError)
	}
	if res.RelError > 1.01*best {
		t.Errorf("final error %.3g, best on the way %.3g: the iterate was thrown away", res.RelError, best)
	}
	if res.RelError > 1e-2 || res.RelError < 1e-4 {
		t.Errorf("final error %.3g is not a plausible floor for 40 dB", res.RelError)
	}
}

// TestSingularPreconditioner starts from factors whose Gram matrices are
// singular: a zero factor has no direction at all (status Singular); a
// rank-deficient one goes through the pseudo-inverse without NaN (when
// undamped: the damping makes the matrix definite).
func TestSingularPreconditioner(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Sensing, N1: 15, Rank: 2, Seed: 51}, synth.Setting{Kappa: 2, SNR: noNoise})
	spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 2}.Spectral(scaledsm.TruncateFraction(0))
	if err != nil {
		t.Fatal(err)
	}
	zero := mat.NewDense(15, 2, nil)
	res := solve(t, in.Problem(), scaledsm.Settings{Step: scaledsm.Polyak{FStar: in.FStar}, Init: &scaledsm.Factors{L: spec.L, R: zero}})
	if res.Status != scaledsm.Singular {
		t.Errorf("zero R: status %v, want singular", res.Status)
	}

	deficient := mat.DenseCopyOf(spec.L)
	for i := range 15 {
		deficient.Set(i, 1, 2*deficient.At(i, 0)) // rank 1
	}
	res = solve(t, in.Problem(), scaledsm.Settings{Step: scaledsm.Polyak{FStar: in.FStar}, Init: &scaledsm.Factors{L: deficient, R: spec.R}, MaxIter: 50, Damping: scaledsm.Damping{None: true}})
	if res.Fallbacks == 0 {
		t.Errorf("rank-deficient L: no pseudo-inverse fallback recorded")
	}
	for _, it := range res.Trace {
		if math.IsNaN(it.RelError) || math.IsNaN(it.Loss) {
			t.Fatalf("rank-deficient L: NaN at iteration %d", it.Iter)
		}
	}
	t.Logf("rank-deficient start: %v, error %.3g, %d fallbacks", res.Status, res.RelError, res.Fallbacks)
}

func TestDivergence(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Quadratic, N1: 20, Rank: 2, Seed: 61}, synth.Setting{Kappa: 2, SNR: noNoise})
	res := solve(t, in.Problem(), scaledsm.Settings{Step: scaledsm.Geometric{Lambda: 1e4, Q: 0.99}})
	if res.Status != scaledsm.Diverged {
		t.Errorf("huge steps: status %v at error %.3g, want diverged", res.Status, res.RelError)
	}
}

func TestTraceAndResultAgree(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Quadratic, N1: 20, Rank: 2, Seed: 71}, synth.Setting{Kappa: 2, PS: 0.1, SNR: noNoise})
	var seen []scaledsm.Iteration
	res := solve(t, in.Problem(), scaledsm.Settings{
		Step: scaledsm.Geometric{Lambda: 0.5, Q: 0.9}, MaxIter: 7, Truncation: scaledsm.TruncateFraction(0.1),
		Recorder: func(it scaledsm.Iteration) { seen = append(seen, it) },
	})
	if res.Status != scaledsm.IterationLimit || res.Iterations != 7 || len(res.Trace) != 8 || len(seen) != 8 {
		t.Fatalf("status %v, %d iterations, %d records, %d recorded: want iteration-limit, 7, 8, 8", res.Status, res.Iterations, len(res.Trace), len(seen))
	}
	for i, it := range res.Trace {
		if it.Iter != i || !sameRecord(seen[i], it) {
			t.Fatalf("record %d: %+v, recorder saw %+v", i, it, seen[i])
		}
		if i < 7 {
			// Geometric steps move λ q^t in the scaled metric.
			if want := 0.5 * math.Pow(0.9, float64(i)); math.Abs(it.StepLength-want) > 1e-12 {
				t.Errorf("step length %d = %g, want λ q^t = %g", i, it.StepLength, want)
			}
		}
	}
	if !math.IsNaN(res.Trace[7].Step) || res.RelError != res.Trace[7].RelError {
		t.Errorf("last record %+v does not match the result's error %g", res.Trace[7], res.RelError)
	}
}

// sameRecord compares two records, NaN equal to NaN.
func sameRecord(a, b scaledsm.Iteration) bool {
	eq := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return a.Iter == b.Iter && eq(a.RelError, b.RelError) && eq(a.Change, b.Change) &&
		eq(a.Loss, b.Loss) && eq(a.Step, b.Step) && eq(a.StepLength, b.StepLength)
}

func TestInterrupted(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Quadratic, N1: 20, Rank: 2, Seed: 72}, synth.Setting{Kappa: 2, SNR: noNoise})
	ctx, cancel := context.WithCancel(context.Background())
	res, err := scaledsm.Solve(ctx, in.Problem(), scaledsm.Settings{
		Step: scaledsm.Geometric{Lambda: 0.5, Q: 0.99},
		Recorder: func(it scaledsm.Iteration) {
			if it.Iter == 4 {
				cancel()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != scaledsm.Interrupted || res.Iterations != 5 {
		t.Errorf("status %v after %d iterations, want interrupted after 5", res.Status, res.Iterations)
	}
	var d mat.Dense
	d.Sub(res.Product(), in.Truth)
	if e := mat.Norm(&d, 2) / mat.Norm(in.Truth, 2); math.Abs(e-res.RelError) > 1e-12 {
		t.Errorf("interrupted result's factors have error %g, its record says %g", e, res.RelError)
	}
}

// TestNoTruthStopsOnChange solves without the truth: the run stops when the
// iterate stops moving, and still recovers X*.
func TestNoTruthStopsOnChange(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Quadratic, N1: 25, Rank: 2, Seed: 81}, synth.Setting{Kappa: 3, PS: 0.1, SNR: noNoise})
	p := in.Problem()
	p.Truth = nil
	res := solve(t, p, scaledsm.Settings{Step: scaledsm.Polyak{FStar: in.FStar}, Truncation: scaledsm.TruncateFraction(0.1), Tol: 1e-13})
	if res.Status != scaledsm.Stationary || !math.IsNaN(res.RelError) {
		t.Fatalf("status %v, error %v, want stationary without an error", res.Status, res.RelError)
	}
	var d mat.Dense
	d.Sub(res.Product(), in.Truth)
	if e := mat.Norm(&d, 2) / mat.Norm(in.Truth, 2); e > 1e-10 {
		t.Errorf("stopped on change at relative error %.3g", e)
	}
}

// TestSolveRejectsBadInput checks that every invalid input is refused with
// an *InputError that names it.
func TestSolveRejectsBadInput(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Sensing, N1: 6, N2: 5, Rank: 2, Seed: 91}, synth.Setting{Kappa: 2, SNR: noNoise})
	good := func() (scaledsm.Problem, scaledsm.Settings) {
		return in.Problem(), scaledsm.Settings{Step: scaledsm.Polyak{FStar: in.FStar}}
	}
	nanY := append([]float64(nil), in.Y...)
	nanY[3] = math.NaN()
	cases := []struct {
		name, input, want string
		mod               func(p *scaledsm.Problem, s *scaledsm.Settings)
	}{
		{"no operator", "operator", "none", func(p *scaledsm.Problem, s *scaledsm.Settings) { p.Op = nil }},
		{"short y", "y", "want m = ", func(p *scaledsm.Problem, s *scaledsm.Settings) { p.Y = p.Y[1:] }},
		{"no observations", "y", "no observations", func(p *scaledsm.Problem, s *scaledsm.Settings) { p.Y = nil }},
		{"NaN in y", "y", "observation 3 is NaN", func(p *scaledsm.Problem, s *scaledsm.Settings) { p.Y = nanY }},
		{"rank 0", "rank", "rank 0", func(p *scaledsm.Problem, s *scaledsm.Settings) { p.Rank = 0 }},
		{"rank above min", "rank", "rank 6", func(p *scaledsm.Problem, s *scaledsm.Settings) { p.Rank = 6 }},
		{"truth shape", "truth", "5×6", func(p *scaledsm.Problem, s *scaledsm.Settings) { p.Truth = mat.NewDense(5, 6, nil) }},
		{"zero truth", "truth", "undefined", func(p *scaledsm.Problem, s *scaledsm.Settings) { p.Truth = mat.NewDense(6, 5, nil) }},
		{"empty factored truth", "truth", "0×0", func(p *scaledsm.Problem, s *scaledsm.Settings) { p.Truth = scaledsm.Factors{} }},
		{"zero factored truth", "truth", "undefined", func(p *scaledsm.Problem, s *scaledsm.Settings) {
			p.Truth = scaledsm.Factors{L: mat.NewDense(6, 2, nil), R: mat.NewDense(5, 2, nil)}
		}},
		{"gradient method on l1", "loss", "needs the smooth loss", func(p *scaledsm.Problem, s *scaledsm.Settings) {
			s.Method, s.Loss = scaledsm.ScaledGD, scaledsm.L1
		}},
		{"gd on l2", "loss", "needs the smooth loss", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Method, s.Loss = scaledsm.GD, scaledsm.L2 }},
		{"eta 0", "eta", "eta 0", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Step = scaledsm.Constant{Eta: 0} }},
		{"eta NaN", "eta", "eta NaN", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Step = scaledsm.Constant{Eta: math.NaN()} }},
		{"trim -0.5", "trim", "[0, 0.5)", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Truncation = scaledsm.Truncation{Fraction: -0.5} }},
		{"trim 0.5", "trim", "[0, 0.5)", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Truncation = scaledsm.Truncation{Fraction: 0.5} }},
		{"trim none and fraction", "trim", "None", func(p *scaledsm.Problem, s *scaledsm.Settings) {
			s.Truncation = scaledsm.Truncation{Fraction: 0.1, None: true}
		}},
		{"lambda 0", "lambda", "lambda 0", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Step = scaledsm.Geometric{Lambda: 0, Q: 0.9} }},
		{"q 1", "q", "q 1", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Step = scaledsm.Geometric{Lambda: 1, Q: 1} }},
		{"q 0", "q", "q 0", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Step = scaledsm.Geometric{Lambda: 1, Q: 0} }},
		{"negative f*", "f(X*)", "f(X*) -1", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Step = scaledsm.Polyak{FStar: -1} }},
		{"negative iterations", "iterations", "iteration limit", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.MaxIter = -3 }},
		{"NaN tolerance", "tol", "tol NaN", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Tol = math.NaN() }},
		{"unknown method", "method", "unknown", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Method = 99 }},
		{"unknown loss", "loss", "unknown", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Loss = scaledsm.Standard(99) }},
		{"init shape", "init", "initial L", func(p *scaledsm.Problem, s *scaledsm.Settings) {
			s.Init = &scaledsm.Factors{L: mat.NewDense(6, 3, nil), R: mat.NewDense(5, 2, nil)}
		}},
		{"init empty", "init", "have no L", func(p *scaledsm.Problem, s *scaledsm.Settings) { s.Init = &scaledsm.Factors{} }},
		{"init without R", "init", "no R", func(p *scaledsm.Problem, s *scaledsm.Settings) {
			s.Init = &scaledsm.Factors{L: mat.NewDense(6, 2, nil)}
		}},
	}
	for _, c := range cases {
		p, s := good()
		c.mod(&p, &s)
		_, err := scaledsm.Solve(context.Background(), p, s)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		var ie *scaledsm.InputError
		if !errors.As(err, &ie) || ie.Input != c.input {
			t.Errorf("%s: error %q (%T) does not name the input %q", c.name, err, err, c.input)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
	p, s := good()
	if _, err := scaledsm.Solve(context.Background(), p, s); err != nil {
		t.Errorf("good input rejected: %v", err)
	}
}

func TestTrimmed(t *testing.T) {
	y := []float64{0.5, -3, 2, 0.1, -2, 7, 0}
	// Drops ceil(0.3·7) = 3: 7 and -3, then of the tie 2, -2 the one of
	// higher index (4) sorts last and goes.
	got := scaledsm.Truncated(y, scaledsm.TruncateFraction(0.3))
	want := []int{0, 2, 3, 6}
	if len(got) != len(want) {
		t.Fatalf("Truncated = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Truncated = %v, want %v", got, want)
		}
	}
	if n := len(scaledsm.Truncated(make([]float64, 8000), scaledsm.TruncateFraction(0.2))); n != 6400 {
		t.Errorf("Truncated(8000, 0.2) keeps %d, want 6400", n)
	}
}

// TestSpectralCloseWithoutCorruption: with many clean measurements the
// spectral estimate is close to the truth, for both operators.
func TestSpectralCloseWithoutCorruption(t *testing.T) {
	for _, c := range []synth.Config{
		{Kind: synth.Sensing, N1: 10, N2: 8, Rank: 2, M: 4000, Seed: 101},
		{Kind: synth.Quadratic, N1: 10, Rank: 2, M: 8000, Seed: 102},
	} {
		in := instance(t, c, synth.Setting{Kappa: 2, SNR: noNoise})
		spec, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: c.Rank}.Spectral(scaledsm.TruncateFraction(0))
		if err != nil {
			t.Fatal(err)
		}
		var d mat.Dense
		d.Sub(spec.Product(), in.Truth)
		e := mat.Norm(&d, 2) / mat.Norm(in.Truth, 2)
		if e > 0.15 {
			t.Errorf("%v: spectral initialization at relative error %.3g", c.Kind, e)
		}
		t.Logf("%v: spectral initialization at relative error %.3g", c.Kind, e)
	}
}

func TestPolyakAndGeometricSizes(t *testing.T) {
	c := &scaledsm.StepContext{Iter: 3, Loss: 5, Gap: math.NaN(), Norm: 2}
	if got := (scaledsm.Polyak{FStar: 1}).Size(c); got != 1 {
		t.Errorf("Polyak size %g, want (5-1)/2² = 1", got)
	}
	c = &scaledsm.StepContext{Iter: 3, Loss: 5, Gap: math.NaN(), Norm: 2}
	if got := (scaledsm.Polyak{FStar: 6}).Size(c); got != 0 {
		t.Errorf("Polyak size %g with f < f*, want 0", got)
	}
	// With a truth, the gap computed from it is the numerator.
	c = &scaledsm.StepContext{Iter: 3, Loss: 5, Gap: 8, Norm: 2}
	if got := (scaledsm.Polyak{FStar: 1}).Size(c); got != 2 {
		t.Errorf("Polyak size %g with a gap of 8, want 8/2² = 2", got)
	}
	if got, want := (scaledsm.Geometric{Lambda: 2, Q: 0.5}).Size(c), 2*0.125/2; got != want {
		t.Errorf("geometric size %g, want %g", got, want)
	}
}

// TestStationaryIsNotConvergence solves without a truth twice: with Auto,
// which recovers X* and so fits every measurement but the outliers, and
// with geometric steps that shrink too fast (q = 0.5), which stop the
// iterate far from X*. Both stop moving; the status says only that
// (stationary, never converged), and the fit fraction tells them apart.
func TestStationaryIsNotConvergence(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Sensing, N1: 30, Rank: 2, Seed: 17}, synth.Setting{Kappa: 5, PS: 0.2, SNR: noNoise})
	p := in.Problem()
	p.Truth = nil
	outliers := 0
	for _, c := range in.Corrupted() {
		if c {
			outliers++
		}
	}
	clean := 1 - float64(outliers)/float64(len(in.Y))
	good := solve(t, p, scaledsm.Settings{Tol: 1e-13})
	bad := solve(t, p, scaledsm.Settings{Step: scaledsm.Geometric{Lambda: 2, Q: 0.5}})
	for _, r := range []*scaledsm.Result{good, bad} {
		if r.Status != scaledsm.Stationary {
			t.Errorf("status %v after %d iterations, want stationary", r.Status, r.Iterations)
		}
	}
	if math.Abs(good.FitFraction-clean) > 0.01 {
		t.Errorf("recovered: fit fraction %.3f, want the clean fraction %.3f", good.FitFraction, clean)
	}
	if bad.FitFraction > 0.01 {
		t.Errorf("stopped short: fit fraction %.3f, want about 0", bad.FitFraction)
	}
	var d mat.Dense
	d.Sub(bad.Product(), in.Truth)
	if e := mat.Norm(&d, 2) / mat.Norm(in.Truth, 2); e < 1e-3 {
		t.Errorf("the q = 0.5 run reached relative error %.3g: the test cannot tell", e)
	}
	t.Logf("fit fraction %.3f (recovered, %d iterations) and %.3f (stopped short after %d); clean fraction %.3f",
		good.FitFraction, good.Iterations, bad.FitFraction, bad.Iterations, clean)
}

// stopAt is a Converger that stops a run at iteration at with a status.
type stopAt struct {
	at     int
	status scaledsm.Status
	seen   *[]int
}

func (s stopAt) Converged(trace []scaledsm.Iteration) (scaledsm.Status, bool) {
	*s.seen = append(*s.seen, len(trace))
	return s.status, trace[len(trace)-1].Iter == s.at
}

// TestConverger checks the stopping hook: it sees the trace with the
// current record, and its status ends the run there.
func TestConverger(t *testing.T) {
	in := instance(t, synth.Config{Kind: synth.Quadratic, N1: 20, Rank: 2, Seed: 7}, synth.Setting{Kappa: 3, SNR: noNoise})
	var seen []int
	res := solve(t, in.Problem(), scaledsm.Settings{Converger: stopAt{7, scaledsm.Stalled, &seen}})
	if res.Status != scaledsm.Stalled || res.Iterations != 7 || len(res.Trace) != 8 {
		t.Errorf("%v after %d iterations, %d records; want stalled after 7, 8 records", res.Status, res.Iterations, len(res.Trace))
	}
	for i, n := range seen {
		if n != i+1 {
			t.Fatalf("call %d saw %d records, want %d", i, n, i+1)
		}
	}
}
