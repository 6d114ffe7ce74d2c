package recommend

import "math"

// The sampler solves one small symmetric positive definite system per user
// and per item and sweep (d = rank+1 unknowns, d up to a few hundred), some
// thousands of them per sweep: these loops on d×d row-major arrays do it
// without the allocations and calls of a general library, which would cost
// as much as the arithmetic at d ≈ 10.

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

// forward solves C z = b in place (b becomes z), C the lower Cholesky
// factor in c.
func forward(c []float64, d int, b []float64) {
	for i := range d {
		ri := c[i*d : i*d+i]
		s := b[i]
		for k, v := range ri {
			s -= v * b[k]
		}
		b[i] = s / c[i*d+i]
	}
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
