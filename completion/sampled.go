package completion

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/dense"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/inputerr"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/par"
)

// Robust PCA of a fully observed matrix too large for the default's passes
// over an Entries (16 bytes an entry, hundreds of passes, and the polish's
// float64 copy of the entries in each order): a video at full resolution,
// 768 × 576 pixels × 795 frames, is 3.5e8 entries. SolveSampled fits a
// sample of the rows by Solve's default, which finds the low-rank part's
// row space (every row of X* = L* R*ᵀ is a combination of the columns of
// R*, whichever rows are sampled; a video's background frames), then fits
// every row of L to that R by least absolute deviations, and alternates
// the two sides so over the whole matrix (a sweep: the rows of R, then
// those of L, as the polish's ladRows fits them) while Σ|y - x| falls.
// The data stays float32 and is read in place, 4 bytes an entry; a
// column's fit gathers its entries a block of columns at a time.

// Full32 is every entry of an n1 × n2 matrix as float32, row by row:
// robust PCA's data at 4 bytes an entry. SolveSampled samples rows, so the
// rows should be the longer side (a video's pixels, its frames the
// columns).
type Full32 struct {
	N1, N2 int
	Y      []float32
}

// SampledSettings are SolveSampled's; the zero value is the default.
type SampledSettings struct {
	// Budget is the most entries of the sample of rows (every Stride-th
	// row) that Solve fits; 0 is DefaultSampleBudget.
	Budget int
	// Sweeps is the most sweeps of least absolute deviations over the
	// whole matrix after the first fit of L; 0 is DefaultSampledSweeps.
	Sweeps int
	// Progress, when set, is called after each stage.
	Progress func(SampledStage)
}

const (
	// DefaultSampleBudget is SampledSettings.Budget's default: about the
	// size of the 160 × 120 × 300 video that the default solves in 36 s
	// (docs/completion.md).
	DefaultSampleBudget = 4 << 20
	// DefaultSampledSweeps is SampledSettings.Sweeps' default.
	DefaultSampledSweeps = 10
)

// sampledTol is the relative fall of Σ|y - x| below which a sweep is the
// last: on the whole video of docs/video_full.py the six sweeps lowered it
// by 2.2e-5, 2.5e-6, 6.5e-7, 2.6e-7, 1.3e-7 and 7.4e-8 of it (the error
// from 7.6e-4 to 7.5e-4); on the 160 × 120 video sampled at one pixel in
// 8, by 3.7e-6, 3.4e-7, 1.1e-7 and 3.6e-8 in the first four (the error
// from 7.4e-4 to 6.9e-4; two more sweeps, 6.86e-4).
const sampledTol = 1e-7

// minSampleRows is the fewest rows a sample (of fewer rows than the
// matrix) may hold: a sample of a few rows sees each column's entries in a
// few rows only, too few to tell its outliers.
const minSampleRows = 100

// sampledStill is where the least absolute deviations of a row stop (see
// irls): once a step moves its factor row by at most 1e-8 of its largest
// value, below float32's resolution of the data (6e-8). The polish's
// steps run to a fixed point, nearly always their 30 (irls); on the video
// of docs/video_npy.py sampled at every 8th pixel, stopping at 1e-10 or
// 1e-8 gives every stage's error to three digits (7.82e-4 after the rows,
// 6.86e-4 after 6 sweeps, all three) in a sixth of the sweeps' time at
// 1e-8 (0.4 s a sweep against 2.5 s).
const sampledStill = 1e-8

// SampledStage is what SolveSampled reports after a stage: "sample" (the
// sample's fit), "rows" (every row of L fitted to the sample's R), or
// "sweep" (Sweep counts them from 1; Kept says whether it lowered
// Σ|y - x|; see SampledResult.Status for when they stop).
type SampledStage struct {
	Stage       string
	Sweep       int
	Kept        bool
	AbsResidual float64 // Σ|y - x| over every entry (0 for "sample")
	FitFraction float64 // of the entries, fitted to 1e-6 of the median |y|
	Elapsed     time.Duration
	// Factors are the stage's (the sample's for "sample"), to be read,
	// not changed.
	Factors scaledsm.Factors
}

// SampledResult is what SolveSampled returns.
type SampledResult struct {
	scaledsm.Factors
	// Sample is Solve's result on the sample of rows, every Stride-th.
	Sample *Result
	Stride int
	// Sweeps counts the sweeps kept, each of which lowered Σ|y - x|.
	Sweeps int
	// Status is Stationary when the sweeps stopped because the last one
	// lowered Σ|y - x| by sampledTol (1e-7) of it or less (kept), or not
	// at all (not kept); IterationLimit when SampledSettings.Sweeps were
	// made and the last still lowered it by more.
	Status scaledsm.Status
	// AbsResidual is Σ|y - x| over every entry, compensated.
	AbsResidual float64
	// FitFraction is the fraction of the entries that X fits to 1e-6 of
	// the data's scale (their median |y|): on an exactly low-rank matrix with
	// outliers, the fraction of entries that are not outliers.
	FitFraction float64
	Runtime     time.Duration
}

