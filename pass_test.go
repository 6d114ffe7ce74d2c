package scaledsm_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/kernel"
)

// forEachKernel runs f under every kernel implementation this CPU and build
// support, then goes back to the default.
func forEachKernel(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	defer kernel.Use("auto")
	for _, name := range kernel.Available() {
		if err := kernel.Use(name); err != nil {
			t.Fatal(err)
		}
		t.Run(name, f)
	}
}

// withProcs runs f with GOMAXPROCS set to procs.
func withProcs(procs int, f func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	f()
}

// passOperators returns operators big enough for their passes to use
// several chunks and several goroutines: sensing stored as float64 and as
// float32 (the same values), and quadratic sampling.
func passOperators(t *testing.T) map[string]scaledsm.Operator {
	t.Helper()
	const m, n1, n2 = 700, 12, 17
	rng := rand.New(rand.NewPCG(31, 31))
	a32 := make([]float32, m*n1*n2)
	a64 := make([]float64, m*n1*n2)
	for i := range a32 {
		a32[i] = float32(rng.NormFloat64())
		a64[i] = float64(a32[i])
	}
	s64, err := scaledsm.NewSensing(m, n1, n2, a64)
	if err != nil {
		t.Fatal(err)
	}
	s32, err := scaledsm.NewSensing(m, n1, n2, a32)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]scaledsm.Operator{
		"sensing":   s64,
		"sensing32": s32,
		"quadratic": newQuadratic(t, 32, 2100, 20), // 4 chunks
	}
}

// evaluations returns count Evaluations of op at random factors of rank r,
// with observations near A(L Rᵀ) and alternating weights.
func evaluations(op scaledsm.Operator, rng *rand.Rand, count, r int) []*scaledsm.Evaluation {
	m, n1, n2 := op.Dims()
	es := make([]*scaledsm.Evaluation, count)
	for k := range es {
		e := scaledsm.NewEvaluation(op, r)
		e.L = randDense(rng, n1, r)
		if !op.Symmetric() {
			e.R = randDense(rng, n2, r)
		}
		e.Y = randVec(rng, m)
		for i := range e.Y {
			e.Y[i] *= 0.01
		}
		if k%3 == 2 {
			e.Weight = scaledsm.LinearWeight
		}
		es[k] = e
	}
	return es
}

// sameEval reports the first difference in bits between two evaluations.
func sameEval(a, b *scaledsm.Evaluation) error {
	for i := range a.Z {
		if math.Float64bits(a.Z[i]) != math.Float64bits(b.Z[i]) {
			return fmt.Errorf("residual %d: %v and %v", i, a.Z[i], b.Z[i])
		}
	}
	for _, g := range [][2]*mat.Dense{{a.GL, b.GL}, {a.GR, b.GR}} {
		if g[0] == nil {
			continue
		}
		ra, rb := g[0].RawMatrix(), g[1].RawMatrix()
		for i := range ra.Data {
			if math.Float64bits(ra.Data[i]) != math.Float64bits(rb.Data[i]) {
				return fmt.Errorf("subgradient entry %d: %v and %v", i, ra.Data[i], rb.Data[i])
			}
		}
	}
	return nil
}

// clone returns a fresh Evaluation at the same point as e.
func clone(op scaledsm.Operator, e *scaledsm.Evaluation) *scaledsm.Evaluation {
	_, r := e.L.Dims()
	c := scaledsm.NewEvaluation(op, r)
	c.L, c.R, c.Y, c.Weight = e.L, e.R, e.Y, e.Weight
	return c
}

