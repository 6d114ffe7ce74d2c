package completion_test

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/synth"
)

// TestSolveSampledRecoversBlobs: robust PCA of a blob video by a sample
// of its rows (every 9th pixel) extended over the whole matrix by least
// absolute deviations, told nothing: the background to 1e-9 of its norm,
// every entry off the blobs fitted and none of theirs, and the same bits
// on one core as on several.
func TestSolveSampledRecoversBlobs(t *testing.T) {
	y, star, covered, err := synth.BlobVideo{Height: 48, Width: 64, Frames: 120, Blobs: 6, Seed: 2}.Draw()
	if err != nil {
		t.Fatal(err)
	}
	n1, n2 := y.Dims()
	m := completion.Full32{N1: n1, N2: n2, Y: make([]float32, n1*n2)}
	for k, v := range y.RawMatrix().Data {
		m.Y[k] = float32(v)
	}
	// The truth of the float32 data: X* rounded is within 6e-8 of X*,
	// the blobs' entries are outliers.
	for _, bad := range []completion.SampledSettings{{Budget: -1}, {Sweeps: -2}} { // named by the field, as given
		want := map[bool]string{true: "budget -1: must be positive", false: "sweeps -2: must be positive"}[bad.Budget < 0]
		if _, err := completion.SolveSampled(context.Background(), m, 2, bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", bad, err, want)
		}
	}
	s := completion.SampledSettings{Budget: n1 * n2 / 9}
	var stages []completion.SampledStage
	s.Progress = func(st completion.SampledStage) { stages = append(stages, st) }
	res, err := completion.SolveSampled(context.Background(), m, 2, s)
	if err != nil {
		t.Fatal(err)
	}
	x := star.Product()
	e := relativeToMatrix(res.Factors, x)
	blobs := 0
	for _, c := range covered {
		if c {
			blobs++
		}
	}
	t.Logf("stride %d: sample %v after %d (polished %d); %v after %d sweeps; error %.3g; fitted %.4f (blobs %.4f)",
		res.Stride, res.Sample.Status, res.Sample.Iterations, res.Sample.Polished, res.Status, res.Sweeps, e, res.FitFraction,
		float64(blobs)/float64(n1*n2))
	if res.Stride != 9 || res.Status != scaledsm.Stationary {
		t.Errorf("stride %d, %v; want 9, stationary", res.Stride, res.Status)
	}
	if e > 1e-6 {
		t.Errorf("relative error %.3g, want at most 1e-6 (float32 data)", e)
	}
	if want := 1 - float64(blobs)/float64(n1*n2); math.Abs(res.FitFraction-want) > 1e-9 {
		t.Errorf("fitted %.6f of the entries, the blobs leave %.6f", res.FitFraction, want)
	}
	if len(stages) < 3 || stages[0].Stage != "sample" || stages[1].Stage != "rows" {
		t.Errorf("stages %+v, want sample, rows, then sweeps", stages)
	}
	s.Progress = nil
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one, err := completion.SolveSampled(context.Background(), m, 2, s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.L.RawMatrix().Data, res.L.RawMatrix().Data) || !slices.Equal(one.R.RawMatrix().Data, res.R.RawMatrix().Data) {
		t.Error("one core's factors differ from several cores'")
	}
}

// TestSolveSampledStops: on a noisy blob video (no fit is exact) the
// sweeps lower Σ|y - x| until one lowers it by 1e-7 of it or less
// (Stationary), each kept sweep lowering it; cut short by Sweeps, the same
// first sweep ends at IterationLimit.
func TestSolveSampledStops(t *testing.T) {
	y, _, _, err := synth.BlobVideo{Height: 32, Width: 40, Frames: 100, Blobs: 4, Seed: 5}.Draw()
	if err != nil {
		t.Fatal(err)
	}
	n1, n2 := y.Dims()
	rng := rand.New(rand.NewPCG(5, 1))
	m := completion.Full32{N1: n1, N2: n2, Y: make([]float32, n1*n2)}
	for k, v := range y.RawMatrix().Data {
		m.Y[k] = float32(v + 1e-5*rng.NormFloat64())
	}
	var sums []float64
	s := completion.SampledSettings{Budget: n1 * n2 / 8}
	s.Progress = func(st completion.SampledStage) {
		if st.Stage != "sample" {
			sums = append(sums, st.AbsResidual)
		}
	}
	res, err := completion.SolveSampled(context.Background(), m, 2, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v after %d sweeps: Σ|y - x| %v", res.Status, res.Sweeps, sums)
	if res.Status != scaledsm.Stationary || res.Sweeps < 2 || len(sums) < 3 {
		t.Fatalf("%v after %d sweeps, want stationary after 2 or more", res.Status, res.Sweeps)
	}
	for k := 1; k <= res.Sweeps; k++ {
		if !(sums[k] < sums[k-1]) {
			t.Errorf("sweep %d kept at %v from %v", k, sums[k], sums[k-1])
		}
	}
	if last := sums[len(sums)-1]; last < sums[res.Sweeps] && sums[res.Sweeps-1]-last > 1e-7*sums[res.Sweeps-1] {
		t.Errorf("stopped after a sweep that lowered Σ|y - x| from %v to %v", sums[res.Sweeps-1], last)
	}
	s.Progress, s.Sweeps = nil, 1
	one, err := completion.SolveSampled(context.Background(), m, 2, s)
	if err != nil {
		t.Fatal(err)
	}
	if one.Status != scaledsm.IterationLimit || one.Sweeps != 1 || one.AbsResidual != sums[1] {
		t.Errorf("one sweep: %v after %d at %v, want iteration-limit after 1 at %v", one.Status, one.Sweeps, one.AbsResidual, sums[1])
	}
}
