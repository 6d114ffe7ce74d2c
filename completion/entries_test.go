package completion_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/synth"
)

// TestNewEntries sorts triplets into row-major order, carrying their
// values, and refuses entries outside the matrix and duplicates, naming
// them.
func TestNewEntries(t *testing.T) {
	rows := []int32{2, 0, 2, 1, 0}
	cols := []int32{1, 3, 0, 2, 0}
	vals := []float64{21, 3, 20, 12, 0}
	op, y, err := completion.NewEntries(3, 4, rows, cols, vals)
	if err != nil {
		t.Fatal(err)
	}
	if m, n1, n2 := op.Dims(); m != 5 || n1 != 3 || n2 != 4 {
		t.Fatalf("Dims = %d, %d, %d", m, n1, n2)
	}
	if !slices.Equal(y, []float64{0, 3, 12, 20, 21}) || !slices.Equal(op.Cols(), []int32{0, 3, 2, 0, 1}) || !slices.Equal(op.Start(), []int{0, 2, 3, 5}) {
		t.Errorf("sorted: y %v, cols %v, start %v", y, op.Cols(), op.Start())
	}
	if got := op.Isometry(); got != 12.0/5 {
		t.Errorf("Isometry = %v, want 12/5", got)
	}
	for _, c := range []struct {
		name       string
		rows, cols []int32
		want       string
	}{
		{"outside", []int32{0, 3}, []int32{0, 0}, "entry 1 at (3, 0) lies outside the 3×4 matrix"},
		{"negative", []int32{0, 1}, []int32{0, -1}, "entry 1 at (1, -1) lies outside"},
		{"duplicate", []int32{1, 0, 1}, []int32{2, 0, 2}, "entries 0 and 2 are both (1, 2)"},
		{"lengths", []int32{1, 0}, []int32{2}, "1 column indices for 2 row indices"},
	} {
		_, _, err := completion.NewEntries(3, 4, c.rows, c.cols, nil)
		var ie *scaledsm.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want an InputError with %q", c.name, err, c.want)
		}
	}
	if _, err := completion.NewEntriesCSR(2, 2, nil, nil); err == nil || !strings.Contains(err.Error(), "0 row starts, want 3") { // it panicked making its message
		t.Errorf("no row starts: %v", err)
	}
	if _, err := completion.NewEntriesCSR(2, 3, []int{0, 2, 3}, []int32{1, 0, 2}); err == nil || !strings.Contains(err.Error(), "not increasing") {
		t.Errorf("unsorted CSR: %v", err)
	}
}

// TestEntriesEvaluate checks a pass against its definition, entry by
// entry from dense matrices, for both weights: the residuals, and the
// factor subgradients S R and Sᵀ L of S = Σ ψ(z_e) e_i e_jᵀ. It also checks
// the gradient of Σ z²/2 against finite differences.
func TestEntriesEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n1, n2, r = 23, 17, 3
	var rows, cols []int32
	for i := range n1 {
		for j := range n2 {
			if rng.Float64() < 0.4 {
				rows, cols = append(rows, int32(i)), append(cols, int32(j))
			}
		}
	}
	vals := make([]float64, len(rows))
	for k := range vals {
		vals[k] = rng.NormFloat64()
	}
	op, y, err := completion.NewEntries(n1, n2, rows, cols, vals)
	if err != nil {
		t.Fatal(err)
	}
	L, R := randDense(rng, n1, r), randDense(rng, n2, r)
	var x mat.Dense
	x.Mul(L, R.T())
	for _, w := range []scaledsm.Weight{scaledsm.SignWeight, scaledsm.LinearWeight} {
		e := scaledsm.NewEvaluation(op, r)
		e.L, e.R, e.Y, e.Weight = L, R, y, w
		op.Evaluate(e)
		S := mat.NewDense(n1, n2, nil)
		k := 0
		for i := range n1 {
			for _, j := range op.Cols()[op.Start()[i]:op.Start()[i+1]] {
				z := x.At(i, int(j)) - y[k]
				if math.Abs(e.Z[k]-z) > 1e-12 {
					t.Fatalf("weight %v: residual %d = %v, want %v", w, k, e.Z[k], z)
				}
				psi := z
				if w == scaledsm.SignWeight {
					psi = math.Copysign(1, z)
				}
				S.Set(i, int(j), psi)
				k++
			}
		}
		var gl, gr mat.Dense
		gl.Mul(S, R)
		gr.Mul(S.T(), L)
		if !mat.EqualApprox(&gl, e.GL, 1e-12) || !mat.EqualApprox(&gr, e.GR, 1e-12) {
			t.Errorf("weight %v: subgradients differ from S R and Sᵀ L", w)
		}
	}
	// Finite differences of f(L) = Σ z²/2 along a random direction.
	e := scaledsm.NewEvaluation(op, r)
	e.L, e.R, e.Y, e.Weight = L, R, y, scaledsm.LinearWeight
	op.Evaluate(e)
	dir := randDense(rng, n1, r)
	f := func(h float64) float64 {
		var lh, xh mat.Dense
		lh.Scale(h, dir)
		lh.Add(L, &lh)
		xh.Mul(&lh, R.T())
		z := make([]float64, len(y))
		op.Apply(z, &xh)
		var s float64
		for k := range z {
			s += (z[k] - y[k]) * (z[k] - y[k]) / 2
		}
		return s
	}
	const h = 1e-6
	fd := (f(h) - f(-h)) / (2 * h)
	var prod mat.Dense
	prod.MulElem(e.GL, dir)
	if an := mat.Sum(&prod); math.Abs(fd-an) > 1e-6*math.Abs(an) {
		t.Errorf("directional derivative %v, finite difference %v", an, fd)
	}
}

