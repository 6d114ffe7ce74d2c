package completion

import (
	"math/rand/v2"
	"testing"

	"github.com/scaledsm/scaledsm/internal/obs"
)

// TestHoldOutExact: the split of the entries that validation fits and
// holds out takes slices of their exact size, which with the residuals of
// ChooseRidge's start are the ValidationBytes that solve's memory check
// counts.
func TestHoldOutExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n1, n2 := 50, 40
	e, y := randomEntries(t, rng, n1, n2, 0.6, func(int, int) float64 { return rng.NormFloat64() })
	fit, kept, test, testY := e.holdOut(obs.Obs{F64: y}, rankHoldout, rankSeed)
	fitY := kept.F64
	if len(fitY)+len(testY) != len(y) || len(testY) == 0 {
		t.Fatalf("%d fitted and %d held out of %d", len(fitY), len(testY), len(y))
	}
	var got int64
	for _, s := range [][]int32{fit.cols, test.cols} {
		if cap(s) != len(s) {
			t.Errorf("columns: capacity %d for %d", cap(s), len(s))
		}
		got += 4 * int64(cap(s))
	}
	for _, s := range [][]float64{fitY, testY} {
		if cap(s) != len(s) {
			t.Errorf("observations: capacity %d for %d", cap(s), len(s))
		}
		got += 8 * int64(cap(s))
	}
	got += 8*int64(len(fit.start)+len(test.start)) + 8*int64(len(y)) // the row starts; ChooseRidge's residuals
	if want := ValidationBytes(len(y), n1); got != want {
		t.Errorf("held %d bytes, ValidationBytes says %d", got, want)
	}
}
