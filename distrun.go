package scaledsm

import (
	"context"
	"math"

	"github.com/scaledsm/scaledsm/internal/fsum"
)

// The reductions of the run loop over the ranks of a data-parallel solve
// (see Reducer). Alone, each is the single-rank computation as it was.

// evaluate makes the operator's pass over this rank's measurements and
// sums the factor subgradients over the ranks, in one reduction.
func (u *run) evaluate() {
	u.p.Op.Evaluate(u.eval)
	if !u.d.On() {
		return
	}
	gl := u.eval.GL.RawMatrix().Data
	if u.sym {
		u.d.Sum(gl)
		return
	}
	gr := u.eval.GR.RawMatrix().Data
	if len(u.sums) != len(gl)+len(gr) {
		u.sums = make([]float64, len(gl)+len(gr))
	}
	buf := u.sums
	copy(buf, gl)
	copy(buf[len(gl):], gr)
	u.d.Sum(buf)
	copy(gl, buf)
	copy(gr, buf[len(gl):])
}

// loss returns f(X_t) over all the measurements, and whether the run is to
// stop because a rank's context was cancelled: one gather of each rank's
// partial sum and flag.
func (u *run) loss(ctx context.Context) (float64, bool) {
	if u.eval.Z == nil {
		return math.NaN(), ctx.Err() != nil // a tracker's: the pass's sums
	}
	if !u.d.On() {
		return u.s.Loss.Base().value(u.eval.Z, u.iso), ctx.Err() != nil
	}
	return u.s.Loss.Base().valueOver(u.eval.Z, u.iso, u.d, ctx.Err() != nil)
}

// valueOver is value over the ranks of d, z being this rank's residuals,
// and reports whether any rank raised its flag stop.
func (l Standard) valueOver(z []float64, iso float64, d dist, stop bool) (float64, bool) {
	if !d.On() {
		return l.value(z, iso), stop
	}
	// The partial sum of |z_i| (l1) or of (z_i/scale)², scale being the
	// rank's largest |z_i| (l2), as fsum.Norm does.
	var a fsum.Sum
	var scale float64
	if !l.squares() {
		for _, v := range z {
			a.Add(math.Abs(v))
		}
	} else {
		for _, v := range z {
			scale = max(scale, math.Abs(v))
		}
		if scale > 0 && !math.IsInf(scale, 0) && !math.IsNaN(scale) {
			for _, v := range z {
				y := v / scale
				a.Add(y * y)
			}
		}
	}
	s, c := a.Parts()
	var flag float64
	if stop {
		flag = 1
	}
	all := d.Gather([]float64{s, c, scale, flag})
	var total fsum.Sum
	var top float64
	stopped := false
	for k := 0; k < len(all); k += 4 {
		top = max(top, all[k+2])
		if math.IsNaN(all[k+2]) {
			top = all[k+2]
		}
		stopped = stopped || all[k+3] != 0
	}
	if !l.squares() {
		for k := 0; k < len(all); k += 4 {
			total.AddParts(all[k], all[k+1])
		}
		return total.Value(), stopped
	}
	if top == 0 || math.IsInf(top, 0) || math.IsNaN(top) {
		return top, stopped
	}
	for k := 0; k < len(all); k += 4 {
		f := all[k+2] / top
		total.AddParts(f*f*all[k], f*f*all[k+1])
	}
	norm := top * math.Sqrt(total.Value())
	return l.ofNorm(norm, iso), stopped
}

// fitScale returns FitScale of the observations of all the ranks: over
// ranks, the exact median of all |y_i| (obs.FitScale samples beyond
// obs.ScaleSample of them).
func (u *run) fitScale() float64 {
	if !u.d.On() {
		return u.y.FitScale()
	}
	y := u.p.Y // on several ranks there is no Y32
	abs := make([]float64, len(y))
	var top float64
	for i, v := range y {
		abs[i] = math.Abs(v)
		top = max(top, abs[i])
	}
	scale := u.d.Kth(abs, u.m/2)
	if scale == 0 {
		scale = u.d.Max(top)
	}
	return scale
}