// TestEntriesSameBits evaluates one pass and forms the spectral estimate
// with 1, 2 and 7 goroutines: the bits do not change.
func TestEntriesSameBits(t *testing.T) {
	d := newDraw(t, synth.Config{Kind: synth.Completion, N1: 300, N2: 200, Rank: 4, P: 0.3, Seed: 9})
	in := instanceOf(t, d, synth.Setting{Kappa: 5, PS: 0.1, SNR: noNoise})
	rng := rand.New(rand.NewPCG(1, 1))
	L, R := randDense(rng, 300, 4), randDense(rng, 200, 4)
	var first *scaledsm.Evaluation
	var firstInit scaledsm.Factors
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 7} {
		runtime.GOMAXPROCS(procs)
		e := scaledsm.NewEvaluation(in.Op, 4)
		e.L, e.R, e.Y = L, R, in.Y
		in.Op.Evaluate(e)
		init, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 4}.Spectral(scaledsm.Truncation{})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first, firstInit = e, init
			continue
		}
		if !slices.Equal(e.Z, first.Z) || !mat.Equal(e.GL, first.GL) || !mat.Equal(e.GR, first.GR) {
			t.Errorf("GOMAXPROCS %d gives other bits than 1", procs)
		}
		if !mat.Equal(init.L, firstInit.L) || !mat.Equal(init.R, firstInit.R) {
			t.Errorf("GOMAXPROCS %d gives another spectral estimate than 1", procs)
		}
	}
}

// TestEntriesSpectral checks the randomized spectral estimate against the
// dense SVD of the same matrix: the best rank-r approximations agree to
// 1e-3 (the iteration stops on the singular values, whose error is about
// the square of the vectors'), and both lie about 0.3 from X* at p = 0.3.
func TestEntriesSpectral(t *testing.T) {
	d := newDraw(t, synth.Config{Kind: synth.Completion, N1: 200, N2: 150, Rank: 3, P: 0.3, Seed: 2})
	in := instanceOf(t, d, synth.Setting{Kappa: 3, SNR: noNoise})
	init, err := scaledsm.Problem{Op: in.Op, Y: in.Y, Rank: 3}.Spectral(scaledsm.Truncation{None: true})
	if err != nil {
		t.Fatal(err)
	}
	truth := in.Star.Product()
	relErr := func(f scaledsm.Factors) float64 {
		var diff mat.Dense
		diff.Sub(f.Product(), truth)
		return mat.Norm(&diff, 2) / mat.Norm(truth, 2)
	}
	// The dense estimate, by a full SVD.
	m, _, _ := in.Op.Dims()
	est := mat.NewDense(200, 150, nil)
	in.Op.Adjoint(est, in.Y)
	est.Scale(200*150/float64(m), est)
	var svd mat.SVD
	if !svd.Factorize(est, mat.SVDThin) {
		t.Fatal("SVD failed")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	s := svd.Values(nil)
	var us, best mat.Dense
	us.Mul(u.Slice(0, 200, 0, 3), mat.NewDiagDense(3, s[:3]))
	best.Mul(&us, v.Slice(0, 150, 0, 3).T())
	var gap mat.Dense
	gap.Sub(init.Product(), &best)
	if g := mat.Norm(&gap, 2) / mat.Norm(&best, 2); g > 1e-3 {
		t.Errorf("randomized estimate differs from the dense one by %.3g", g)
	}
	if e := relErr(init); e > 0.5 {
		t.Errorf("spectral initialization at relative error %.3g", e)
	} else {
		t.Logf("spectral initialization at relative error %.3g", e)
	}
}

// TestEntriesApplyFactors: Apply at factors gives each entry's
// compensated product, the bits of Factors.At, and agrees with Apply at
// the formed matrix to rounding.
func TestEntriesApplyFactors(t *testing.T) {
	d := newDraw(t, synth.Config{Kind: synth.Completion, N1: 120, N2: 90, Rank: 3, P: 0.4, Seed: 4})
	in := instanceOf(t, d, synth.Setting{Kappa: 5, SNR: noNoise})
	m, n1, _ := in.Op.Dims()
	e := in.Op.(*completion.Entries)
	got, dense := make([]float64, m), make([]float64, m)
	e.Apply(got, in.Star)
	e.Apply(dense, in.Star.Product())
	start, cols := e.Start(), e.Cols()
	for i := range n1 {
		for k := start[i]; k < start[i+1]; k++ {
			if want := in.Star.At(i, int(cols[k])); got[k] != want {
				t.Fatalf("entry (%d, %d): %v, Factors.At %v", i, cols[k], got[k], want)
			}
			if math.Abs(got[k]-dense[k]) > 1e-12*(1+math.Abs(dense[k])) {
				t.Fatalf("entry (%d, %d): %v, formed %v", i, cols[k], got[k], dense[k])
			}
		}
	}
}
