package dataio

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/mem"
)

// CSR are entries as compressed rows, sorted by row and by column within
// a row, as completion.NewEntriesCSR takes them, and their observations in
// that order: Y, or Y32 when the values file holds float32 values (the
// solve is the same to the bit, in 4 bytes an entry less; see
// scaledsm.Problem.Y32).
type CSR struct {
	Start []int
	Cols  []int32
	Y     []float64
	Y32   []float32
}

// LoadEntriesCSR reads the entries of f as compressed rows (CSR): the
// arrays completion.NewEntries makes of LoadEntries's, checked the same way,
// but built without holding the three files' arrays beside them. The rows
// are read whole (4 bytes an entry while it builds), the columns and the
// values streamed into place: at 10^7 entries of a 100,000 × 100,000
// matrix the load peaked at 318 MB by LoadEntries and NewEntries, and
// takes 160 MB so (a test binary calling LoadEntriesCSR alone, under
// /usr/bin/time: 170 MB, and 132 MB with float32 values). A duplicate entry is a
// *scaledsm.InputError naming its first two positions in the files.
func LoadEntriesCSR(f EntryFiles) (CSR, error) {
	ra, ca, va, err := f.openAll()
	if err != nil {
		return CSR{}, err
	}
	defer func() { ra.close(); ca.close(); va.close() }()
	rows, err := readIndices(ra, f.N1, "rows")
	if err != nil {
		return CSR{}, err
	}
	start := make([]int, f.N1+1)
	for _, i := range rows {
		start[i+1]++
	}
	for i := range f.N1 {
		start[i+1] += start[i]
	}
	next := slices.Clone(start[:f.N1])
	cols := mem.Make[int32](len(rows))
	err = ca.eachIndex(f.N2, "columns", func(k int, j int32) {
		i := rows[k]
		cols[next[i]] = j
		next[i]++
	})
	if err != nil {
		return CSR{}, err
	}
	copy(next, start[:f.N1])
	c := CSR{Start: start, Cols: cols}
	if size, _, _ := floatKind(va.h.Dtype); size == 4 {
		c.Y32, err = placeValues[float32](va, rows, next)
	} else {
		c.Y, err = placeValues[float64](va, rows, next)
	}
	if err != nil {
		return CSR{}, err
	}
	for i := range f.N1 {
		lo, hi := start[i], start[i+1]
		if c.Y32 != nil {
			sort.Sort(byColumn[float32]{cols[lo:hi], c.Y32[lo:hi]})
		} else {
			sort.Sort(byColumn[float64]{cols[lo:hi], c.Y[lo:hi]})
		}
		for p := lo + 1; p < hi; p++ {
			if cols[p] == cols[p-1] {
				return CSR{}, duplicate(rows, f, int32(i), cols[p])
			}
		}
	}
	return c, nil
}

// placeValues reads the values of va into the positions of their entries
// in compressed rows, next[i] being the next position of row i.
func placeValues[T Float](va *array, rows []int32, next []int) ([]T, error) {
	y := mem.Make[T](len(rows))
	err := va.eachFloat(func(k int, v float64) error {
		i := rows[k]
		y[next[i]] = T(v)
		next[i]++
		return nil
	})
	return y, err
}

// byColumn sorts a row's entries by column, their observations alongside.
type byColumn[T Float] struct {
	cols []int32
	y    []T
}

func (b byColumn[T]) Len() int           { return len(b.cols) }
func (b byColumn[T]) Less(p, q int) bool { return b.cols[p] < b.cols[q] }
func (b byColumn[T]) Swap(p, q int) {
	b.cols[p], b.cols[q] = b.cols[q], b.cols[p]
	b.y[p], b.y[q] = b.y[q], b.y[p]
}

// duplicate returns the error of the entry (i, j) found twice: the first
// two positions of its row and column in the files, read again.
func duplicate(rows []int32, f EntryFiles, i, j int32) error {
	var at []int
	if ca, err := openIndex("cols", f.Cols); err == nil {
		ca.eachInt(func(k int, v int64) error {
			if rows[k] == i && v == int64(j) {
				if at = append(at, k); len(at) == 2 {
					return io.EOF // found both
				}
			}
			return nil
		})
		ca.close()
	}
	if len(at) < 2 {
		at = []int{-1, -1}
	}
	return &scaledsm.InputError{Input: "entries", Reason: fmt.Sprintf("entries %d and %d are both (%d, %d): each entry may be observed once", at[0], at[1], i, j)}
}

// eachFloat streams the values of a one-dimensional array of floats, in
// file order, to fn with their position, having checked each is finite.
// It stops at fn's first error.
func (a *array) eachFloat(fn func(k int, v float64) error) error {
	size, order, _ := floatKind(a.h.Dtype)
	return a.eachChunk(size, func(off int, b []byte) error {
		for k := range len(b) / size {
			var v float64
			if size == 4 {
				v = float64(math.Float32frombits(order.Uint32(b[4*k:])))
			} else {
				v = math.Float64frombits(order.Uint64(b[8*k:]))
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return a.fail("entry %s is %v", index(off+k, a.h.Shape), v)
			}
			if err := fn(off+k, v); err != nil {
				return err
			}
		}
		return nil
	})
}
