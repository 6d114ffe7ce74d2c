package scaledsm

import "gonum.org/v1/gonum/mat"

// A trimmer is TrimmedL2's state along a run: the bounds each pass reads
// with the marks that zero some of them (trimBounds, gross.go), the
// factor that sets them (trimming), the loss at X = 0 that a diverging
// run is measured against, and the robust refit (refit.go). The run calls
// it after each pass (afterPass) and each step (afterStep); the refit and
// the marks' lifts, iterations of their own, read and set it too.
type trimmer struct {
	op       bounder
	b        *trimBounds
	trim     trimming
	zeroLoss float64     // the loss at X = 0 (see run.stopAt)
	trial    *refitTrial // the robust refit on trial (see refit.go)
	refitted bool        // the run has made its refit
}

// afterPass sets the bounds of the next pass from the residuals z that
// this pass's bounds kept (or their sums ks, when the pass filled them),
// and the factor of the rebound after, and returns Σ z² over the kept
// residuals of all the ranks d.
func (t *trimmer) afterPass(z []float64, d dist, ks *keptSums) float64 {
	sq := t.op.rebound(t.b, z, t.trim.factor, d, ks)
	d.Sums(&sq)
	t.trim.next(sq.Value())
	return sq.Value()
}

// afterStep zeroes the factor rows of the rows and columns of X that keep
// too few of their observations after the refit (see markFew).
func (t *trimmer) afterStep(l, r *mat.Dense) {
	if t.b.few != nil {
		t.b.clearFew(l, r)
	}
}
