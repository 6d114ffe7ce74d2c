package completion

import (
	"math"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/dense"
	"github.com/scaledsm/scaledsm/internal/obs"
	"gonum.org/v1/gonum/mat"
)

// The gross marks of TrimmedL2, in this file: a row or column found
// corrupted keeps nothing by its own bound (mark, see grossFactor), one
// that keeps too few of its observations after the refit neither
// (markFew), and the mark's second look lifts the marks of honest ones.
//
// The second look: a mark rests on one pass's evidence, which a wholly
// corrupted column needs at once, but a start far from an honest row
// leaves it with residuals as large. Every liftEvery passes each marked
// row or column is fitted on its own to all its observations, the other
// factor held, by least absolute deviations (irls); where more than half
// of them fall within the other side's bounds it is honest, and the mark
// is lifted and the fit kept. On several processes the marks stay.
// docs/completion.md (the default's changes, 6) has the case and the
// alternative it beat.
const liftEvery = 10

// grossFactor is the multiple of the observations' scale (FitScale, the
// median |y_i|) beyond which the mean |z| that TrimmedL2 keeps in a row or
// column marks it gross: from then on its bound is 0, and its entries are
// kept by their other bound alone. A row or column whose kept residuals
// average ten times the data's median is not being fitted: it is a
// corrupted column (or row), whose own mean, taken over the outliers it
// keeps, would otherwise keep them all and bend the fit of every row; or
// an honest one far from the start, which the mark's second look (see
// liftEvery) frees.
// Measured on the phase study's cells (experiment.DefaultPhase, seed 1,
// 100 to 200 rows and columns, κ 1 and 100, p_s 0.05 to 0.2): whole
// corrupted columns recovered in 0 of 24 cells before, 15 to 17 of 24
// with factors 3 to 20 (15 without the mark's staying, 10), the random
// and block outliers' cells and the recipe unchanged; 2 loses cells of
// random and block outliers.
const grossFactor = 10

// trimBounds are TrimmedL2's bounds with the marks that set some of them
// to 0: a pass reads the Bounds alone, rebound sets both.
type trimBounds struct {
	Bounds

	// scale is the data's (FitScale; 0 when not known): grossFactor times
	// it is the mean kept |z| beyond which a row or column is gross, and
	// marks holds those found so, rows then columns.
	scale float64
	marks []bool

	// With fewRank > 0 (set by the refit), few marks the rows and
	// columns that keep too few of their observations (see markFew).
	fewRank    int
	few        []bool
	observed   []float64 // observations of each row, then column
	grossShare []bool    // rows, then columns, most of whose residuals were gross at the refit
}

// zeroed reports whether row or column k (rows first) is marked, its
// bound 0.
func (b *trimBounds) zeroed(k int) bool {
	return b.marks != nil && b.marks[k] || b.few != nil && b.few[k]
}

