package recommend

import (
	"math"

	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
)

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

// addGram adds to the upper triangle of the n×n row-major g the outer
// products x_r x_rᵀ of m rows, which fill writes a chunk at a time
// (fill(buf, r0, r1) sets buf to rows r0 to r1-1, n wide, row-major).
// Each entry's terms are added one by one in the rows' order, as a loop
// over the rows would add them, so that its bits depend neither on the
// chunks nor on the cores: the cores take bands of the triangle's rows
// of about equal area, each filling its own chunks, and sum a band's
// entries in registers (see gramBand).
func addGram(g []float64, n, m, workers int, fill func(buf []float64, r0, r1 int)) {
	if n == 0 || m == 0 {
		return
	}
	// band k starts at the row of the triangle's k/workers of its area.
	starts := make([]int, workers+1)
	for k := range starts {
		starts[k] = n - int(math.Round(float64(n)*math.Sqrt(1-float64(k)/float64(workers))))
	}
	chunk := max(4, (64<<10)/(8*n)) // rows of 64 KiB
	par.Do(workers, workers, func(k int) {
		lo, hi := starts[k], starts[k+1]
		if lo >= hi {
			return
		}
		buf := make([]float64, chunk*n)
		for r0 := 0; r0 < m; r0 += chunk {
			r1 := min(m, r0+chunk)
			fill(buf, r0, r1)
			gramBand(g, n, buf, r1-r0, lo, hi)
		}
	})
}

// gramBand adds to the entries of g's rows lo to hi-1 on and above the
// diagonal the products of the nr rows of buf (see addGram): by the
// kernel's blocks of four rows by eight columns, and the rest by
// gramRest.
func gramBand(g []float64, n int, buf []float64, nr, lo, hi int) {
	i := lo
	for ; i+4 <= hi; i += 4 {
		j := i
		for ; j+8 <= n; j += 8 {
			var acc [32]float64
			for a := range 4 {
				copy(acc[a*8:a*8+8], g[(i+a)*n+j:])
			}
			kernel.GramTile(&acc, buf, n, nr, i, j)
			for a := range 4 {
				for b := max(0, i+a-j); b < 8; b++ { // on and above the diagonal
					g[(i+a)*n+j+b] = acc[a*8+b]
				}
			}
		}
		gramRest(g, n, buf, nr, i, i+4, j)
	}
	gramRest(g, n, buf, nr, i, hi, i)
}

// gramRest is gramBand for the columns from on of the rows lo to hi-1,
// by kernel.GramPair's blocks of two rows by four columns.
func gramRest(g []float64, n int, buf []float64, nr, lo, hi, from int) {
	// entry adds the terms of entry (i, j) alone.
	entry := func(i, j int) {
		s := g[i*n+j]
		for r := range nr {
			x := buf[r*n : r*n+n]
			s += x[i] * x[j]
		}
		g[i*n+j] = s
	}
	i := lo
	for ; i+2 <= hi; i += 2 {
		j := max(i, from)
		for ; j+4 <= n; j += 4 {
			g0, g1 := g[i*n+j:i*n+j+4], g[(i+1)*n+j:(i+1)*n+j+4]
			var acc [8]float64
			copy(acc[:4], g0)
			copy(acc[4:], g1)
			kernel.GramPair(&acc, buf, n, nr, i, j)
			copy(g0, acc[:4])
			if j > i { // else (i+1, i) is below the diagonal
				g1[0] = acc[4]
			}
			copy(g1[1:], acc[5:])
		}
		for ; j < n; j++ {
			entry(i, j)
			if j > i {
				entry(i+1, j)
			}
		}
	}
	if i < hi {
		for j := max(i, from); j < n; j++ {
			entry(i, j)
		}
	}
}
