package scaledsm_test

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/scaledsm/scaledsm"
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
	m := scaledsm.Full32{N1: n1, N2: n2, Y: make([]float32, n1*n2)}
	for k, v := range y.RawMatrix().Data {
		m.Y[k] = float32(v)
	}
	// The truth of the float32 data: X* rounded is within 6e-8 of X*,
	// the blobs' entries are outliers.
	s := scaledsm.SampledSettings{Budget: n1 * n2 / 9}
	var stages []scaledsm.SampledStage
	s.Progress = func(st scaledsm.SampledStage) { stages = append(stages, st) }
	res, err := scaledsm.SolveSampled(context.Background(), m, 2, s)
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
	t.Logf("stride %d: sample %v after %d (polished %d); %d sweeps; error %.3g; fitted %.4f (blobs %.4f); stages %+v",
		res.Stride, res.Sample.Status, res.Sample.Iterations, res.Sample.Polished, res.Sweeps, e, res.FitFraction,
		float64(blobs)/float64(n1*n2), stages)
	if res.Stride != 9 {
		t.Errorf("stride %d, want 9", res.Stride)
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
	one, err := scaledsm.SolveSampled(context.Background(), m, 2, s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.L.RawMatrix().Data, res.L.RawMatrix().Data) || !slices.Equal(one.R.RawMatrix().Data, res.R.RawMatrix().Data) {
		t.Error("one core's factors differ from several cores'")
	}
}
