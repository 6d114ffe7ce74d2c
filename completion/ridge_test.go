package completion_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/synth"
)

// orthonormal returns n×k orthonormal columns drawn from rng.
func orthonormal(rng *rand.Rand, n, k int) *mat.Dense {
	a := mat.NewDense(n, k, nil)
	for i := range n {
		for j := range k {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, n, 0, k))
}

// spectrumMatrix returns U diag(sigma) Vᵀ for random orthonormal U (n1×k)
// and V (n2×k), k = len(sigma).
func spectrumMatrix(rng *rand.Rand, n1, n2 int, sigma []float64) *mat.Dense {
	k := len(sigma)
	u, v := orthonormal(rng, n1, k), orthonormal(rng, n2, k)
	for j, s := range sigma {
		for i := range n1 {
			u.Set(i, j, u.At(i, j)*s)
		}
	}
	var x mat.Dense
	x.Mul(u, v.T())
	return &x
}

// allEntries returns the operator of every entry of y and its values.
func allEntries(t *testing.T, y *mat.Dense) (*completion.Entries, []float64) {
	t.Helper()
	op, obs, err := allEntriesOf(y)
	if err != nil {
		t.Fatal(err)
	}
	return op, obs
}

// allEntriesOf returns the operator of every entry of y and its values.
func allEntriesOf(y *mat.Dense) (*completion.Entries, []float64, error) {
	n1, n2 := y.Dims()
	var rows, cols []int32
	var vals []float64
	for i := range n1 {
		for j := range n2 {
			rows, cols, vals = append(rows, int32(i)), append(cols, int32(j)), append(vals, y.At(i, j))
		}
	}
	return completion.NewEntries(n1, n2, rows, cols, vals)
}

