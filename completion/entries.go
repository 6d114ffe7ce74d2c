package completion

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/inputerr"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/internal/reduce"
)

// Entries is the entrywise operator of matrix completion and robust PCA,
// A(X) = {X_ij : (i, j) ∈ Ω}, measuring X = L Rᵀ at a set Ω of m observed entries (robust PCA
// observes them all). It holds the positions only, in compressed sparse rows (sorted by row, then
// column; one 32-bit column index, 4 bytes, an entry); the observed values are the Problem's Y
// in the operator's order (NewEntries sorts a list of triplets and returns the values so).
//
// Unlike the Gaussian operators it does not scale by 1/m: a residual is X_ij - y_ij itself, so
// the l1 loss is Σ|X_ij - y_ij|. Its isometry factor is n1·n2/m (see Isometric): A*A = P_Ω, about
// (m/(n1·n2))·I, so L2Squared is (n1·n2/2m)·||P_Ω(X - Y)||², ScaledGD's completion loss, whose
// step 0.5 applies as is. Evaluate makes one pass over the entries on every core, in a number of
// row chunks set by m and n2 only, each with its own rows of GL and a partial GR; the partials
// are added in chunk order, so the bits do not depend on the number of cores.
type Entries struct {
	n1, n2 int
	start  []int                   // entries of row i: start[i] to start[i+1]
	cols   []int32                 // column of each entry
	chunks []int                   // first row of each chunk, and n1
	tiled  *atomic.Pointer[tiling] // the pass's last tiling (see tiles), shared by shards
	total  int                     // the entries of the whole problem, when this is a shard (see Shard)
}

// Entries evaluates batches one run at a time and forms its spectral
// estimate.
var (
	_ scaledsm.SpectralOperator = (*Entries)(nil)
	_ scaledsm.Isometric        = (*Entries)(nil)
)

// NewEntries returns the operator of the entries (rows[k], cols[k]) of an
// n1×n2 matrix, and the values in the operator's order: y[k'] is the value
// of the k'-th entry in row-major order. The entries must lie in the
// matrix and be distinct (a duplicate is an error that names both). It
// sorts in O(m + n1) time by counting, keeping no copy of the input.
func NewEntries(n1, n2 int, rows, cols []int32, values []float64) (*Entries, []float64, error) {
	if err := checkEntryShape(n1, n2); err != nil {
		return nil, nil, err
	}
	m := len(rows)
	switch {
	case len(cols) != m:
		return nil, nil, inputerr.New("cols", nil, "%d column indices for %d row indices", len(cols), m)
	case values != nil && len(values) != m:
		return nil, nil, inputerr.New("values", nil, "%d values for %d entries", len(values), m)
	}
	e := &Entries{n1: n1, n2: n2, start: make([]int, n1+1), cols: make([]int32, m)}
	for k, i := range rows {
		j := cols[k]
		if i < 0 || int(i) >= n1 || j < 0 || int(j) >= n2 {
			return nil, nil, inputerr.New("entries", nil, "entry %d at (%d, %d) lies outside the %d×%d matrix", k, i, j, n1, n2)
		}
		e.start[i+1]++
	}
	for i := range n1 {
		e.start[i+1] += e.start[i]
	}
	// Counting sort by row, stable, then each row by column; the order as
	// int32 where m allows, 4 bytes an entry less at the peak of a load.
	var y []float64
	var err error
	if m <= math.MaxInt32 {
		y, err = sortEntries(e, rows, cols, values, int32(0))
	} else {
		y, err = sortEntries(e, rows, cols, values, 0)
	}
	if err != nil {
		return nil, nil, err
	}
	return e, y, nil
}

// sortEntries fills e's columns from the entries by a counting sort on the
// rows, then a sort of each row by column, and returns the values in that
// order; I is the type of the order's indices.
func sortEntries[I int32 | int](e *Entries, rows, cols []int32, values []float64, _ I) ([]float64, error) {
	m, n1 := len(rows), e.n1
	next := slices.Clone(e.start[:n1])
	order := make([]I, m)
	for k, i := range rows {
		order[next[i]] = I(k)
		next[i]++
	}
	for i := range n1 {
		seg := order[e.start[i]:e.start[i+1]]
		slices.SortFunc(seg, func(a, b I) int { return int(cols[a]) - int(cols[b]) })
		for p, k := range seg {
			e.cols[e.start[i]+p] = cols[k]
			if p > 0 && cols[k] == cols[seg[p-1]] {
				return nil, inputerr.New("entries", nil, "entries %d and %d are both (%d, %d): each entry may be observed once", seg[p-1], k, i, cols[k])
			}
		}
	}
	var y []float64
	if values != nil {
		y = make([]float64, m)
		for p, k := range order {
			y[p] = values[k]
		}
	}
	e.split()
	return y, nil
}

// NewEntriesCSR returns the operator of entries already sorted by row and
// within a row by column: row i holds cols[start[i]:start[i+1]]. It keeps
// start and cols without copying them.
func NewEntriesCSR(n1, n2 int, start []int, cols []int32) (*Entries, error) {
	if err := checkEntryShape(n1, n2); err != nil {
		return nil, err
	}
	if len(start) != n1+1 {
		return nil, inputerr.New("entries", nil, "%d row starts, want %d (one a row and the end)", len(start), n1+1)
	}
	if start[0] != 0 || start[n1] != len(cols) {
		return nil, inputerr.New("entries", nil, "row starts from %d to %d, want from 0 to %d", start[0], start[n1], len(cols))
	}
	for i := range n1 {
		if start[i+1] < start[i] {
			return nil, inputerr.New("entries", nil, "row %d starts after row %d", i, i+1)
		}
		for k := start[i]; k < start[i+1]; k++ {
			j := cols[k]
			if j < 0 || int(j) >= n2 {
				return nil, inputerr.New("entries", nil, "entry (%d, %d) lies outside the %d×%d matrix", i, j, n1, n2)
			}
			if k > start[i] && cols[k-1] >= j {
				return nil, inputerr.New("entries", nil, "the columns of row %d are not increasing at (%d, %d)", i, i, j)
			}
		}
	}
	e := &Entries{n1: n1, n2: n2, start: start, cols: cols}
	e.split()
	return e, nil
}

