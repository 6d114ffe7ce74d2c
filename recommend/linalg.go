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
// chunks nor on the cores: the cores take bands of the triangle's rows,
// whole tiles' rows of about equal numbers of tiles, each filling its own
// chunks, and sum a band's entries in registers (see gramBand).
func addGram(g []float64, n, m, workers int, fill func(buf []float64, r0, r1 int)) {
	if n == 0 || m == 0 {
		return
	}
	if m*n*n < gramAlone {
		workers = 1
	}
	starts := gramBands(n, workers)
	np := (n + 7) &^ 7                       // the rows' stride in a chunk: whole tiles of 8 columns
	chunk := min(m, max(4, (64<<10)/(8*np))) // rows of 64 KiB
	par.Do(workers, workers, func(k int) {
		lo, hi := starts[k], starts[k+1]
		if lo >= hi {
			return
		}
		buf := make([]float64, chunk*np)
		for r0 := 0; r0 < m; r0 += chunk {
			r1 := min(m, r0+chunk)
			fill(buf[:(r1-r0)*n], r0, r1)
			spread(buf, n, np, r1-r0)
			gramBand(g, n, np, buf, r1-r0, lo, hi)
		}
	})
}

// gramBands returns where the workers' bands of the n×n triangle's rows
// start (the last entry n): at tiles' rows (multiples of 4), band k from
// the first whose tiles before it make k/workers of gramBand's tiles.
func gramBands(n, workers int) []int {
	blocks := (n + 3) / 4
	tiles := make([]int, blocks+1) // tiles[b]: gramBand's tiles in the blocks before b
	for b := range blocks {
		tiles[b+1] = tiles[b] + (n-((4*b)&^7)+7)/8 // columns from i &^ 7, as gramBand's
	}
	starts := make([]int, workers+1)
	b := 0
	for k := 1; k < workers; k++ {
		for b < blocks && tiles[b]*workers < k*tiles[blocks] {
			b++
		}
		starts[k] = min(n, 4*b)
	}
	starts[workers] = n
	return starts
}

// gramAlone is the size of a Gram (rows times its entries) below which
// one core makes it: a MovieLens 100k prior's scatter, 1682 rows of 21
// (rank 20), took 123 µs on one core and 165 on two, where waking the
// second cost more than the work it took (a throwaway benchmark).
const gramAlone = 1 << 21

// spread moves the nr rows of n values at the start of buf to rows np
// apart, zeros after each row's values.
func spread(buf []float64, n, np, nr int) {
	if np == n {
		return
	}
	for r := nr - 1; r >= 0; r-- {
		copy(buf[r*np:r*np+n], buf[r*n:r*n+n])
		clear(buf[r*np+n : r*np+np])
	}
}

// gramBand adds to the entries of g's rows lo to hi-1 (lo a multiple of
// 4) on and above the diagonal the products of the nr rows of buf (see
// addGram), np apart, zeros past column n: by the kernel's tiles of four
// rows by eight columns, the tiles on the diagonal and past the last row
// and column computing products that are left out.
func gramBand(g []float64, n, np int, buf []float64, nr, lo, hi int) {
	for i := lo; i < hi; i += 4 {
		rows := min(4, hi-i)
		for j := i &^ 7; j < n; j += 8 {
			var acc [32]float64
			for a := range rows {
				for b := max(0, i+a-j); b < min(8, n-j); b++ {
					acc[a*8+b] = g[(i+a)*n+j+b]
				}
			}
			kernel.GramTile(&acc, buf, np, nr, i, j)
			for a := range rows {
				for b := max(0, i+a-j); b < min(8, n-j); b++ { // on and above the diagonal
					g[(i+a)*n+j+b] = acc[a*8+b]
				}
			}
		}
	}
}
