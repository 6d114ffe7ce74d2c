package recommend

import "math"

// The priors' draws (drawPrior) factor two small d×d matrices a side and
// sweep (d = rank+1): these loops on row-major arrays do it without the
// allocations and calls of a general library.

// cholesky overwrites the lower triangle of the d×d matrix h with its
// Cholesky factor C (h = C Cᵀ) and reports whether h is positive definite.
func cholesky(h []float64, d int) bool {
	for j := range d {
		row := h[j*d : j*d+d]
		s := row[j]
		for k := range j {
			s -= row[k] * row[k]
		}
		if !(s > 0) {
			return false
		}
		c := math.Sqrt(s)
		row[j] = c
		for i := j + 1; i < d; i++ {
			ri := h[i*d : i*d+d]
			t := ri[j]
			for k := range j {
				t -= ri[k] * row[k]
			}
			ri[j] = t / c
		}
	}
	return true
}

// backward solves Cᵀ x = b in place, C the lower Cholesky factor in c.
func backward(c []float64, d int, b []float64) {
	for i := d - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < d; k++ {
			s -= c[k*d+i] * b[k]
		}
		b[i] = s / c[i*d+i]
	}
}

// dot returns Σ a_i b_i over the length of a.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