// TestRidgeSoftThresholds: with every entry seen, the penalty μ/2(|L|² +
// |R|²) at a rank above the answer's is the nuclear norm μ|X|_*, whose
// minimizer with 1/2|X - Y|² is Y with its singular values shrunk by μ
// (singular value thresholding): the fit's singular values, and its loss
// 1/2 Σ min(σ, μ)² + μ Σ (σ - μ)₊, match to 1e-9.
func TestRidgeSoftThresholds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	sigma := []float64{10, 5, 2, 0.5}
	const mu = 1.0
	y := spectrumMatrix(rng, 30, 20, sigma)
	op, obs := allEntries(t, y)
	s := scaledsm.Settings{Method: scaledsm.ScaledGD, Loss: scaledsm.L2Squared, Step: scaledsm.Constant{Eta: 0.5},
		Ridge: mu, MaxIter: 3000, Tol: 1e-15}
	res, err := completion.Solve(context.Background(), scaledsm.Problem{Op: op, Y: obs, Rank: 4}, completion.Settings{Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	var loss float64
	for k, v := range sigma {
		want := max(v-mu, 0)
		if got := res.SingularValues[k]; math.Abs(got-want) > 1e-9 {
			t.Errorf("singular value %d: %.12g, want %g (σ = %g shrunk by μ = %g)", k, got, want, v, mu)
		}
		loss += min(v, mu)*min(v, mu)/2 + mu*max(v-mu, 0)
	}
	if math.Abs(res.Loss-loss) > 1e-9*loss {
		t.Errorf("loss %.12g, want %.12g", res.Loss, loss)
	}
	t.Logf("%v after %d: singular values %.6g, loss %.12g", res.Status, res.Iterations, res.SingularValues, res.Loss)
	// Without the penalty the fit is Y itself.
	s.Ridge = 0
	res, err = completion.Solve(context.Background(), scaledsm.Problem{Op: op, Y: obs, Rank: 4}, completion.Settings{Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.SingularValues[3]; math.Abs(got-sigma[3]) > 1e-9 {
		t.Errorf("without a penalty: σ₄ %.12g, want %g", got, sigma[3])
	}
}

// autoAndNone solves p with the entries' default (AutoRidge) and with it
// unpenalized (Ridge 0).
func autoAndNone(t *testing.T, p scaledsm.Problem) (auto, none *completion.Result) {
	t.Helper()
	s := completion.DefaultSettings()
	if s.Ridge != completion.AutoRidge {
		t.Fatalf("the entries' default ridge is %v, want AutoRidge", s.Ridge)
	}
	auto, err := completion.Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	s.Ridge = 0
	if none, err = completion.Solve(context.Background(), p, s); err != nil {
		t.Fatal(err)
	}
	return auto, none
}

// relativeToMatrix returns ||L Rᵀ - X||_F / ||X||_F, formed densely.
func relativeToMatrix(f scaledsm.Factors, x *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(f.Product(), x)
	return mat.Norm(&d, 2) / mat.Norm(x, 2)
}

// TestAutoRidgeKeepsExactFit: on exactly low-rank entries with outliers
// and no truth, AutoRidge keeps the unpenalized fit, bit for bit, and
// makes no choice.
func TestAutoRidgeKeepsExactFit(t *testing.T) {
	d, err := synth.New(synth.Config{Kind: synth.Completion, N1: 200, Rank: 3, P: 0.2, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	in, err := d.Instance(synth.Setting{Kappa: 5, PS: 0.1, SNR: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	p := in.Problem()
	p.Truth = nil
	auto, none := autoAndNone(t, p)
	if auto.RidgeChoice != nil || auto.Iterations != none.Iterations || !mat.Equal(auto.L, none.L) || !mat.Equal(auto.R, none.R) {
		t.Errorf("auto: %v after %d (choice %v); none: %v after %d", auto.Status, auto.Iterations, auto.RidgeChoice, none.Status, none.Iterations)
	}
	if auto.FitFraction < 0.85 {
		t.Errorf("fit fraction %.3g: not the exact fit this test is about", auto.FitFraction)
	}
}

// approximateEntries draws half the entries of a 150×150 matrix whose
// singular values decay as 50 k^-1.2 (only approximately low rank, as an
// image is), 10% of them replaced by salt and pepper (±2 times the
// entries' root mean square), and returns the problem and the matrix.
func approximateEntries(t *testing.T) (scaledsm.Problem, *mat.Dense) {
	t.Helper()
	const n = 150
	rng := rand.New(rand.NewPCG(11, 13))
	sigma := make([]float64, n)
	for k := range sigma {
		sigma[k] = 50 * math.Pow(float64(k+1), -1.2)
	}
	x := spectrumMatrix(rng, n, n, sigma)
	salt := 2 * mat.Norm(x, 2) / n
	var rows, cols []int32
	var vals []float64
	for i := range n {
		for j := range n {
			if rng.Float64() >= 0.5 {
				continue
			}
			v := x.At(i, j)
			if rng.Float64() < 0.1 {
				v = salt * float64(2*rng.IntN(2)-1)
			}
			rows, cols, vals = append(rows, int32(i)), append(cols, int32(j)), append(vals, v)
		}
	}
	op, y, err := completion.NewEntries(n, n, rows, cols, vals)
	if err != nil {
		t.Fatal(err)
	}
	return scaledsm.Problem{Op: op, Y: y}, x
}

// TestAutoRidgeMoreRankNoWorse: on approximately low-rank entries with
// salt and pepper and no truth, the default (AutoRidge) chooses a
// penalty, stops at the iterations that validation chose, and a larger
// rank gives a fit no farther from the matrix (within 1%), where without
// the penalty the largest rank's fit is far worse.
func TestAutoRidgeMoreRankNoWorse(t *testing.T) {
	p, x := approximateEntries(t)
	errOf := func(f scaledsm.Factors) float64 { return relativeToMatrix(f, x) }
	s := completion.DefaultSettings()
	prev := math.Inf(1)
	for _, r := range []int{5, 15, 40} {
		p.Rank = r
		res, err := completion.Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		e := errOf(res.Factors)
		c := res.RidgeChoice
		if c == nil {
			t.Fatalf("rank %d: %v after %d, no penalty chosen", r, res.Status, res.Iterations)
		}
		t.Logf("rank %d: %v after %d, μ %.3g (tried %.3g, scores %.4g, at %v): error %.4g", r, res.Status, res.Iterations, c.Ridge, c.Ridges, c.Errors, c.Iterations, e)
		if e > 1.01*prev {
			t.Errorf("rank %d: error %.4g, above the smaller rank's %.4g", r, e, prev)
		}
		prev = min(prev, e)
		if res.Status != scaledsm.Validated && res.Status != scaledsm.Plateaued {
			t.Errorf("rank %d: status %v", r, res.Status)
		}
		if r == 40 {
			s.Ridge = 0
			none, err := completion.Solve(context.Background(), p, s)
			if err != nil {
				t.Fatal(err)
			}
			eNone := errOf(none.Factors)
			t.Logf("rank %d without a penalty: %v after %d, error %.4g", r, none.Status, none.Iterations, eNone)
			if !(e < 0.8*eNone) {
				t.Errorf("rank %d: error %.4g with the penalty, %.4g without", r, e, eNone)
			}
		}
	}
}

// TestRidgeInputs: a penalty that is not a positive number, one with a
// step that rests on f(X*), and one on several processes or a symmetric
// operator are refused with the input named.
func TestRidgeInputs(t *testing.T) {
	p, _ := approximateEntries(t)
	p.Rank = 2
	for _, c := range []struct {
		s     scaledsm.Settings
		input string
	}{
		{scaledsm.Settings{Method: scaledsm.ScaledGD, Ridge: -2}, "ridge"},
		{scaledsm.Settings{Method: scaledsm.ScaledGD, Ridge: math.NaN()}, "ridge"},
		{scaledsm.Settings{Method: scaledsm.ScaledGD, Ridge: math.Inf(1)}, "ridge"},
		{scaledsm.Settings{Ridge: 1}, "step"}, // Auto rests on f(X*)
		{scaledsm.Settings{Step: scaledsm.Polyak{FStar: 0}, Ridge: 1}, "step"},
	} {
		_, err := completion.Solve(context.Background(), p, completion.Settings{Settings: c.s})
		var in *scaledsm.InputError
		if !errors.As(err, &in) || in.Input != c.input {
			t.Errorf("ridge %v, step %v: %v, want an error naming %q", c.s.Ridge, c.s.Step, err, c.input)
		}
	}
	d, err := synth.New(synth.Config{Kind: synth.Quadratic, N1: 20, Rank: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	in, err := d.Instance(synth.Setting{Kappa: 2, SNR: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = completion.Solve(context.Background(), in.Problem(), completion.Settings{Settings: scaledsm.Settings{Method: scaledsm.ScaledGD, Step: scaledsm.Constant{Eta: 0.05}, Ridge: 1}})
	var ie *scaledsm.InputError
	if !errors.As(err, &ie) || ie.Input != "ridge" {
		t.Errorf("a symmetric operator with a penalty: %v", err)
	}
}

// blobEntries returns every entry of a 400×100 matrix of rank 2 (pixels
// × frames of a still background, one strong and one weak component)
// with moving blobs over it, as a video's pedestrians are: in each frame
// two runs of 12 to 40 consecutive pixels take values that differ from
// the background by 0.05 to 0.6, many of them small; the problem has no
// truth, and the matrix is returned beside it.
func blobEntries(t *testing.T, seed uint64) (scaledsm.Problem, *mat.Dense) {
	t.Helper()
	const n1, n2 = 400, 100
	rng := rand.New(rand.NewPCG(seed, 29))
	u, v := mat.NewDense(n1, 2, nil), mat.NewDense(n2, 2, nil)
	for i := range n1 {
		u.Set(i, 0, 0.3+0.4*rng.Float64())
		u.Set(i, 1, rng.NormFloat64())
	}
	for j := range n2 {
		v.Set(j, 0, 1+0.05*rng.NormFloat64())
		v.Set(j, 1, 0.05*rng.NormFloat64())
	}
	var x mat.Dense
	x.Mul(u, v.T())
	y := mat.DenseCopyOf(&x)
	for j := range n2 {
		for range 2 {
			w := 12 + rng.IntN(29)
			at := rng.IntN(n1 - w)
			d := (0.05 + 0.55*rng.Float64()) * float64(2*rng.IntN(2)-1)
			for i := at; i < at+w; i++ {
				y.Set(i, j, x.At(i, j)+d*(0.8+0.4*rng.Float64()))
			}
		}
	}
	op, obs, err := allEntriesOf(y)
	if err != nil {
		t.Fatal(err)
	}
	return scaledsm.Problem{Op: op, Y: obs, Rank: 2}, &x
}

// TestAutoRidgeFreesBlobs: an exactly rank-2 matrix with moving blobs of
// outliers, many of them small, as a video's foreground is (blobEntries):
// the default trimming keeps small blob entries and levels off at a
// relative error above 1e-3. Validation of that fit prefers the harder
// trimming floor trimFloorExact, whose fit is exact, as a video's larger
// matrix needs; at this size AutoRidge's first try is the convex start
// (see restartTruncation), and its fit is exact too.
func TestAutoRidgeFreesBlobs(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		p, x := blobEntries(t, seed)
		errOf := func(f scaledsm.Factors) float64 { return relativeToMatrix(f, x) }
		auto, none := autoAndNone(t, p)
		s := completion.DefaultSettings()
		s.Ridge = 0
		c, err := completion.ChooseRidge(context.Background(), p, s, none.Factors)
		if err != nil {
			t.Fatal(err)
		}
		s.Ridge, s.Loss, s.MaxIter = c.Ridge, completion.TrimmedL2{Floor: c.TrimFloor}, max(c.Iteration, 1)
		floor := solve(t, p, s)
		t.Logf("seed %d: default trimming %v after %d at %.3g; validated μ %g, floor %g: %v after %d at %.3g; AutoRidge %v after %d at %.3g, restarted %v from %v",
			seed, none.Status, none.Iterations, errOf(none.Factors), c.Ridge, c.TrimFloor, floor.Status, floor.Iterations, errOf(floor.Factors),
			auto.Status, auto.Iterations, errOf(auto.Factors), auto.Restarted, auto.RestartStart)
		if errOf(none.Factors) < 1e-3 || c.TrimFloor != completion.TrimFloorExact || errOf(floor.Factors) > 1e-9 {
			t.Errorf("seed %d: want the default trimming above 1e-3, and the floor %g chosen to 1e-9", seed, float64(completion.TrimFloorExact))
		}
		if errOf(auto.Factors) > 1e-9 || !auto.Restarted || auto.RestartStart != scaledsm.ConvexStart {
			t.Errorf("seed %d: AutoRidge ends at %.3g, restarted %v from %v", seed, errOf(auto.Factors), auto.Restarted, auto.RestartStart)
		}
	}
}

// TestValidateRidge: Validate refuses a negative penalty that is not
// AutoRidge, as Solve does (it clamped it to 0 and passed it).
func TestValidateRidge(t *testing.T) {
	s := completion.DefaultSettings()
	s.Ridge = -0.25
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "ridge -0.25") {
		t.Errorf("ridge -0.25: %v", err)
	}
	s.Ridge = completion.AutoRidge
	if err := s.Validate(); err != nil {
		t.Errorf("AutoRidge: %v", err)
	}
}
