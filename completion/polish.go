package completion

import (
	"context"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/dense"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/par"
)

// The polish: a stage of the default on robust PCA (every entry observed,
// TrimmedL2, AutoRidge, one process) when its fit is not exact. Outliers
// in blobs (a pedestrian in a video, a block of a matrix) have faint
// borders that no bound on residuals sees, so the fit bends toward them. A
// round makes three candidates from the factors: polishLAD sweeps of
// least absolute deviations over every entry (ladRows, which sees a blob
// at its full size), and the completions, by alternating least squares,
// of the entries the outlier bounds keep, with their floor and without,
// the marks dilated by one entry. The candidate with the smallest Σ|y - x|
// is kept if it lowers that sum (an outlier adds about its own size to it
// whatever the estimate); up to polishRounds rounds, on the unpenalized
// fit. docs/completion.md ("Blobs: the polish") has what it fixed.
const (
	polishRounds = 3
	polishLAD    = 3
	polishSweeps = 30
	polishStill  = 1e-14
)

// Polish is whether the default's last stage, the polish of a robust PCA
// fit (see Choices.Polished), may run (Settings.Polish).
type Polish int

const (
	// PolishAuto polishes with Settings.Ridge = AutoRidge, TrimmedL2,
	// on an Entries of every entry of the matrix, on one process.
	PolishAuto Polish = iota
	// PolishNever returns the fit as the earlier stages leave it.
	PolishNever
)

// polishes reports whether the polish runs on p under s.
func (s Settings) polishes(p scaledsm.Problem) bool {
	e, ok := p.Op.(*Entries)
	if _, trimmed := s.Loss.(TrimmedL2); !ok || s.Polish != PolishAuto || !trimmed || p.Reducer != nil || e.total != 0 {
		return false
	}
	m, n1, n2 := e.Dims()
	return m == n1*n2
}

// polish returns res polished (see polishRounds), or res when no round
// lowers Σ|y - x|.
func (pl pipeline) polish(ctx context.Context, p scaledsm.Problem, s Settings, res *Result) (*Result, error) {
	if res.FitFraction >= obs.ExactFraction || res.Status == scaledsm.Interrupted || res.Status.Failed() {
		return res, nil // exact (see ExactFraction), or no fit to polish
	}
	t0 := time.Now()
	defer func() { res.PolishRuntime += time.Since(t0) }()
	e := p.Op.(*Entries)
	y := observations(p).Float64s()
	m := newFull(e.n1, e.n2, y)
	f, best := res.Factors, e.absResidual(y, res.Factors)
	scale := obs.FitScale(y) // of the refit's weights
	rounds := 0
	for range polishRounds {
		if ctx.Err() != nil {
			break
		}
		g, l1, err := e.polishRound(m, scale, f)
		if err != nil {
			return nil, err
		}
		if !(l1 < best) {
			break
		}
		f, best = g, l1
		rounds++
	}
	if rounds == 0 {
		return res, nil
	}
	res.Polished = rounds
	if bal, ok := f.Truncate(f.Rank()); ok {
		f = bal
	}
	at, err := pl.evaluateAt(ctx, p, s, f)
	if err != nil {
		return nil, err
	}
	res.Factors = f
	res.RelError, res.Loss = at.RelError, at.Loss
	res.Evidence, res.FitFraction = at.Evidence, at.FitFraction
	res.SingularValues, res.EffectiveRank = at.SingularValues, at.EffectiveRank
	return res, nil
}

