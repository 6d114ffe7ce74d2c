package dataio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/mem"
	"gonum.org/v1/gonum/mat"
)

// intKind reports the item size, signedness and byte order of an integer
// dtype of any NumPy width ('|i1', '<i2', '<u4', '>i8', ...), or ok =
// false for any other dtype.
func intKind(dtype string) (size int, signed bool, order binary.ByteOrder, ok bool) {
	if len(dtype) != 3 || (dtype[1] != 'i' && dtype[1] != 'u') {
		return 0, false, nil, false
	}
	switch dtype[0] {
	case '<', '|', '=':
		order = binary.LittleEndian
	case '>':
		order = binary.BigEndian
	default:
		return 0, false, nil, false
	}
	switch dtype[2] {
	case '1', '2', '4', '8':
		size = int(dtype[2] - '0')
	default:
		return 0, false, nil, false
	}
	if size > 1 && dtype[0] == '|' {
		return 0, false, nil, false
	}
	return size, dtype[1] == 'i', order, true
}

// intItemSize is the item size of an integer dtype, or the error that
// names what the file holds instead: floats and bools are not indices.
func intItemSize(dtype string) (int, error) {
	if size, _, _, ok := intKind(dtype); ok {
		return size, nil
	}
	d := strings.TrimLeft(dtype, "<>|=")
	switch {
	case strings.HasPrefix(d, "b"):
		return 0, fmt.Errorf("dtype %q (bool): indices must be integers, not a mask", dtype)
	case strings.HasPrefix(d, "f"):
		return 0, fmt.Errorf("dtype %q (float): indices must be integers; convert them, as with a.astype(np.int64) in NumPy", dtype)
	}
	return 0, fmt.Errorf("unsupported dtype %q: indices must be integers (int8 to int64, uint8 to uint64)", dtype)
}

// openIndex opens a .npy file of integers and reads its header.
func openIndex(input, path string) (*array, error) {
	return openTyped(input, path, intItemSize)
}

