// Package kernel holds the inner loops of the measurement operators: dot
// products and scaled additions of one or several rows of the stored data.
//
// Every function has a portable pure-Go implementation. Each implementation
// sums in a fixed order, so a given implementation returns the same bits on
// every call and whatever the number of goroutines of its caller.
package kernel

// Dot returns the sum of a[j]*x[j] for j < len(a). x must be at least as long as a.
func Dot(a, x []float64) float64 { return dotGeneric(a, x) }

// Dot32 is Dot for float32 data, accumulated in float64.
func Dot32(a []float32, x []float64) float64 { return dot32Generic(a, x) }

// Axpy adds alpha*a[j] to y[j] for j < len(a). y must be at least as long as a.
func Axpy(alpha float64, a, y []float64) { axpyGeneric(alpha, a, y) }

// Axpy32 is Axpy for float32 data, accumulated in float64.
func Axpy32(alpha float64, a []float32, y []float64) { axpy32Generic(alpha, a, y) }

func dotGeneric(a, x []float64) float64 {
	x = x[:len(a)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(a); j += 4 {
		s0 += a[j] * x[j]
		s1 += a[j+1] * x[j+1]
		s2 += a[j+2] * x[j+2]
		s3 += a[j+3] * x[j+3]
	}
	for ; j < len(a); j++ {
		s0 += a[j] * x[j]
	}
	return (s0 + s1) + (s2 + s3)
}

func dot32Generic(a []float32, x []float64) float64 {
	x = x[:len(a)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(a); j += 4 {
		s0 += float64(a[j]) * x[j]
		s1 += float64(a[j+1]) * x[j+1]
		s2 += float64(a[j+2]) * x[j+2]
		s3 += float64(a[j+3]) * x[j+3]
	}
	for ; j < len(a); j++ {
		s0 += float64(a[j]) * x[j]
	}
	return (s0 + s1) + (s2 + s3)
}

func axpyGeneric(alpha float64, a, y []float64) {
	y = y[:len(a)]
	for j, v := range a {
		y[j] += alpha * v
	}
}

func axpy32Generic(alpha float64, a []float32, y []float64) {
	y = y[:len(a)]
	for j, v := range a {
		y[j] += alpha * float64(v)
	}
}