// polishFirst finishes AutoRidge on robust PCA from res, an unpenalized
// fit that needs a penalty (see needsPenalty): it polishes res, and
// returns that when the polished fit fits at least ExactFraction of the
// entries to obs.MissTolerance (roughFit); otherwise it returns the penalized
// fit (penalize), polished, as if the first polish had not been made but
// for its time. The validation of the penalty was most of the default's
// time on the real video (64 of 139 s) and bought nothing there:
// polished, the unpenalized fit lands where the penalized one does (6.9e-4
// against 6.8e-4). The phase study's clustered blocks keep 37 cells (84
// runs against 85: two 50×200 runs at p_s 0.2 whose polished unpenalized
// fits fit 80% of the entries yet are 2e-3 from X*, lost; one gained).
func (pl pipeline) polishFirst(ctx context.Context, p scaledsm.Problem, s Settings, res *Result) (*Result, error) {
	first := *res
	pol, err := pl.polish(ctx, p, s, &first)
	if err != nil {
		return nil, err
	}
	if pol.Polished > 0 && p.Op.(*Entries).roughFit(observations(p).Float64s(), pol.Factors) >= obs.ExactFraction || ctx.Err() != nil {
		return pol, nil
	}
	res, err = pl.penalize(ctx, p, s, res)
	if err != nil {
		return nil, err
	}
	res, err = pl.polish(ctx, p, s, res)
	if err != nil {
		return nil, err
	}
	res.PolishRuntime += pol.PolishRuntime
	return res, nil
}

// polishRound returns the best of the round's candidates from f by
// Σ|y - x|, and that sum: least absolute deviations (polishLAD sweeps of
// ladRows over the rows of L and of R, as refitRows and refitCols fit
// them), and the completions of the entries kept by the outlier bounds at
// f, with and without their floor (see outlierBounds), each with its
// marks grown by dilate.
func (e *Entries) polishRound(m full, scale float64, f scaledsm.Factors) (scaledsm.Factors, float64, error) {
	g := scaledsm.Factors{L: mat.DenseCopyOf(f.L), R: mat.DenseCopyOf(f.R)}
	for range polishLAD {
		ladRows(g.L, g.R, m.y, scale)
		ladRows(g.R, g.L, m.yt, scale)
	}
	best, l1 := g, e.absResidual(m.y, g)
	for _, floored := range []bool{true, false} {
		b, err := e.outlierBounds(m.y, f, floored)
		if err != nil {
			return scaledsm.Factors{}, 0, err
		}
		c := m.complete(e.dilate(e.marks(m.y, f, b)), f)
		if v := e.absResidual(m.y, c); v < l1 {
			best, l1 = c, v
		}
	}
	return best, l1, nil
}

// full is a fully observed n1 × n2 matrix's entries in both orders: row
// by row (y, the order of its Entries) and column by column (yt), so that
// the polish's fits of the rows of L and of R both read their entries in
// order.
type full struct {
	n1, n2 int
	y, yt  []float64
}

// newFull returns the full matrix of the entries y, row by row.
func newFull(n1, n2 int, y []float64) full {
	return full{n1: n1, n2: n2, y: y, yt: transposed(y, n1, n2)}
}

// transposed returns the n2 × n1 transpose of the n1 × n2 matrix v, row
// by row.
func transposed[T any](v []T, n1, n2 int) []T {
	t := make([]T, len(v))
	transposeTo(t, n1, v, n1, n2, n2)
	return t
}

// ladRows fits each row of x to the least absolute deviations of its row
// of y (row i is y[i·no : (i+1)·no], no the rows of other) by the rows of
// other, as the robust refit fits a row (lad, irls): the rows in
// parallel, each on its own and its entries in order, so that the bits are
// refitRows' (x = L) and refitCols' (x = R, y transposed) whatever the
// number of cores.
func ladRows(x, other *mat.Dense, y []float64, scale float64) {
	xr, or := x.RawMatrix(), other.RawMatrix()
	k, no := xr.Cols, or.Rows
	if no < k {
		return
	}
	eps := 1e-9 * scale
	par.Do(par.TeamSize(len(y)*k*refitSteps), xr.Rows, func(i int) {
		ladRow(xr.Data[i*xr.Stride:i*xr.Stride+k], y[i*no:(i+1)*no], or, eps, 0)
	})
}

// ladRow fits x to the least absolute deviations of the entries
// y ≈ o_j·x (o_j row j of o) from x, as the robust refit fits a row (lad,
// irls, ladNormal; still as irls has it).
func ladRow(x, y []float64, o blas64.General, eps, still float64) {
	k := len(x)
	lad(x, func(a, b []float64) { ladNormal(a, b, x, y, o, eps) }, func() float64 {
		var t float64
		for j, v := range y {
			t += math.Abs(v - dense.Dot(x, o.Data[j*o.Stride:j*o.Stride+k]))
		}
		return t
	}, still)
}