// eachInt streams the integers of a, in file order, to fn with their flat
// position; a value of an unsigned 64-bit file above MaxInt64 is passed as
// -1, which every caller rejects as negative. It stops at fn's first error.
func (a *array) eachInt(fn func(k int, v int64) error) error {
	size, signed, order, _ := intKind(a.h.Dtype)
	return a.eachChunk(size, func(off int, b []byte) error {
		for k := range len(b) / size {
			var v int64
			switch size {
			case 1:
				v = int64(b[k])
				if signed {
					v = int64(int8(b[k]))
				}
			case 2:
				u := order.Uint16(b[2*k:])
				v = int64(u)
				if signed {
					v = int64(int16(u))
				}
			case 4:
				u := order.Uint32(b[4*k:])
				v = int64(u)
				if signed {
					v = int64(int32(u))
				}
			default:
				u := order.Uint64(b[8*k:])
				v = int64(u)
				if !signed && u > math.MaxInt64 {
					v = -1
				}
			}
			if err := fn(off+k, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// eachChunk streams the data of a, items of size bytes, in file order, to
// fn a chunk at a time with the position of its first item. It stops at
// fn's first error.
func (a *array) eachChunk(size int, fn func(off int, b []byte) error) error {
	n := a.h.Len()
	per := chunkBytes / size
	buf := make([]byte, min(per, n)*size)
	for off := 0; off < n; off += per {
		b := buf[:min(per, n-off)*size]
		if _, err := io.ReadFull(a.f, b); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return a.fail("truncated: the data ends before the %d values its header declares", n)
			}
			return &FileError{Input: a.input, Path: a.path, Err: readError(err)}
		}
		if err := fn(off, b); err != nil {
			return err
		}
	}
	return nil
}

// ReadInts reads the integer array (any NumPy integer dtype, either byte
// order) in the .npy file at path as int64 values in row-major (C) order,
// whatever the file's order, with its shape. Errors are *FileError values
// naming the file; float and bool arrays are refused.
func ReadInts(path string) (data []int64, shape []int, err error) {
	a, err := openIndex("", path)
	if err != nil {
		return nil, nil, err
	}
	defer a.close()
	shape = a.h.Shape
	data = make([]int64, a.h.Len())
	if err := a.eachInt(func(k int, v int64) error { data[k] = v; return nil }); err != nil {
		return nil, nil, err
	}
	if a.h.Fortran && len(shape) == 2 {
		// Column-major (rows, cols): element (i, j) is at j·rows + i.
		c := make([]int64, len(data))
		rows, cols := shape[0], shape[1]
		for j := range cols {
			for i := range rows {
				c[i*cols+j] = data[j*rows+i]
			}
		}
		data = c
	} else if a.h.Fortran && len(shape) > 2 {
		return nil, nil, a.fail("a Fortran-order integer array of %d dimensions; want one or two", len(shape))
	}
	return data, shape, nil
}

// EntryFiles names the .npy files of a matrix given by some of its
// entries, as COO triplets: entry k is at row Rows[k] and column Cols[k]
// of an N1×N2 matrix and holds Values[k].
type EntryFiles struct {
	// Rows and Cols hold the zero-based indices: one-dimensional arrays of
	// any NumPy integer type, of the same length m.
	Rows, Cols string
	// Values holds the observed values: float64 or float32, shape (m,).
	Values string
	N1, N2 int
	// TruthLeft and TruthRight, when known, hold the factors L* (N1×r)
	// and R* (N2×r) of the truth X* = L* R*ᵀ (see ReadTruth).
	TruthLeft, TruthRight string
}

// ReadTruth reads the factors of the truth, each of r columns (r =
// scaledsm.AutoRank: of the rank of TruthLeft's, the same on both sides)
// and of finite values. Errors are *FileError values of the inputs
// "truth-left" and "truth-right".
func (f EntryFiles) ReadTruth(r int) (scaledsm.Factors, error) {
	var t scaledsm.Factors
	for _, c := range []struct {
		input, path string
		n           int
		dst         **mat.Dense
	}{{"truth-left", f.TruthLeft, f.N1, &t.L}, {"truth-right", f.TruthRight, f.N2, &t.R}} {
		data, shape, err := ReadFile(c.path)
		if fe := (*FileError)(nil); errors.As(err, &fe) {
			return t, &FileError{Input: c.input, Path: c.path, Err: fe.Err}
		} else if err != nil {
			return t, err
		}
		if r == scaledsm.AutoRank && len(shape) == 2 && shape[1] >= 1 {
			r = shape[1]
		}
		if len(shape) != 2 || shape[0] != c.n || shape[1] != r {
			return t, &FileError{Input: c.input, Path: c.path, Err: fmt.Errorf("shape %s, want (%d, %d) for the %d×%d matrix of rank %d",
				ShapeString(shape), c.n, r, f.N1, f.N2, r)}
		}
		for i, v := range data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return t, &FileError{Input: c.input, Path: c.path, Err: fmt.Errorf("entry (%d, %d) is %v", i/r, i%r, v)}
			}
		}
		*c.dst = mat.NewDense(c.n, r, data)
	}
	return t, nil
}

// openAll opens the three files and checks their headers: one dimension
// each, the same length, integer indices and float values.
func (f EntryFiles) openAll() (rows, cols, values *array, err error) {
	defer func() {
		if err != nil {
			rows.close()
			cols.close()
			values.close()
			rows, cols, values = nil, nil, nil
		}
	}()
	if f.N1 < 1 || f.N2 < 1 {
		return nil, nil, nil, fmt.Errorf("dataio: matrix shape %d×%d: want at least one row and one column", f.N1, f.N2)
	}
	if rows, err = openIndex("rows", f.Rows); err != nil {
		return
	}
	if cols, err = openIndex("cols", f.Cols); err != nil {
		return
	}
	if values, err = openArray("values", f.Values); err != nil {
		return
	}
	for _, a := range []*array{rows, cols, values} {
		if len(a.h.Shape) != 1 {
			return rows, cols, values, a.fail("shape %s: want one dimension (m,), one entry per element", ShapeString(a.h.Shape))
		}
	}
	m := rows.h.Len()
	for _, a := range []*array{cols, values} {
		if a.h.Len() != m {
			return rows, cols, values, a.fail("%d elements, but %s has %d: the three arrays must have the same length", a.h.Len(), f.Rows, m)
		}
	}
	return rows, cols, values, nil
}

// Size returns the number m of entries, reading the headers only, so that
// a problem too big for the machine can be refused before any data is
// read. Its errors are those of LoadEntries.
func (f EntryFiles) Size() (m int, err error) {
	rows, cols, values, err := f.openAll()
	if err != nil {
		return 0, err
	}
	rows.close()
	cols.close()
	values.close()
	return rows.h.Len(), nil
}

// LoadEntries reads the entries of f: every header is read and checked
// first (one-dimensional arrays of one length, integer indices, float
// values), then the data, each index checked to lie in the matrix and each
// value to be finite. The indices are returned as int32 values (a matrix
// dimension is below 2^31 for completion.NewEntries), the values as float64.
// Errors are *FileError values naming the file and the offending element;
// duplicate entries are for completion.NewEntries to find.
func LoadEntries(f EntryFiles) (rows, cols []int32, values []float64, err error) {
	ra, ca, va, err := f.openAll()
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() { ra.close(); ca.close(); va.close() }()
	if rows, err = readIndices(ra, f.N1, "rows"); err != nil {
		return nil, nil, nil, err
	}
	if cols, err = readIndices(ca, f.N2, "columns"); err != nil {
		return nil, nil, nil, err
	}
	if values, err = va.read(); err != nil {
		return nil, nil, nil, err
	}
	return rows, cols, values, nil
}

// readIndices reads the indices of a, each in [0, n).
func readIndices(a *array, n int, what string) ([]int32, error) {
	idx := mem.Make[int32](a.h.Len())
	err := a.eachIndex(n, what, func(k int, v int32) { idx[k] = v })
	if err != nil {
		return nil, err
	}
	return idx, nil
}

// eachIndex streams the indices of a, each checked to lie in [0, n) (the
// n rows or columns that what names), to fn with their position.
func (a *array) eachIndex(n int, what string, fn func(k int, v int32)) error {
	return a.eachInt(func(k int, v int64) error {
		if v < 0 || v >= int64(n) {
			if v < 0 && a.h.Dtype[1] == 'u' {
				return a.fail("entry [%d] exceeds 2^63, outside the %d %s [0, %d)", k, n, what, n)
			}
			return a.fail("entry [%d] is %d, outside the %d %s [0, %d)", k, v, n, what, n)
		}
		fn(k, int32(v))
		return nil
	})
}

// Masked is a dense matrix read from a .npy file in which NaN marks a
// missing entry: its observed entries in compressed sparse rows, row by
// row and within a row by column (see completion.NewEntriesCSR).
type Masked struct {
	N1, N2  int
	Start   []int     // the observed entries of row i: Start[i] to Start[i+1]
	Cols    []int32   // the column of each observed entry
	Values  []float64 // the value of each observed entry
	Missing int       // the entries that are NaN
}

// MaskedBytes returns the memory, in bytes, that ReadMasked takes for the
// file at path, reading its header only: the dense array as it is read,
// then a column index and a value per entry.
func MaskedBytes(path string) (bytes int64, n1, n2 int, err error) {
	a, err := openMaskedHeader(path)
	if err != nil {
		return 0, 0, 0, err
	}
	a.close()
	n := int64(a.h.Len())
	return 8*n + 12*n + 8*int64(a.h.Shape[0]+1), a.h.Shape[0], a.h.Shape[1], nil
}

func openMaskedHeader(path string) (*array, error) {
	a, err := openFullHeader("masked", path)
	if err != nil {
		return nil, err
	}
	if a.h.Shape[1] > math.MaxInt32 {
		a.close()
		return nil, a.fail("shape %s: more than 2^31 columns", ShapeString(a.h.Shape))
	}
	return a, nil
}

// ReadMasked reads the float32 or float64 matrix in the .npy file at path,
// in either order, and returns its entries that are not NaN. An infinite
// entry is an error naming it.
func ReadMasked(path string) (*Masked, error) {
	a, err := openMaskedHeader(path)
	if err != nil {
		return nil, err
	}
	defer a.close()
	n1, n2 := a.h.Shape[0], a.h.Shape[1]
	dense := mem.Make[float64](a.h.Len())
	if err := ReadData(a.f, a.h, dense); err != nil {
		return nil, &FileError{Input: a.input, Path: a.path, Err: err}
	}
	m := 0
	for k, v := range dense {
		switch {
		case math.IsNaN(v):
		case math.IsInf(v, 0):
			return nil, a.fail("entry %s is %v: want a finite value, or NaN for a missing one", index(k, a.h.Shape), v)
		default:
			m++
		}
	}
	x := &Masked{N1: n1, N2: n2, Start: make([]int, n1+1), Cols: make([]int32, 0, m), Values: make([]float64, 0, m), Missing: len(dense) - m}
	for i := range n1 {
		for j, v := range dense[i*n2 : (i+1)*n2] {
			if !math.IsNaN(v) {
				x.Cols = append(x.Cols, int32(j))
				x.Values = append(x.Values, v)
			}
		}
		x.Start[i+1] = len(x.Cols)
	}
	return x, nil
}

// WriteInt32 writes data as a C-ordered int32 ('<i4') array of the given
// shape.
func WriteInt32(w io.Writer, shape []int, data []int32) error {
	return writeInts(w, "<i4", shape, len(data), func(lo, hi int) []int32 { return data[lo:hi] })
}

// WriteInt32Parts writes n values as WriteInt32 writes them, taking them
// a part at a time as WriteArrayParts does: part(lo, hi) returns the
// values from lo to hi and may reuse its slice from one call to the next
// (values held narrower, widened a part at a time, are never held whole).
func WriteInt32Parts(w io.Writer, shape []int, n int, part func(lo, hi int) []int32) error {
	return writeInts(w, "<i4", shape, n, part)
}

// WriteInt64 writes data as a C-ordered int64 ('<i8') array of the given
// shape.
func WriteInt64(w io.Writer, shape []int, data []int64) error {
	return writeInts(w, "<i8", shape, len(data), func(lo, hi int) []int64 { return data[lo:hi] })
}

// writeInts writes the n values that part gives (see WriteInt32Parts) as
// an array of dtype ('<i4' or '<i8') and shape.
func writeInts[T int32 | int64](w io.Writer, dtype string, shape []int, n int, part func(lo, hi int) []T) error {
	if err := checkShape(shape, n); err != nil {
		return err
	}
	if err := WriteHeader(w, Header{Dtype: dtype, Shape: shape}); err != nil {
		return err
	}
	size := 4
	if dtype == "<i8" {
		size = 8
	}
	per := chunkBytes / size
	buf := make([]byte, 0, min(per, n)*size)
	for off := 0; off < n; off += per {
		hi := min(off+per, n)
		vs := part(off, hi)
		if len(vs) != hi-off {
			return fmt.Errorf("dataio: the part from %d to %d has %d values", off, hi, len(vs))
		}
		for _, v := range vs {
			if size == 4 {
				buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
			} else {
				buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
			}
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
	}
	return nil
}
