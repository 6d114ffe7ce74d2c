package scaledsm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/dense"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
)

// Small dense helpers of the solver and the operators. Those of the
// per-iteration work are cheaper than their gonum counterparts at the
// sizes of an iteration (gonum's Mul starts goroutines for a 100×100
// product, and its Frobenius norm rescales at every element): on quadratic
// sampling at the paper's size they took a quarter of an iteration.

// product sets x = l rᵀ for compact matrices l (n1×k), r (n2×k) and x
// (n1×n2), a row of x at a time: x_i = Σ_c l[i][c] rᵀ_c, the columns in
// increasing order. rt is scratch for k×n2 values.
func product(x, l, r *mat.Dense, rt []float64) {
	n1, k := l.Dims()
	n2, _ := r.Dims()
	rt = rt[:k*n2]
	mat.NewDense(k, n2, rt).Copy(r.T())
	xr := x.RawMatrix()
	for i := range n1 {
		xi := xr.Data[i*xr.Stride : i*xr.Stride+n2]
		clear(xi)
		kernel.AxpyRows(xi, l.RawRowView(i), rt, n2, n2)
	}
}

// rowMajor returns the entries of the r×c matrix x in row-major order,
// without copying when x is already a compact *mat.Dense.
func rowMajor(x mat.Matrix, r, c int) []float64 {
	if d, ok := x.(*mat.Dense); ok {
		raw := d.RawMatrix()
		if raw.Stride == c {
			return raw.Data[:r*c]
		}
	}
	out := make([]float64, r*c)
	for i := range r {
		for j := range c {
			out[i*c+j] = x.At(i, j)
		}
	}
	return out
}

// mulSmall sets d = g s for an n×r matrix g and an r×r matrix s, in
// parallel blocks of rows: each row of d is Σ_l g_il s_l (the rows of s
// added in order), the same bits on any number of cores.
func mulSmall(d, g *mat.Dense, s mat.Matrix) {
	n, r := g.Dims()
	sr := rowMajor(s, r, r)
	gr, dr := g.RawMatrix(), d.RawMatrix()
	const rows = 1024
	par.Do(par.TeamSize(n*r*r), (n+rows-1)/rows, func(b int) {
		for i := b * rows; i < min((b+1)*rows, n); i++ {
			gi, di := gr.Data[i*gr.Stride:i*gr.Stride+r], dr.Data[i*dr.Stride:i*dr.Stride+r]
			// Each element summed in a register, the rows of s in order:
			// the bits of adding them to a zeroed row in memory, in about
			// half its time at r = 10 (4.1 against 1.8 ms at 10^5 rows).
			for c := range di {
				var t float64
				for l, v := range gi {
					t += v * sr[l*r+c]
				}
				di[c] = t
			}
		}
	})
}

// gramTall sets the r×r dst to fᵀf for a tall n×r f: the Gram matrices of
// blocks of 1024 rows formed in parallel and added in block order, the
// same bits on any number of cores. The blocks' sums go in *buf, grown as
// needed and kept for the next call.
func gramTall(dst *mat.SymDense, f *mat.Dense, buf *[]float64) {
	n, r := f.Dims()
	fr := f.RawMatrix()
	const rows = 1024
	nb := (n + rows - 1) / rows
	*buf = dense.Grow(*buf, nb*r*r)
	parts := *buf
	clear(parts)
	par.Do(par.TeamSize(n*r*r), nb, func(b int) {
		acc := parts[b*r*r : (b+1)*r*r]
		for i := b * rows; i < min((b+1)*rows, n); i++ {
			fi := fr.Data[i*fr.Stride : i*fr.Stride+r]
			for a, v := range fi {
				row := acc[a*r+a : (a+1)*r]
				for b, w := range fi[a:] {
					row[b] += v * w
				}
			}
		}
	})
	par.AddPartials(parts[:r*r], parts, nb, r*r)
	for a := range r {
		for b := a; b < r; b++ {
			dst.SetSym(a, b, parts[a*r+b])
		}
	}
}
