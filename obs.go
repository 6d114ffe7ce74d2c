package scaledsm

import "github.com/scaledsm/scaledsm/internal/obs"

// float is the element type of observations: float64 (Problem.Y) or
// float32 (Problem.Y32).
type float = obs.Float

// observations returns the problem's observations.
func (p Problem) observations() obs.Obs { return obs.Obs{F64: p.Y, F32: p.Y32} }

// zeroLossOf is zeroLoss of the observations o.
func zeroLossOf(o obs.Obs, loss Standard, iso float64, d dist, scratch []float64) float64 {
	if o.F32 != nil {
		return zeroLoss(loss, o.F32, iso, d, scratch)
	}
	return zeroLoss(loss, o.F64, iso, d, scratch)
}

// keepRuleOf is keepRule of the observations o.
func keepRuleOf(o obs.Obs, trim Truncation, d dist, scratch []float64) (below float64, allow int, every bool) {
	if o.F32 != nil {
		return keepRule(o.F32, trim, d, scratch)
	}
	return keepRule(o.F64, trim, d, scratch)
}

// trimmedOf is trimmed of the observations o.
func trimmedOf(o obs.Obs, v []float64, trim Truncation, d dist) ([]float64, int) {
	if o.F32 != nil {
		return trimmed(v, o.F32, trim, d)
	}
	return trimmed(v, o.F64, trim, d)
}