// evaluateAt returns the result of a run of no iterations from f: its
// error, loss, evidence and singular values.
func (pl pipeline) evaluateAt(ctx context.Context, p scaledsm.Problem, s Settings, f scaledsm.Factors) (*Result, error) {
	s.Init, s.Ridge, s.Converger = &f, 0, stopAtOnce{}
	if l, ok := s.Loss.(TrimmedL2); ok {
		l.Refit = RefitNever
		s.Loss = l
	}
	return pl.evaluate(ctx, p, s.Settings)
}

// stopAtOnce is the Converger of evaluateAt: it stops at the first record.
type stopAtOnce struct{}

func (stopAtOnce) Converged([]scaledsm.Iteration) (scaledsm.Status, bool) {
	return scaledsm.Stationary, true
}

// fitted returns f's value at each of the entries, in their order.
func (e *Entries) fitted(f scaledsm.Factors) []float64 {
	z := make([]float64, len(e.cols))
	e.Apply(z, f)
	return z
}

// absResidual is Σ|y - x| over the entries, compensated.
func (e *Entries) absResidual(y []float64, f scaledsm.Factors) float64 {
	z := e.fitted(f)
	var s fsum.Sum
	for k, v := range y {
		s.Add(math.Abs(v - z[k]))
	}
	return s.Value()
}

// roughFit is the fraction of the entries y that f fits to obs.MissTolerance
// of their scale (see FitScale): polishFirst's test of a recovery, which
// noise far below that (the video plus 1e-7 of its rms) does not fail,
// as FitTolerance's would.
func (e *Entries) roughFit(y []float64, f scaledsm.Factors) float64 {
	z := e.fitted(f)
	tol, n := obs.MissTolerance*obs.FitScale(y), 0
	for k, v := range y {
		if math.Abs(v-z[k]) <= tol {
			n++
		}
	}
	return float64(n) / float64(len(y))
}

// marks returns where the residual of y at f is beyond the bounds b.
func (e *Entries) marks(y []float64, f scaledsm.Factors, b *Bounds) []bool {
	z := e.fitted(f)
	m := make([]bool, len(y))
	for i := range e.n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			m[k] = math.Abs(y[k]-z[k]) > min(b.Rows[i], b.Cols[e.cols[k]])
		}
	}
	return m
}

// dilate returns the marks m of every entry of the matrix grown by one
// entry in each of the four directions.
func (e *Entries) dilate(m []bool) []bool {
	n1, n2 := e.n1, e.n2
	d := make([]bool, len(m))
	for i := range n1 {
		for j := range n2 {
			k := i*n2 + j
			d[k] = m[k] || (j > 0 && m[k-1]) || (j+1 < n2 && m[k+1]) ||
				(i > 0 && m[k-n2]) || (i+1 < n1 && m[k+n2])
		}
	}
	return d
}

// complete returns the factors that alternating least squares reaches from
// f on the entries of m not dropped (drop is row by row): at most
// polishSweeps sweeps, fewer once a sweep moves L by less than
// polishStill of its norm.
func (m full) complete(drop []bool, f scaledsm.Factors) scaledsm.Factors {
	l, r := mat.DenseCopyOf(f.L), mat.DenseCopyOf(f.R)
	drop = underdetermined(drop, m.n1, m.n2, f.Rank())
	dropT := transposed(drop, m.n1, m.n2)
	prev := mat.DenseCopyOf(l)
	for range polishSweeps {
		solveRows(l, r, m.y, drop)
		solveRows(r, l, m.yt, dropT)
		moved := dense.Distance(l, prev)
		if moved <= polishStill*dense.Frobenius(l) {
			break
		}
		prev.Copy(l)
	}
	return scaledsm.Factors{L: l, R: r}
}

// underdetermined returns drop with every entry of a row or column that
// keeps fewer than k entries dropped too (once: what that drops from the
// other side is not counted again): such a row's factor row keeps
// its value, and its entries, fitted by a row that was not fitted to
// them, would pull the other side's rows away from the rest.
func underdetermined(drop []bool, n1, n2, k int) []bool {
	rows, cols := make([]int, n1), make([]int, n2)
	for i := range n1 {
		for j := range n2 {
			if !drop[i*n2+j] {
				rows[i]++
				cols[j]++
			}
		}
	}
	out := slices.Clone(drop)
	for i := range n1 {
		for j := range n2 {
			if rows[i] < k || cols[j] < k {
				out[i*n2+j] = true
			}
		}
	}
	return out
}

