package scaledsm

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// The gross mark's second look. TrimmedL2 marks a row or column gross on
// one pass's evidence (see GrossFactor), which a wholly corrupted column
// needs at once: each pass that keeps its outliers bends the fit of every
// row they cross. But a start far from an honest row or column leaves it
// with residuals as large, and the mark then keeps it unfitted for good
// (issue 34: column 4542 of `generate --problem mc --n 10000 --r 10 --p
// 0.01 --kappa 2 --seed 1`, solved with `--ps 0`, averaged 12 times the
// median |y| at the fourth pass, a quarter of that a pass later when not
// marked; marked, the run stopped at 2.6e-2 with its 112 entries unfitted
// and called itself stationary). Every liftEvery passes, each marked row
// or column is fitted on its own to all its observations with the other
// factor held, by least absolute deviations (see irls): where the rest of
// the fit explains it, more than half of its observations within the
// other side's bounds, it is honest, and the mark is lifted and the fit
// kept. A corrupted column's best fit leaves its outliers as they were,
// and it stays marked. (Marking only after four passes of evidence instead
// spared the honest column but lost 6 of the phase study's 60
// whole-column cells, whose corrupted columns then bent the fit for those
// passes.) On several processes, whose observations of a row are spread
// over the ranks, the marks stay.
const liftEvery = 10

// lift gives the marked rows and columns of the run's bounds their second
// look (see liftEvery) at an iteration that makes it, and reports whether
// it lifted any: the iteration's update is then that refit of theirs, which
// it records, and no step.
func (u *run) lift(it Iteration) bool {
	b := u.eval.Bounds
	e, ok := u.p.Op.(*Entries)
	if !ok || b == nil || !slicesAny(b.marks) || u.d.on() || (u.t+1)%liftEvery != 0 {
		return false
	}
	if !e.lift(b, u.l, u.r, u.p.Y) {
		return false
	}
	u.record(it, -1)
	u.t++
	return true
}

// slicesAny reports whether any of v is set.
func slicesAny(v []bool) bool {
	for _, x := range v {
		if x {
			return true
		}
	}
	return false
}

// lift refits each marked row of l (then each marked column, a row of r)
// to its observations y with the other factor held, and lifts the mark of
// those whose fit brings more than half of their observations within the
// bounds of the other side, keeping the fit; the others keep their mark
// and their factor row. It reports whether it lifted any.
func (e *Entries) lift(b *Bounds, l, r *mat.Dense, y []float64) bool {
	n1 := e.n1
	k := l.RawMatrix().Cols
	eps := 1e-9 * b.scale
	// Each marked row's and column's observations, as (position, the
	// other side's index).
	type obs struct{ p, other int }
	seen := map[int][]obs{}
	for i := range n1 {
		for p := e.start[i]; p < e.start[i+1]; p++ {
			j := int(e.cols[p])
			if b.marks[i] {
				seen[i] = append(seen[i], obs{p, j})
			}
			if b.marks[n1+j] {
				seen[n1+j] = append(seen[n1+j], obs{p, i})
			}
		}
	}
	lifted := false
	for idx, marked := range b.marks {
		list := seen[idx]
		if !marked || len(list) < k {
			continue
		}
		x, other, bounds := l, r, b.Cols
		row := idx
		if idx >= n1 {
			x, other, bounds, row = r, l, b.Rows, idx-n1
		}
		xr := x.RawRowView(row)
		old := append([]float64(nil), xr...)
		irls(xr, func(a, bb []float64) {
			for _, o := range list {
				v := other.RawRowView(o.other)
				w := 1 / max(math.Abs(y[o.p]-dot(xr, v)), eps)
				addNormal(a, bb, w, y[o.p], v)
			}
		})
		within := 0
		for _, o := range list {
			if math.Abs(y[o.p]-dot(xr, other.RawRowView(o.other))) <= bounds[o.other] {
				within++
			}
		}
		if 2*within > len(list) {
			b.marks[idx] = false
			lifted = true
		} else {
			copy(xr, old)
		}
	}
	return lifted
}
