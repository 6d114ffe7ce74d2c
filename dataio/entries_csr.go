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

// LoadEntriesCSR reads the entries of f as compressed rows, sorted by row
// and by column within a row, as scaledsm.NewEntriesCSR takes them, and
// their observations in that order: the arrays scaledsm.NewEntries makes
// of LoadEntries's, checked the same way, but built without holding the
// three files' arrays beside them. The rows are read whole (4 bytes an
// entry while it builds), the columns and the values streamed into place:
// at 10^7 entries of a 100,000 × 100,000 matrix the load peaked at 318 MB
// by LoadEntries and NewEntries, and takes 160 MB so. A duplicate entry is
// a *scaledsm.InputError naming its first two positions in the files.
func LoadEntriesCSR(f EntryFiles) (start []int, cols []int32, y []float64, err error) {
	ra, ca, va, err := f.openAll()
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() { ra.close(); ca.close(); va.close() }()
	rows, err := readIndices(ra, f.N1, "rows")
	if err != nil {
		return nil, nil, nil, err
	}
	start = make([]int, f.N1+1)
	for _, i := range rows {
		start[i+1]++
	}
	for i := range f.N1 {
		start[i+1] += start[i]
	}
	next := slices.Clone(start[:f.N1])
	cols = mem.Make[int32](len(rows))
	err = ca.eachIndex(f.N2, "columns", func(k int, j int32) {
		i := rows[k]
		cols[next[i]] = j
		next[i]++
	})
	if err != nil {
		return nil, nil, nil, err
	}
	copy(next, start[:f.N1])
	y = mem.Make[float64](len(rows))
	err = va.eachFloat(func(k int, v float64) error {
		i := rows[k]
		y[next[i]] = v
		next[i]++
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range f.N1 {
		r := byColumn{cols[start[i]:start[i+1]], y[start[i]:start[i+1]]}
		sort.Sort(r)
		for p := 1; p < len(r.cols); p++ {
			if r.cols[p] == r.cols[p-1] {
				return nil, nil, nil, duplicate(rows, f, int32(i), r.cols[p])
			}
		}
	}
	return start, cols, y, nil
}

// byColumn sorts a row's entries by column, their observations alongside.
type byColumn struct {
	cols []int32
	y    []float64
}

func (b byColumn) Len() int           { return len(b.cols) }
func (b byColumn) Less(p, q int) bool { return b.cols[p] < b.cols[q] }
func (b byColumn) Swap(p, q int) {
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
