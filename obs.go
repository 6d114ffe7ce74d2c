package scaledsm

// float is the element type of observations: float64 (Problem.Y) or
// float32 (Problem.Y32).
type float interface{ ~float32 | ~float64 }

// obs are a problem's observations, one of the two kinds: f64 (Problem.Y)
// or f32 (Problem.Y32), read as float64.
type obs struct {
	f64 []float64
	f32 []float32
}

// observations returns the problem's observations.
func (p Problem) observations() obs { return obs{p.Y, p.Y32} }

// problem returns the problem of rank r of the operator op with these
// observations.
func (o obs) problem(op Operator, r int) Problem {
	return Problem{Op: op, Y: o.f64, Y32: o.f32, Rank: r}
}

// len returns the number of observations.
func (o obs) len() int {
	if o.f32 != nil {
		return len(o.f32)
	}
	return len(o.f64)
}

// at returns observation k.
func (o obs) at(k int) float64 {
	if o.f32 != nil {
		return float64(o.f32[k])
	}
	return o.f64[k]
}

// float64s returns the observations as float64: f64 itself, or a copy of
// f32 (for the convex start, which takes a []float64).
func (o obs) float64s() []float64 {
	if o.f32 == nil {
		return o.f64
	}
	v := make([]float64, len(o.f32))
	for k, x := range o.f32 {
		v[k] = float64(x)
	}
	return v
}

// firstNonFinite returns the index of the first observation that is not
// finite, or -1.
func (o obs) firstNonFinite() int {
	if o.f32 != nil {
		return firstNonFinite(o.f32)
	}
	return firstNonFinite(o.f64)
}

// fitScale is FitScale of the observations.
func (o obs) fitScale() float64 {
	if o.f32 != nil {
		return fitScale(o.f32)
	}
	return fitScale(o.f64)
}

// zeroLoss is zeroLoss of the observations.
func (o obs) zeroLoss(loss Standard, iso float64, d dist, scratch []float64) float64 {
	if o.f32 != nil {
		return zeroLoss(loss, o.f32, iso, d, scratch)
	}
	return zeroLoss(loss, o.f64, iso, d, scratch)
}

// keepRule is keepRule of the observations.
func (o obs) keepRule(trim Truncation, d dist, scratch []float64) (below float64, allow int, every bool) {
	if o.f32 != nil {
		return keepRule(o.f32, trim, d, scratch)
	}
	return keepRule(o.f64, trim, d, scratch)
}

// trimmed is trimmed of the observations.
func (o obs) trimmed(v []float64, trim Truncation, d dist) ([]float64, int) {
	if o.f32 != nil {
		return trimmed(v, o.f32, trim, d)
	}
	return trimmed(v, o.f64, trim, d)
}