// SolveSampled returns the rank-r robust PCA of m: Solve's default on a
// sample of m's rows, then least absolute deviations over every entry
// (see above). The bits do not depend on the number of cores. It returns
// ctx's error when ctx ends, and the sample's failure when Solve fails.
func SolveSampled(ctx context.Context, m Full32, rank int, s SampledSettings) (*SampledResult, error) {
	t0 := time.Now()
	if err := m.check(rank); err != nil {
		return nil, err
	}
	switch {
	case s.Budget < 0:
		return nil, inputerr.New("budget", s.Budget, "must be positive (0 means %d)", DefaultSampleBudget)
	case s.Sweeps < 0:
		return nil, inputerr.New("sweeps", s.Sweeps, "must be positive (0 means %d)", DefaultSampledSweeps)
	}
	budget, sweeps := cmp.Or(s.Budget, DefaultSampleBudget), cmp.Or(s.Sweeps, DefaultSampledSweeps)
	report := func(st SampledStage) {
		if s.Progress != nil {
			st.Elapsed = time.Since(t0)
			s.Progress(st)
		}
	}
	n1, n2 := m.N1, m.N2
	stride := max(1, (n1*n2+budget-1)/max(1, budget))
	if rows := (n1 + stride - 1) / stride; stride > 1 && rows < minSampleRows {
		return nil, inputerr.New("budget", budget, "a sample of %d entries holds %d of the %d rows (one in %d), fewer than %d: "+
			"the rows should be the longer side (a video's pixels, its frames the columns), or the budget larger", budget, rows, n1, stride, minSampleRows)
	}
	sample, err := m.sample(stride, rank)
	if err != nil {
		return nil, err
	}
	res, err := Solve(ctx, sample, DefaultSettings())
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, fmt.Errorf("the sample of one row in %d: %w", stride, err)
	case res.Status.Failed():
		return nil, fmt.Errorf("the sample of one row in %d: %v", stride, res.Status)
	}
	report(SampledStage{Stage: "sample", Factors: res.Factors})
	out := &SampledResult{Sample: res, Stride: stride, Status: scaledsm.IterationLimit}
	r := mat.DenseCopyOf(res.Factors.R)
	l := mat.NewDense(n1, r.RawMatrix().Cols, nil)
	scale := obs.FitScale(m.Y)
	eps, tol := 1e-9*scale, obs.MissTolerance*scale
	m.ladRows(l, r, eps, true)
	best, fitted := m.absResidual(l, r, tol)
	report(SampledStage{Stage: "rows", AbsResidual: best, FitFraction: fitted, Factors: scaledsm.Factors{L: l, R: r}})
	for sweep := 1; sweep <= sweeps; sweep++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		l1, r1 := mat.DenseCopyOf(l), mat.DenseCopyOf(r)
		m.ladCols(r1, l1, eps)
		m.ladRows(l1, r1, eps, false)
		v, fit := m.absResidual(l1, r1, tol)
		kept := v < best
		report(SampledStage{Stage: "sweep", Sweep: sweep, Kept: kept, AbsResidual: v, FitFraction: fit, Factors: scaledsm.Factors{L: l1, R: r1}})
		if !kept {
			out.Status = scaledsm.Stationary
			break
		}
		still := best-v <= sampledTol*best
		l, r, best, fitted = l1, r1, v, fit
		out.Sweeps++
		if still {
			out.Status = scaledsm.Stationary
			break
		}
	}
	f := scaledsm.Factors{L: l, R: r}
	if bal, ok := f.Truncate(f.Rank()); ok {
		f = bal
	}
	out.Factors, out.AbsResidual, out.FitFraction = f, best, fitted
	out.Runtime = time.Since(t0)
	return out, nil
}

// check returns an *InputError when m's shape, values or the rank are not
// those of a robust PCA.
func (m Full32) check(rank int) error {
	shape := fmt.Sprintf("%dx%d", m.N1, m.N2)
	switch {
	case m.N1 < 1 || m.N2 < 1:
		return inputerr.New("shape", shape, "the matrix must have at least one row and one column")
	case len(m.Y) != m.N1*m.N2:
		return inputerr.New("shape", shape, "%d values for %d entries", len(m.Y), m.N1*m.N2)
	case rank < 1 || rank > min(m.N1, m.N2):
		return inputerr.New("rank", rank, "must lie in [1, %d] for a %s matrix", min(m.N1, m.N2), shape)
	}
	if k := obs.FirstNonFinite(m.Y); k >= 0 {
		return inputerr.New("Y", nil, "entry (%d, %d) is %v", k/m.N2, k%m.N2, m.Y[k])
	}
	return nil
}

