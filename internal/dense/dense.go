// Package dense holds small dense-matrix and vector helpers that the
// solver and its models share, each summing in a fixed order.
package dense

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Distance returns the Frobenius norm ||a - b||_F of two matrices of the
// same shape.
func Distance(a, b *mat.Dense) float64 {
	ra, rb := a.RawMatrix(), b.RawMatrix()
	var s float64
	for i := range ra.Rows {
		x := ra.Data[i*ra.Stride : i*ra.Stride+ra.Cols]
		y := rb.Data[i*rb.Stride : i*rb.Stride+ra.Cols]
		for j, v := range x {
			d := v - y[j]
			s += d * d
		}
	}
	if s > 0x1p-900 && s < 0x1p900 {
		return math.Sqrt(s)
	}
	// The squares may have overflowed or lost their precision to
	// underflow: rescale, as gonum does.
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2)
}

// Frobenius returns ||a||_F.
func Frobenius(a *mat.Dense) float64 {
	ra := a.RawMatrix()
	var s float64
	for i := range ra.Rows {
		for _, v := range ra.Data[i*ra.Stride : i*ra.Stride+ra.Cols] {
			s += v * v
		}
	}
	if s > 0x1p-900 && s < 0x1p900 {
		return math.Sqrt(s)
	}
	return mat.Norm(a, 2)
}

// Inner returns the Frobenius inner product <a, b> of two matrices of the
// same shape.
func Inner(a, b *mat.Dense) float64 {
	ra, rb := a.RawMatrix(), b.RawMatrix()
	var s float64
	for i := range ra.Rows {
		x := ra.Data[i*ra.Stride : i*ra.Stride+ra.Cols]
		y := rb.Data[i*rb.Stride : i*rb.Stride+rb.Cols]
		for j, v := range x {
			s += v * y[j]
		}
	}
	return s
}

// Dot returns x·y in order.
func Dot(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// Norm returns the Euclidean norm of v.
func Norm(v []float64) float64 { return math.Sqrt(Dot(v, v)) }

// Grow returns buf with length n, reallocated when its capacity is short
// (the old values are not kept then).
func Grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}