// TestPassSameBits checks the promise of the passes: the same bits with
// any number of cores, and a batch gives each run the bits of its own
// evaluation, with every kernel implementation, for batches smaller and
// larger than the number of goroutines and than the largest batch split by
// chunks of rows.
func TestPassSameBits(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		for name, op := range passOperators(t) {
			rng := rand.New(rand.NewPCG(33, 33))
			es := evaluations(op, rng, 20, 3)
			ref := make([]*scaledsm.Evaluation, len(es))
			withProcs(1, func() {
				for k, e := range es {
					ref[k] = clone(op, e)
					op.Evaluate(ref[k])
				}
			})
			for _, procs := range []int{1, 2, 3, 8} {
				withProcs(procs, func() {
					for k, e := range es {
						got := clone(op, e)
						op.Evaluate(got)
						if err := sameEval(ref[k], got); err != nil {
							t.Fatalf("%s: Evaluate with GOMAXPROCS=%d differs from GOMAXPROCS=1: %v", name, procs, err)
						}
					}
					for _, size := range []int{1, 2, 5, 7, 20} {
						got := make([]*scaledsm.Evaluation, size)
						for k := range got {
							got[k] = clone(op, es[k])
						}
						scaledsm.EvaluateBatch(op, got)
						for k := range got {
							if err := sameEval(ref[k], got[k]); err != nil {
								t.Fatalf("%s: run %d of a batch of %d (GOMAXPROCS=%d) differs from its Evaluate: %v", name, k, size, procs, err)
							}
						}
					}
				})
			}
			// Apply and Adjoint.
			m, n1, n2 := op.Dims()
			x := randDense(rng, n1, n2)
			v := randVec(rng, m)
			var ax1, ax []float64
			var at1, at mat.Dense
			withProcs(1, func() {
				ax1 = make([]float64, m)
				op.Apply(ax1, x)
				at1.ReuseAs(n1, n2)
				op.Adjoint(&at1, v)
			})
			withProcs(3, func() {
				ax = make([]float64, m)
				op.Apply(ax, x)
				at.ReuseAs(n1, n2)
				op.Adjoint(&at, v)
			})
			for i := range ax {
				if math.Float64bits(ax[i]) != math.Float64bits(ax1[i]) {
					t.Fatalf("%s: Apply entry %d differs between GOMAXPROCS=1 and 3", name, i)
				}
			}
			if !mat.Equal(&at, &at1) {
				t.Fatalf("%s: Adjoint differs between GOMAXPROCS=1 and 3", name)
			}
		}
	})
}

// TestSensing32 checks that float32 storage computes in float64 from the
// stored values: its passes give the bits of the float64 operator holding
// the same values, with every kernel implementation.
func TestSensing32(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		ops := passOperators(t)
		s64, s32 := ops["sensing"], ops["sensing32"]
		rng := rand.New(rand.NewPCG(34, 34))
		es := evaluations(s64, rng, 4, 2)
		for k, e := range es {
			a, b := clone(s64, e), clone(s32, e)
			s64.Evaluate(a)
			s32.Evaluate(b)
			if err := sameEval(a, b); err != nil {
				t.Fatalf("evaluation %d: float32 storage differs from float64 storage of the same values: %v", k, err)
			}
		}
		m, n1, n2 := s64.Dims()
		x, v := randDense(rng, n1, n2), randVec(rng, m)
		a, b := make([]float64, m), make([]float64, m)
		s64.Apply(a, x)
		s32.Apply(b, x)
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("Apply entry %d: %v (float64) and %v (float32)", i, a[i], b[i])
			}
		}
		var ta, tb mat.Dense
		s64.Adjoint(&ta, v)
		s32.Adjoint(&tb, v)
		if !mat.Equal(&ta, &tb) {
			t.Fatal("Adjoint differs between float32 and float64 storage of the same values")
		}
	})
	s32 := passOperators(t)["sensing32"].(*scaledsm.Sensing)
	if s32.Data() != nil || len(s32.Data32()) == 0 || s32.Bytes() != 4*int64(len(s32.Data32())) {
		t.Errorf("float32 storage: Data %d values, Data32 %d, Bytes %d", len(s32.Data()), len(s32.Data32()), s32.Bytes())
	}
}

// TestSensing32RejectsBadData checks the float32 constructor's errors.
func TestSensing32RejectsBadData(t *testing.T) {
	good := make([]float32, 2*3*4)
	if _, err := scaledsm.NewSensing(2, 3, 4, good); err != nil {
		t.Fatalf("good data rejected: %v", err)
	}
	bad := append([]float32(nil), good...)
	bad[17] = float32(math.Inf(1))
	for name, err := range map[string]error{
		"wrong length": func() error { _, err := scaledsm.NewSensing(2, 3, 5, good); return err }(),
		"zero n1":      func() error { _, err := scaledsm.NewSensing[float32](2, 0, 4, nil); return err }(),
		"Inf":          func() error { _, err := scaledsm.NewSensing(2, 3, 4, bad); return err }(),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	_, err := scaledsm.NewSensing(2, 3, 4, bad)
	if err == nil || err.Error() != "scaledsm: sensing operator: entry 5 of measurement matrix 1 is +Inf" {
		t.Errorf("Inf at entry 17: error %v, want one naming entry 5 of matrix 1", err)
	}
}
