// Package obs holds a problem's observations, float64 or float32, and the
// scales read from them.
package obs

import (
	"math"

	"github.com/scaledsm/scaledsm/internal/order"
)

// Float is the element type of observations: float64 (Problem.Y) or
// float32 (Problem.Y32).
type Float interface{ ~float32 | ~float64 }

// Obs are a problem's observations, one of the two kinds: F64 or F32,
// read as float64.
type Obs struct {
	F64 []float64
	F32 []float32
}

// Len returns the number of observations.
func (o Obs) Len() int {
	if o.F32 != nil {
		return len(o.F32)
	}
	return len(o.F64)
}

// At returns observation k.
func (o Obs) At(k int) float64 {
	if o.F32 != nil {
		return float64(o.F32[k])
	}
	return o.F64[k]
}

// Float64s returns the observations as float64: F64 itself, or a copy of
// F32.
func (o Obs) Float64s() []float64 {
	if o.F32 == nil {
		return o.F64
	}
	v := make([]float64, len(o.F32))
	for k, x := range o.F32 {
		v[k] = float64(x)
	}
	return v
}

// FirstNonFinite returns the index of the first observation that is not
// finite, or -1.
func (o Obs) FirstNonFinite() int {
	if o.F32 != nil {
		return FirstNonFinite(o.F32)
	}
	return FirstNonFinite(o.F64)
}

// FitScale is FitScale of the observations.
func (o Obs) FitScale() float64 {
	if o.F32 != nil {
		return FitScale(o.F32)
	}
	return FitScale(o.F64)
}

// FirstNonFinite returns the index of the first NaN or infinite value of v,
// or -1.
func FirstNonFinite[T Float](v []T) int {
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return i
		}
	}
	return -1
}

// FitScale returns the scale of the observations y that the solver's fit
// tolerance is relative to: the median |y_i| (over a sample beyond
// ScaleSample observations), or the largest |y_i| when the median is zero.
func FitScale[T Float](y []T) float64 {
	scale := MedianAbs(y, ScaleSample)
	if scale == 0 {
		for _, v := range y {
			scale = max(scale, math.Abs(float64(v)))
		}
	}
	return scale
}

// FitTolerance is the residual, relative to FitScale of the observations,
// below which the solver counts a measurement as fitted exactly
// (Result.FitFraction): far above the rounding of a recovered iterate
// (relative error 1e-12 leaves residuals of about 1e-12), far below any
// residual of an iterate that has not recovered X*.
const FitTolerance = 1e-9

// ExactFraction is the fraction of the measurements that an iterate must
// fit to FitTolerance to count as a recovery without a truth: an exactly
// low-rank matrix recovered through outliers fits all but the outliers, a
// fraction 1 - p_s; an iterate that has not recovered it, or a fit of data
// only approximately low rank, fits almost none.
const ExactFraction = 0.5

// MissTolerance is the residual, relative to FitScale, beyond which an
// observation of a row or column counts as missed (the solver's Evidence):
// a thousand times FitTolerance, far below the residuals of a row or
// column that is not recovered (about ten times the scale).
const MissTolerance = 1e-6

// MedianSample is the largest number of observations the median rule of
// the spectral start selects from exactly: beyond it, an evenly strided
// sample of that many (see MedianAbs).
const MedianSample = 1 << 20

// ScaleSample is the largest number of observations whose median serves
// as a scale alone (FitScale, the first bounds of the trimmed loss), a copy
// of 512 KB: beyond it, an evenly strided sample, whose median is within a
// percent of the whole one's, so that the start of a run does not hold an
// m-sized copy beside its buffers.
const ScaleSample = 1 << 16

// MedianAbs returns the median of |y_i| (the upper middle one), exactly up
// to limit observations and over an evenly strided sample of at most
// limit beyond, so that it copies at most 8·limit bytes: a scale, for
// which the sample's median serves.
func MedianAbs[T Float](y []T, limit int) float64 {
	if len(y) == 0 {
		return 0
	}
	stride := (len(y) + limit - 1) / limit
	abs := make([]float64, 0, (len(y)+stride-1)/stride)
	for i := 0; i < len(y); i += stride {
		abs = append(abs, math.Abs(float64(y[i])))
	}
	return order.Kth(abs, len(abs)/2)
}

// AbsValues returns |v_i| in dst when it has len(v) values, else in a
// new slice.
func AbsValues[T Float](dst []float64, v []T) []float64 {
	abs := dst
	if len(abs) != len(v) {
		abs = make([]float64, len(v))
	}
	for i, x := range v {
		abs[i] = math.Abs(float64(x))
	}
	return abs
}
