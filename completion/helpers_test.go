package completion_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/internal/synthtest"
	"github.com/scaledsm/scaledsm/internal/testkit"
)

// noNoise is the SNR of noiseless data.
var noNoise = math.Inf(1)

// The synthetic problems of the tests (see package synthtest).
var (
	newDraw    = synthtest.NewDraw
	instanceOf = synthtest.InstanceOf
	instance   = synthtest.Instance
)

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
func randDense(rng *rand.Rand, r, c int) *mat.Dense { return testkit.Gaussian(rng, r, c, 1) }
