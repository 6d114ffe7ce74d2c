package completion_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/synth"
)

// noNoise is the SNR of noiseless data.
var noNoise = math.Inf(1)

// newDraw returns the draw of c.
func newDraw(t testing.TB, c synth.Config) *synth.Draw {
	t.Helper()
	d, err := synth.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// instanceOf returns the instance of d with the setting s.
func instanceOf(t testing.TB, d *synth.Draw, s synth.Setting) *synth.Instance {
	t.Helper()
	in, err := d.Instance(s)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// instance returns the instance of the draw of c with the setting s.
func instance(t testing.TB, c synth.Config, s synth.Setting) *synth.Instance {
	t.Helper()
	return instanceOf(t, newDraw(t, c), s)
}

// solve returns Solve of p with s, failing the test on an error.
func solve(t testing.TB, p scaledsm.Problem, s completion.Settings) *completion.Result {
	t.Helper()
	res, err := completion.Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// randDense returns an r×c matrix of standard Gaussian entries.
func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			m.Set(i, j, rng.NormFloat64())
		}
	}
	return m
}
