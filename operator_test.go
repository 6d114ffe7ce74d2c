package scaledsm_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/testkit"
)

// randDense returns an r×c matrix of standard Gaussian entries.
func randDense(rng *rand.Rand, r, c int) *mat.Dense { return testkit.Gaussian(rng, r, c, 1) }

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func newSensing(t testing.TB, seed uint64, m, n1, n2 int) *scaledsm.Sensing {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	op, err := scaledsm.NewSensing(m, n1, n2, randVec(rng, m*n1*n2))
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func newQuadratic(t testing.TB, seed uint64, m, n int) *scaledsm.Quadratic {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	op, err := scaledsm.NewQuadratic(m, n, randVec(rng, m*n))
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func newSensing32(t testing.TB, seed uint64, m, n1, n2 int) *scaledsm.Sensing {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	a := make([]float32, m*n1*n2)
	for i := range a {
		a[i] = float32(rng.NormFloat64())
	}
	op, err := scaledsm.NewSensing(m, n1, n2, a)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// operators returns one small operator of each kind, the sensing ones
// rectangular, one of them stored as float32.
func operators(t testing.TB) map[string]scaledsm.Operator {
	return map[string]scaledsm.Operator{
		"sensing":   newSensing(t, 1, 90, 7, 11),
		"sensing32": newSensing32(t, 3, 90, 7, 11),
		"quadratic": newQuadratic(t, 2, 120, 9),
	}
}

func TestAdjointIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for name, op := range operators(t) {
		m, n1, n2 := op.Dims()
		x := randDense(rng, n1, n2)
		v := randVec(rng, m)
		ax := make([]float64, m)
		op.Apply(ax, x)
		var lhs float64
		for i := range ax {
			lhs += ax[i] * v[i]
		}
		aty := mat.NewDense(n1, n2, nil)
		op.Adjoint(aty, v)
		rhs := mat.Sum(func() *mat.Dense { var p mat.Dense; p.MulElem(x, aty); return &p }())
		if math.Abs(lhs-rhs) > 1e-12*math.Max(1, math.Abs(lhs)) {
			t.Errorf("%s: <A(X), v> = %.17g, <X, A*(v)> = %.17g", name, lhs, rhs)
		}
	}
}

// TestApplyScaling checks the 1/m convention against a direct computation.
func TestApplyScaling(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	q := newQuadratic(t, 5, 50, 6)
	x := randDense(rng, 6, 6)
	got := make([]float64, 50)
	q.Apply(got, x)
	a := q.Data()
	for i := range 50 {
		ai := mat.NewVecDense(6, a[i*6:(i+1)*6])
		want := mat.Inner(ai, x, ai) / 50
		if math.Abs(got[i]-want) > 1e-12*math.Abs(want)+1e-14 {
			t.Fatalf("quadratic A_%d(X) = %g, want a_iᵀ X a_i / m = %g", i, got[i], want)
		}
	}
}

// lossAt evaluates Σ ρ(A(L Rᵀ) - y) for the penalty ρ of the loss's
// weight: |·| for L1, (·)²/2 for L2Squared (whose Value is m times that).
func lossAt(op scaledsm.Operator, l, r *mat.Dense, y []float64, loss scaledsm.Standard) float64 {
	if r == nil {
		r = l
	}
	var x mat.Dense
	x.Mul(l, r.T())
	z := make([]float64, len(y))
	op.Apply(z, &x)
	for i := range z {
		z[i] -= y[i]
	}
	if loss == scaledsm.L2Squared {
		return loss.Value(z) / float64(len(z))
	}
	return loss.Value(z)
}

// TestSubgradientFiniteDifferences checks the factor subgradients of both
// operators against central differences, for the smooth squared loss and
// for the l1 loss away from its kinks.
func TestSubgradientFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for name, op := range operators(t) {
		for _, loss := range []scaledsm.Standard{scaledsm.L2Squared, scaledsm.L1} {
			m, n1, n2 := op.Dims()
			const r = 3
			l := randDense(rng, n1, r)
			var rt *mat.Dense
			if !op.Symmetric() {
				rt = randDense(rng, n2, r)
			}
			y := randVec(rng, m)
			for i := range y {
				y[i] *= 3
			}
			e := scaledsm.NewEvaluation(op, r)
			e.L, e.R, e.Y = l, rt, y
			e.Weight = scaledsm.SignWeight
			if loss == scaledsm.L2Squared {
				e.Weight = scaledsm.LinearWeight
			}
			op.Evaluate(e)
			if loss == scaledsm.L1 {
				// The l1 loss is differentiable where no residual is 0;
				// keep the step well inside the smooth region.
				minAbs := math.Inf(1)
				for _, z := range e.Z {
					minAbs = math.Min(minAbs, math.Abs(z))
				}
				if minAbs < 1e-6 {
					t.Fatalf("%s: a residual is %g, too close to a kink for the test", name, minAbs)
				}
			}
			// Central differences are exact for the l1 loss between kinks and,
			// up to O(h²), for the squared loss; h is set against rounding.
			h := 1e-6
			if loss == scaledsm.L2Squared {
				h = 1e-4
			}
			check := func(which string, f *mat.Dense, g *mat.Dense) {
				rows, cols := f.Dims()
				for i := range rows {
					for j := range cols {
						old := f.At(i, j)
						f.Set(i, j, old+h)
						up := lossAt(op, l, rt, y, loss)
						f.Set(i, j, old-h)
						down := lossAt(op, l, rt, y, loss)
						f.Set(i, j, old)
						fd := (up - down) / (2 * h)
						if d := math.Abs(fd - g.At(i, j)); d > 1e-6*math.Max(1, math.Abs(fd)) {
							t.Fatalf("%s, %v: d/d%s[%d,%d] = %.10g by differences, %.10g computed", name, loss, which, i, j, fd, g.At(i, j))
						}
					}
				}
			}
			check("L", l, e.GL)
			if rt != nil {
				check("R", rt, e.GR)
			}
			// The residuals are those of the factors.
			want := make([]float64, m)
			r2 := rt
			if r2 == nil {
				r2 = l
			}
			var x mat.Dense
			x.Mul(l, r2.T())
			op.Apply(want, &x)
			for i := range want {
				if d := math.Abs(want[i] - y[i] - e.Z[i]); d > 1e-12*math.Max(1, math.Abs(y[i])) {
					t.Fatalf("%s: residual %d is %g, want %g", name, i, e.Z[i], want[i]-y[i])
				}
			}
		}
	}
}

// TestEvaluateSameBitsAnyCores checks that a pass gives the same bits with
// one core as with several.
func TestEvaluateSameBitsAnyCores(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	ops := map[string]scaledsm.Operator{
		"sensing":   newSensing(t, 8, 1000, 12, 10),
		"quadratic": newQuadratic(t, 9, 1500, 20),
	}
	for name, op := range ops {
		m, n1, n2 := op.Dims()
		l, rt, y := randDense(rng, n1, 3), randDense(rng, n2, 3), randVec(rng, m)
		eval := func(procs int) *scaledsm.Evaluation {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			e := scaledsm.NewEvaluation(op, 3)
			e.L, e.R, e.Y = l, rt, y
			op.Evaluate(e)
			return e
		}
		one, many := eval(1), eval(4)
		if !mat.Equal(one.GL, many.GL) || (one.GR != nil && !mat.Equal(one.GR, many.GR)) {
			t.Errorf("%s: subgradients differ between GOMAXPROCS=1 and 4", name)
		}
		for i := range one.Z {
			if one.Z[i] != many.Z[i] {
				t.Fatalf("%s: residual %d differs between GOMAXPROCS=1 and 4", name, i)
			}
		}
	}
}

func TestOperatorConstructorsRejectBadData(t *testing.T) {
	good := make([]float64, 2*3*4)
	bad := append([]float64(nil), good...)
	bad[13] = math.NaN()
	for _, c := range []struct {
		name string
		err  error
	}{
		{"sensing wrong length", func() error { _, err := scaledsm.NewSensing(2, 3, 5, good); return err }()},
		{"sensing zero m", func() error { _, err := scaledsm.NewSensing[float64](0, 3, 4, nil); return err }()},
		{"sensing NaN", func() error { _, err := scaledsm.NewSensing(2, 3, 4, bad); return err }()},
		{"quadratic wrong length", func() error { _, err := scaledsm.NewQuadratic(5, 5, good); return err }()},
		{"quadratic Inf", func() error {
			v := make([]float64, 6)
			v[5] = math.Inf(-1)
			_, err := scaledsm.NewQuadratic(2, 3, v)
			return err
		}()},
	} {
		if c.err == nil {
			t.Errorf("%s: accepted", c.name)
		} else {
			t.Logf("%s: %v", c.name, c.err)
		}
	}
	if _, err := scaledsm.NewSensing(2, 3, 4, good); err != nil {
		t.Errorf("good sensing data rejected: %v", err)
	}
}