// solveRows sets each row of dst to the least-squares fit of its kept
// entries (row i of y is y[i·no : (i+1)·no], no the rows of other; the
// entries drop marks are not kept) by the rows of other; a row with fewer
// kept entries than the rank, or a singular system, keeps its value.
func solveRows(dst, other *mat.Dense, y []float64, drop []bool) {
	n, k := dst.Dims()
	or := other.RawMatrix()
	no := or.Rows
	type buf struct {
		a, b []float64
		sol  *mat.VecDense
	}
	bufs := par.NewPool[*buf]()
	par.Do(par.TeamSize(len(y)*k), n, func(i int) {
		w := bufs.Get()
		if w == nil {
			w = &buf{a: make([]float64, k*k), b: make([]float64, k), sol: mat.NewVecDense(k, nil)}
		}
		defer bufs.Put(w)
		if keptNormal(w.a, w.b, y[i*no:(i+1)*no], drop[i*no:(i+1)*no], or) < k {
			return
		}
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(k, w.a)) || ch.SolveVecTo(w.sol, mat.NewVecDense(k, w.b)) != nil {
			return
		}
		copy(dst.RawRowView(i), w.sol.RawVector().Data)
	})
}

// ladNormal sets a (k×k, upper triangle) and b to the normal equations of
// the entries y ≈ o_j·x (o_j row j of o), each weighted by
// 1/max(|y_j - o_j·x|, eps): a step of irls. The sums are addNormal's,
// in order, to the bit; rank 2 has a loop of its own.
func ladNormal(a, b, x, y []float64, o blas64.General, eps float64) {
	k := len(x)
	clear(a)
	clear(b)
	if k != 2 {
		for j, v := range y {
			oj := o.Data[j*o.Stride : j*o.Stride+k]
			addNormal(a, b, 1/max(math.Abs(v-dense.Dot(x, oj)), eps), v, oj)
		}
		return
	}
	x0, x1 := x[0], x[1]
	var a00, a01, a11, b0, b1 float64
	for j, v := range y {
		oj := o.Data[j*o.Stride : j*o.Stride+2 : j*o.Stride+2]
		o0, o1 := oj[0], oj[1]
		s := 0.0 // dot's sum, from +0
		s += x0 * o0
		s += x1 * o1
		w := 1 / max(math.Abs(v-s), eps)
		wy, w0, w1 := w*v, w*o0, w*o1
		b0 += wy * o0
		b1 += wy * o1
		a00 += w0 * o0
		a01 += w0 * o1
		a11 += w1 * o1
	}
	a[0], a[1], a[3], b[0], b[1] = a00, a01, a11, b0, b1
}

// keptNormal sets a (k×k, upper triangle) and b to the normal equations of
// the entries y ≈ o_j·x that drop does not mark (o_j row j of o), as
// addNormal sums them with weight 1, and returns how many it kept.
func keptNormal(a, b, y []float64, drop []bool, o blas64.General) int {
	k := o.Cols
	clear(a)
	clear(b)
	kept := 0
	if k != 2 {
		for j, v := range y {
			if !drop[j] {
				addNormal(a, b, 1, v, o.Data[j*o.Stride:j*o.Stride+k])
				kept++
			}
		}
		return kept
	}
	var a00, a01, a11, b0, b1 float64
	drop = drop[:len(y)]
	for j, v := range y {
		if drop[j] {
			continue
		}
		oj := o.Data[j*o.Stride : j*o.Stride+2 : j*o.Stride+2]
		o0, o1 := oj[0], oj[1]
		b0 += v * o0
		b1 += v * o1
		a00 += o0 * o0
		a01 += o0 * o1
		a11 += o1 * o1
		kept++
	}
	a[0], a[1], a[3], b[0], b[1] = a00, a01, a11, b0, b1
	return kept
}