// lift refits each marked row of l (then each marked column, a row of r)
// to its observations y with the other factor held, and lifts the mark of
// those whose fit brings more than half of their observations within the
// bounds of the other side, keeping the fit; the others keep their mark
// and their factor row. It reports whether it lifted any.
func (e *Entries) lift(b *trimBounds, l, r *mat.Dense, y obs.Obs) bool {
	n1 := e.n1
	k := l.RawMatrix().Cols
	eps := 1e-9 * b.scale
	// Each marked row's and column's observations, as (position, the
	// other side's index).
	type entry struct{ p, other int }
	seen := map[int][]entry{}
	for i := range n1 {
		for p := e.start[i]; p < e.start[i+1]; p++ {
			j := int(e.cols[p])
			if b.marks[i] {
				seen[i] = append(seen[i], entry{p, j})
			}
			if b.marks[n1+j] {
				seen[n1+j] = append(seen[n1+j], entry{p, i})
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
				w := 1 / max(math.Abs(y.At(o.p)-dense.Dot(xr, v)), eps)
				addNormal(a, bb, w, y.At(o.p), v)
			}
		}, 0)
		within := 0
		for _, o := range list {
			if math.Abs(y.At(o.p)-dense.Dot(xr, other.RawRowView(o.other))) <= bounds[o.other] {
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

// mark marks the gross rows or columns, from the sums rs and counts rn of
// the rows' kept |z| and those of the columns, cs and cn: of one of the
// two only, whichever holds the largest mean of those unmarked. A gross
// column's outliers, which its own bound keeps, raise the means of every
// row they cross (a tenth of each row at a tenth of the columns
// corrupted), and would mark honest rows beside them; once the column is
// marked the rows' next means are their own.
func (b *trimBounds) mark(rs, rn, cs, cn []float64) {
	n1 := len(rs)
	if len(b.marks) != n1+len(cs) {
		b.marks = make([]bool, n1+len(cs))
	}
	top := func(s, n []float64, marks []bool) float64 {
		var t float64
		for k := range s {
			if n[k] > 0 && !marks[k] {
				t = max(t, s[k]/n[k])
			}
		}
		return t
	}
	s, n, marks := rs, rn, b.marks[:n1]
	if top(cs, cn, b.marks[n1:]) > top(rs, rn, marks) {
		s, n, marks = cs, cn, b.marks[n1:]
	}
	for k := range s {
		if n[k] > 0 && s[k] > grossFactor*b.scale*n[k] {
			marks[k] = true
		}
	}
}

// markFew marks, from the kept counts of the rows rn and of the columns
// cn, those most of whose residuals were gross at the refit (grossShare)
// that keep at most fewRank of their observations and fewer than
// grossKept of them: whose bound is 0 for as long as they keep so few.
func (b *trimBounds) markFew(rn, cn []float64) {
	n1 := len(rn)
	if len(b.few) != n1+len(cn) {
		b.few = make([]bool, n1+len(cn))
	}
	few := func(k int, n float64) bool {
		return b.grossShare[k] && n <= float64(b.fewRank) && n < grossKept*b.observed[k]
	}
	for i, n := range rn {
		b.few[i] = few(i, n)
	}
	for j, n := range cn {
		b.few[n1+j] = few(n1+j, n)
	}
}

// clearFew sets to zero the rows of l and r (of X's rows, then its
// columns) that markFew marked.
func (b *trimBounds) clearFew(l, r *mat.Dense) {
	n1 := len(b.Rows)
	for k, few := range b.few {
		if !few {
			continue
		}
		if k < n1 {
			clear(l.RawRowView(k))
		} else {
			clear(r.RawRowView(k - n1))
		}
	}
}

// grossShare reports, for each row then each column, whether more than
// half of its residuals at the factors f exceed t in magnitude, of observed
// (observedCounts).
func (e *Entries) grossShare(f scaledsm.Factors, y obs.Obs, t float64, observed []float64) []bool {
	at := e.residualAt(f, y)
	n1 := e.n1
	big := make([]int, n1+e.n2)
	for i := range n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			if math.Abs(at(i, k)) > t {
				big[i]++
				big[n1+int(e.cols[k])]++
			}
		}
	}
	gross := make([]bool, len(big))
	for k, n := range big {
		gross[k] = 2*float64(n) > observed[k]
	}
	return gross
}

// grossKept is the fraction of its observations that a row or column
// must keep not to be marked by markFew. A column of outliers keeps those
// few of its entries that a lenient bound lets in, and with rank r the
// fit can fit r of them in r rows, whose fits they pull; its mean, that
// of what it keeps, is small, and only the number it keeps tells, beside
// most of its residuals being gross. A marked row or column also has its
// factor row cleared (clearFew), since the other direction's bounds can
// still keep what it absorbed. The refit (see refit.go) turns the rule
// on: from the start of a run it also took rows and columns that a poor
// start leaves keeping little; without the gross residuals it took honest
// rows that the refit left keeping few (measurements: docs/completion.md,
// "Where robust PCA succeeds: the phase study", change 5).
const grossKept = 0.25