// sample returns the rank-r robust PCA of every stride-th row of m (rows
// 0, stride, 2·stride, ...), in float64.
func (m Full32) sample(stride, r int) (scaledsm.Problem, error) {
	n2 := m.N2
	rows := (m.N1 + stride - 1) / stride
	start, cols, y := make([]int, rows+1), make([]int32, rows*n2), make([]float64, rows*n2)
	for i := range rows {
		start[i+1] = (i + 1) * n2
		for j, v := range m.Y[i*stride*n2 : (i*stride+1)*n2] {
			cols[i*n2+j], y[i*n2+j] = int32(j), float64(v)
		}
	}
	op, err := NewEntriesCSR(rows, n2, start, cols)
	if err != nil {
		return scaledsm.Problem{}, err
	}
	return scaledsm.Problem{Op: op, Y: y, Rank: r}, nil
}

// ladRows fits each row of l to the least absolute deviations of its row
// of m by the rows of r (ladRow), from the least-squares fit when first.
func (m Full32) ladRows(l, r *mat.Dense, eps float64, first bool) {
	n2, k := m.N2, l.RawMatrix().Cols
	rr := r.RawMatrix()
	bufs := par.NewPool[[]float64]()
	par.Do(par.TeamSize(len(m.Y)*k*refitSteps), m.N1, func(i int) {
		y := bufs.Get()
		if y == nil {
			y = make([]float64, n2)
		}
		defer bufs.Put(y)
		for j, v := range m.Y[i*n2 : (i+1)*n2] {
			y[j] = float64(v)
		}
		x := l.RawRowView(i)
		if first && !leastSquares(x, y, rr) {
			return
		}
		ladRow(x, y, rr, eps, sampledStill)
	})
}

// ladCols fits each row of r (a column of m) to the least absolute
// deviations of its column by the rows of l (ladRow): the columns a block
// at a time, each block's entries gathered into a buffer column by column
// (a block reads whole cache lines of each row of m), the blocks in
// parallel.
func (m Full32) ladCols(r, l *mat.Dense, eps float64) {
	n1, n2 := m.N1, m.N2
	lr := l.RawMatrix()
	// Up to 16 columns a block, the buffers of every goroutine within
	// 256 MB together.
	block := max(1, min(16, (256<<20)/(8*n1*runtime.GOMAXPROCS(0))))
	blocks := (n2 + block - 1) / block
	bufs := par.NewPool[[]float64]()
	par.Do(par.TeamSize(len(m.Y)*lr.Cols*refitSteps), blocks, func(b int) {
		buf := bufs.Get()
		if buf == nil {
			buf = make([]float64, block*n1)
		}
		defer bufs.Put(buf)
		j0, j1 := b*block, min(n2, (b+1)*block)
		for i := range n1 {
			for c, v := range m.Y[i*n2+j0 : i*n2+j1] {
				buf[c*n1+i] = float64(v)
			}
		}
		for c := range j1 - j0 {
			ladRow(r.RawRowView(j0+c), buf[c*n1:(c+1)*n1], lr, eps, sampledStill)
		}
	})
}

// leastSquares sets x to the least-squares fit of y ≈ o_j·x (o_j row j
// of o), and reports whether its normal equations could be solved (x
// keeps its value otherwise).
func leastSquares(x, y []float64, o blas64.General) bool {
	k := len(x)
	a, b := make([]float64, k*k), make([]float64, k)
	for j, v := range y {
		addNormal(a, b, 1, v, o.Data[j*o.Stride:j*o.Stride+k])
	}
	var ch mat.Cholesky
	sol := mat.NewVecDense(k, nil)
	if !ch.Factorize(mat.NewSymDense(k, a)) || ch.SolveVecTo(sol, mat.NewVecDense(k, b)) != nil {
		return false
	}
	copy(x, sol.RawVector().Data)
	return true
}

// absResidual returns Σ|y - x| over every entry of m at x = l rᵀ,
// compensated, and the fraction of the entries with |y - x| <= tol. The
// rows are summed in chunks of a fixed size and the chunks' sums in their
// order, so that the bits do not depend on the number of cores.
func (m Full32) absResidual(l, r *mat.Dense, tol float64) (float64, float64) {
	const chunk = 256
	n1, n2, k := m.N1, m.N2, l.RawMatrix().Cols
	rr := r.RawMatrix()
	chunks := (n1 + chunk - 1) / chunk
	sums, counts := make([]fsum.Sum, chunks), make([]int, chunks)
	par.Do(par.TeamSize(len(m.Y)*k), chunks, func(c int) {
		var s fsum.Sum
		n := 0
		for i := c * chunk; i < min(n1, (c+1)*chunk); i++ {
			li := l.RawRowView(i)
			for j, v := range m.Y[i*n2 : (i+1)*n2] {
				d := math.Abs(float64(v) - dense.Dot(li, rr.Data[j*rr.Stride:j*rr.Stride+k]))
				s.Add(d)
				if d <= tol {
					n++
				}
			}
		}
		sums[c], counts[c] = s, n
	})
	var s fsum.Sum
	n := 0
	for c := range chunks {
		s.AddParts(sums[c].Parts())
		n += counts[c]
	}
	return s.Value(), float64(n) / float64(len(m.Y))
}