func checkEntryShape(n1, n2 int) error {
	if n1 < 1 || n2 < 1 {
		return inputerr.New("shape", fmt.Sprintf("%dx%d", n1, n2), "the matrix must have at least one row and one column")
	}
	if n2 > math.MaxInt32 {
		return inputerr.New("shape", fmt.Sprintf("%dx%d", n1, n2), "more than 2^31 columns")
	}
	return nil
}

// split sets the chunks of a pass, each starting at the first row whose
// entries begin at or after its share of m: par.Chunks(m) of them, but no more
// than m/(32·n2) (and at least 4), so that the chunks' partial sums of GR,
// n2·r values each, take at most r/4 bytes an entry: a sparse matrix with
// many columns would otherwise spend more memory on them than on its
// entries.
func (e *Entries) split() {
	m := len(e.cols)
	nc := min(par.Chunks(m), max(4, m/(32*e.n2)))
	e.chunks = make([]int, nc+1)
	e.tiled = new(atomic.Pointer[tiling])
	row := 0
	for c := 1; c < nc; c++ {
		lo, _ := par.ChunkRange(c, nc, m)
		for row < e.n1 && e.start[row] < lo {
			row++
		}
		e.chunks[c] = row
	}
	e.chunks[nc] = e.n1
}

// EvaluatesWithoutZ reports to the solver that the pass may be given no
// residuals' buffer (Evaluation.Z nil): under TrimmedL2, whose state keeps
// the pass's bounds and kept sums, the residuals are needed only when the
// state asks for them (m·8 bytes spared).
func (e *Entries) EvaluatesWithoutZ() bool { return true }

// ReadsY32 reports that the pass reads float32 observations, so that a
// problem may give Problem.Y32.
func (e *Entries) ReadsY32() bool { return true }

// Dims returns m, n1 and n2.
func (e *Entries) Dims() (m, n1, n2 int) { return len(e.cols), e.n1, e.n2 }

// Symmetric returns false: the entries measure X = L Rᵀ.
func (e *Entries) Symmetric() bool { return false }

// Isometry returns n1·n2/m, the inverse of the fraction of entries
// observed.
func (e *Entries) Isometry() float64 {
	return float64(e.n1) * float64(e.n2) / float64(reduce.Whole(len(e.cols), e.total))
}

// Start returns the start of each row's entries, n1+1 of them.
func (e *Entries) Start() []int { return e.start }

// Cols returns the column of each entry, in the operator's order.
func (e *Entries) Cols() []int32 { return e.cols }

// Row returns the rows of the entries, in the operator's order.
func (e *Entries) Row(k int) int {
	i, _ := slices.BinarySearch(e.start, k+1)
	return i - 1
}

// Bytes returns the memory of the positions, in bytes.
func (e *Entries) Bytes() int64 { return 4*int64(len(e.cols)) + 8*int64(len(e.start)) }

// Apply sets dst[k] to x's entry at the k-th position. For Factors it
// forms each entry from the factors' rows, without forming x.
func (e *Entries) Apply(dst []float64, x mat.Matrix) {
	f, ok := x.(scaledsm.Factors)
	if !ok {
		par.Do(par.TeamSize(len(e.cols)), e.n1, func(i int) {
			for k := e.start[i]; k < e.start[i+1]; k++ {
				dst[k] = x.At(i, int(e.cols[k]))
			}
		})
		return
	}
	// Factors.At's compensated products, the next row's rows of R
	// prefetched.
	rr := f.R.RawMatrix()
	_, r := f.L.Dims()
	par.Do(par.TeamSize(len(e.cols)), e.n1, func(i int) {
		if i+1 < e.n1 {
			kernel.PrefetchRows(rr.Data, e.cols[e.start[i+1]:e.start[i+2]], rr.Stride, r)
		}
		li := f.L.RawRowView(i)
		for k := e.start[i]; k < e.start[i+1]; k++ {
			j := int(e.cols[k])
			dst[k] = fsum.Dot(li, rr.Data[j*rr.Stride:j*rr.Stride+r])
		}
	})
}

// Adjoint sets the n1×n2 matrix dst to A*(v): v[k] at the k-th position,
// zero elsewhere.
func (e *Entries) Adjoint(dst *mat.Dense, v []float64) {
	dst.Zero()
	for i := range e.n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			dst.Set(i, int(e.cols[k]), v[k])
		}
	}
}

// Determined returns an error when the entries are fewer than the
// (n1 + n2)·r unknowns of rank-r factors, from which nothing can be
// recovered, and nil otherwise.
func (e *Entries) Determined(r int) error {
	m, n1, n2 := e.Dims()
	if need := (n1 + n2) * r; m < need {
		return fmt.Errorf("%d entries are fewer than the (n1+n2)·r = %d unknowns of a rank-%d %d×%d matrix; nothing can be recovered",
			m, need, r, n1, n2)
	}
	return nil
}

// Shard returns the operator of these entries as a shard of a problem of
// total observed entries, whose isometry factor is n1·n2/total. It shares
// the positions.
func (e *Entries) Shard(total int) (*Entries, error) {
	if err := reduce.CheckShard(len(e.cols), total); err != nil {
		return nil, err
	}
	c := *e
	c.total = total
	return &c, nil
}
