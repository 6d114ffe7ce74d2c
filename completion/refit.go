package completion

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/dense"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/par"
)

// The robust refit of TrimmedL2 on entries. A small outlier kept while
// the bounds are lenient can be absorbed: the fit bends until its
// residual there is zero, and no bound on residuals drops it again. A
// least-absolute-deviations fit of one row (or column) of the factors with
// the other held sees it at its full size. So once the kept loss has
// fallen by less than refitFall over refitWindow passes, the run refits
// every row of L, then of R, each kept only where it lowers its Σ|y - x|
// without doubling its norm; the refit is on trial for refitLength
// iterations and stays if Σ|y - x| fell and the kept loss still falls
// tenfold over the trial's second half, else the run returns to where it
// was. Once a run, as TrimmedL2.Refit lets it. docs/completion.md ("Issue
// 24's cases off the recipe", "The refit") has the cases and measurements.
const (
	refitWindow = 60
	refitFall   = 0.9
	refitLength = 100
	refitSteps  = 30 // IRLS steps of a row's fit
)

// refitTrial is a refit on trial: the state before it, and what it must
// beat.
type refitTrial struct {
	l, r       *mat.Dense
	rows, cols []float64
	marks      []bool
	trim       trimming
	l1         float64 // Σ|y - x| before the refit
	left       int     // iterations of the trial to go
}

// Refit is when TrimmedL2's robust refit at a stall may run
// (TrimmedL2.Refit): on one process.
type Refit int

const (
	// RefitAuto refits when the run has a truth or no Converger: without
	// a truth, a Converger such as Plateau (DefaultSettings') stops the
	// run at the stall where the refit would start, and the refit's
	// trial would outlast the plateau it breaks.
	RefitAuto Refit = iota
	// RefitAlways refits at a stall, whatever the Converger.
	RefitAlways
	// RefitNever makes no refit.
	RefitNever
)

// refits reports whether a run with the converger c and a truth (or
// without) may refit.
func (l TrimmedL2) refits(c scaledsm.Converger, truth bool) bool {
	switch l.Refit {
	case RefitAlways:
		return true
	case RefitNever:
		return false
	}
	return c == nil || truth
}

// refit makes, judges or undoes the run's robust refit at iteration it,
// the trace so far before it, on the factors f; it reports whether it took
// the iteration's step, when the loss lets it refit (TrimmedL2.Refit).
func (t *trimmer) refit(it scaledsm.Iteration, trace []scaledsm.Iteration, f scaledsm.Factors) bool {
	if !t.refits {
		return false
	}
	e, b := t.op, t.b
	if tr := t.trial; tr != nil {
		if tr.left--; tr.left > 0 {
			return false
		}
		t.trial = nil
		if n := len(trace); it.Loss < 0.1*trace[n-refitLength/2].Loss && e.totalL1(f, t.y) < tr.l1 {
			return false
		}
		f.L.Copy(tr.l)
		f.R.Copy(tr.r)
		copy(b.Rows, tr.rows)
		copy(b.Cols, tr.cols)
		copy(b.marks, tr.marks)
		b.few = nil
		t.trim = tr.trim
		return true
	}
	n := len(trace)
	if t.refitted || n < refitWindow || !(it.Loss > refitFall*trace[n-refitWindow].Loss) {
		return false
	}
	t.refitted = true
	t.trial = &refitTrial{l: mat.DenseCopyOf(f.L), r: mat.DenseCopyOf(f.R),
		rows: append([]float64(nil), b.Rows...), cols: append([]float64(nil), b.Cols...),
		marks: append([]bool(nil), b.marks...), trim: t.trim,
		l1: e.totalL1(f, t.y), left: refitLength}
	b.fewRank, b.observed = f.L.RawMatrix().Cols, e.observedCounts()
	b.grossShare = e.grossShare(f, t.y, grossFactor*b.scale, b.observed)
	e.refitRows(f.L, f.R, t.y, b.scale)
	e.refitCols(f.L, f.R, t.y, b.scale)
	t.trim.last = math.Inf(1)
	return true
}

// totalL1 returns Σ|y - x| over all the observations y at the factors f,
// summed row by row in order.
func (e *Entries) totalL1(f scaledsm.Factors, y obs.Obs) float64 {
	at := e.residualAt(f, y)
	rows := make([]float64, e.n1)
	par.Do(par.TeamSize(len(e.cols)), e.n1, func(i int) {
		var t fsum.Sum
		for k := e.start[i]; k < e.start[i+1]; k++ {
			t.Add(math.Abs(at(i, k)))
		}
		rows[i] = t.Value()
	})
	return fsum.Of(rows)
}

// lad fits x to the least absolute deviations of its rows' observations
// (see irls, whose steps stop once one moves x by at most still of its
// largest value), and keeps the fit if it lowers l1 (Σ|y - x| of those
// observations) without doubling x's norm.
func lad(x []float64, normal func(a, b []float64), l1 func() float64, still float64) {
	old := append([]float64(nil), x...)
	before := l1()
	irls(x, normal, still)
	if !(l1() < before) || dense.Norm(x) > 2*dense.Norm(old) {
		copy(x, old)
	}
}

// irls fits x to the least absolute deviations of its rows' observations
// by iteratively reweighted least squares from x: refitSteps times,
// normal sums the normal equations of the current x, weighted by
// 1/max(|residual|, eps), into a (r×r, upper) and b, and x becomes their
// solution (until they are singular, or a step moves no value of x by
// more than still times x's largest magnitude: with still 0, until x is a
// fixed point, when every later step would give x again).
func irls(x []float64, normal func(a, b []float64), still float64) {
	r := len(x)
	a, b := make([]float64, r*r), make([]float64, r)
	var ch mat.Cholesky
	sol := mat.NewVecDense(r, nil)
	for range refitSteps {
		clear(a)
		clear(b)
		normal(a, b)
		if !ch.Factorize(mat.NewSymDense(r, a)) || ch.SolveVecTo(sol, mat.NewVecDense(r, b)) != nil {
			break
		}
		moved, size := 0.0, 0.0
		for c, v := range sol.RawVector().Data {
			moved, size = max(moved, math.Abs(v-x[c])), max(size, math.Abs(v))
		}
		copy(x, sol.RawVector().Data)
		if moved <= still*size {
			break
		}
	}
}

// refitRows refits each row of l to its observations y with r held (see
// the refit above), the rows in parallel, each on its own.
func (e *Entries) refitRows(l, r *mat.Dense, y obs.Obs, scale float64) {
	lr, rr := l.RawMatrix(), r.RawMatrix()
	k := lr.Cols
	eps := 1e-9 * scale
	par.Do(par.TeamSize(len(e.cols)*k*refitSteps), e.n1, func(i int) {
		lo, hi := e.start[i], e.start[i+1]
		if hi-lo < k {
			return
		}
		li := lr.Data[i*lr.Stride : i*lr.Stride+k]
		row := func(p int) []float64 { j := int(e.cols[p]); return rr.Data[j*rr.Stride : j*rr.Stride+k] }
		l1 := func() float64 {
			var t float64
			for p := lo; p < hi; p++ {
				t += math.Abs(y.At(p) - dense.Dot(li, row(p)))
			}
			return t
		}
		lad(li, func(a, b []float64) {
			for p := lo; p < hi; p++ {
				rj := row(p)
				w := 1 / max(math.Abs(y.At(p)-dense.Dot(li, rj)), eps)
				addNormal(a, b, w, y.At(p), rj)
			}
		}, l1, 0)
	})
}

// refitCols refits each row of r (a column of X) to its observations with
// l held: every IRLS step one pass over the entries in their order, which
// sums every column's normal equations (n2·k² values).
func (e *Entries) refitCols(l, r *mat.Dense, y obs.Obs, scale float64) {
	lr, rr := l.RawMatrix(), r.RawMatrix()
	k, n2 := lr.Cols, e.n2
	eps := 1e-9 * scale
	count := e.observedCounts()[e.n1:]
	old := mat.DenseCopyOf(r)
	resid := func(i, p int) float64 {
		j := int(e.cols[p])
		return y.At(p) - dense.Dot(lr.Data[i*lr.Stride:i*lr.Stride+k], rr.Data[j*rr.Stride:j*rr.Stride+k])
	}
	colL1 := func() []float64 {
		t := make([]float64, n2)
		for i := range e.n1 {
			for p := e.start[i]; p < e.start[i+1]; p++ {
				t[e.cols[p]] += math.Abs(resid(i, p))
			}
		}
		return t
	}
	before := colL1()
	a, b := make([]float64, n2*k*k), make([]float64, n2*k)
	var ch mat.Cholesky
	sol := mat.NewVecDense(k, nil)
	for range refitSteps {
		clear(a)
		clear(b)
		for i := range e.n1 {
			li := lr.Data[i*lr.Stride : i*lr.Stride+k]
			for p := e.start[i]; p < e.start[i+1]; p++ {
				j := int(e.cols[p])
				w := 1 / max(math.Abs(resid(i, p)), eps)
				addNormal(a[j*k*k:(j+1)*k*k], b[j*k:(j+1)*k], w, y.At(p), li)
			}
		}
		for j := range n2 {
			if count[j] < float64(k) || !ch.Factorize(mat.NewSymDense(k, a[j*k*k:(j+1)*k*k])) || ch.SolveVecTo(sol, mat.NewVecDense(k, b[j*k:(j+1)*k])) != nil {
				continue
			}
			copy(rr.Data[j*rr.Stride:j*rr.Stride+k], sol.RawVector().Data)
		}
	}
	after := colL1()
	for j := range n2 {
		rj := rr.Data[j*rr.Stride : j*rr.Stride+k]
		if oj := old.RawRowView(j); !(after[j] < before[j]) || dense.Norm(rj) > 2*dense.Norm(oj) {
			copy(rj, oj)
		}
	}
}

// addNormal adds the weighted observation y ≈ v·x to the normal equations
// a (k×k, upper triangle) and b: b[c] += (w·y)·v[c], a[c,d] += (w·v[c])·v[d].
func addNormal(a, b []float64, w, y float64, v []float64) {
	k := len(v)
	wy := w * y
	for c, vc := range v {
		b[c] += wy * vc
		wc, row := w*vc, a[c*k+c:c*k+k]
		for d, vd := range v[c:] {
			row[d] += wc * vd
		}
	}
}
